"""Playing with people, at the client (issue 17): dialogs, leaving, the host's warnings, keys that are not Esc."""

from __future__ import annotations

import pytest

from nothanks_tui.client.app import NoThanksApp
from nothanks_tui.client.screens.dialogs import ClosedScreen, ConfirmQuitScreen, HelpScreen
from nothanks_tui.client.screens.lobby import NewTableScreen
from nothanks_tui.client.screens.score import ScoreScreen
from nothanks_tui.client.screens.start import BotGameForm, StartScreen
from nothanks_tui.client.screens.table import TableScreen
from nothanks_tui.client.widgets.keybar import KeyBar
from nothanks_tui.client.widgets.table import FaceUpCard, LatestMove, MoveLog, PrivatePanel, TableStatus
from nothanks_tui.commands.launchers import LocalLaunchers
from nothanks_tui.engine import Action, GameConfig, GameState, apply, new_game, view_for
from nothanks_tui.link import SeatInfo, TableUpdate

from .test_any_connection import ScriptedConnection
from .ui_helpers import local_app, my_turn, table_screen, wait_until

SEATS = (SeatInfo("ana"), SeatInfo("bo"))


def finished_game(seed: int = 1) -> GameState:
    state = new_game(GameConfig(players=2), seed=seed)
    while not state.finished:
        state = apply(state, Action.TAKE)
    return state


def notices(app: NoThanksApp) -> list[str]:
    return [str(notification.message) for notification in app._notifications]


async def test_a_new_game_dealt_by_another_player_closes_the_old_score_dialog():
    connection = ScriptedConnection()
    app = NoThanksApp(connection)
    async with app.run_test(size=(80, 24)) as pilot:
        connection.events.put_nowait(TableUpdate(view_for(finished_game(), 0), SEATS, "t1", can_restart=True))
        await wait_until(pilot, lambda: isinstance(app.screen, ScoreScreen), "the score dialog")
        fresh = new_game(GameConfig(players=2), seed=2)
        connection.events.put_nowait(TableUpdate(view_for(fresh, 0), SEATS, "t1"))
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table again")
        await wait_until(pilot, lambda: not table_screen(app).table.view.finished, "the new deal")
        await wait_until(pilot, lambda: any("Game 2 has started" in text for text in notices(app)), "the notice")


def mid_game_update() -> TableUpdate:
    return TableUpdate(view_for(new_game(GameConfig(players=2), seed=1), 0), SEATS, "t1")


def dialog_text(app: NoThanksApp) -> str:
    return " ".join(str(static.render()) for static in app.screen.query("Static"))


async def test_the_host_is_told_that_leaving_stops_the_game_for_everyone():
    connection = ScriptedConnection()
    app = NoThanksApp(connection, is_host=True)
    async with app.run_test(size=(80, 24)) as pilot:
        connection.events.put_nowait(mid_game_update())
        await wait_until(pilot, lambda: table_screen(app).table is not None, "the table")
        await pilot.press("q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmQuitScreen), "the confirmation")
        assert "ends the game for everyone" in dialog_text(app)
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "back at the table")
        assert not connection.closed


async def test_ctrl_q_asks_first_during_a_game_and_a_second_ctrl_q_quits():
    connection = ScriptedConnection()
    app = NoThanksApp(connection)
    async with app.run_test(size=(80, 24)) as pilot:
        connection.events.put_nowait(mid_game_update())
        await wait_until(pilot, lambda: table_screen(app).table is not None, "the table")
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmQuitScreen), "the confirmation")
        assert "not over" in dialog_text(app)
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "back at the table")
        assert app.is_running and not connection.closed
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmQuitScreen), "the confirmation")
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: app.return_code == 0, "the app to quit")
    assert connection.closed


async def test_ctrl_q_at_a_host_warns_even_after_the_game():
    connection = ScriptedConnection()
    app = NoThanksApp(connection, is_host=True)
    async with app.run_test(size=(80, 24)) as pilot:
        connection.events.put_nowait(TableUpdate(view_for(finished_game(), 0), SEATS, "t1", can_restart=True))
        await wait_until(pilot, lambda: isinstance(app.screen, ScoreScreen), "the scores")
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmQuitScreen), "the confirmation")
        assert "ends the game for everyone" in dialog_text(app)
        await pilot.press("y")
        await wait_until(pilot, lambda: app.return_code == 0, "the app to quit")


