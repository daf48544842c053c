"""The your-turn bell, the coach key, the running match on the score screen and the score chart, by keys through
Pilot at a local table (the host's Table in-process)."""

from __future__ import annotations

import json
import threading

from nothanks_server.inprocess import SoloGame, solo_table
from nothanks_tui.bots import make_bot
from nothanks_tui.client.app import NoThanksApp
from nothanks_tui.client.remembered import Remembered
from nothanks_tui.client.screens.score import ChartScreen, ScoreScreen
from nothanks_tui.client.widgets.keybar import KeyBar
from nothanks_tui.client.widgets.score_chart import MARKERS, ScoreChart
from nothanks_tui.client.widgets.table import PrivatePanel
from nothanks_tui.commands.launchers import LocalLaunchers
from nothanks_tui.engine import Action
from nothanks_tui.link.events import CoachAdvice

from .ui_helpers import my_turn, table_screen, wait_until


def app_at(players: int = 2, seed: int = 3, chips: int | None = None, coach: bool = True, remembered=None):
    game = SoloGame(players=players, bot="rules", seed=seed, bot_pace=0, chips_per_player=chips, coach=coach)
    connection = solo_table(game, [make_bot("rules", seed + n) for n in range(players - 1)])
    return NoThanksApp(connection, launchers=LocalLaunchers(bot_pace=0), remembered=remembered)


def count_bells(app: NoThanksApp) -> list[int]:
    rung = [0]

    def bell() -> None:
        rung[0] += 1

    app.bell = bell  # type: ignore[method-assign]
    return rung


def state_id(app: NoThanksApp) -> int:
    return table_screen(app).table.view.state_id


