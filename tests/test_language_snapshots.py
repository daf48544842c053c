"""SVG snapshots at 80x24 in French and Spanish: the table, the start screen, the scores (with the match
columns), the chart, the help, the replay and the history list, with nothing cut (no "…" where a word should be)
and nothing running over the edge.

French runs about a fifth longer than English: each test also reads the screen's text and checks that no line
was cut. Update after an intended change with ``pytest tests/test_language_snapshots.py --snapshot-update`` and
look at the new SVGs before committing them.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from textual.screen import Screen
from textual.widgets import Input

from nothanks_server.archive import LOCAL
from nothanks_server.history import StoreHistory, history_database
from nothanks_server.store import SqliteStore
from nothanks_tui.client.app import NetApp as HistoryApp
from nothanks_tui.client.app import NoThanksApp
from nothanks_tui.client.screens.dialogs import HelpScreen
from nothanks_tui.client.screens.history import HistoryScreen
from nothanks_tui.client.screens.replay import ReplayScreen
from nothanks_tui.client.screens.score import ChartScreen, ScoreScreen
from nothanks_tui.client.screens.start import StartForm, StartScreen
from nothanks_tui.commands.launchers import LocalLaunchers

from .client.ui_helpers import local_app, my_turn, table_screen, wait_until
from .history.records import finished_record
from .history.test_history_snapshots import FINISHED, four_player_replay
from .test_extras_snapshots import take_to_the_end, two_games

LANGUAGES = ("fr", "es")


def screen_text(app: NoThanksApp) -> list[str]:
    """The terminal's lines as a player reads them."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def mounted(app: NoThanksApp, screen_type: type[Screen[Any]]) -> bool:
    """The app shows a ``screen_type`` that has composed and mounted its widgets (its on_mount has run)."""
    return isinstance(app.screen, screen_type) and app.screen.is_mounted


def focused_in(app: NoThanksApp, form: StartForm) -> bool:
    """The focus is in ``form`` (a start tab), on the field ``ctrl+n`` or the screen's mounting put it on."""
    focused = app.focused
    return focused is not None and form in focused.ancestors


SCROLLBAR = set("▁▂▃▄▅▆▇█")


def assert_nothing_cut(app: NoThanksApp, may_scroll: bool = False) -> None:
    """No line ends in an ellipsis (a cut word), and unless the screen may scroll (the help), no scroll bar: what
    should fit did fit."""
    lines = screen_text(app)
    assert len(lines) == app.size.height
    cut = [line for line in lines if "…" in line and "joue…" not in line and "juega…" not in line]
    assert not cut, cut
    if not may_scroll:
        scrolled = [line for line in lines if line.rstrip() and line.rstrip()[-1] in SCROLLBAR]
        assert not scrolled, scrolled


