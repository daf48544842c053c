"""A lobby whose host has gone says so and leaves: it stayed open on the last list it had ("t1 ... 2 seats free"),
every refresh saying "Cannot list tables: the host is shutting down", Enter and c doing nothing, until q."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from nothanks_server import Lobby, LobbySettings
from nothanks_server.inprocess import InProcessLobby
from nothanks_tui.client.netlaunch import NetApp, first_screen_for
from nothanks_tui.client.screens.dialogs import ClosedScreen
from nothanks_tui.client.screens.lobby import LobbyScreen
from nothanks_tui.link import LobbyError, errors

from ..test_net_screens import wait_for_screen
from .ui_helpers import wait_until


class HostGoing(InProcessLobby):
    """The host's lobby, until ``gone``: then every request is refused as a host that shuts down refuses it."""

    gone: str | None = None  # the code the host's (or the closed connection's) refusal has

    async def list_tables(self):  # type: ignore[no-untyped-def]
        if self.gone is not None:
            raise LobbyError(self.gone, "the host is shutting down")
        return await super().list_tables()


@pytest.mark.parametrize("code", [errors.SERVER_CLOSING, errors.CLOSED])
async def test_a_lobby_whose_host_shuts_down_says_so_and_a_key_leaves(code):
    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=None, seed=1))
    viewer = HostGoing(lobby, "vic")
    await viewer.start()
    app = NetApp(first_screen_for(viewer, None))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_for_screen(app, pilot, LobbyScreen)
        await screen.refresh_tables().wait()
        viewer.gone = code
        await screen.refresh_tables().wait()
        await wait_until(pilot, lambda: isinstance(app.screen, ClosedScreen), "told the host is gone")
        await wait_until(pilot, lambda: len(app.screen.query(Static)) == 2, "its words")
        said = " ".join(str(getattr(widget.render(), "plain", "")) for widget in app.screen.query(Static))
        assert "The host closed the connection" in said and "shutting down" in said, said
        await pilot.press("q")
        await wait_until(pilot, lambda: not app.is_running, "the app closed")
    lobby.close()
