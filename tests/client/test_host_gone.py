"""The host stops for good: its players go to the start screen's Join tab, one sentence saying why, instead of a
dead lobby ("Cannot list tables"; r, j, h doing nothing) (issue 29, defect 5). Not in an SSH session's app,
whose player may only reach its own host."""

from __future__ import annotations

from textual.widgets import Static, TabbedContent

from nothanks_tui.client.app import NoThanksApp
from nothanks_tui.client.netlaunch import NetApp, first_screen_for
from nothanks_tui.client.screens.dialogs import ClosedScreen
from nothanks_tui.client.screens.lobby import LobbyScreen
from nothanks_tui.client.screens.net_forms import JoinForm
from nothanks_tui.client.screens.start import StartScreen
from nothanks_tui.client.screens.table import TableScreen
from nothanks_tui.client.screens.waiting import WaitingScreen
from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.link import NewTable

from ..net_helpers import live_host
from .ui_helpers import wait_until


def on_the_join_tab(app: NoThanksApp) -> bool:
    screen = app.screen
    if not isinstance(screen, StartScreen) or not screen.is_mounted:
        return False
    active = screen.query_one("#start-modes", TabbedContent).active
    return isinstance(screen.forms[int(active.removeprefix("mode-"))], JoinForm)


async def test_a_stopped_host_sends_its_players_to_the_join_tab_with_a_sentence(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    async with live_host() as host:
        lobby = TcpLobby("127.0.0.1", host.port, "bob")
        await lobby.start()
        app = NetApp(first_screen_for(lobby, None))
        app.may_join_others = True  # (as ``nothanks join`` runs it)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.screen._listed, "the lobby")
            await pilot.press("c")
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting room")
            waiting = app.screen
            await wait_until(pilot, lambda: waiting.waiting is not None, "the seats")
            await pilot.press("b", "b")
            await wait_until(pilot, lambda: waiting.waiting.can_start, "a full table")
            await pilot.press("s")
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
            await host.close("the host was stopped")
            await wait_until(pilot, lambda: isinstance(app.screen, ClosedScreen), "the table closed")
            await pilot.press("q")
            await wait_until(pilot, lambda: on_the_join_tab(app), "the Join tab")
            note = str(app.screen.query_one("#join-note", Static).render())
            assert note == f"The host at 127.0.0.1:{host.port} is gone: the host was stopped."
            assert len(app.screen_stack) == 1 and app.is_running
        await lobby.close()


async def test_in_the_lobby_too_and_never_in_an_app_that_may_not_join_elsewhere(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    for may_join in (True, False):
        await a_host_stops_under_the_lobby(may_join)


async def a_host_stops_under_the_lobby(may_join: bool) -> None:
    async with live_host() as host:
        lobby = TcpLobby("127.0.0.1", host.port, "bob")
        await lobby.start()
        await lobby.create_table(NewTable(players=3))
        app = NetApp(first_screen_for(lobby, None))
        app.may_join_others = may_join
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.screen._listed, "the lobby")
            await host.close("the host was stopped")
            if may_join:
                await wait_until(pilot, lambda: on_the_join_tab(app), "the Join tab")
            else:  # (an SSH session's app: its lobby says why, as before)
                message = app.screen.query_one("#lobby-message", Static)
                await wait_until(pilot, lambda: "Cannot list tables" in str(message.render()), "the lobby's word")
                assert isinstance(app.screen, LobbyScreen)
        await lobby.close()