@pytest.fixture(autouse=True)
def _config(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setenv("LOGNAME", "ana")  # the start screen offers the login name: the same on every machine


@pytest.fixture
def utc(monkeypatch):
    """Dates (the replay's title, the history's column) are the same on every machine."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("language", LANGUAGES)
def test_table_mid_game(snap_compare, language):
    app, _ = local_app(players=4, seed=3, language=language)

    async def play(pilot):
        for key in "ttntttnt":
            await wait_until(pilot, lambda: my_turn(app), "my turn")
            before = table_screen(app).table.view.state_id
            await pilot.press(key)
            await wait_until(pilot, lambda b=before: table_screen(app).table.view.state_id > b, "the move")
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        assert_nothing_cut(app)

    assert snap_compare(app, terminal_size=(80, 24), run_before=play)


@pytest.mark.parametrize("language", LANGUAGES)
def test_table_when_you_must_take(snap_compare, language):
    app, _ = local_app(players=3, seed=0, chips=0, language=language)

    async def ready(pilot):
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        assert_nothing_cut(app)

    assert snap_compare(app, terminal_size=(80, 24), run_before=ready)


@pytest.mark.parametrize("language", LANGUAGES)
def test_score_screen(snap_compare, language):
    app, _ = local_app(players=3, seed=2, language=language)

    async def finish(pilot):
        while not isinstance(app.screen, ScoreScreen):
            await wait_until(pilot, lambda: my_turn(app) or isinstance(app.screen, ScoreScreen), "turn or end")
            if my_turn(app):
                before = table_screen(app).table.view.state_id
                await pilot.press("t")
                await wait_until(pilot, lambda b=before: table_screen(app).table.view.state_id > b, "the take")
        await pilot.pause()
        assert_nothing_cut(app)

    assert snap_compare(app, terminal_size=(80, 24), run_before=finish)


@pytest.mark.parametrize("language", LANGUAGES)
def test_help_screen(snap_compare, language):
    app, _ = local_app(players=4, seed=3, language=language)

    async def open_help(pilot):
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        await pilot.pause()
        assert_nothing_cut(app, may_scroll=True)  # the rules and keys scroll, as in English

    assert snap_compare(app, terminal_size=(80, 24), run_before=open_help)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("tab", [0, 1, 2])
def test_start_screen(snap_compare, language, tab):
    app = NoThanksApp(launchers=LocalLaunchers(bot_pace=0), language=language)

    async def show(pilot):
        # A snapshot's pilot starts before the first screen has composed its widgets (run_test waits for that, a
        # snapshot does not; under load it is seconds later): wait until it is mounted, its fields with it, or the
        # query below misses them and the picture depends on the moment (a cursor blinked off).
        await wait_until(pilot, lambda: mounted(app, StartScreen), "the start screen with its fields")
        for _ in range(tab):
            await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: focused_in(app, app.screen.forms[tab]), "the tab's first field focused")
        fields = list(app.screen.query(Input))
        assert len(fields) == 6  # a name in each tab, the address to listen on, the port, the host's address
        for field in fields:  # a blinking cursor would make the picture depend on the moment
            field.cursor_blink = False
        await pilot.pause()
        assert_nothing_cut(app)

    assert snap_compare(app, terminal_size=(80, 24), run_before=show)


@pytest.mark.parametrize("language", LANGUAGES)
def test_score_screen_with_the_match(snap_compare, language):
    app, _ = local_app(players=5, seed=2, language=language)

    async def match(pilot):
        await two_games(pilot, app)
        assert_nothing_cut(app)

    assert snap_compare(app, terminal_size=(80, 24), run_before=match)


@pytest.mark.parametrize("language", LANGUAGES)
def test_score_chart(snap_compare, language):
    app, _ = local_app(players=4, seed=3, language=language)

    async def chart(pilot):
        await take_to_the_end(pilot, app)
        await wait_until(pilot, lambda: bool(app.screen.query("#score-note")), "the scores")
        await pilot.press("g")
        await wait_until(pilot, lambda: isinstance(app.screen, ChartScreen), "the chart")
        await pilot.pause()
        assert_nothing_cut(app)

    assert snap_compare(app, terminal_size=(80, 24), run_before=chart)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("at_end", [False, True])
@pytest.mark.usefixtures("utc")
def test_replay(snap_compare, language, at_end):
    replay = four_player_replay()
    app = HistoryApp(lambda: ReplayScreen(replay, at_end=at_end), language=language)

    async def step(pilot):
        for _ in range(0 if at_end else 30):
            await pilot.press("n")
        await pilot.pause()
        assert_nothing_cut(app)

    assert snap_compare(app, terminal_size=(80, 24), run_before=step)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.usefixtures("utc")
def test_history_list(snap_compare, language, tmp_path):
    store = SqliteStore(history_database(tmp_path), host=False)
    for number in range(1, 31):
        names = ["you", "ana", "bo"] if number % 2 else ["you", "ana", "bo", "cy", "dee"]
        record = finished_record(names, number, bots=[False] + [True] * (len(names) - 1), finished_at=FINISHED + number)
        store.add_record("local-s", number, record, LOCAL)
    store.close()
    app = HistoryApp(lambda: HistoryScreen(StoreHistory(tmp_path)), language=language)

    async def listed(pilot):
        await wait_until(pilot, lambda: len(getattr(app.screen, "games", ())) == 30, "the games")
        await pilot.pause()
        assert_nothing_cut(app, may_scroll=True)  # thirty games: the list scrolls, as in English

    assert snap_compare(app, terminal_size=(80, 24), run_before=listed)
