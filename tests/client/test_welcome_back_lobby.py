"""Over SSH, a player whose key holds a seat goes straight back to it from the name screen; leaving that table must
then bring them to the host's lobby, as leaving any table does, not end their SSH session.

Seen over SSH: after the host restarted, alice came back to her seat by her key, played to the end, pressed q on the
score screen and found herself at her shell: the table had been opened with nothing below it.
"""

from __future__ import annotations

from nothanks_server import Lobby, LobbySettings
from nothanks_server.inprocess import InProcessLobby
from nothanks_tui.client.netlaunch import NetApp
from nothanks_tui.client.screens.lobby import LobbyScreen
from nothanks_tui.client.screens.waiting import WaitingScreen
from nothanks_tui.client.screens.welcome import WelcomeScreen
from nothanks_tui.link import NewTable

from .ui_helpers import wait_until


class HeldSeatDoor:
    """A doorway whose player holds a seat (by a token here, by the key's fingerprint over SSH)."""

    suggested_name = "alice"

    def __init__(self, lobby: Lobby, token: str) -> None:
        self.host = lobby
        self.token = token

    def held_seat(self) -> tuple[str, str]:
        return ("alice", self.token)

    def forget_seat(self) -> None:
        return None

    def lobby(self, name: str) -> InProcessLobby:
        return InProcessLobby(self.host, name)


async def test_leaving_a_seat_taken_back_from_the_name_screen_goes_to_the_lobby():
    host = Lobby(LobbySettings(bot_delay=0, turn_timer=None, seed=5))
    try:
        first = InProcessLobby(host, "alice")
        await first.start()
        table = await first.create_table(NewTable(players=3, bots=1))
        token = table.seat_token
        assert token is not None
        app = NetApp(lambda: WelcomeScreen(HeldSeatDoor(host, token)))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, WaitingScreen), "back at the table")
            [lobby] = [screen for screen in app.screen_stack if isinstance(screen, LobbyScreen)]
            await wait_until(pilot, lambda: lobby._refresh_timer is not None, "the lobby mounted")
            assert lobby._refresh_timer is not None and not lobby._refresh_timer._active.is_set()  # (no refreshes)
            await pilot.press("q")  # leave the table
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) or not app.is_running, "the lobby")
            assert app.is_running and isinstance(app.screen, LobbyScreen)
    finally:
        host.close()