def key_bar_text(app: NoThanksApp) -> str:
    bars = app.screen.query(KeyBar)
    return bars.first().render().plain if bars else ""


@pytest.mark.parametrize(
    ("make", "key", "shown"),
    [
        (lambda: HelpScreen(), "q", "q/Esc Close"),
        (lambda: ClosedScreen("the host went away"), "q", "q/Esc Close"),
        (lambda: ConfirmQuitScreen(), "n", "n/Esc No, keep playing"),
        (lambda: NewTableScreen(), "q", "q/Esc Cancel"),
        (
            lambda: ScoreScreen(TableUpdate(view_for(finished_game(), 0), SEATS, "t1")),
            "t",
            "t/Esc See the table",
        ),
    ],
)
async def test_every_dialog_closes_with_a_key_that_is_not_esc_shown_in_its_footer(make, key, shown):
    """GNU screen may hold a lone Esc back for seconds: each dialog also closes with a letter, and says which."""
    app = NoThanksApp(start_forms=[])
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = make()
        app.push_screen(dialog)
        await wait_until(pilot, lambda: app.screen is dialog, "the dialog")
        await wait_until(pilot, lambda: shown in key_bar_text(app), f"{shown!r} in the footer")
        await pilot.press(key)
        await wait_until(pilot, lambda: app.screen is not dialog, "the dialog to close")
        assert app.is_running


async def play_a_few_moves(pilot, app: NoThanksApp, count: int) -> None:
    await wait_until(pilot, lambda: my_turn(app), "my turn")
    while len(table_screen(app).table.view.moves) < count:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        before = table_screen(app).table.view.state_id
        await pilot.press("n" if table_screen(app).table.view.my_chips else "t")
        await wait_until(pilot, lambda b=before: table_screen(app).table.view.state_id > b, "my move")


async def test_a_small_terminal_keeps_the_turn_the_card_your_choices_and_a_one_line_log():
    app, _ = local_app(players=5, seed=3)
    async with app.run_test(size=(60, 20)) as pilot:
        await play_a_few_moves(pilot, app, 6)
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        screen = table_screen(app)
        line = screen.query_one("#log-line", LatestMove)
        assert line.display and line.region.height == 1 and line.region.width > 40
        await wait_until(pilot, lambda: "›" in line.render().plain, "the latest move")
        assert screen.query_one(FaceUpCard).region.height >= 3
        assert "your turn" in screen.query_one(TableStatus).render().plain.lower()
        private = screen.query_one(PrivatePanel)
        assert private.region.bottom <= 19  # above the key bar, inside the screen
        assert "[t]" in private.render().plain and "[n]" in private.render().plain