async def test_the_bell_rings_once_when_it_becomes_your_turn_and_not_again_while_it_stays_yours():
    app = app_at()
    rung = count_bells(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        assert rung[0] == 1
        before = state_id(app)
        await pilot.press("t")  # a take: the next card is yours to decide at once
        await wait_until(pilot, lambda: state_id(app) > before and my_turn(app), "my turn again")
        assert rung[0] == 1
        before = state_id(app)
        await pilot.press("n")  # the bot plays, then it is yours again
        await wait_until(pilot, lambda: state_id(app) > before + 1 and my_turn(app), "my turn after the bot's")
        assert rung[0] == 2


async def test_l_turns_the_bell_off_and_it_is_remembered(tmp_path):
    path = tmp_path / "start.json"
    app = app_at(remembered=Remembered(path))
    rung = count_bells(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        assert rung[0] == 1
        bar = table_screen(app).query_one(KeyBar)
        assert "Mute bell" in bar.render().plain and "Unmute bell" not in bar.render().plain
        await pilot.press("l")
        assert app.bell_on is False
        await wait_until(pilot, lambda: "Unmute bell" in bar.render().plain, "the key saying the bell is off")
        assert json.loads(path.read_text())["preferences"]["bell"] is False and Remembered(path).bell is False
        before = state_id(app)
        await pilot.press("n")
        await wait_until(pilot, lambda: state_id(app) > before + 1 and my_turn(app), "my turn after the bot's")
        assert rung[0] == 1
        await pilot.press("l")
        assert app.bell_on is True and Remembered(path).bell is True
        await wait_until(pilot, lambda: "Unmute bell" not in bar.render().plain, "the key saying the bell is on")
        assert "Mute bell" in bar.render().plain
    assert NoThanksApp(remembered=Remembered(path)).bell_on is True


def choice_lines(app) -> list[str]:
    return [line.plain for line in table_screen(app).query_one(PrivatePanel).draw_lines() if line.plain.startswith("[")]


async def test_i_shows_what_the_hard_bot_would_play_after_each_choice_until_the_position_changes():
    app = app_at(players=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        await pilot.press("i")
        await wait_until(pilot, lambda: table_screen(app).advice is not None, "the advice")
        advice = table_screen(app).advice
        take, pass_ = choice_lines(app)
        chosen, other = (take, pass_) if advice.action == "take" else (pass_, take)
        assert "◀ coach: ≈" in chosen and "final" in chosen and "coach" not in other and "final" in other
        assert not [n for n in app._notifications if "Take: expected" in str(n.message)]  # no toast over the choices
        # Every choice line, with its mark, fits the 80 columns of the panel.
        assert all(len(line) <= 78 for line in (take, pass_))
        before = state_id(app)
        await pilot.press("n" if my_turn(app) else "t")
        await wait_until(pilot, lambda: state_id(app) > before, "the move")
        assert not any("final" in line for line in choice_lines(app))  # the answer was for the position now gone


async def test_on_a_narrow_screen_a_long_take_line_keeps_its_score_and_the_coachs_mark():
    app = app_at(players=3, seed=8)
    async with app.run_test(size=(60, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        screen = table_screen(app)
        view = screen.table.view
        screen.advice = CoachAdvice(view.state_id, "take", 52.0, 57.0)
        await pilot.pause()
        take, pass_ = choice_lines(app)
        width = screen.query_one(PrivatePanel).content_region.width
        assert len(take) <= width and len(pass_) <= width
        assert take.startswith(f"[t] Take {view.card} → score ") and take.endswith("◀ coach: ≈52 final")
        assert pass_.endswith("≈57 final")
    async with app_at(players=3, seed=8).run_test(size=(80, 24)) as pilot:
        other = pilot.app
        await wait_until(pilot, lambda: my_turn(other), "my turn")
        table_screen(other).advice = CoachAdvice(table_screen(other).table.view.state_id, "take", 52.0, 57.0)
        await pilot.pause()
        wide_take, _ = choice_lines(other)
        assert "chips → score " in wide_take and wide_take.endswith("◀ coach: ≈52 final")


class HeldBot:
    """A bot that thinks until told to move: the turn stays its own as long as the test needs."""

    name = "held"

    def __init__(self) -> None:
        self.go = threading.Event()

    def choose(self, view: object) -> Action:
        self.go.wait(30)
        return Action.TAKE


async def test_i_before_your_turn_is_greyed_and_says_when_the_coach_answers():
    bot = HeldBot()
    connection = solo_table(SoloGame(players=2, seed=3, bot_pace=0), [bot])
    app = NoThanksApp(connection, launchers=LocalLaunchers(bot_pace=0))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: table_screen(app).table is not None, "the table")
            if my_turn(app):
                before = state_id(app)
                await pilot.press("n")
                await wait_until(pilot, lambda: state_id(app) > before, "my pass")
            screen = table_screen(app)
            assert not my_turn(app) and screen.check_action("coach", ()) is None  # greyed, not hidden
            await pilot.press("i")
            await wait_until(pilot, lambda: any("on your turn" in str(n.message) for n in app._notifications), "note")
    finally:
        bot.go.set()


async def test_no_coach_key_where_the_table_does_not_allow_it():
    app = app_at(players=3, coach=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        screen = table_screen(app)
        assert screen.check_action("coach", ()) is False
        assert "coach" not in {binding.action for _, binding, _, _ in screen.active_bindings.values()}
        await pilot.press("i")
        await pilot.pause()
        assert not any("Coach" in str(n.title) for n in app._notifications)


def games_shown(app: NoThanksApp) -> int:
    screen = app.screen
    match = screen.table.match if isinstance(screen, ScoreScreen) else None
    return 0 if match is None else match.games


async def play_out(pilot, app: NoThanksApp) -> None:
    """Take whenever it is my turn until the score screen shows."""
    while not isinstance(app.screen, ScoreScreen):
        await wait_until(pilot, lambda: my_turn(app) or isinstance(app.screen, ScoreScreen), "my turn or the end")
        if not isinstance(app.screen, ScoreScreen):
            before = state_id(app)
            await pilot.press("t")
            await wait_until(pilot, lambda b=before: state_id(app) > b or isinstance(app.screen, ScoreScreen), "take")
    await wait_until(pilot, lambda: bool(app.screen.query("#score-table")), "the scores drawn")


async def test_the_score_screen_shows_the_match_from_the_second_game_and_g_opens_the_chart():
    app = app_at(players=3, chips=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await play_out(pilot, app)
        first = app.screen.query_one("#score-table").render().plain
        assert "Match" not in first  # one game: no match yet
        await pilot.press("a")  # (with no chips, a bot that starts takes every card: the game may be over at once)
        await wait_until(pilot, lambda: not isinstance(app.screen, ScoreScreen) or games_shown(app) == 2, "game 2")
        await play_out(pilot, app)
        await wait_until(pilot, lambda: games_shown(app) == 2, "the scores of game 2")
        screen = app.screen
        assert isinstance(screen, ScoreScreen)
        table = screen.query_one("#score-table").render().plain
        assert "Won" in table and "Match" in table
        assert "Match: 2 games." in screen.query_one("#score-note").render().plain
        match = screen.table.match
        assert match is not None and match.games == 2 and sum(match.wins) >= 2
        await pilot.press("g")
        await wait_until(pilot, lambda: isinstance(app.screen, ChartScreen), "the chart")
        chart = app.screen.query_one(ScoreChart)
        assert len(chart.timeline) == 24 and chart.timeline[-1] == tuple(screen.table.timeline[-1])
        await pilot.pause()
        drawn = chart.render().plain
        below = app.screen.query_one("#chart-legend")
        assert below.region.y >= chart.region.bottom  # the legend under the plot, not over its lines
        for label, marker in zip(chart.labels, MARKERS):
            assert f"{marker} {label}" in str(below.render())  # each line's marker beside its player's name
            assert f"{marker} {label}" not in drawn
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ScoreScreen), "back to the scores")
