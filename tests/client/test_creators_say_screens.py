"""The creator's say on screen (issue 29): x then a seat's number removes a player in the waiting room (only the
creator is offered it; the removed player is back in the lobby, told why in their language); a private table's
code shows to its players (on the table during the game too), the new-table dialog makes one, and i in the lobby
sits there with it. And the lobby's leftovers: the host's own lobby has chat, m mutes it, a table's turn clock is on
its lobby line."""

from __future__ import annotations

import pytest

from nothanks_server import Lobby, LobbySettings
from nothanks_server.inprocess import InProcessLobby
from nothanks_tui.client.netlaunch import NetApp, first_screen_for
from nothanks_tui.client.screens.lobby import InviteScreen, LobbyScreen
from nothanks_tui.client.screens.table import TableScreen
from nothanks_tui.client.screens.waiting import WaitingScreen
from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.client.widgets.chat import ChatLines
from nothanks_tui.client.widgets.forms import TickBox
from nothanks_tui.client.widgets.keybar import KeyBar
from nothanks_tui.client.widgets.table import TableStatus
from nothanks_tui.link import ChatLine, Closed, NewTable, TableWaiting
from nothanks_tui.link.invites import invite_code

from ..net_helpers import live_host
from ..test_host_table import lobby_player, next_matching
from .ui_helpers import lobby_app, open_new_table_dialog, wait_until


def keys_shown(app: NetApp) -> str:
    return app.screen.query_one(KeyBar).render().plain


async def test_the_creator_removes_a_player_with_x_and_their_seat_number():
    lobby, app = await lobby_app("alice")
    bob = await lobby_player(lobby, "bob")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_new_table_dialog(pilot, app)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting room")
        waiting = app.screen
        assert waiting.check_action("remove", ()) is False  # nobody to remove yet
        seat = await bob.join(lobby.all_tables()[0].table_id)
        await wait_until(pilot, lambda: waiting.waiting is not None and not waiting.waiting.seats[1].empty, "bob")
        await pilot.pause()
        assert "x Remove" in keys_shown(app)
        await pilot.press("x", "2")
        closed = await next_matching(seat, lambda event: isinstance(event, Closed))
        assert closed.reason == "the table's creator removed you from the table"
        await wait_until(pilot, lambda: waiting.waiting.removed_players == ("bob",), "the seat freed")
        await pilot.pause()
        assert "Removed by the table's creator: bob" in waiting.query_one("#waiting-seats").render().plain
    await bob.close()
    lobby.close()


