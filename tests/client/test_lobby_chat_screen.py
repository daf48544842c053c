"""The lobby's chat on screen (issue 29, defect 19): t opens the line (in the key bar where the host offers lobby
chat), a line said there shows in the lobby's chat lines below the table list, for the sayer and for another
player in the lobby, at 80x24; where the host has no lobby chat (an older host, a cluster's front) the key is not
offered."""

from __future__ import annotations

from nothanks_server.inprocess import InProcessLobby
from nothanks_tui.client.netlaunch import NetApp, first_screen_for
from nothanks_tui.client.screens.lobby import LobbyScreen
from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.client.widgets.chat import ChatLines
from nothanks_tui.client.widgets.keybar import KeyBar
from nothanks_tui.link import ChatLine

from ..net_helpers import live_host
from .ui_helpers import lobby_app, wait_until


async def test_a_line_said_in_the_lobby_shows_below_the_table_list_for_everyone_there():
    async with live_host() as host:
        lobby, other = TcpLobby("127.0.0.1", host.port, "bob"), TcpLobby("127.0.0.1", host.port, "ann")
        await lobby.start()
        await other.start()
        heard: list[object] = []
        other.on_chat = heard.append
        app = NetApp(first_screen_for(lobby, None))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            screen = app.screen
            await pilot.pause()
            assert "t Chat" in screen.query_one(KeyBar).render().plain
            await pilot.press("t")
            await wait_until(pilot, lambda: screen.chat_input.has_focus, "the chat line")
            await pilot.press(*"hello [b]all[/b]", "enter")
            chat = screen.query_one(ChatLines)
            await wait_until(pilot, lambda: chat.lines, "the line back from the host")
            assert chat.lines == (ChatLine(name="bob", text="hello [b]all[/b]", lobby=True),)
            await pilot.pause()
            assert "bob" in chat.render().plain and "hello [b]all[/b]" in chat.render().plain  # plain text
            assert chat.region.height >= 3 and screen.query_one("#tables").region.height >= 5  # both fit 80x24
            await wait_until(pilot, lambda: heard, "ann hears it")
            assert heard == [ChatLine(name="bob", text="hello [b]all[/b]", lobby=True)]
            await other.send_chat("hi bob")
            await wait_until(pilot, lambda: len(chat.lines) == 2, "ann's line")
            assert chat.lines[-1] == ChatLine(name="ann", text="hi bob", lobby=True)
        await other.close()
        await lobby.close()


class NoLobbyChat(InProcessLobby):
    """A lobby without chat (as an older host's, or a cluster front's)."""

    can_chat = False


async def test_without_lobby_chat_the_key_is_not_offered_and_no_chat_lines_show():
    lobby, _app = await lobby_app("alice")
    player = NoLobbyChat(lobby, "alice")
    await player.start()
    app = NetApp(first_screen_for(player, None))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.pause()
        assert "Chat" not in app.screen.query_one(KeyBar).render().plain
        assert not app.screen.query_one(ChatLines).display
        await pilot.press("t")
        assert not app.screen.chat_input.display
    lobby.close()
