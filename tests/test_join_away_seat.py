"""The host's answer to a ``join`` that an away player's seat stands in the way of: ``seat_away``, and the seat stays
theirs (a keyless SSH player back after a restart, or anyone else, never takes it over).

The lead saw it after a SIGKILL and a restart: the old seat listed "away", and ``j`` on that table told the player
nothing they could act on. The client's side is tests/client/test_join_refusal.py.
"""

from __future__ import annotations

import pytest

from nothanks_server import Lobby, LobbySettings
from nothanks_server.inprocess import InProcessLobby
from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.link import LobbyError, NewTable, TableWaiting, errors

from .net_helpers import live_host
from .test_host_limits import eventually
from .test_host_table import next_matching


def settings(data_dir) -> LobbySettings:
    return LobbySettings(data_dir=data_dir, bot_delay=0, turn_timer=None, seed=5, restored_waiting_grace=3600)


async def alice_at_a_table_then_a_restart(tmp_path, *, start: bool) -> tuple[Lobby, str, str]:
    """Alice sits with two bots (and starts the game, if ``start``); the host stops and a new one restores the
    table from the store, alice's seat away. Returns (the new lobby, the table id, alice's token)."""
    first = Lobby(settings(tmp_path))
    first.start()
    alice = InProcessLobby(first, "alice")
    await alice.start()
    conn = await alice.create_table(NewTable(players=3, bots=2))
    await next_matching(conn, lambda e: isinstance(e, TableWaiting) and e.can_start)
    if start:
        await conn.start_game()
    table_id, token = conn.table_id, conn.seat_token
    assert isinstance(table_id, str) and token is not None
    first.close()  # (what a SIGKILL leaves is the same store: tests/test_store_restart.py)
    second = Lobby(settings(tmp_path))
    second.start()
    assert second.table(table_id).seats[0].away
    return second, table_id, token


async def refused_join(lobby: Lobby, table_id: str, seat: int | None = None) -> LobbyError:
    newcomer = InProcessLobby(lobby, "alice")  # the same name, no token: a keyless SSH login looks like this
    await newcomer.start()
    with pytest.raises(LobbyError) as refused:
        await newcomer.join(table_id, seat)
    return refused.value


@pytest.mark.parametrize("start", [True, False], ids=["game under way", "game not started"])
async def test_a_newcomer_is_told_seat_away_and_the_away_seat_stays_its_players(tmp_path, start):
    lobby, table_id, token = await alice_at_a_table_then_a_restart(tmp_path, start=start)
    try:
        for seat in (None, 0):
            refusal = await refused_join(lobby, table_id, seat)
            assert refusal.code == errors.SEAT_AWAY
            assert "away" in refusal.message and "SSH key" in refusal.message
        table = lobby.table(table_id)
        assert table.seats[0].away and table.seats[0].name == "alice" and table.started == start
        back = InProcessLobby(lobby, "alice")
        await back.start()
        await back.resume(token)  # the token still takes it back
        assert not table.seats[0].away and table.seats[0].name == "alice"
    finally:
        lobby.close()


async def test_without_an_away_seat_the_answers_are_as_before(tmp_path):
    lobby = Lobby(LobbySettings(bot_delay=60, turn_timer=None, seed=5))
    alice = InProcessLobby(lobby, "alice")
    await alice.start()
    conn = await alice.create_table(NewTable(players=2, bots=1))
    await next_matching(conn, lambda e: isinstance(e, TableWaiting) and e.can_start)
    assert conn.table_id is not None
    assert (await refused_join(lobby, conn.table_id)).code == errors.TABLE_FULL
    assert (await refused_join(lobby, conn.table_id, 1)).code == errors.SEAT_TAKEN
    await conn.start_game()
    assert (await refused_join(lobby, conn.table_id)).code == errors.ALREADY_STARTED
    lobby.close()


async def test_over_tcp_a_dropped_players_seat_answers_seat_away():
    async with live_host(bot_delay=60) as host:
        alice = TcpLobby("127.0.0.1", host.port, "alice")
        await alice.start()
        conn = await alice.create_table(NewTable(players=2, bots=1))
        await next_matching(conn, lambda e: isinstance(e, TableWaiting) and e.can_start)
        await conn.start_game()
        table_id = conn.table_id
        await alice.close()  # the connection drops: the seat waits, away
        [table] = host.lobby.all_tables()
        await eventually(lambda: table.seats[0].away, "alice's seat away")
        bob = TcpLobby("127.0.0.1", host.port, "bob")
        await bob.start()
        with pytest.raises(LobbyError) as refused:
            await bob.join(table_id)
        assert refused.value.code == errors.SEAT_AWAY
        await bob.close()
