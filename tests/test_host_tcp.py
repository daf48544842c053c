"""Real sockets on loopback: TcpLobby clients play full games, leave and resume, and hear the host shut down."""

from __future__ import annotations

import asyncio

import pytest

from nothanks_tui.client.replaying import read_record_file
from nothanks_tui.client.tcp import TcpLobby, parse_address
from nothanks_tui.engine import Action, replay
from nothanks_tui.link import Closed, LobbyError, NewTable, Rejected, TableUpdate, TableWaiting
from nothanks_tui.link.wire import PROTOCOL_VERSION

from .net_helpers import WAIT, live_host


async def next_matching(conn, predicate):
    async def scan():
        while True:
            event = await conn.next_event()
            if predicate(event):
                return event

    return await asyncio.wait_for(scan(), WAIT)


def is_update(event) -> bool:
    return isinstance(event, TableUpdate)


async def play_to_end(conn, action=Action.TAKE):
    """Play ``action`` whenever it is our turn; return the final update."""
    while True:
        event = await next_matching(conn, lambda e: is_update(e) or isinstance(e, Closed))
        assert not isinstance(event, Closed), event
        if event.view.finished:
            return event
        if event.view.my_turn:
            legal = event.view.legal
            await conn.send_action(action if action in legal else legal[0], event.view.state_id)


async def test_two_players_and_a_bot_play_a_full_game_over_tcp_and_a_spectator_watches(tmp_path):
    async with live_host(data_dir=tmp_path) as host:
        alice = TcpLobby("127.0.0.1", host.port, "alice")
        bob = TcpLobby("127.0.0.1", host.port, "bob")
        eve = TcpLobby("127.0.0.1", host.port, "eve")
        for client in (alice, bob, eve):
            await client.start()
        a = await alice.create_table(NewTable(players=3, bots=1))
        [summary] = await bob.list_tables()
        assert summary.players == 3 and summary.free_seats == 1 and not summary.started
        b = await bob.join(summary.table_id)
        watcher = await eve.spectate(summary.table_id)
        await next_matching(a, lambda e: isinstance(e, TableWaiting) and e.can_start)
        await a.start_game()
        results = await asyncio.gather(play_to_end(a), play_to_end(b, Action.PASS))
        final = await next_matching(watcher, lambda e: is_update(e) and e.view.finished)
        assert results[0].view.hands == results[1].view.hands == final.view.hands
        assert final.view.seat is None and sum(len(h) for h in final.view.hands) == 24
        assert results[0].can_restart and not final.can_restart
        [path] = list(tmp_path.glob("*.json"))
        record = read_record_file(path)
        assert record["players"] == ["alice", "ana", "bob"]
        assert replay(record).hands == final.view.hands
        for client in (alice, bob, eve):
            await client.close()


async def test_refusals_come_back_as_rejected_events_with_stable_codes():
    async with live_host() as host:
        alice = TcpLobby("127.0.0.1", host.port, "alice")
        await alice.start()
        a = await alice.create_table(NewTable(players=2))
        await a.start_game()
        assert (await next_matching(a, lambda e: isinstance(e, Rejected))).code == "seats_empty"
        await a.send_action(Action.TAKE, 0)
        assert (await next_matching(a, lambda e: isinstance(e, Rejected))).code == "not_started"
        with pytest.raises(LobbyError) as refused:
            await alice.join("t999")
        assert refused.value.code == "no_table"
        with pytest.raises(LobbyError) as refused:
            await alice.create_table(NewTable(players=9))
        assert refused.value.code == "bad_config"
        await alice.close()


