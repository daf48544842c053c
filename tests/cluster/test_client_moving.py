"""``nothanks join``'s connection (client/tcp.py) when its table moves: through a cluster's front it says
``moving``, shows that the table moves and keeps playing; and a connection lost without a word while at a table
(a front killed) comes back by itself and resumes the seat with its token."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from nothanks_server import Lobby, LobbySettings
from nothanks_server.tcp import TcpHost
from nothanks_tui.client.tcp import CONNECTION_LOST, TABLE_MOVING, TcpLobby
from nothanks_tui.link import Closed, NewTable, Rejected, TableUpdate

from .conftest import WAIT
from .gateway_helpers import Cluster


@pytest.fixture
async def cluster(redis_url: str, request: pytest.FixtureRequest) -> AsyncIterator[Cluster]:
    made = Cluster(redis_url, f"m-{request.node.name}")
    yield made
    await made.close()


async def next_of(table, kinds, timeout: float = WAIT):
    async with asyncio.timeout(timeout):
        while True:
            event = await table.next_event()
            assert not isinstance(event, Closed), event
            if isinstance(event, kinds):
                return event


async def test_a_join_client_is_told_its_table_moves_and_plays_on(cluster):
    await cluster.table_host("a")
    await cluster.table_host("b")
    gateway = await cluster.gateway()
    lobby = TcpLobby("127.0.0.1", gateway.port, "ann")
    await lobby.start()
    assert "moving" in lobby.features
    table = await lobby.create_table(NewTable(players=2, bots=1))
    await table.start_game()
    before = await next_of(table, TableUpdate)
    host_id = next(host_id for host_id, host in cluster.hosts.items() if table.table_id in host.lobby._tables)
    await cluster.stop_host(host_id)
    notice = await next_of(table, Rejected)
    assert notice.message == TABLE_MOVING  # (English in the test's task) shown as the table's notice
    after = await next_of(table, TableUpdate)
    assert after.view.state_id >= before.view.state_id and lobby.online
    while not after.view.legal:
        after = await next_of(table, TableUpdate)
    await table.send_action(after.view.legal[0], after.view.state_id)
    played = await next_of(table, TableUpdate)
    assert played.view.state_id > after.view.state_id  # the new host took the move
    await lobby.close()


async def test_a_connection_lost_without_a_word_at_a_table_comes_back_with_its_seat():
    host = TcpHost(Lobby(LobbySettings(bot_delay=0.0, turn_timer=None, seed=4)), "127.0.0.1", 0)
    await host.start()
    try:
        lobby = TcpLobby("127.0.0.1", host.port, "ann")
        await lobby.start()
        table = await lobby.create_table(NewTable(players=2, bots=1))
        await table.start_game()
        before = await next_of(table, TableUpdate)
        (session,) = host.sessions
        session.abort()  # as a killed front: no closing, the socket just ends
        notice = await next_of(table, Rejected)
        assert notice.message == CONNECTION_LOST
        after = await next_of(table, TableUpdate)  # resumed by its token on a new connection
        assert after.view.state_id >= before.view.state_id
        assert len(host.sessions) == 1 and next(iter(host.sessions)) is not session
        await lobby.close()
    finally:
        await host.close("test over")


async def test_a_connection_lost_in_the_lobby_is_not_retried():
    host = TcpHost(Lobby(LobbySettings(bot_delay=0.0, turn_timer=None, seed=4)), "127.0.0.1", 0)
    await host.start()
    try:
        lobby = TcpLobby("127.0.0.1", host.port, "ann")
        await lobby.start()
        (session,) = host.sessions
        session.abort()
        assert lobby._read_task is not None
        await asyncio.wait_for(lobby._read_task, WAIT)  # it ends, and does not try again
        assert lobby.closed_reason is not None and not lobby.online
    finally:
        await host.close("test over")
