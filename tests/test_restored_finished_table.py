"""A host restarted while its players read the scores of a finished game and voted for the next one: the table comes
back, finished, and the players who return find it and deal the next game there.

Seen with ``nothanks join``: at a finished two-player table eve asked for another game (alice had not yet), the host
got SIGTERM and came back. Eve's screen said "the host is restarting; your game is kept: reconnecting to your table",
then "the host restarted but this table is gone": the host forgot every finished table on its way up, its seats, its
match and its players' tokens (and the SSH players' key bindings), so the people playing together had to set up a new
table and find each other again.
"""

from __future__ import annotations

import asyncio

from nothanks_server import Lobby, LobbySettings
from nothanks_server.inprocess import InProcessLobby
from nothanks_server.store import hash_token
from nothanks_tui.engine import Action
from nothanks_tui.link import NewTable

from .test_host_table import is_update, next_matching


def settings(data_dir, grace: float = 3600) -> LobbySettings:
    return LobbySettings(data_dir=data_dir, bot_delay=0, turn_timer=None, seed=5, restored_waiting_grace=grace)


async def player(lobby: Lobby, name: str) -> InProcessLobby:
    connection = InProcessLobby(lobby, name)
    await connection.start()
    return connection


async def finished_two_player_table(lobby: Lobby):
    """alice and bob at a two-seat table, its first game played to the end (everyone takes); their connections."""
    alice = await (await player(lobby, "alice")).create_table(NewTable(players=2, bots=0))
    [summary] = await (await player(lobby, "bob")).list_tables()
    bob = await (await player(lobby, "bob")).join(summary.table_id)
    await alice.start_game()
    while True:
        update = await next_matching(alice, is_update)
        if update.view.finished:
            break
        mover = alice if update.view.to_move == update.view.seat else bob
        await mover.send_action(Action.TAKE, update.view.state_id)
    return summary.table_id, alice, bob


async def test_a_finished_table_comes_back_after_a_restart_and_deals_the_next_game_there(tmp_path):
    first = Lobby(settings(tmp_path))
    table_id, alice, bob = await finished_two_player_table(first)
    await bob.play_again()
    tokens = (alice.seat_token, bob.seat_token)
    first.close()

    second = Lobby(settings(tmp_path))
    second.start()
    try:
        [summary] = await (await player(second, "carol")).list_tables()
        assert summary.table_id == table_id and summary.finished
        alice = await (await player(second, "alice")).resume(tokens[0])
        back = await next_matching(alice, is_update)
        assert back.view.finished and back.can_restart and back.timeline  # the scores and chart, as before
        assert back.match is not None and back.match.games == 1
        bob = await (await player(second, "bob")).resume(tokens[1])
        await alice.play_again()
        await bob.play_again()
        dealt = await next_matching(alice, lambda e: is_update(e) and not e.view.finished)
        assert dealt.view.state_id == 0
    finally:
        second.close()


async def test_a_restored_finished_table_nobody_comes_back_to_closes_after_the_grace(tmp_path):
    first = Lobby(settings(tmp_path))
    await finished_two_player_table(first)
    first.close()

    second = Lobby(settings(tmp_path))
    second.start()
    try:
        assert len(await (await player(second, "carol")).list_tables()) == 1
        second._release(list(second._tables.values()))  # the grace ran out: what its timer calls
        assert await (await player(second, "carol")).list_tables() == []
    finally:
        second.close()


async def test_a_restored_table_whose_bots_finish_the_game_keeps_its_record_and_seats_for_the_grace(tmp_path):
    """Seen in a chaos run (kill -9 twenty times, 10 tables): a restored table whose bots finished the game before
    its players came back was dropped at once, its seats and tokens with it."""
    first = Lobby(LobbySettings(data_dir=tmp_path, bot_delay=60, turn_timer=None, seed=5))
    alice = await (await player(first, "alice")).create_table(NewTable(players=3, bots=2))
    await alice.start_game()
    update = await next_matching(alice, is_update)
    token, table_id = alice.seat_token, update.table_id
    await alice.close()  # she leaves on purpose: a bot plays her seat (and nothing moves before the restart)
    first.close()

    second = Lobby(settings(tmp_path))
    second.start()
    try:
        table = second.table(table_id)
        for _ in range(1000):  # the bots play the game to its end, nobody there
            if table.finished:
                break
            await asyncio.sleep(0.01)
        assert table.finished and second.table(table_id) is table
        assert second.store.game_record(table_id, 1) is not None
        [stored] = second.store.load_tables()
        assert stored.finished and table.seat_of_digest(hash_token(token)) is not None
        table.release_away_seats()  # the grace is over: nobody came back, the table closes (its record stays)
        assert second.tables() == [] and second.store.load_tables() == []
        assert second.store.game_record(table_id, 1) is not None
    finally:
        second.close()
