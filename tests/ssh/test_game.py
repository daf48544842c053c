"""End-to-end: the real game over SSH (sessions in this process, tables behind a TCP host): welcome, name, lobby,
a table with bots, take and pass, resize, reconnect."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import asyncssh
import pytest

from tools.loadgen.terminal_client import TerminalClient
from tools.loadgen.visitors import FIRST_BOT_SEAT, NOT_YOUR_TURN

from .conftest import until
from .test_auth_limits import FakeClock


async def sit_at_bot_table(client: TerminalClient) -> None:
    """From the welcome screen to a started game at a 3-seat table with 2 bots."""
    await client.wait_for("Your name at the table")
    client.send("\r")
    await client.wait_for("No tables yet")
    client.send("c")
    await client.wait_for("New table")
    client.send("\x13")  # ctrl+s: create (3 players)
    await client.wait_for("waiting for players")
    client.send("b")
    await client.wait_for(FIRST_BOT_SEAT)
    client.send("b")
    await client.wait_for("press s to start")
    client.send("s")
    await client.wait_for("You: 11 chips")


async def test_welcome_screen_shows_the_game_and_prefills_the_name(game_sessions):
    client = await TerminalClient().connect(game_sessions.port, "alice")
    await client.wait_for("No Thanks!")
    await client.wait_for("Your name at the table")
    await client.wait_for("alice")
    await client.close()


async def test_user_play_must_choose_a_name(game_sessions):
    client = await TerminalClient().connect(game_sessions.port, "play")
    await client.wait_for("Your name at the table")
    client.send("\r")  # empty name: refused, stays on the welcome screen
    await client.wait_for("That name cannot be used")
    client.send("Bo\r")
    await client.wait_for("you are Bo")
    await client.close()


async def test_markup_in_a_name_is_shown_as_text(game_sessions):
    client = await TerminalClient().connect(game_sessions.port, "mallory[/]")
    await client.wait_for("mallory[/]")
    client.send("\r")
    await client.wait_for("you are mallory[/]")
    client.send("c")
    await client.wait_for("New table")
    client.send("\x13")
    await client.wait_for("seat 1: ~mallory[/]")  # (a guest: no key)
    await client.close()


async def press_on_my_turn(client: TerminalClient, key: str, done: Callable[[], bool]) -> None:
    """Press ``key`` once the screen says it is my turn, until ``done``: a screen read between the packets of one
    redraw may still say "Your turn" when the table has moved on, and the app then says so (a toast) instead."""
    while True:
        await client.wait_for("Your turn")
        client.send(key)
        await client.wait_for(lambda: done() or NOT_YOUR_TURN in client.text())
        if done():
            return
        await client.wait_for(lambda: NOT_YOUR_TURN not in client.text())


async def test_a_game_with_bots_take_pass_and_resize(game_sessions):
    client = await TerminalClient().connect(game_sessions.port, "alice")
    await sit_at_bot_table(client)
    await press_on_my_turn(client, "n", lambda: "You: 10 chips" in client.text())
    await press_on_my_turn(client, "t", lambda: "You: " in client.text() and "no cards" not in client.text())
    client.resize(100, 30)
    await client.wait_for("─" * 100)
    await client.close()
    await game_sessions.wait_until(lambda: game_sessions.running_apps == 0, timeout=10)


async def test_a_key_login_comes_back_to_its_seat(game_sessions):
    key = asyncssh.generate_private_key("ssh-ed25519")
    first = await TerminalClient().connect(game_sessions.port, "carol", client_keys=[key])
    await sit_at_bot_table(first)
    await first.close()  # dropped: the seat waits, away
    await game_sessions.wait_until(lambda: game_sessions.running_apps == 0, timeout=10)
    await until(lambda: [seat.away for seat in game_sessions.lobby.tables()[0].seats] == [True, False, False])
    dropped = game_sessions.lobby.tables()[0].seats[0]
    assert not dropped.left and not dropped.stand_in  # a lost connection is not leaving: no bot took the seat

    again = await TerminalClient().connect(game_sessions.port, "carol", client_keys=[key])
    await again.wait_for("You: 11 chips")  # straight back to the table, no name asked
    (summary,) = game_sessions.lobby.tables()
    assert not summary.seats[0].away
    await again.close()


async def test_without_a_key_a_reconnect_starts_over(game_sessions):
    first = await TerminalClient().connect(game_sessions.port, "dave")
    await sit_at_bot_table(first)
    await first.close()
    again = await TerminalClient().connect(game_sessions.port, "dave")
    await again.wait_for("Your name at the table")
    await again.close()


async def test_at_the_sessions_cap_a_session_in_the_lobby_gives_way_to_a_newcomer_one_at_a_table_does_not(
    start_game_sessions,
):
    sessions = await start_game_sessions(max_sessions=2)
    clock = FakeClock()
    sessions.server.clock = clock
    idle = await TerminalClient().connect(sessions.port, "lobbyist", local_addr=("127.0.0.2", 0))
    await idle.wait_for("Your name at the table")
    idle.send("\r")
    await idle.wait_for("No tables yet")  # in the lobby, at no table
    playing = await TerminalClient().connect(sessions.port, "player", local_addr=("127.0.0.4", 0))
    await sit_at_bot_table(playing)
    await playing.wait_for("Your turn")
    with pytest.raises(asyncssh.DisconnectError, match="full"):  # the lobby's session is too young to give way yet
        await TerminalClient().connect(sessions.port, "late", local_addr=("127.0.0.6", 0))
    clock.now += sessions.server.settings.session_settle
    newcomer = await TerminalClient().connect(sessions.port, "newcomer", local_addr=("127.0.0.3", 0))
    await newcomer.wait_for("Your name at the table")  # in: the lobby's session gave way
    async with asyncio.timeout(10):
        await idle.closed.wait()
    assert sessions.made_room == 1 and not playing.closed.is_set()
    with pytest.raises(asyncssh.DisconnectError, match="full"):  # one at a table, one just in: no room
        await TerminalClient().connect(sessions.port, "second", local_addr=("127.0.0.5", 0))
    for client in (playing, newcomer):
        await client.close()
