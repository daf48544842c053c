"""The table store in Redis (cluster/redis_store.py) with its leases (cluster/leases.py), on a real redis-server:
every ``TableStore`` method round-trips, the keys the fronts read are there, and a host that lost a table's lease
writes nothing more for it (fencing), while the other tables of the same group commit are kept."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from nothanks_server.store import (
    GroupCommit,
    StoredMove,
    StoredSeat,
    StoredTable,
    StoreError,
    TablesRefused,
    hash_token,
)
from nothanks_tui.engine import Action, GameConfig, apply, new_game, to_record

from .conftest import until

TOKEN = "a-seat-token-of-ann"


@pytest.fixture
def stores(redis_url: str, request: pytest.FixtureRequest) -> Iterator[dict]:
    """``stores["a"]``, ``stores["b"]``: the stores of two table hosts on one Redis, under this test's prefix."""
    from nothanks_server.cluster.redis_store import open_redis_store

    prefix = f"s-{request.node.name}"
    opened = {}
    for owner in ("a", "b"):
        store = open_redis_store(redis_url, prefix, None)
        store.leases.owner = owner
        opened[owner] = store
    yield opened
    for store in opened.values():
        store.close()


def a_table(table_id: str = "t1") -> StoredTable:
    return StoredTable(
        table_id=table_id,
        players=3,
        open_chips=False,
        variant="standard",
        default_bot="rules",
        chips_per_player=None,
        seats=(StoredSeat("ann", token_hash=hash_token(TOKEN)), StoredSeat("Rules", "rules", 12345), None),
        creator_seat=0,
        coach=True,
    )


def a_finished_record() -> dict:
    state = new_game(GameConfig(players=3), 5)
    while not state.finished:
        state = apply(state, Action.TAKE, state.to_move)
    return to_record(state, ["ann", "Rules", "Rules"], table="t1", bots=[False, True, True], finished_at=1700000050.0)


def keys(store) -> set[str]:
    return {key.decode() for key in store.client.keys(f"{store.prefix}:*")}


def test_every_table_store_method_round_trips(stores):
    store = stores["a"]
    assert store.load_tables() == []  # a table host starts with no table: it takes them by lease
    number = store.next_table_number()
    assert store.next_table_number() == number + 1  # (the cluster's counter: never the same number twice)
    store.create_table(a_table())
    assert store.load_table("t1") == a_table()
    assert store.load_table("t9") is None
    p = store.prefix
    assert store.client.get(f"{p}:token:{hash_token(TOKEN).hex()}") == b"t1"  # what a front's resume reads
    assert store.client.get(f"{p}:lease:t1").decode().startswith("a ")  # directory.py's lease, held by a

    store.set_seat("t1", 2, StoredSeat("bob", token_hash=hash_token("bob's")))
    store.set_creator("t1", 2)
    store.bind_key("SHA256:bobkey", "t1", 2)
    assert store.seat_for_key("SHA256:bobkey") == ("t1", 2)
    assert store.client.get(f"{p}:keyseat:SHA256:bobkey") == b"t1 2"  # the contract's format
    stored = store.load_table("t1")
    assert stored.seats[2] == StoredSeat("bob", token_hash=hash_token("bob's")) and stored.creator_seat == 2
    gone = StoredSeat("bob", token_hash=hash_token("bob's"), stand_in=True, left=True)  # he left: a bot plays
    store.set_seat("t1", 2, gone)
    assert store.load_table("t1").seats[2] == gone
    store.set_seat("t1", 2, None)  # bob leaves before the game: his token and his key's binding go with the seat
    assert store.load_table("t1").seats[2] is None
    assert store.seat_for_key("SHA256:bobkey") is None
    assert store.client.get(f"{p}:token:{hash_token('bob' + chr(39) + 's').hex()}") is None
    store.set_creator("t1", None)
    assert store.load_table("t1").creator_seat is None
    store.bind_key("SHA256:annkey", "t1", 0)
    store.unbind_key("SHA256:annkey")
    assert store.seat_for_key("SHA256:annkey") is None
    store.set_creator("t1", 0)

    store.set_seat("t1", 2, StoredSeat("Rules", "rules", 7))
    store.start_game("t1", 1, 2**63 - 5, 1700000000.25)  # a seed of 63 bits survives (no Lua number on the way)
    store.add_moves([StoredMove("t1", 1, 0, 0, "pass"), StoredMove("t1", 1, 1, 1, "take")])
    store.add_moves([StoredMove("t1", 1, 2, 1, "pass")])
    stored = store.load_table("t1")
    assert (stored.game_no, stored.seed, stored.started_at, stored.finished) == (1, 2**63 - 5, 1700000000.25, False)
    assert stored.moves == ((0, "pass"), (1, "take"), (1, "pass"))
    assert store.records() == []

    record = a_finished_record()
    store.add_moves([StoredMove("t1", 1, 3, 2, "take", record)])  # the game's last move, with its record
    assert store.load_table("t1").finished
    [kept] = store.records(pending_only=True)
    assert (kept.table_id, kept.game_no, kept.exported) == ("t1", 1, False)
    store.mark_exported("t1", 1)
    assert store.records(pending_only=True) == []
    store.start_game("t1", 2, 99, 1700000100.0)  # play again: the last game's moves go
    assert store.load_table("t1").moves == () and not store.load_table("t1").finished
    assert f"{p}:moves:t1:1" not in keys(store)

    store.bind_key("SHA256:annkey", "t1", 0)
    store.drop_table("t1")  # for good: nothing of it is left but its finished game and the table counter
    assert store.load_table("t1") is None
    history = ("game", "games", "games_of", "player", "player_best", "players", "ratings", "rating_board")
    assert {key for key in keys(store) if key.split(":")[1] not in history} == {f"{p}:next_table"}
    assert store.game_record("t1", 1) == record
    assert "t1" not in store.leases.held


