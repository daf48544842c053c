"""Playing with people, at the client (issue 17): dialogs, leaving, the host's warnings, keys that are not Esc."""

from __future__ import annotations

from nothanks_tui.client.app import NoThanksApp
from nothanks_tui.client.screens.dialogs import ConfirmQuitScreen
from nothanks_tui.client.screens.score import ScoreScreen
from nothanks_tui.client.screens.table import TableScreen
from nothanks_tui.engine import Action, GameConfig, GameState, apply, new_game, view_for
from nothanks_tui.link import SeatInfo, TableUpdate

from .test_any_connection import ScriptedConnection
from .ui_helpers import table_screen, wait_until

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
