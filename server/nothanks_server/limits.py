"""What one client, or one address, may hold on a host: the limits a public host needs against abuse.

A LAN party never meets them; a script on one address that opens a thousand connections, creates hundreds of
tables, watches tables without reading, or asks for the table list forty times a second does, and is refused
before it can slow anyone else. Addresses count by network (``network_of``: an IPv6 /64 is one holder). At a
total (``max_connections``, ``LobbySettings.max_tables``) a newcomer is not refused: the host closes the least
used thing of the network holding the most (fair shares, not first come). Most numbers here are defaults that
``nothanks server`` / ``nothanks host`` flags change; README's security model and docs/protocol.md quote them."""

from __future__ import annotations

import asyncio
import functools
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

from .background import stop_task
from .ssh.settings import network_of

MAX_CONNECTIONS = 5000  # TCP connections at once (the open-file limit is raised for them)
_network_of = functools.lru_cache(maxsize=4096)(network_of)  # (parsed at every connect: a botnet's thousands a second)


@dataclass(frozen=True)
class ClientLimits:
    """Per connection and per address limits of the TCP transport (the SSH front has its own, per address too)."""

    max_connections: int = MAX_CONNECTIONS  # in all; one more closes the least used of the biggest holder's
    per_address_connections: int = 32  # open TCP connections from one address (one network: the prefixes below)
    connects_per_minute: float = 120.0  # new TCP connections one network may open a minute (that many at once)
    v4_prefix: int = 32  # IPv4 addresses in one /v4_prefix count as one address...
    v6_prefix: int = 64  # ...and IPv6 ones in one /v6_prefix
    hello_timeout: float = 10.0  # seconds a new connection has to say hello
    frame_timeout: float = 10.0  # seconds a frame may take from its first byte to its last (slowloris)
    per_address_spectating: int = 8  # tables watched at once from one address
    lobby_idle: float = 900.0  # seconds a connection may stay in the lobby without sitting at a table
    list_rate: float = 2.0  # list_tables per second, sustained, per connection...
    list_burst: float = 6.0  # ...and at once
    slow_reader: float = 30.0  # seconds a client may leave the host's updates unread before it is dropped
    backlog_bytes: int = 16 * 1024  # unread bytes above which updates wait (the newest replacing the older)
    backlog_frames: int = 64  # frames (other than updates) waiting for a slow reader before it is dropped

    def network(self, address: str) -> str:
        """The holder ``address`` counts for in every limit and share."""
        return _network_of(address, self.v4_prefix, self.v6_prefix)


def spend(buckets: dict[str, TokenBucket], holder: str, per_minute: float, burst: float) -> bool:
    """One of ``holder``'s ``per_minute`` (``burst`` at once) from ``buckets``, its bucket made on first use."""
    if len(buckets) > 10_000:  # (a few hundred bytes each: forgotten all at once)
        buckets.clear()
    now = time.monotonic()
    return buckets.setdefault(holder, TokenBucket(per_minute / 60, burst, None, now)).take(now)


class AddressCounts:
    """What each address (network) holds now (its connections, its watching connections), with how many."""

    def __init__(self) -> None:
        self.held: dict[str, set[Any]] = {}

    def take(self, address: str, limit: int, what: Any) -> bool:
        held = self.held.setdefault(address, set())
        if len(held) >= limit:
            return False
        held.add(what)
        return True

    def give_back(self, address: str, what: Any) -> None:
        held = self.held.get(address, set())
        held.discard(what)
        if not held:
            self.held.pop(address, None)

    def __getitem__(self, address: str) -> int:
        return len(self.held.get(address, ()))


class LoopStalls:
    """How long the event loop has been held up in all (seconds it could not run a short timer on time): rate
    budgets add it back, or a client would be blamed for the host's own stall (a ping a second queued behind a
    20-second stall arrives as twenty at once)."""

    TICK = 0.05  # seconds between checks
    SLACK = 0.02  # lateness below this is scheduling noise, not a stall

    def __init__(self) -> None:
        self.total = 0.0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._watch(), name="loop stall watch")

    async def stop(self) -> None:
        await stop_task(self._task)
        self._task = None

    async def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(self.TICK)
            late = loop.time() - before - self.TICK
            if late > self.SLACK:
                self.total += late


class TokenBucket:
    """``rate`` events a second sustained, ``burst`` at once; the host's own stalls (``LoopStalls``) are not
    charged to the client: the time the loop was held up refills the bucket beyond its burst."""

    def __init__(self, rate: float, burst: float, stalls: LoopStalls | None, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self._stalls = stalls
        self._tokens = burst
        self._cap = burst
        self._at = now
        self._stall_seen = stalls.total if stalls is not None else 0.0

    def take(self, now: float, amount: float = 1) -> bool:
        stalled = 0.0
        if self._stalls is not None:
            stalled, self._stall_seen = self._stalls.total - self._stall_seen, self._stalls.total
        # The cap is the burst, plus stall credit that shrinks as the tokens it allowed are spent.
        self._cap = max(self.burst, min(self._cap, self._tokens)) + stalled * self.rate
        self._tokens = min(self._cap, self._tokens + (now - self._at) * self.rate)
        self._at = now
        if self._tokens < amount:
            return False
        self._tokens -= amount
        return True

    def owe(self, amount: float) -> None:
        """Charge ``amount`` more, into debt if need be (refilled at ``rate`` as ever)."""
        self._tokens -= amount

    def give_back(self) -> None:
        """Undo one ``take`` (what it paid for turned out not to be charged to this holder)."""
        self._tokens = min(self._cap, self._tokens + 1)

    def rested(self, now: float) -> bool:
        """Whether it has been left alone long enough to be full again (and can be forgotten)."""
        return (now - self._at) * self.rate >= self.burst

    def wait(self, amount: float) -> float:
        """Seconds until ``amount`` tokens are there (after ``take`` found too few)."""
        return max(0.0, amount - self._tokens) / self.rate


class PerTurn:
    """About ``most`` costly requests (a table made or dealt: a store commit each) start in one turn of the event
    loop; the others wait their turn, the holders (networks) served in rotation, one request each: a botnet's
    hundreds at once would otherwise hold up every player's move for a second, and one network's queue everyone
    else's table (moves are never held: the group commit takes them)."""

    def __init__(self, most: int) -> None:
        self.most = most
        self._left = most
        self._waiting: dict[str, deque[asyncio.Future[None]]] = {}  # by holder, in the order of their turns
        self._refill: asyncio.Handle | None = None

    async def take(self, holder: str = "") -> None:
        if self._left > 0 and not self._waiting:
            self._left -= 1
            self._next()
            return
        waiter = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(holder, deque()).append(waiter)
        self._next()
        await waiter  # (cancelled with its connection: skipped)

    def _next(self) -> None:
        if self._refill is None:
            self._refill = asyncio.get_running_loop().call_soon(self._turn)

    def _turn(self) -> None:
        self._refill, self._left = None, self.most
        while self._left > 0 and self._waiting:
            holder = next(iter(self._waiting))
            waiter = (waiters := self._waiting.pop(holder)).popleft()
            if waiters:
                self._waiting[holder] = waiters  # (to the back of the rotation)
            if not waiter.done():
                waiter.set_result(None)
                self._left -= 1
        if self._waiting:
            self._next()
