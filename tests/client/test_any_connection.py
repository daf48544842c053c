"""The app works through any ``TableConnection``: a scripted one stands in for a host (spectators, refusals, loss)."""

from __future__ import annotations

import asyncio
import dataclasses

from nothanks_tui.client.app import NoThanksApp
from nothanks_tui.client.screens.dialogs import ClosedScreen, ConfirmQuitScreen
from nothanks_tui.client.widgets.table import PlayersPanel, PrivatePanel, TableStatus
from nothanks_tui.engine import Action, GameConfig, apply, new_game, spectator_view, view_for
from nothanks_tui.link import (
    Closed,
    ConnectionInfo,
    Rejected,
    SeatInfo,
    TableConnection,
    TableEvent,
    TableUpdate,
)

from .ui_helpers import table_screen, wait_until


class ScriptedConnection(TableConnection):
    """Hands the app the events a test puts in, and records what the app sends."""

    def __init__(self) -> None:
        self.info = ConnectionInfo("scripted host")
        self.events: asyncio.Queue[TableEvent | Exception] = asyncio.Queue()
        self.sent: list[tuple[Action, int]] = []
        self.closed = False

    async def start(self) -> None:
        return None

    async def next_event(self) -> TableEvent:
        event = await self.events.get()
        if isinstance(event, Exception):
            raise event
        return event

    async def send_action(self, action: Action, state_id: int) -> None:
        self.sent.append((action, state_id))

    async def play_again(self) -> None:
        return None

    async def close(self) -> None:
        self.closed = True


SEATS = (SeatInfo("ana"), SeatInfo("bo", is_bot=True), SeatInfo("cy", away=True))


async def test_a_spectator_sees_the_table_but_has_no_play_keys():
    connection = ScriptedConnection()
    state = new_game(GameConfig(players=3), seed=1)
    app = NoThanksApp(connection)
    async with app.run_test(size=(80, 24)) as pilot:
        connection.events.put_nowait(TableUpdate(spectator_view(state), SEATS, "t1"))
        await wait_until(pilot, lambda: app.table_screen is not None and app.table_screen.table is not None, "view")
        screen = table_screen(app)
        assert screen.check_action("play", ("take",)) is False
        assert screen.check_action("play", ("pass",)) is False
        assert not screen.check_action("bell", (False,)) and not screen.check_action("bell", (True,))  # no turn
        await pilot.press("t")
        await wait_until(pilot, lambda: any("watching" in str(n.message) for n in app._notifications), "notice")
        assert connection.sent == []
        players = screen.query_one(PlayersPanel).render().plain
        assert "(away)" in players and players.count("?") == 3  # nobody's chips are shown to a spectator
        await pilot.press("q")  # a spectator has nothing to lose: no "Leave this game?"
        await wait_until(pilot, lambda: connection.closed, "the connection closed")
        assert not any(isinstance(s, ConfirmQuitScreen) for s in app.screen_stack)


async def test_keys_send_intents_with_the_state_id_they_were_pressed_in_and_refusals_are_shown():
    connection = ScriptedConnection()
    state = new_game(GameConfig(players=3), seed=1)
    state = apply(state, Action.PASS) if state.to_move != 0 else state
    while state.to_move != 0:
        state = apply(state, Action.PASS)
    app = NoThanksApp(connection)
    async with app.run_test(size=(80, 24)) as pilot:
        connection.events.put_nowait(TableUpdate(view_for(state, 0), SEATS, "t1"))
        await wait_until(pilot, lambda: app.table_screen is not None and app.table_screen.table is not None, "view")
        await pilot.press("t")
        await wait_until(pilot, lambda: bool(connection.sent), "the intent")
        assert connection.sent == [(Action.TAKE, state.state_id)]
        # A code this client knows: its own sentence, whatever the host wrote (in the host's words, or hostile).
        connection.events.put_nowait(Rejected("not_your_turn", "it is \x1b[31mbo's[/] turn"))
        await wait_until(pilot, lambda: any("turn" in str(n.message) for n in app._notifications), "the refusal")
        shown = [str(n.message) for n in app._notifications]
        assert "It is not your turn yet." in shown and not any("bo's" in text for text in shown)
        # A code it does not know (a newer host): the host's message, cleaned.
        connection.events.put_nowait(Rejected("some_new_code", "it is \x1b[31mbo's[/] move"))
        await wait_until(pilot, lambda: any("move" in str(n.message) for n in app._notifications), "the refusal")
        shown = [str(n.message) for n in app._notifications]
        assert any("bo's[/] move" in text and "\x1b" not in text for text in shown)