def test_the_history_and_stats_are_the_clusters_whichever_host_answers(stores):
    a, b = stores["a"], stores["b"]
    assert a.list_games() == ([], 0) and a.game_record("t1", None) is None and a.player_stats() == []
    a.create_table(a_table())
    a.bind_key("SHA256:annkey", "t1", 0)
    a.start_game("t1", 1, 5, 1.0)
    a.add_moves([StoredMove("t1", 1, 0, 0, "take", a_finished_record())])
    a.add_moves([StoredMove("t1", 1, 0, 0, "take", a_finished_record())])  # sent again: filed once
    for store in (a, b):
        games, total = store.list_games()
        assert total == 1 and games[0].game_id == "t1/1" and games[0].players == ("ann", "Rules", "Rules")
        assert store.game_record("t1", 1) == store.game_record("t1", None) == a_finished_record()
        stats = store.player_stats(key="SHA256:annkey")
        assert [(row.name, row.kind, row.games, row.you) for row in stats] == [
            ("ann", "key", 1, True),  # the SSH key bound to the seat is who she is
            ("Rules", "bot", 2, False),
        ]
    assert [(r.table_id, r.game_no) for r in a.records()] == [("t1", 1)]  # (its JSON file: a's to write)
    assert b.records() == []


def test_a_table_held_by_one_host_cannot_be_created_or_written_by_another(stores):
    a, b = stores["a"], stores["b"]
    a.create_table(a_table())
    with pytest.raises(StoreError):
        b.create_table(a_table())
    for write in (
        lambda: b.set_seat("t1", 2, StoredSeat("eve")),
        lambda: b.set_creator("t1", 2),
        lambda: b.start_game("t1", 1, 1, 1.0),
        lambda: b.bind_key("SHA256:eve", "t1", 0),
    ):
        with pytest.raises(StoreError):
            write()
    with pytest.raises(TablesRefused) as refused:
        b.add_moves([StoredMove("t1", 1, 0, 0, "pass")])
    assert refused.value.table_ids == {"t1"}
    b.drop_table("t1")  # not b's to drop: left alone
    assert a.load_table("t1") == a_table()


