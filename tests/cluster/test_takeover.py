"""Two table hosts on one Redis (cluster/takeover.py): a host that dies without a word has its table taken over
by the other at the last accepted move; the dead host's late write is refused (fenced) and changes nothing; a move
sent again after the takeover is applied once; a host that stops gives its tables up, and they move at once."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from nothanks_server import LobbySettings
from nothanks_server.cluster.settings import ClusterSettings
from nothanks_server.host import Host
from nothanks_server.store import StoreError

from ..net_helpers import RawClient, of_type
from .conftest import until
from .gateway_helpers import crash


@pytest.fixture
async def table_hosts(redis_url: str, request: pytest.FixtureRequest) -> AsyncIterator[Callable[..., Any]]:
    """``await table_hosts("a", "b", lease=0.6)`` -> started ``Host``s of one cluster (this test's prefix)."""
    started: list[Host] = []

    async def start(*host_ids: str, lease: float = 0.6) -> list[Host]:
        for host_id in host_ids:
            host = Host(
                LobbySettings(bot_delay=0.0, turn_timer=None, seed=7),
                "127.0.0.1",
                0,
                cluster=ClusterSettings(redis_url, host_id=host_id, prefix=f"k-{request.node.name}"),
            )
            host.lobby.store.leases.ttl = lease  # short leases: a dead host's tables move in about this long
            await host.start()
            started.append(host)
        return started[-len(host_ids) :]

    yield start
    for host in started:
        await host.close("the test is over")


def my_turn(seat: int, after: int = -1):
    def check(frame: Any) -> bool:
        return (
            of_type("update")(frame)
            and frame["view"]["to_move"] == seat
            and frame["view"]["state_id"] > after
            and not frame["view"]["finished"]
        )

    return check


async def seated_game(host: Host) -> tuple[RawClient, dict, dict]:
    """ann at a new two-seat table with a bot on ``host``, the game started: (ann, her ``joined``, her turn)."""
    ann = await RawClient.connect(host.port, "ann")
    await ann.send({"type": "create_table", "players": 2, "bots": 1, "id": 1})
    joined = await ann.until(of_type("joined"))
    await ann.send({"type": "start"})
    turn = await ann.until(my_turn(joined["seat"]))
    return ann, joined, turn


async def resume(host: Host, token: str) -> tuple[RawClient, dict]:
    """ann back at ``host`` with her seat's token: (her connection, the table's update she got)."""
    ann = await RawClient.connect(host.port, "ann")
    await ann.send({"type": "resume", "token": token, "id": 2})
    await ann.until(of_type("joined"))
    updates = [frame for frame in ann.frames if of_type("update")(frame)]  # (it may come before `joined`)
    return ann, updates[-1] if updates else await ann.until(of_type("update"))


async def play(client: RawClient, turn: dict) -> None:
    view = turn["view"]
    await client.send({"type": "action", "action": view["legal"][0], "state_id": view["state_id"]})


def logged(host: Host, table_id: str) -> int:
    """How many moves of the table's current game the cluster's Redis holds."""
    store = host.lobby.store
    game_no = int(store.client.hget(f"{store.prefix}:table:{table_id}", "game_no"))
    return store.client.llen(f"{store.prefix}:moves:{table_id}:{game_no}")


async def test_a_dead_hosts_table_plays_on_at_another_host_from_its_last_accepted_move(table_hosts):
    a, b = await table_hosts("a", "b")
    ann, joined, turn = await seated_game(a)
    table_id, seat = joined["table"], joined["seat"]
    await play(ann, turn)  # a move or two, each in Redis before ann hears of it
    turn = await ann.until(my_turn(seat, turn["view"]["state_id"]))
    await play(ann, turn)
    turn = await ann.until(my_turn(seat, turn["view"]["state_id"]))
    last = turn["view"]["state_id"]
    assert logged(a, table_id) == last

    crash(a)
    await until(lambda: any(t.table_id == table_id for t in b.lobby.all_tables()))
    taken = b.lobby.table(table_id)
    assert taken.state.state_id == last  # at the last accepted move
    assert taken.state.moves == a.lobby.table(table_id).state.moves
    holder = await b.presence.directory.holder(table_id)
    assert holder.owner == "b" and holder.epoch == 2

    # The old owner, cut off but alive, takes ann's move: Redis refuses it (fenced), nothing changes, and its
    # table stops there: ann's connection hears that the table moves, and is closed.
    await play(ann, turn)
    refused = await ann.until(of_type("error"))
    assert refused["code"] == "not_saved"
    closing = await ann.until(of_type("closing"))
    assert closing["restart"] is True
    assert await ann.closed()
    assert logged(b, table_id) == last and taken.state.state_id == last
    assert table_id not in [t.table_id for t in a.lobby.all_tables()]

    # ann comes back at the new host with her token, and plays the move there: once.
    ann, resumed = await resume(b, joined["token"])
    assert my_turn(seat)(resumed) and resumed["view"]["state_id"] == last
    await play(ann, resumed)
    await until(lambda: taken.state.state_id > last)
    await play(ann, resumed)  # sent again (the front did not hear back): stale now, not played twice
    assert (await ann.until(of_type("error")))["code"] == "stale_state"
    assert taken.state.moves[last].seat == seat and logged(b, table_id) == taken.state.state_id
    assert sum(1 for move in taken.state.moves[last:] if move.seat == seat) == 1
    await ann.close()


async def test_a_move_accepted_before_the_crash_is_not_played_again_after_it(table_hosts):
    a, b = await table_hosts("a", "b")
    ann, joined, turn = await seated_game(a)
    table_id, seat, played_on = joined["table"], joined["seat"], turn["view"]["state_id"]
    await play(ann, turn)
    await until(lambda: logged(a, table_id) > played_on)  # in Redis; ann never heard (the host died just then)
    crash(a)
    await ann.close()
    await until(lambda: any(t.table_id == table_id for t in b.lobby.all_tables()))
    ann, _view = await resume(b, joined["token"])
    await play(ann, turn)  # the front sends the move again, on the state it was made on
    assert (await ann.until(of_type("error")))["code"] == "stale_state"
    moves = b.lobby.table(table_id).state.moves
    assert moves[: played_on + 1] == a.lobby.table(table_id).state.moves[: played_on + 1]  # ann's move, kept
    assert all(move.seat != seat for move in moves[played_on + 1 :])  # and not played a second time
    await ann.close()


async def test_a_host_that_loses_a_lease_stops_the_table_at_once(table_hosts):
    a, b = await table_hosts("a", "b")
    ann, joined, _turn = await seated_game(a)
    table_id = joined["table"]
    crash(a)  # a stops renewing; b takes the table once the lease runs out
    await until(lambda: any(t.table_id == table_id for t in b.lobby.all_tables()))
    assert await a.takeover.renew() == [table_id]  # a's next renewal finds it lost
    closing = await ann.until(of_type("closing"))
    assert closing["restart"] is True and await ann.closed()
    assert table_id not in [t.table_id for t in a.lobby.all_tables()]


async def test_a_host_that_stops_gives_its_tables_up_and_another_takes_them_at_once(table_hosts):
    a, b = await table_hosts("a", "b", lease=600.0)  # leases that would last: only giving them up moves them
    ann, joined, turn = await seated_game(a)
    table_id = joined["table"]
    await a.close("restarting", restart=True)  # SIGTERM's close: after the last commit, the leases go
    closing = await ann.until(of_type("closing"))
    assert closing["restart"] is True
    store = b.lobby.store
    assert store.client.get(f"{store.prefix}:lease:{table_id}") is None
    await until(lambda: any(t.table_id == table_id for t in b.lobby.all_tables()))
    assert b.lobby.table(table_id).state.state_id == turn["view"]["state_id"]
    await ann.close()


async def test_a_host_cut_off_from_redis_for_a_whole_lease_stops_its_tables(table_hosts, monkeypatch):
    [a] = await table_hosts("a")
    ann, joined, _turn = await seated_game(a)
    a.takeover._task.cancel()  # (its renewals are made by hand below)

    async def unreachable() -> list[str]:
        raise ConnectionError("Redis does not answer")

    monkeypatch.setattr(a.lobby.store.leases, "renew", unreachable)
    assert await a.takeover.renew() == []  # one renewal missed: the lease may still be a's, the table plays on
    assert [t.table_id for t in a.lobby.all_tables()] == [joined["table"]]
    a.takeover._renewed -= a.lobby.store.leases.ttl  # none has reached Redis for a whole lease
    assert await a.takeover.renew() == [joined["table"]]
    closing = await ann.until(of_type("closing"))
    assert closing["restart"] is True and await ann.closed()
    assert a.lobby.all_tables() == [] and a.lobby.store.leases.held == {}


async def test_a_table_taken_over_but_not_brought_in_is_given_up_and_taken_again(table_hosts, monkeypatch):
    a, b = await table_hosts("a", "b")
    _ann, joined, turn = await seated_game(a)
    table_id = joined["table"]
    store = b.lobby.store
    real_load, failures = store.load_table, []

    def flaky_load(wanted: str):
        if not failures:  # Redis fails once, midway through the takeover
            failures.append(wanted)
            raise StoreError("Redis: Connection reset by peer")
        return real_load(wanted)

    monkeypatch.setattr(store, "load_table", flaky_load)
    crash(a)
    await until(lambda: any(t.table_id == table_id for t in b.lobby.all_tables()))
    assert failures == [table_id]  # the first claim gave the lease up again; the next one brought the table in
    assert b.lobby.table(table_id).state.state_id == turn["view"]["state_id"]
    assert list(store.leases.held) == [table_id]
