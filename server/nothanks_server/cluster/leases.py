"""A table host's leases: one per table it plays, taken when it creates or adopts the table, all renewed together
in one script per beat (500 tables must not cost 500 round trips), given up when it stops; and the deadlines a
takeover reads, the due ones only, never every key (docs/scaling.md, "Keys in Redis"). Every script reads Redis's
own clock (``TIME``), so the hosts' clocks never matter. What the takeover does every beat (renew, claim) runs on
the asyncio client, the rest on the blocking one (exchanges.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .directory import TABLE_LEASE_TTL, Keyed, Lease, ms
from .directory import text as _text
from .exchanges import Exchange, Lua, call, run, run_async

CLAIM_BATCH = 8  # tables one host claims per look, so that the tables of a dead host spread over the others

_NOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

# KEYS: deadlines, lease, epoch. ARGV: owner, ttl (ms), table id. The new epoch, or false if the lease is held.
_ACQUIRE = Lua(
    _NOW
    + """
if redis.call('EXISTS', KEYS[2]) == 1 then return false end
local epoch = redis.call('INCR', KEYS[3])
redis.call('SET', KEYS[2], ARGV[1] .. ' ' .. epoch, 'PX', ARGV[2])
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
return epoch
"""
)

# KEYS: deadlines. ARGV: how many. The ids of tables whose lease is due, soonest first.
_DUE = Lua(
    _NOW
    + """
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
"""
)

# KEYS: deadlines, then lease and epoch of each table. ARGV: owner, ttl (ms), the table ids.
# Takes each table that is still due and whose lease is gone: {id, epoch, id, epoch...} of those taken.
_CLAIM = Lua(
    _NOW
    + """
local taken = {}
for i = 3, #ARGV do
  local lease, counter = KEYS[2 * (i - 3) + 2], KEYS[2 * (i - 3) + 3]
  local due = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if due and tonumber(due) <= now then
    if redis.call('EXISTS', lease) == 0 then
      local epoch = redis.call('INCR', counter)
      redis.call('SET', lease, ARGV[1] .. ' ' .. epoch, 'PX', ARGV[2])
      redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[i])
      taken[#taken + 1] = ARGV[i]
      taken[#taken + 1] = epoch
    else
      local left = redis.call('PTTL', lease)
      if left > 0 then redis.call('ZADD', KEYS[1], now + left, ARGV[i]) end
    end
  end
end
return taken
"""
)

# KEYS: deadlines, then each lease. ARGV: ttl (ms), then id and lease value of each. The ids of leases lost.
_RENEW = Lua(
    _NOW
    + """
local lost = {}
for i = 2, #KEYS do
  local id, value = ARGV[2 * (i - 1)], ARGV[2 * (i - 1) + 1]
  if redis.call('GET', KEYS[i]) == value then
    redis.call('PEXPIRE', KEYS[i], ARGV[1])
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), id)
  else
    lost[#lost + 1] = id
  end
end
return lost
"""
)

# KEYS: deadlines, then each lease. ARGV: id and lease value of each. How many were still held (and are given up).
_RELEASE = Lua("""
local given = 0
for i = 2, #KEYS do
  local id, value = ARGV[2 * (i - 1) - 1], ARGV[2 * (i - 1)]
  if redis.call('GET', KEYS[i]) == value then
    redis.call('DEL', KEYS[i])
    redis.call('ZADD', KEYS[1], 0, id)
    given = given + 1
  end
end
return given
""")


class LeaseBook(Keyed):
    """The leases ``owner`` (this host's id) holds under ``prefix``: on the blocking ``client``, and for what the
    takeover does on the event loop (``renew``, ``claim_due``), on the asyncio ``aclient``."""

    def __init__(self, client: Any, aclient: Any, prefix: str, owner: str) -> None:
        super().__init__(client, prefix)
        self.aclient = aclient
        self.owner = owner
        self.ttl = TABLE_LEASE_TTL
        self.held: dict[str, Lease] = {}

    @property
    def deadlines(self) -> str:
        return self.key("lease_deadlines")

    def value(self, table_id: str) -> str | None:
        """What the lease key holds while this host holds ``table_id`` (None: it does not)."""
        lease = self.held.get(table_id)
        return None if lease is None else lease.value

    def acquire(self, table_id: str) -> Lease | None:
        """The lease on a new table (None if someone holds it)."""
        keys = [self.deadlines, self.key("lease", table_id), self.key("epoch", table_id)]
        epoch = run(self.client, call(_ACQUIRE, keys, [self.owner, ms(self.ttl), table_id]))
        if epoch is None:
            return None
        lease = self.held[table_id] = Lease(table_id, self.owner, int(epoch))
        return lease

    async def claim_due(self, limit: int = CLAIM_BATCH) -> list[Lease]:
        """Take the leases that ran out (their host died, or gave them up): at most ``limit``, each by exactly one
        host (the script decides). Two round trips when some are due, one when none is."""
        return await run_async(self.aclient, self._claiming(limit))

    def _claiming(self, limit: int) -> Exchange[list[Lease]]:
        due = [_text(item) for item in (yield from call(_DUE, [self.deadlines], [limit]))]
        due = [table_id for table_id in due if table_id not in self.held]
        if not due:
            return []
        keys = [self.deadlines, *(self.key(kind, table_id) for table_id in due for kind in ("lease", "epoch"))]
        taken = yield from call(_CLAIM, keys, [self.owner, ms(self.ttl), *due])
        leases = [Lease(_text(table_id), self.owner, int(epoch)) for table_id, epoch in zip(taken[::2], taken[1::2])]
        self.held |= {lease.table_id: lease for lease in leases}
        return leases

    async def renew(self) -> list[str]:
        """Extend every lease held, in one script; the tables whose lease was lost (forgotten here)."""
        return await run_async(self.aclient, self._renewing())

    def _renewing(self) -> Exchange[list[str]]:
        if not self.held:
            return []
        leases = list(self.held.values())
        answer = yield from call(_RENEW, *self._named(leases, ms(self.ttl)))
        lost = [_text(item) for item in answer]
        for table_id in lost:
            if self.held.get(table_id) in leases:  # (not one taken again meanwhile, while Redis answered)
                del self.held[table_id]
        return lost

    def release(self, table_ids: Iterable[str] | None = None) -> int:
        """Give up the leases of ``table_ids`` (None: all), due at once for the other hosts; how many were held."""
        chosen = list(self.held) if table_ids is None else [t for t in table_ids if t in self.held]
        leases = [self.held.pop(table_id) for table_id in chosen]
        return int(run(self.client, call(_RELEASE, *self._named(leases)))) if leases else 0

    def forget(self, table_id: str) -> None:
        """This host no longer holds ``table_id`` (lost, or the table dropped with its lease)."""
        self.held.pop(table_id, None)

    def _named(self, leases: list[Lease], *first: Any) -> tuple[list[str], list[Any]]:
        """KEYS (the deadlines, each lease) and ARGV (``first``, then each lease's table and value) of a script."""
        pairs = [part for lease in leases for part in (lease.table_id, lease.value)]
        return [self.deadlines, *(self.key("lease", lease.table_id) for lease in leases)], [*first, *pairs]