def test_a_host_whose_lease_ran_out_is_fenced_and_the_table_goes_to_another(stores):
    a, b = stores["a"], stores["b"]
    a.leases.ttl = 0.2  # a's leases are short, so that one runs out quickly
    fenced: list[str] = []
    a.on_fenced = fenced.append
    for table_id in ("t1", "t2"):
        a.create_table(a_table(table_id))
        a.start_game(table_id, 1, 5, 1.0)
    a.add_moves([StoredMove("t1", 1, 0, 0, "pass")])
    held_t1 = a.leases.held.pop("t1")  # a renews t2 only from now: t1 is left to run out (a was cut off)
    taken: list = []

    def b_took_t1() -> bool:
        taken.extend(b.leases.claim_due())
        return any(lease.table_id == "t1" for lease in taken)

    asyncio.run(_renewing(a, until_=b_took_t1))
    assert [lease.table_id for lease in taken] == ["t1"]
    a.leases.held["t1"] = held_t1  # a still believes it holds t1: it never heard otherwise

    with pytest.raises(TablesRefused) as refused:
        a.add_moves([StoredMove("t1", 1, 1, 1, "take"), StoredMove("t2", 1, 0, 0, "take")])
    assert refused.value.table_ids == {"t1"}  # t2's move is kept: a still holds t2
    assert fenced == ["t1"] and "t1" not in a.leases.held
    assert b.load_table("t1").moves == ((0, "pass"),)  # the fenced move left nothing
    assert b.load_table("t2").moves == ((0, "take"),)
    b.add_moves([StoredMove("t1", 1, 1, 1, "take")])  # the new holder writes on from the last accepted move
    assert b.load_table("t1").moves == ((0, "pass"), (1, "take"))


async def _renewing(store, until_) -> None:
    async def renew() -> None:
        while True:
            store.leases.renew()
            await asyncio.sleep(0.05)

    task = asyncio.get_running_loop().create_task(renew())
    try:
        await until(until_)
    finally:
        task.cancel()


def test_a_group_commit_keeps_the_tables_that_were_not_refused(stores):
    a = stores["a"]
    a.create_table(a_table("t1"))
    a.start_game("t1", 1, 5, 1.0)
    a.leases.forget("t2")  # t2 was never a's: its move is refused, t1's kept
    commits = GroupCommit(a)
    heard: dict[str, object] = {}
    commits.add(StoredMove("t1", 1, 0, 0, "pass"), lambda error: heard.setdefault("t1", error))
    commits.add(StoredMove("t2", 1, 0, 0, "pass"), lambda error: heard.setdefault("t2", error))
    commits.flush()
    assert heard["t1"] is None and isinstance(heard["t2"], TablesRefused)
    assert a.load_table("t1").moves == ((0, "pass"),)


def test_a_move_sent_again_is_written_once(stores):
    a = stores["a"]
    a.create_table(a_table())
    a.start_game("t1", 1, 5, 1.0)
    a.add_moves([StoredMove("t1", 1, 0, 0, "pass")])
    a.add_moves([StoredMove("t1", 1, 0, 0, "pass")])  # the writer did not hear back, and sends it again
    assert a.load_table("t1").moves == ((0, "pass"),)
    with pytest.raises(TablesRefused):  # another move where one is: refused
        a.add_moves([StoredMove("t1", 1, 0, 0, "take")])
    with pytest.raises(TablesRefused):  # a gap: refused
        a.add_moves([StoredMove("t1", 1, 5, 0, "take")])
    assert a.load_table("t1").moves == ((0, "pass"),)


def test_released_leases_are_due_at_once_and_taken_by_exactly_one_host(stores):
    a, b = stores["a"], stores["b"]
    a.create_table(a_table("t1"))
    assert b.leases.claim_due() == []  # held and not due
    assert a.leases.release() == 1  # a stops: its table is due now
    [lease] = b.leases.claim_due()
    assert (lease.table_id, lease.owner) == ("t1", "b") and lease.epoch == 2  # a later epoch than a's
    assert a.leases.claim_due() == []  # b holds it: nobody else gets it
    assert b.load_table("t1") == a_table()


async def test_the_group_commit_serves_the_event_loop_while_redis_is_slow_to_answer(stores, redis_url):
    """Issue 28: a table host's event loop never waits for Redis. While Redis holds every write for 0.3 s, a
    move's group commit waits for it, and the loop goes on (a blocking client would have held it all along); the
    move is told durable only once Redis has it."""
    import redis

    store = stores["a"]
    store.create_table(a_table())
    store.start_game("t1", 1, 5, 1.0)
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticker = asyncio.create_task(tick())
    told = asyncio.get_running_loop().create_future()
    other = redis.Redis.from_url(redis_url)
    try:
        other.client_pause(300, all=False)  # every write waits 0.3 s
        GroupCommit(store).add(StoredMove("t1", 1, 0, 0, "pass"), told.set_result)
        assert await asyncio.wait_for(told, 5.0) is None
    finally:
        ticker.cancel()
        other.close()
    assert ticks >= 10, "the loop stood still while Redis answered"
    assert store.load_table("t1").moves == ((0, "pass"),)


