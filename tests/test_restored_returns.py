"""A table the host brought back before its game started: its players' first return is no news, but only that one.

Seen over SSH: the host restarted while alice and bob sat at a table not yet started; they came back, played, and
bob's connection dropped in the second game. Everyone's log said "bob dropped out (away)" (or "left") and, when he
came back, never "bob is back": the seat was still marked as a restored one whose return is quiet, because a return
before the start never cleared the mark.
"""

from __future__ import annotations

from nothanks_server import Lobby, LobbySettings
from nothanks_server.inprocess import InProcessLobby
from nothanks_tui.link import NewTable
from nothanks_tui.link.events import SEAT_BACK

from .test_host_table import is_update, next_matching


def settings(data_dir) -> LobbySettings:
    return LobbySettings(data_dir=data_dir, bot_delay=0, turn_timer=None, seed=5, restored_waiting_grace=3600)


async def player(lobby: Lobby, name: str) -> InProcessLobby:
    connection = InProcessLobby(lobby, name)
    await connection.start()
    return connection


async def test_a_drop_in_a_game_after_a_restart_before_the_start_is_followed_by_is_back(tmp_path):
    first = Lobby(settings(tmp_path))
    alice_table = await (await player(first, "alice")).create_table(NewTable(players=3, bots=1))
    [summary] = await (await player(first, "bob")).list_tables()
    bob_table = await (await player(first, "bob")).join(summary.table_id)
    tokens = (alice_table.seat_token, bob_table.seat_token)
    first.close()

    second = Lobby(settings(tmp_path))
    second.start()
    try:
        alice = await (await player(second, "alice")).resume(tokens[0])
        bob = await (await player(second, "bob")).resume(tokens[1])
        await alice.start_game()
        seen = await next_matching(bob, is_update)
        bob_seat = seen.view.seat
        await bob.close()  # he leaves, during the game
        await next_matching(alice, lambda e: is_update(e) and e.seats[bob_seat].away)
        await (await player(second, "bob")).resume(tokens[1])
        back = await next_matching(alice, lambda e: is_update(e) and not e.seats[bob_seat].away)
        unanswered = [e for e in back.seat_events if e.seat == bob_seat]
        # Either nothing to tell (away and back between two moves) or "bob is back": never gone for good.
        assert not unanswered or unanswered[-1].kind == SEAT_BACK, back.seat_events
    finally:
        second.close()
