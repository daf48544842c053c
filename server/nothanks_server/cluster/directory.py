"""The cluster's directory in Redis: live table hosts, the shared lobby, table leases with epochs, and the keys a
front routes a client by. Every front must show the same lobby and find the host that owns a table, and a dead
host's tables must be taken over by exactly one other; each key expires, so a host that dies without a word
disappears by itself. Keys, all under one prefix (clusters and tests may share a Redis), values msgpack:

- ``P:host:{id}``, the host's ``HostInfo``, expiring ``ttl`` after its last heartbeat (``Presence`` beats every
  third of it: two beats may be lost), and ``P:hosts``, the ids ever announced (expired ones dropped on reading);
- ``P:lobby:{id}``: table id -> its lobby line, replaced whole by its host when a line changed, expiring with the
  heartbeat; a front reads it once per beat (``LobbyCache``: 500 tables cost 13 ms of decoding);
- ``P:lease:{table}`` (``OWNER EPOCH``) and ``P:epoch:{table}``, so each new owner has a higher epoch and a store
  refuses an older one's writes (fencing; leases.py takes and renews them, here they are only read);
- ``P:token:{digest}`` -> a seat token's table and ``P:keyseat:{fingerprint}`` -> ``"{table} {seat}"`` (written by
  redis_store.py): a front's look-ups when a client sits down or its table moves, never per move.

``redis`` (redis-py) is imported by ``connect`` alone.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import msgpack

from nothanks_tui.link import TableSummary
from nothanks_tui.link.wire import summary_from_wire, summary_to_wire

from ..background import start_beating, stop_task
from ..store import hash_token
from .settings import DirectoryUnavailable

log = logging.getLogger(__name__)

DEFAULT_PREFIX = "nothanks"
HOST_TTL = 5.0  # seconds a host stays listed after its last heartbeat (Presence beats three times as often)
TABLE_LEASE_TTL = 3.0  # seconds a table's lease lasts unless renewed: a dead host's tables move after about this


@dataclass(frozen=True)
class HostInfo:
    """A table host as the others see it: where fronts reach its TCP port, and how many tables it holds."""

    host_id: str
    address: str  # HOST:PORT of its table connection
    tables: int = 0

    @property
    def host_port(self) -> tuple[str, int]:
        host, _, port = self.address.rpartition(":")
        return host.strip("[]"), int(port)


@dataclass(frozen=True)
class Lease:
    """``owner`` holds ``table_id`` under ``epoch`` until the lease expires (unless renewed)."""

    table_id: str
    owner: str
    epoch: int

    @property
    def value(self) -> str:
        return f"{self.owner} {self.epoch}"


@dataclass(frozen=True)
class KeySeat:
    table_id: str
    seat: int


@dataclass(frozen=True)
class ListedTable:
    """One line of the shared lobby: a table and the host that holds it."""

    host_id: str
    summary: TableSummary


class Directory:
    """The directory on one Redis client (``redis.asyncio.Redis``); ``connect(url)`` makes one."""

    def __init__(self, client: Any, prefix: str = DEFAULT_PREFIX) -> None:
        self.client = client
        self.prefix = prefix

    @classmethod
    async def connect(cls, url: str, prefix: str = DEFAULT_PREFIX) -> Directory:
        """A directory on the Redis server at ``url`` (``redis://HOST:PORT/DB``, ``unix:///PATH``); pings it."""
        import redis.asyncio  # here, not at the top: a host without a Redis URL never pays for it

        from .exchanges import reconnecting

        try:
            client = redis.asyncio.Redis.from_url(url, retry=reconnecting(True))
        except ValueError as error:
            raise DirectoryUnavailable(f"not a Redis URL: {url!r} ({error})") from None
        try:
            await client.ping()
        except redis.RedisError as error:
            await client.aclose()
            raise DirectoryUnavailable(f"cannot reach Redis at {url}: {error}") from None
        return cls(client, prefix)

    async def close(self) -> None:
        await self.client.aclose()

    def _key(self, *parts: str) -> str:
        return ":".join((self.prefix, *parts))

    # Presence ---------------------------------------------------------------------------------------------------

    async def announce(self, host: HostInfo, ttl: float = HOST_TTL) -> None:
        """A heartbeat: ``host`` is alive for ``ttl`` more seconds, and so is its lobby listing."""
        payload = msgpack.packb({"address": host.address, "tables": host.tables})
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.set(self._key("host", host.host_id), payload, px=_ms(ttl))
            pipe.sadd(self._key("hosts"), host.host_id)
            pipe.pexpire(self._key("lobby", host.host_id), _ms(ttl))
            await pipe.execute()

    async def withdraw(self, host_id: str) -> None:
        """A host leaving on purpose: it and its tables are no longer listed (its leases expire by themselves)."""
        await self.client.delete(self._key("host", host_id), self._key("lobby", host_id))
        await self.client.srem(self._key("hosts"), host_id)

    async def hosts(self) -> list[HostInfo]:
        """The hosts whose heartbeat has not expired, by id."""
        ids = sorted(text(member) for member in await self.client.smembers(self._key("hosts")))
        if not ids:
            return []
        values = await self.client.mget([self._key("host", host_id) for host_id in ids])
        alive, gone = [], []
        for host_id, value in zip(ids, values, strict=True):
            if value is None:
                gone.append(host_id)
                continue
            data = msgpack.unpackb(value)
            alive.append(HostInfo(host_id, str(data["address"]), int(data["tables"])))
        if gone:
            await self.client.srem(self._key("hosts"), *gone)
        return alive

    async def least_loaded(self) -> HostInfo | None:
        """Where a new table goes: the live host with the fewest tables (the first id on a tie)."""
        hosts = await self.hosts()
        return min(hosts, key=lambda host: (host.tables, host.host_id)) if hosts else None

    # The shared lobby -------------------------------------------------------------------------------------------

    async def publish_tables(self, host_id: str, summaries: list[TableSummary], ttl: float = HOST_TTL) -> None:
        """Replace ``host_id``'s lines of the lobby with ``summaries`` (they expire with its heartbeat)."""
        key = self._key("lobby", host_id)
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.delete(key)
            if summaries:
                pipe.hset(key, mapping={s.table_id: msgpack.packb(summary_to_wire(s)) for s in summaries})
                pipe.pexpire(key, _ms(ttl))
            await pipe.execute()

    async def lobby(self) -> list[ListedTable]:
        """Every live host's tables, by host then table id: the same list whichever front asks."""
        hosts = await self.hosts()
        async with self.client.pipeline(transaction=False) as pipe:  # one round trip for every host's lines
            for host in hosts:
                pipe.hgetall(self._key("lobby", host.host_id))
            every = await pipe.execute()
        listed = []
        for host, lines in zip(hosts, every, strict=True):
            for table_id in sorted(lines, key=text):
                listed.append(ListedTable(host.host_id, summary_from_wire(msgpack.unpackb(lines[table_id]))))
        return listed

    # Leases -----------------------------------------------------------------------------------------------------

    async def holder(self, table_id: str) -> Lease | None:
        """Who holds ``table_id`` now, if anyone."""
        value = await self.client.get(self._key("lease", table_id))
        if value is None:
            return None
        owner, _, epoch = text(value).rpartition(" ")
        return Lease(table_id, owner, int(epoch))

    async def owner(self, table_id: str) -> HostInfo | None:
        """The live table host holding ``table_id``'s lease, or None (nobody: not yet taken over, or no table)."""
        lease = await self.holder(table_id)
        return None if lease is None else next((h for h in await self.hosts() if h.host_id == lease.owner), None)

    async def lease_renewed(self, table_id: str) -> float | None:
        """Seconds since ``table_id``'s lease was last taken or renewed, or None if nobody holds it."""
        left = await self.client.pttl(self._key("lease", table_id))
        return None if left < 0 else max(0.0, TABLE_LEASE_TTL - left / 1000)

    # Routes (the front's look-ups) ------------------------------------------------------------------------------

    async def table_of_token(self, token: str) -> str | None:
        value = await self.client.get(self._key("token", hash_token(token).hex()))
        return None if value is None else text(value)

    async def seat_of_key(self, fingerprint: str) -> KeySeat | None:
        value = await self.client.get(self._key("keyseat", fingerprint))
        table_id, _, seat = text(value or b"").rpartition(" ")
        return KeySeat(table_id, int(seat)) if seat.isdigit() else None


class LobbyLike(Protocol):
    """What presence reads of a lobby (``nothanks_server.lobby.Lobby``)."""

    version: int

    def all_tables(self) -> Sequence[object]: ...

    def tables(self) -> list[TableSummary]: ...  # the listed ones (not private tables)


class _Beating:
    """A task that reads or writes the directory now (a Redis that does not answer fails ``start``), then every
    ``interval`` seconds; Redis away costs a log line a beat (``_failed``), never the games."""

    interval: float
    _task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = await start_beating(self.interval, self.beat, self._failed, type(self).__name__)

    async def beat(self) -> None:
        raise NotImplementedError

    def _failed(self, error: Exception) -> None:
        log.warning("%s of the cluster's directory failed: %s", type(self).__name__, error)

    async def close(self) -> None:
        await stop_task(self._task)
        self._task = None


class Presence(_Beating):
    """Keeps ``host_id`` (reached at ``address``) and its lobby's tables listed in ``directory``: its heartbeat,
    with the lobby's lines when one changed (``Lobby.version``); a host that stops on purpose withdraws at once."""

    def __init__(
        self, directory: Directory, lobby: LobbyLike, host_id: str, address: str, ttl: float = HOST_TTL
    ) -> None:
        self.directory = directory
        self.lobby = lobby
        self.host_id = host_id
        self.address = address
        self.ttl = ttl
        self.interval = ttl / 3
        self.beats = 0  # heartbeats that reached Redis
        self._published = -1  # the lobby version last published

    async def beat(self) -> None:
        tables = list(self.lobby.all_tables())
        version = self.lobby.version
        if version != self._published:
            await self.directory.publish_tables(self.host_id, self.lobby.tables(), self.ttl)
            self._published = version
        await self.directory.announce(HostInfo(self.host_id, self.address, len(tables)), self.ttl)
        self.beats += 1

    async def close(self, withdraw: bool = True) -> None:
        """Stop beating; ``withdraw``: leave the directory now rather than when the keys expire."""
        await super().close()
        if withdraw:
            try:
                await self.directory.withdraw(self.host_id)
            except Exception as error:
                log.warning("could not withdraw %s from the cluster directory: %s", self.host_id, error)


class LobbyCache(_Beating):
    """The shared lobby as a front lists it, read every ``interval`` seconds by one task (every front the same;
    a table created a moment ago appears at the next beat)."""

    def __init__(self, directory: Directory, interval: float = HOST_TTL / 3) -> None:
        self.directory = directory
        self.interval = interval
        self.listed: list[ListedTable] = []
        self.refreshes = 0

    async def beat(self) -> None:  # (Redis away: the last listing stays)
        self.listed = sorted(await self.directory.lobby(), key=_listing_order)
        self.refreshes += 1

    def summary(self, table_id: str) -> TableSummary | None:
        return next((line.summary for line in self.listed if line.summary.table_id == table_id), None)


def _listing_order(line: ListedTable) -> tuple[bool, bool, int, str]:
    """Joinable tables first, then games under way, then finished ones; by table number (the oldest first)."""
    summary = line.summary
    number = summary.table_id[1:]
    return (summary.started, summary.finished, int(number) if number.isdigit() else 0, summary.table_id)


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))


def text(value: bytes | str) -> str:
    """A Redis answer as text (the cluster's modules share it)."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value