async def test_the_play_keys_follow_the_codes_the_view_carries_not_a_rule_of_the_clients_own():
    """A host's view says what may be played and why not; the screen shows exactly that. Here the view (made up,
    so that no rule could give it) refuses "No thanks!" with ``no_chips`` to a seat that holds chips, then allows
    both moves to a seat whose turn it is not: keys, notices and the private panel follow the view each time."""
    connection = ScriptedConnection()
    state = new_game(GameConfig(players=3), seed=1)
    while state.to_move != 0:
        state = apply(state, Action.PASS)
    mine = view_for(state, 0)
    assert mine.my_chips and mine.legal == (Action.TAKE, Action.PASS)
    told_no_chips = dataclasses.replace(mine, legal=(Action.TAKE,), refused=((Action.PASS, "no_chips"),))
    app = NoThanksApp(connection)
    async with app.run_test(size=(80, 24)) as pilot:
        connection.events.put_nowait(TableUpdate(told_no_chips, SEATS, "t1"))
        await wait_until(pilot, lambda: app.table_screen is not None and app.table_screen.table is not None, "view")
        screen = table_screen(app)
        assert screen.check_action("play", ("take",)) is True
        assert screen.check_action("play", ("pass",)) is None  # greyed
        assert "impossible with no chips" in screen.query_one(PrivatePanel).render().plain
        assert "no chips, you must take" in screen.query_one(TableStatus).render().plain
        await pilot.press("n")
        await wait_until(pilot, lambda: any("no chips" in str(n.message) for n in app._notifications), "notice")
        assert connection.sent == []

        theirs = view_for(state, 1)
        assert theirs.refusal(Action.TAKE) == "not_your_turn"
        told_go_ahead = dataclasses.replace(theirs, legal=(Action.TAKE, Action.PASS), refused=())
        connection.events.put_nowait(TableUpdate(told_go_ahead, SEATS, "t1"))
        await wait_until(pilot, lambda: screen.table is not None and screen.table.view.seat == 1, "the new view")
        assert screen.check_action("play", ("take",)) is True
        assert screen.check_action("play", ("pass",)) is True
        await pilot.press("n")
        await wait_until(pilot, lambda: bool(connection.sent), "the intent")
        assert connection.sent == [(Action.PASS, state.state_id)]


async def test_a_lost_connection_says_why_and_leaves():
    connection = ScriptedConnection()
    app = NoThanksApp(connection)
    async with app.run_test(size=(80, 24)) as pilot:
        connection.events.put_nowait(ConnectionResetError("host went away"))
        await wait_until(pilot, lambda: isinstance(app.screen, ClosedScreen), "the closed notice")
        assert "host went away" in app.screen.reason
        await pilot.press("q")
        await wait_until(pilot, lambda: app.return_code == 0, "exit")


async def test_a_closed_table_says_why():
    connection = ScriptedConnection()
    app = NoThanksApp(connection)
    async with app.run_test(size=(80, 24)) as pilot:
        connection.events.put_nowait(Closed("the host shut down"))
        await wait_until(pilot, lambda: isinstance(app.screen, ClosedScreen), "the closed notice")
        assert app.screen.reason == "the host shut down"


async def test_leaving_a_table_opened_from_another_screen_goes_back_to_it():
    from textual.screen import Screen

    from nothanks_tui.client.screens.dialogs import ConfirmQuitScreen
    from nothanks_tui.client.screens.table import TableScreen

    class LobbyStandIn(Screen[None]):
        pass

    connection = ScriptedConnection()
    state = new_game(GameConfig(players=3), seed=1)
    app = NoThanksApp(start_forms=[])
    async with app.run_test(size=(80, 24)) as pilot:
        lobby = LobbyStandIn()
        await app.switch_screen(lobby)
        await app.push_screen(TableScreen(connection))
        connection.events.put_nowait(TableUpdate(view_for(state, 0), SEATS, "t1"))
        await wait_until(pilot, lambda: app.table_screen is not None and app.table_screen.table is not None, "view")
        await pilot.press("q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmQuitScreen), "the confirmation")
        await pilot.press("y")
        await wait_until(pilot, lambda: app.screen is lobby, "back at the lobby")
        assert connection.closed
        assert app.return_code is None  # still running
