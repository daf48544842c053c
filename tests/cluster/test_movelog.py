"""The fenced move log against a real redis-server: moves written by the table's lease holder, in order, each
once however often it is sent; an old owner cut off past its lease cannot add a move after the new owner's; and
what Redis acknowledged with ``appendfsync always`` survives a crash of Redis itself."""

from __future__ import annotations

import pytest

from nothanks_server.cluster.directory import Directory
from nothanks_server.cluster.movelog import LoggedMove
from tools.cluster_log import Fenced, MoveConflict, MoveLog, acquire

from .directory_helpers import eventually
from .redis_server import running_redis

TAKE, PASS = "take", "pass"


def moves(*actions: str, start: int = 0) -> list[LoggedMove]:
    return [LoggedMove(seat=(start + n) % 3, action=action, state_id=start + n) for n, action in enumerate(actions)]


async def test_the_holder_writes_in_order_and_a_resend_is_not_applied_twice(directory):
    log = MoveLog(directory)
    lease = await acquire(directory, "t1", "host-a")
    assert await log.append(lease, 1, 0, moves(PASS, PASS, TAKE)) == 3
    assert await log.append(lease, 1, 2, moves(TAKE, PASS, start=2)) == 1  # index 2 again (no answer heard), then 3
    assert await log.moves("t1", 1) == moves(PASS, PASS, TAKE, PASS)
    with pytest.raises(MoveConflict):
        await log.append(lease, 1, 3, moves(TAKE, start=3))  # another move where one is already
    with pytest.raises(MoveConflict):
        await log.append(lease, 1, 6, moves(TAKE, start=6))  # a gap: moves 4 and 5 are missing
    assert await log.moves("t1", 1) == moves(PASS, PASS, TAKE, PASS)  # neither changed anything
    assert await log.moves("t1", 2) == []  # each game its own list


async def test_an_old_owner_cut_off_past_its_lease_cannot_write_after_the_new_one(directory):
    log = MoveLog(directory)
    old = await acquire(directory, "t1", "host-a", ttl=0.3)
    await log.append(old, 1, 0, moves(PASS, PASS))

    async def expired() -> bool:  # host-a is cut off from Redis: it renews nothing
        return await directory.holder("t1") is None

    await eventually(expired)
    new = await acquire(directory, "t1", "host-b")
    assert new.epoch == old.epoch + 1
    replayed = await log.moves("t1", 1)  # host-b takes the table over at the last accepted move
    assert replayed == moves(PASS, PASS)
    assert await log.append(new, 1, len(replayed), moves(TAKE, start=2)) == 1
    with pytest.raises(Fenced):  # host-a comes back, still believing the table is its own
        await log.append(old, 1, 2, moves(PASS, start=2))
    with pytest.raises(Fenced):
        await log.append(old, 1, 3, moves(PASS, start=3))
    assert await log.moves("t1", 1) == moves(PASS, PASS, TAKE)


async def test_acknowledged_moves_survive_a_crash_of_redis(tmp_path):
    durable = ("--appendonly", "yes", "--appendfsync", "always")
    with running_redis(tmp_path, *durable) as url:
        directory = await Directory.connect(url)
        lease = await acquire(directory, "t1", "host-a")
        await MoveLog(directory).append(lease, 1, 0, moves(PASS, TAKE, PASS))
        await directory.close()
    # redis-server was SIGKILLed on leaving the block: no shutdown, no save. Started again on the same files:
    with running_redis(tmp_path, *durable) as url:
        directory = await Directory.connect(url)
        assert await MoveLog(directory).moves("t1", 1) == moves(PASS, TAKE, PASS)
        await directory.close()