async def test_a_removed_player_is_back_in_the_lobby_told_why_in_their_language_and_not_offered_x():
    lobby, app = await lobby_app("bob")
    app = NetApp(app._first_screen, language="fr")
    alice = await lobby_player(lobby, "alice")
    created = await alice.create_table(NewTable(players=3))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and bool(app.screen.summaries), "a table")
        lobby_screen = app.screen
        await pilot.press("j")
        await wait_until(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting room")
        waiting = app.screen
        await wait_until(pilot, lambda: waiting.waiting is not None, "the seats")
        await pilot.pause()
        assert waiting.check_action("remove", ()) is False and "Retirer" not in keys_shown(app)
        await created.remove(1)
        await wait_until(pilot, lambda: app.screen is lobby_screen, "back in the lobby")
        await pilot.pause()
        assert "le créateur de la table vous en a retiré" in lobby_screen.query_one("#lobby-message").render().plain
        await pilot.press("j")  # the same table again: refused until its deal, in French
        await wait_until(pilot, lambda: "retiré" in lobby_screen.query_one("#lobby-message").render().plain, "no")
        assert app.screen is lobby_screen
    await created.close()
    lobby.close()


async def test_the_dialog_makes_a_private_table_whose_code_its_creator_sees_and_i_sits_there_with_it():
    lobby, app = await lobby_app("alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_new_table_dialog(pilot, app)
        app.screen.query_one("#private", TickBox).value = True
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting room")
        waiting = app.screen
        await wait_until(pilot, lambda: waiting.waiting is not None and waiting.waiting.invite, "the code")
        code = waiting.waiting.invite
        await pilot.pause()
        seats = waiting.query_one("#waiting-seats").render().plain
        assert "Private table: others join with the invite code " + code in seats
    bob = InProcessLobby(lobby, "bob")
    await bob.start()
    assert await bob.list_tables() == []  # not listed
    app = NetApp(first_screen_for(bob, None))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        assert "i Code" in keys_shown(app)
        await pilot.press("i")
        await wait_until(pilot, lambda: isinstance(app.screen, InviteScreen), "the code's dialog")
        await pilot.press(*"1-nope", "enter")  # a wrong code: refused with its sentence
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "back in the lobby")
        message = app.screen.query_one("#lobby-message")
        await wait_until(pilot, lambda: "private" in message.render().plain, "the refusal")
        await pilot.press("i")
        await wait_until(pilot, lambda: isinstance(app.screen, InviteScreen), "the code's dialog")
        await pilot.press(*code.lower(), "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, WaitingScreen), "at the private table")
        await wait_until(pilot, lambda: app.screen.waiting is not None, "the seats")
        assert app.screen.waiting.my_seat == 1 and app.screen.waiting.invite == code  # (its players see it too)
    lobby.close()


async def test_the_hosts_own_lobby_has_chat_and_m_mutes_it():
    lobby, app = await lobby_app("host")
    ann = await lobby_player(lobby, "ann")
    heard: list[object] = []
    ann.on_chat = heard.append
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        screen = app.screen
        await pilot.pause()
        assert "t Chat" in keys_shown(app) and screen.query_one(ChatLines).display
        await pilot.press("t", *"hi all", "enter")
        chat = screen.query_one(ChatLines)
        await wait_until(pilot, lambda: chat.lines, "the line back")
        assert chat.lines == (ChatLine(name="host", text="hi all", lobby=True),) and heard == list(chat.lines)
        await ann.send_chat("hello host")
        await wait_until(pilot, lambda: len(chat.lines) == 2, "ann's line")
        await pilot.press("m")
        await pilot.pause()
        assert chat.muted and app.chat_muted and "hello host" not in chat.render().plain
        await pilot.press("m")
        await pilot.pause()
        assert not chat.muted and "hello host" in chat.render().plain
    await ann.close()
    lobby.close()


async def test_m_mutes_a_joined_clients_lobby_chat_too():
    async with live_host() as host:
        bob = TcpLobby("127.0.0.1", host.port, "bob")
        await bob.start()
        app = NetApp(first_screen_for(bob, None))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press("m")
            await pilot.pause()
            assert app.screen.query_one(ChatLines).muted and app.chat_muted
        await bob.close()


async def test_a_tables_turn_clock_is_on_its_lobby_line():
    lobby, app = await lobby_app("bob")
    alice = await lobby_player(lobby, "alice")
    created = await alice.create_table(NewTable(players=3, turn_clock=30))
    await next_matching(created, lambda event: isinstance(event, TableWaiting))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and bool(app.screen.summaries), "a table")
        await pilot.pause()
        assert app.screen.summaries[0].turn_clock == 30
        assert "30 s per move" in str(app.screen.query_one("#tables").get_row_at(0)[1])
    await created.close()
    lobby.close()


@pytest.mark.parametrize(("size", "shown"), [((80, 24), True), ((80, 20), False)])
async def test_a_private_tables_code_stays_on_the_table_during_the_game_where_there_is_room(size, shown):
    """Its players can still invite someone to watch: the code under the turn, at 80x24; a shorter table has no room."""
    lobby = Lobby(LobbySettings(bot_delay=1, turn_timer=None, seed=1, default_bot="rules"))
    alice = InProcessLobby(lobby, "alice")
    await alice.start()
    table = await alice.create_table(NewTable(players=3, bots=2, private=True))
    code = invite_code(table.table_id, lobby.table(table.table_id).invite)
    await table.start_game()
    app = NetApp(first_screen_for(alice, table))
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and app.screen.table, "the game")
        status = app.screen.query_one(TableStatus)
        await wait_until(pilot, lambda: "Deck" in status.render().plain, "the status")
        assert (f"Code   {code}" in status.render().plain) == shown, status.render().plain
    lobby.close()
