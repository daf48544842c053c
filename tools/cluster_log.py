"""A table's lease and its fenced move log, one call at a time on a cluster ``Directory``: what the tests of the
log (tests/cluster/test_movelog.py, test_directory.py) and scripts (bench_directory, soak_cluster) drive directly.

A table host does the same in bulk, and only that: its leases all in one script a beat (cluster/leases.py's
``LeaseBook``), every table's moves of a group commit in one call (cluster/redis_store.py, ``APPEND_MANY``). The
scripts here check the same things (the lease's owner and epoch before any write), on the same keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgpack

from nothanks_server.cluster.directory import Directory, Lease
from nothanks_server.cluster.movelog import APPEND_ONE, NOT_HOLDER, LoggedMove, moves_key, pack_move

LEASE_TTL = 5.0  # seconds a table's lease lasts unless renewed

# Atomic on the server (one Lua script each), so two hosts can never both believe they hold a lease.
_ACQUIRE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local epoch = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. epoch, 'NX', 'PX', ARGV[2])
return epoch
"""
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
# KEYS: the lease, the game's list. ARGV: the writer's lease value, the first move's index, the moves (msgpack).
_APPEND = APPEND_ONE + "\nreturn append(KEYS[1], KEYS[2], ARGV[1], tonumber(ARGV[2]), 3, #ARGV)\n"


def _script(directory: Directory, text: str) -> Any:
    """``text`` as a script of the directory's client (called by its digest, as the host's are)."""
    return directory.client.register_script(text)


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))


async def acquire(directory: Directory, table_id: str, owner: str, ttl: float = LEASE_TTL) -> Lease | None:
    """Take the lease on ``table_id`` for ``owner`` if nobody holds it: the lease, with the table's next epoch;
    None if another holds it."""
    keys = [directory.key("lease", table_id), directory.key("epoch", table_id)]
    epoch = await _script(directory, _ACQUIRE)(keys=keys, args=[owner, _ms(ttl)])
    return None if epoch is None else Lease(table_id, owner, int(epoch))


async def renew(directory: Directory, lease: Lease, ttl: float = LEASE_TTL) -> bool:
    """Extend ``lease`` by ``ttl``; False if it was lost (expired, and maybe taken by another)."""
    keys = [directory.key("lease", lease.table_id)]
    return bool(await _script(directory, _RENEW)(keys=keys, args=[lease.value, _ms(ttl)]))


async def release(directory: Directory, lease: Lease) -> bool:
    """Give ``lease`` up; False if it was not held any more."""
    return bool(await _script(directory, _RELEASE)(keys=[directory.key("lease", lease.table_id)], args=[lease.value]))


class Fenced(Exception):
    """The writer does not hold the table's lease (any more): another host may own the table now."""


class MoveConflict(Exception):
    """The moves do not continue the game's log: a gap before them, or other moves where they would go."""


class MoveLog:
    """The move lists of a cluster, in the directory's Redis, under its prefix."""

    def __init__(self, directory: Directory) -> None:
        self.directory = directory

    def _key(self, table_id: str, game_no: int) -> str:
        return moves_key(self.directory.prefix, table_id, game_no)

    async def append(self, lease: Lease, game_no: int, first: int, moves: Sequence[LoggedMove]) -> int:
        """Write ``moves`` at indexes ``first``, ``first + 1``... of game ``game_no`` of ``lease``'s table, if the
        lease is still the table's; how many were new. Raises ``Fenced`` or ``MoveConflict`` (nothing written)."""
        keys = [self.directory.key("lease", lease.table_id), self._key(lease.table_id, game_no)]
        packed = [pack_move(move) for move in moves]
        added = int(await _script(self.directory, _APPEND)(keys=keys, args=[lease.value, first, *packed]))
        if added == NOT_HOLDER:
            raise Fenced(f"{lease.owner} no longer holds {lease.table_id} under epoch {lease.epoch}")
        if added < 0:
            raise MoveConflict(f"moves from index {first} do not continue game {game_no} of {lease.table_id}")
        return added

    async def moves(self, table_id: str, game_no: int) -> list[LoggedMove]:
        """Every accepted move of the game, in order (what a host taking the table over replays)."""
        return [
            LoggedMove(*msgpack.unpackb(item))
            for item in await self.directory.client.lrange(self._key(table_id, game_no), 0, -1)
        ]