async def test_a_large_terminal_shows_a_bigger_card_and_more_of_the_log():
    app, _ = local_app(players=4, seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        small_card = table_screen(app).query_one(FaceUpCard).region
        small_log = table_screen(app).query_one("#log", MoveLog).region
        await pilot.resize_terminal(120, 40)
        await wait_until(pilot, lambda: table_screen(app).query_one(FaceUpCard).region != small_card, "a new layout")
        card = table_screen(app).query_one(FaceUpCard).region
        log = table_screen(app).query_one("#log", MoveLog).region
        assert card.height > small_card.height and card.width > small_card.width
        assert log.height >= small_log.height + 6
        assert not table_screen(app).query_one("#log-line", LatestMove).display


async def test_the_start_screen_sits_in_the_middle_of_a_large_terminal():
    app = NoThanksApp(launchers=LocalLaunchers(bot_pace=0))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen")
        await pilot.pause()
        for selector in ("#start-title", "#start-modes"):
            region = app.screen.query_one(selector).region
            left, right = region.x, 120 - region.right
            assert left > 10 and abs(left - right) <= 1, (selector, region)
        assert app.screen.query_one("#start-title").region.y > 3  # not stuck to the top either


async def test_leaving_a_game_started_from_the_start_screen_goes_back_to_it():
    app = NoThanksApp(launchers=LocalLaunchers(bot_pace=0), start_forms=[BotGameForm()])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.table_screen is not None and app.table_screen.table is not None, "table")
        connection = table_screen(app).connection
        await pilot.press("q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmQuitScreen), "the confirmation")
        await pilot.press("y")
        await wait_until(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen again")
        assert app.is_running and connection._closed
        await pilot.press("enter")  # and another game from there
        await wait_until(pilot, lambda: app.table_screen is not None and app.table_screen.table is not None, "table")


async def test_the_name_is_one_name_across_tabs_and_it_and_the_last_choices_are_remembered(tmp_path):
    from textual.widgets import Input, Select

    from nothanks_tui.client.remembered import Remembered

    path = tmp_path / "start.json"
    app = NoThanksApp(launchers=LocalLaunchers(bot_pace=0), remembered=Remembered(path))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen")
        screen = app.screen
        names = lambda: [field.value for field in screen.query("#name").results(Input)]  # noqa: E731
        await wait_until(pilot, lambda: len(names()) == 3 and len(set(names())) == 1, "one name, whichever tab")
        bots = screen.forms[0]
        bots.query_one("#name", Input).value = "zoë"
        await wait_until(pilot, lambda: names() == ["zoë"] * 3, "the name in every tab")
        bots.query_one("#players", Select).value = 5
        bots.query_one("#bot", Select).value = "easy"
        bots.query_one("#variant", Select).value = "tactical"
        await screen.action_start()
        await wait_until(pilot, lambda: app.table_screen is not None, "the table")
    again = NoThanksApp(launchers=LocalLaunchers(bot_pace=0), remembered=Remembered(path))
    async with again.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(again.screen, StartScreen), "the start screen")
        screen = again.screen
        await wait_until(pilot, lambda: screen.forms[0].query_one("#name", Input).value == "zoë", "the name")
        assert [field.value for field in screen.query("#name").results(Input)] == ["zoë"] * 3
        bots = screen.forms[0]
        assert bots.query_one("#players", Select).value == 5
        assert bots.query_one("#bot", Select).value == "easy"
        assert bots.query_one("#variant", Select).value == "tactical"


def many_runs_game() -> GameState:
    """A finished 3-player game where the human (seat 0) takes every card: many runs, a long sum."""
    state = new_game(GameConfig(players=3), seed=5)
    while not state.finished:
        state = apply(state, Action.TAKE if state.to_move == 0 or not state.chips[state.to_move] else Action.PASS)
    return state


def test_the_score_dialog_keeps_every_sum_line_at_80_columns():
    from nothanks_tui.client.screens.score import score_lines
    from nothanks_tui.engine import breakdown

    state = many_runs_game()
    update = TableUpdate(view_for(state, 0), (SeatInfo("you"), SeatInfo("ana"), SeatInfo("bo")), "t1")
    _, body = score_lines(update)
    text = body.plain
    for seat in range(3):
        result = breakdown(state.hands[seat], state.chips[seat])
        if len(result.runs) > 1:
            assert f"= {result.card_total})" in text, (seat, text)
    assert max(len(line) for line in text.splitlines()) <= 76  # inside the 80-column dialog


@pytest.mark.parametrize("language", ["en", "fr", "es"])
async def test_bot_counts_read_as_english_and_every_variant_is_offered_uncut(language):
    from textual.widgets import Select

    from nothanks_tui import i18n
    from nothanks_tui.engine import VARIANTS

    i18n.use_language(language)
    try:
        app = NoThanksApp(start_forms=[])
        async with app.run_test(size=(80, 24)) as pilot:
            dialog = NewTableScreen()
            app.push_screen(dialog)
            await wait_until(pilot, lambda: app.screen is dialog and bool(dialog.query("#variant")), "the dialog")
            await pilot.pause()
            if language == "en":
                labels = [str(prompt) for prompt, _ in dialog.query_one("#bots", Select)._options]
                assert "1 bot" in labels and "1 bots" not in labels
            field = dialog.query_one("#variant", Select)
            offered = {value: str(prompt) for prompt, value in field._options}
            assert list(offered) == list(VARIANTS)
            assert i18n._(VARIANTS["tactical"].label) in offered["tactical"]  # by its name, translated
            for name, prompt in offered.items():
                field.value = name
                await pilot.pause()
                shown = field.query_one("SelectCurrent #label")
                assert shown.region.width >= len(prompt), (name, prompt, shown.region.width)
                assert dialog.query_one("#create").region.bottom <= 24  # the dialog still fits the screen
    finally:
        i18n.use_language("en")


async def test_new_players_meet_medium_bots_and_a_new_table_lets_them_choose_the_level():
    from textual.widgets import Select

    from nothanks_tui.cli import build_parser
    from nothanks_tui.link import NewTable

    assert build_parser().parse_args(["play"]).bot == "medium"
    assert NewTable().bot == "medium"
    choices = [("easy", "a casual player"), ("medium", "a quick search"), ("hard", "searches deeper")]
    app = NoThanksApp(start_forms=[], bot_choices=choices, default_bot="medium")
    async with app.run_test(size=(80, 24)) as pilot:
        chosen: list[NewTable | None] = []
        dialog = NewTableScreen(app.bot_choices, app.default_bot)
        app.push_screen(dialog, chosen.append)
        await wait_until(pilot, lambda: app.screen is dialog and bool(dialog.query("#bot")), "the dialog")
        level = dialog.query_one("#bot", Select)
        assert level.value == "medium"
        assert [str(prompt) for prompt, _ in level._options] == [f"{n}: {d}" for n, d in choices]
        level.value = "hard"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: bool(chosen), "the new table")
        assert chosen[0] is not None and chosen[0].bot == "hard"