async def test_a_killed_client_reconnects_with_its_token_and_resumes_the_seat():
    async with live_host() as host:
        alice = TcpLobby("127.0.0.1", host.port, "alice")
        bob = TcpLobby("127.0.0.1", host.port, "bob")
        await alice.start()
        await bob.start()
        a = await alice.create_table(NewTable(players=3, bots=1))
        b = await bob.join((await bob.list_tables())[0].table_id)
        await a.start_game()
        seen = await next_matching(b, is_update)
        token = b.seat_token
        # Kill bob's socket without a goodbye, as a crashed terminal would.
        bob._read_task.cancel()  # (nothing of the client runs on: it does not come back by itself)
        bob._writer.transport.abort()
        away = await next_matching(a, lambda e: is_update(e) and e.seats[seen.view.seat].away)
        assert away.seats[seen.view.seat].name == "bob"
        bob2 = TcpLobby("127.0.0.1", host.port, "bob")
        await bob2.start()
        b2 = await bob2.resume(token)
        back = await next_matching(b2, is_update)
        assert back.view.seat == seen.view.seat and not back.seats[seen.view.seat].away
        table = host.lobby.table(back.table_id)
        assert back.view.state_id == table.state.state_id and back.view.hands == table.state.hands
        await alice.close()
        await bob2.close()


async def test_shutdown_tells_every_client():
    async with live_host() as host:
        alice = TcpLobby("127.0.0.1", host.port, "alice")
        await alice.start()
        a = await alice.create_table(NewTable(players=2, bots=1))
        await host.close("maintenance at noon")
        closed = await next_matching(a, lambda e: isinstance(e, Closed))
        assert "maintenance at noon" in closed.reason


async def test_a_client_of_another_protocol_version_gets_a_clear_error():
    from .net_helpers import RawClient

    async with live_host() as host:
        raw = await RawClient.connect(host.port, name=None)
        await raw.send({"type": "hello", "protocol": 99, "name": "future"})
        error = await raw.next_frame()
        assert error["type"] == "error" and error["code"] == "bad_version" and error["fatal"]
        assert f"protocol {PROTOCOL_VERSION}" in error["message"]
        assert await raw.closed()


def test_parse_address():
    assert parse_address("127.0.0.1") == ("127.0.0.1", 7777)
    assert parse_address("localhost:9000") == ("localhost", 9000)
    assert parse_address("[::1]:8000") == ("::1", 8000)
    assert parse_address("::1") == ("::1", 7777)
    for bad in ("", "host:0", "host:x", "host:70000"):
        with pytest.raises(ValueError):
            parse_address(bad)


async def test_leave_a_table_then_create_another_and_add_bots_over_tcp():
    async with live_host() as host:
        alice = TcpLobby("127.0.0.1", host.port, "alice")
        await alice.start()
        first = await alice.create_table(NewTable(players=2))
        await next_matching(first, lambda e: isinstance(e, TableWaiting))
        await first.close()  # leave: the lobby connection stays open
        assert await alice.list_tables() == []  # nobody left at the first table: it is gone
        second = await alice.create_table(NewTable(players=3, bot="random"))
        await second.add_bot()
        await second.add_bot("threshold")
        ready = await next_matching(second, lambda e: isinstance(e, TableWaiting) and e.can_start)
        assert [s.name for s in ready.seats] == ["alice", "ana", "bo"]
        assert all(s.is_bot for s in ready.seats[1:])
        await second.add_bot()
        assert (await next_matching(second, lambda e: isinstance(e, Rejected))).code == "table_full"
        await second.start_game()
        final = await play_to_end(second)
        await second.play_again()
        again = await next_matching(second, lambda e: is_update(e) and e.view.state_id == 0)
        assert not again.view.finished and final.view.finished
        await alice.close()


async def test_two_players_of_the_same_name_at_one_table_are_told_apart():
    """Issue 17.12: a second "alice" (any case) at a table is seated as "alice 2", and everyone sees both names."""
    async with live_host() as host:
        first = TcpLobby("127.0.0.1", host.port, "alice")
        await first.start()
        mine = await first.create_table(NewTable(players=3))
        second = TcpLobby("127.0.0.1", host.port, "Alice")
        await second.start()
        await second.join(mine.table_id)
        third = TcpLobby("127.0.0.1", host.port, "alice")
        await third.start()
        await third.join(mine.table_id)
        while True:
            event = await asyncio.wait_for(mine.next_event(), WAIT)
            if isinstance(event, TableWaiting) and all(not seat.empty for seat in event.seats):
                break
        assert [seat.name for seat in event.seats] == ["alice", "Alice 2", "alice 3"]
        for lobby in (first, second, third):
            await lobby.close()
