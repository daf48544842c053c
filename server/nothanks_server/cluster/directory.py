"""The cluster's directory in Redis: live table hosts, the shared lobby, who holds a table's lease, and the keys a
front routes a client by (docs/scaling.md, "Keys in Redis"). Every front must show the same lobby and find the host
that owns a table, and a dead host's tables must be taken over by exactly one other (leases.py); each key expires,
so a host that dies without a word disappears by itself. ``redis`` (redis-py) is imported by ``connect`` alone.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgpack

from nothanks_tui.link import TableSummary
from nothanks_tui.link.names import name_key
from nothanks_tui.link.wire import summary_from_wire, to_wire

from ..background import start_beating, stop_task
from ..store import hash_token
from .settings import DirectoryUnavailable

if TYPE_CHECKING:
    from ..lobby import Lobby
    from .exchanges import Exchange

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
class ListedTable:
    """One line of the shared lobby: a table and the host that holds it."""

    host_id: str
    summary: TableSummary


class Keyed:
    """Keys on one Redis ``client``, all under ``prefix`` (clusters and tests may share a Redis)."""

    def __init__(self, client: Any, prefix: str = DEFAULT_PREFIX) -> None:
        self.client = client
        self.prefix = prefix

    def key(self, *parts: object) -> str:
        return ":".join((self.prefix, *map(str, parts)))

    def claiming_name(self, name: str, owner: str | None) -> Exchange[str | None]:
        """The owner of ``name`` (``P:name:{name_key(name)}``), set to ``owner`` first if there is none (SETNX: a
        name never changes hands); run on either client (a table host's store, a front's hello)."""
        key = self.key("name", name_key(name))
        *_set, value = yield [*([("SETNX", key, owner)] if owner is not None else []), ("GET", key)]
        return None if value is None else text(value)


class Directory(Keyed):
    """The directory on one Redis client (``redis.asyncio.Redis``); ``connect(url)`` makes one."""

    @classmethod
    async def connect(cls, url: str, prefix: str = DEFAULT_PREFIX) -> Directory:
        """A directory on the Redis server at ``url`` (``redis://HOST:PORT/DB``, ``unix:///PATH``); pings it."""
        import redis  # here, not at the top: a host without a Redis URL never pays for it

        from .exchanges import connect

        client = connect(url, asynchronous=True)
        try:
            await client.ping()
        except redis.RedisError as error:
            await client.aclose()
            raise DirectoryUnavailable(f"cannot reach Redis at {url}: {error}") from None
        return cls(client, prefix)

    async def close(self) -> None:
        await self.client.aclose()

    # Presence ---------------------------------------------------------------------------------------------------

    async def announce(self, host: HostInfo, ttl: float = HOST_TTL) -> None:
        """A heartbeat: ``host`` is alive for ``ttl`` more seconds, and so is its lobby listing."""
        payload = msgpack.packb({"address": host.address, "tables": host.tables})
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.set(self.key("host", host.host_id), payload, px=ms(ttl))
            pipe.sadd(self.key("hosts"), host.host_id)
            pipe.pexpire(self.key("lobby", host.host_id), ms(ttl))
            await pipe.execute()

    async def withdraw(self, host_id: str) -> None:
        """A host leaving on purpose: it and its tables are no longer listed (its leases expire by themselves)."""
        await self.client.delete(self.key("host", host_id), self.key("lobby", host_id))
        await self.client.srem(self.key("hosts"), host_id)

    async def hosts(self) -> list[HostInfo]:
        """The hosts whose heartbeat has not expired, by id."""
        ids = sorted(text(member) for member in await self.client.smembers(self.key("hosts")))
        if not ids:
            return []
        values = dict(zip(ids, await self.client.mget([self.key("host", host_id) for host_id in ids]), strict=True))
        if gone := [host_id for host_id, value in values.items() if value is None]:
            await self.client.srem(self.key("hosts"), *gone)
        alive = {host_id: msgpack.unpackb(value) for host_id, value in values.items() if value is not None}
        return [HostInfo(host_id, str(data["address"]), int(data["tables"])) for host_id, data in alive.items()]

    async def least_loaded(self) -> HostInfo | None:
        """Where a new table goes: the live host with the fewest tables (the first id on a tie)."""
        hosts = await self.hosts()
        return min(hosts, key=lambda host: (host.tables, host.host_id)) if hosts else None

    # The shared lobby -------------------------------------------------------------------------------------------

    async def publish_tables(self, host_id: str, summaries: list[TableSummary], ttl: float = HOST_TTL) -> None:
        """Replace ``host_id``'s lines of the lobby with ``summaries`` (they expire with its heartbeat)."""
        key = self.key("lobby", host_id)
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.delete(key)
            if summaries:
                pipe.hset(key, mapping={s.table_id: msgpack.packb(to_wire(s)) for s in summaries})
                pipe.pexpire(key, ms(ttl))
            await pipe.execute()

    async def lobby(self) -> list[ListedTable]:
        """Every live host's tables, by host then table id: the same list whichever front asks."""
        hosts = await self.hosts()
        async with self.client.pipeline(transaction=False) as pipe:  # one round trip for every host's lines
            for host in hosts:
                pipe.hgetall(self.key("lobby", host.host_id))
            every = await pipe.execute()
        return [
            ListedTable(host.host_id, summary_from_wire(msgpack.unpackb(lines[table_id])))
            for host, lines in zip(hosts, every, strict=True)
            for table_id in sorted(lines, key=text)
        ]

    # Leases -----------------------------------------------------------------------------------------------------

    async def holder(self, table_id: str) -> Lease | None:
        """Who holds ``table_id`` now, if anyone."""
        value = await self.client.get(self.key("lease", table_id))
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
        left = await self.client.pttl(self.key("lease", table_id))
        return None if left < 0 else max(0.0, TABLE_LEASE_TTL - left / 1000)

    # Routes (the front's look-ups) ------------------------------------------------------------------------------

    async def table_of_token(self, token: str) -> str | None:
        value = await self.client.get(self.key("token", hash_token(token).hex()))
        return None if value is None else text(value)

    async def seat_of_key(self, fingerprint: str) -> tuple[str, int] | None:
        return seat_at(await self.client.get(self.key("keyseat", fingerprint)))


class _Beating:
    """A task that reads or writes the directory now (a Redis that does not answer fails ``start``), then every
    ``interval`` seconds; Redis away costs a log line a beat (``_failed``), never the games."""

    interval = HOST_TTL / 3  # (two beats may be lost before a host's keys expire)
    _task: asyncio.Task[None] | None = None

    def __init__(self, directory: Directory) -> None:
        self.directory = directory

    beat: Callable[[], Awaitable[None]]  # (each kind's)

    async def start(self) -> None:
        self._task = await start_beating(self.interval, self.beat, self._failed, type(self).__name__)

    def _failed(self, error: Exception) -> None:
        log.warning("%s of the cluster's directory failed: %s", type(self).__name__, error)

    async def close(self) -> None:
        await stop_task(self._task)
        self._task = None


class Presence(_Beating):
    """Keeps ``host_id`` (reached at ``address``) and its lobby's tables listed in ``directory``: its heartbeat,
    with the lobby's lines when one changed (``Lobby.version``); a host that stops withdraws at once."""

    def __init__(self, directory: Directory, lobby: Lobby, host_id: str, address: str) -> None:
        super().__init__(directory)
        self.lobby = lobby
        self.host_id = host_id
        self.address = address
        self._published = -1  # the lobby version last published

    async def beat(self) -> None:
        tables = len(self.lobby.all_tables())
        version = self.lobby.version
        if version != self._published:
            await self.directory.publish_tables(self.host_id, self.lobby.tables())
            self._published = version
        await self.directory.announce(HostInfo(self.host_id, self.address, tables))

    async def close(self) -> None:
        """Stop beating and leave the directory now rather than when the keys expire."""
        await super().close()
        try:
            await self.directory.withdraw(self.host_id)
        except Exception as error:
            log.warning("could not withdraw %s from the cluster directory: %s", self.host_id, error)


class LobbyCache(_Beating):
    """The shared lobby as a front lists it, read every ``interval`` seconds by one task (every front the same;
    a table created a moment ago appears at the next beat)."""

    listed: Sequence[ListedTable] = ()  # (replaced whole at each beat)
    refreshes = 0

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


def ms(seconds: float) -> int:
    """A Redis expiry in milliseconds (at least one)."""
    return max(1, round(seconds * 1000))


def text(value: bytes | str) -> str:
    """A Redis answer as text (the cluster's modules share it)."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def seat_at(value: bytes | None) -> tuple[str, int] | None:
    """A ``P:keyseat:{fingerprint}`` value: (table, seat); None if there is none."""
    table_id, _, seat = text(value or b"").rpartition(" ")
    return (table_id, int(seat)) if seat.isdigit() else None