async def test_the_host_tab_offers_the_bots_level():
    from textual.widgets import Select

    from nothanks_tui.client.screens.net_forms import HostForm

    app = NoThanksApp(launchers=LocalLaunchers(bot_pace=0), start_forms=[HostForm()])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen")
        await wait_until(pilot, lambda: bool(app.screen.query("#bot")), "the level field")
        assert app.screen.query_one("#bot", Select).value == "medium"


async def test_the_others_are_told_when_a_player_leaves_and_comes_back():
    connection = ScriptedConnection()
    app = NoThanksApp(connection)
    view = view_for(new_game(GameConfig(players=2), seed=1), 0)
    async with app.run_test(size=(80, 24)) as pilot:
        connection.events.put_nowait(TableUpdate(view, SEATS, "t1"))
        await wait_until(pilot, lambda: table_screen(app).table is not None, "the table")
        connection.events.put_nowait(TableUpdate(view, (SEATS[0], SeatInfo("bo", away=True)), "t1"))
        await wait_until(pilot, lambda: any("bo dropped out" in text for text in notices(app)), "dropped out")
        connection.events.put_nowait(TableUpdate(view, SEATS, "t1"))
        await wait_until(pilot, lambda: any("bo is back" in text for text in notices(app)), "back")
        left = SeatInfo("bo", away=True, left=True, stand_in=True)
        connection.events.put_nowait(TableUpdate(view, (SEATS[0], left), "t1"))
        await wait_until(pilot, lambda: any("bo left the game: a bot plays" in text for text in notices(app)), "left")


async def test_leaving_a_hosts_game_says_what_happens_to_the_seat():
    class SeatedConnection(ScriptedConnection):
        @property
        def seat_token(self) -> str | None:
            return "token"

    connection = SeatedConnection()
    app = NoThanksApp(connection)
    async with app.run_test(size=(80, 24)) as pilot:
        connection.events.put_nowait(mid_game_update())
        await wait_until(pilot, lambda: table_screen(app).table is not None, "the table")
        await pilot.press("q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmQuitScreen), "the confirmation")
        text = dialog_text(app)
        assert "a bot plays your seat until you come back" in text and "take it back from the lobby" in text


@pytest.mark.parametrize("language", ["en", "fr", "es"])
async def test_the_new_table_dialog_shows_its_create_button_whole_at_80x24(language):
    """Every field of the dialog (private tables added one more) and its buttons within 24 rows: nothing to scroll."""
    from nothanks_tui import i18n

    choices = [("easy", "a casual player"), ("medium", "a quick search"), ("hard", "searches deeper")]
    i18n.use_language(language)  # (this test's task only: contextvars)
    app = NoThanksApp(start_forms=[], bot_choices=choices, default_bot="medium")
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = NewTableScreen(app.bot_choices, app.default_bot)
        app.push_screen(dialog)
        await wait_until(pilot, lambda: app.screen is dialog and bool(dialog.query("#create")), "the dialog")
        await pilot.pause()
        for button in ("#create", "#cancel", "#private"):
            region = dialog.query_one(button).region
            assert region.height and region.y >= 0 and region.bottom <= 23, (button, region)  # (row 24: keys)
