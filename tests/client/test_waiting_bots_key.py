"""Only the table's creator adds bots in the waiting room: a player who joined is not offered ``b`` (the host
would refuse it), and is told who adds them; the creator still is (issue 29, defect 8)."""

from __future__ import annotations

from nothanks_server import Lobby, LobbySettings
from nothanks_server.inprocess import InProcessLobby
from nothanks_tui.client.netlaunch import NetApp, first_screen_for
from nothanks_tui.client.screens.lobby import LobbyScreen
from nothanks_tui.client.screens.waiting import WaitingScreen
from nothanks_tui.client.widgets.keybar import KeyBar
from nothanks_tui.link import NewTable

from .ui_helpers import lobby_app, open_new_table_dialog, wait_until


def keys_shown(screen: WaitingScreen) -> str:
    return str(screen.query_one(KeyBar).render())


async def test_a_player_who_joined_is_not_offered_to_add_a_bot():
    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=None, seed=1, default_bot="rules"))
    alice = InProcessLobby(lobby, "alice")
    await alice.start()
    created = await alice.create_table(NewTable(players=3, bots=0))
    bob = InProcessLobby(lobby, "bob")
    await bob.start()
    app = NetApp(first_screen_for(bob, None))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        lobby_screen = app.screen
        await wait_until(pilot, lambda: bool(lobby_screen.summaries), "the table listed")
        await pilot.press("j")
        await wait_until(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting room")
        waiting = app.screen
        await wait_until(pilot, lambda: waiting.waiting is not None, "the seats")
        await pilot.pause()
        assert waiting.check_action("add_bot", ()) is False
        assert "Add a bot" not in keys_shown(waiting)
        message = str(waiting.query_one("#waiting-message").render())
        assert "press b" not in message and "the table's creator adds bots" in message
    await created.close()
    await bob.close()
    await alice.close()
    lobby.close()


async def test_the_creator_is_offered_to_add_a_bot():
    lobby, app = await lobby_app("alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_new_table_dialog(pilot, app)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting room")
        waiting = app.screen
        await wait_until(pilot, lambda: waiting.waiting is not None, "the seats")
        await pilot.pause()
        assert waiting.check_action("add_bot", ()) is True
        assert "Add a bot" in keys_shown(waiting)
        assert "press b to add a bot" in str(waiting.query_one("#waiting-message").render())
    lobby.close()