async def test_a_move_redis_did_not_answer_is_sent_again_and_kept_once_or_refused_unsure(stores, redis_url):
    """Issue 32, point 25: Redis holds the move's write past the client's time-out, then does it. The store
    cannot tell whether it landed: it sends it again (a copy changes nothing) until Redis answers, and the move is
    told durable, once in the log. A table whose lease is gone meanwhile is refused ``unsure``: its player is not
    told ``not_saved`` for a move its next host may play."""
    import redis

    from nothanks_server.cluster.redis_store import REDIS_TIMEOUT

    store = stores["a"]
    store.create_table(a_table())
    store.start_game("t1", 1, 5, 1.0)
    other = redis.Redis.from_url(redis_url)
    try:
        told = asyncio.get_running_loop().create_future()
        other.client_pause(round(REDIS_TIMEOUT * 1500), all=False)  # longer than the client waits
        GroupCommit(store).add(StoredMove("t1", 1, 0, 0, "pass"), told.set_result)
        assert await asyncio.wait_for(told, 10.0) is None
        assert store.load_table("t1").moves == ((0, "pass"),)

        other.client_pause(round(REDIS_TIMEOUT * 1500), all=False)
        adding = asyncio.create_task(store.add_moves_async([StoredMove("t1", 1, 1, 1, "pass")]))
        await until(lambda: store.aclient.connection_pool._in_use_connections, timeout=5.0)
        store.leases.forget("t1")  # the lease ran out meanwhile (takeover.py forgets it and stops the table)
        with pytest.raises(StoreError) as refused:
            await asyncio.wait_for(adding, 10.0)
        assert refused.value.unsure
    finally:
        other.close()


def test_ratings_are_the_clusters_filed_once_and_none_lost_when_two_hosts_rate_one_player_at_once(stores):
    from nothanks_server import ratings

    a, b = stores["a"], stores["b"]
    for store, table_id in ((a, "t1"), (b, "t2")):
        store.create_table(a_table(table_id))
        store.start_game(table_id, 1, 5, 1.0)
    reading = a._reading

    def raced(table_id, rated=()):  # b rates ann between a's read of her rating and a's write
        found = yield from reading(table_id, rated)
        if rated and not raced.done:
            raced.done = True
            b.add_moves([StoredMove("t2", 1, 0, 0, "take", a_finished_record())])
        return found

    raced.done = False
    a._reading = raced
    a.add_moves([StoredMove("t1", 1, 0, 0, "take", a_finished_record())])
    a.add_moves([StoredMove("t1", 1, 0, 0, "take", a_finished_record())])  # sent again: rated once
    for store in (a, b):
        [ann] = [row for row in store.leaderboard() if not row.bot]
        assert ann.name == "ann" and ann.games == 2  # b's game and a's, none overwritten
        assert store.ratings(["Ann", "nobody"]) == {"Ann": ann.rating} and ann.rating > ratings.NEWCOMER


def test_the_daily_deal_is_the_clusters_whichever_host_deals_or_ranks(stores):
    a, b = stores["a"], stores["b"]
    assert a.daily_secret() == b.daily_secret()  # made once: every table host deals the same
    assert a.daily_entry("2026-12-04", "ann") is None
    assert a.daily_start("2026-12-04", "ann", "d1", 1.0)
    assert not b.daily_start("2026-12-04", "ann", "d9", 2.0)  # once a day, whichever host is asked
    assert b.daily_start("2026-12-04", "bob", "d2", 2.0)
    assert b.daily_entry("2026-12-04", "ann") == ("d1", None)
    a.daily_finish("d1", 31, 3.0)
    b.daily_finish("d7", 5, 3.0)  # not a daily table: nothing
    assert a.daily_results("2026-12-04") == b.daily_results("2026-12-04") == [("ann", 31)]
    assert b.daily_entry("2026-12-04", "ann") == ("d1", 31)
    assert a.daily_results("2026-12-05") == []
