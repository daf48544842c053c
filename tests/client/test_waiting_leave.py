"""Leaving a waiting room (q) goes back to the lobby below and keeps the app running: over SSH the lobby is the
player's whole session, so leaving a table must not end it."""

from __future__ import annotations

from nothanks_server import Lobby, LobbySettings
from nothanks_server.inprocess import InProcessLobby
from nothanks_tui.client.netlaunch import NetApp, first_screen_for
from nothanks_tui.client.screens.lobby import LobbyScreen, NewTableScreen
from nothanks_tui.client.screens.waiting import WaitingScreen

from .ui_helpers import wait_until


async def test_q_in_the_waiting_room_goes_back_to_the_lobby_and_the_app_runs_on():
    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=None, seed=1, default_bot="rules"))
    player = InProcessLobby(lobby, "alice")
    await player.start()
    app = NetApp(first_screen_for(player, None))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        lobby_screen = app.screen
        for _ in range(2):  # twice: a table left, then another one made and left from the same lobby
            await pilot.press("c")
            await wait_until(pilot, lambda: isinstance(app.screen, NewTableScreen), "the dialog")
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting room")
            waiting = app.screen
            await wait_until(pilot, lambda w=waiting: w.waiting is not None, "the seats")
            await pilot.press("q")
            await wait_until(pilot, lambda: app.screen is lobby_screen, "back in the lobby")
            for _ in range(5):  # the connection's own Closed arrives after the dismissal: it must not end the app
                await pilot.pause()
            assert app.is_running and app.return_code is None
            assert app.screen is lobby_screen
    lobby.close()
