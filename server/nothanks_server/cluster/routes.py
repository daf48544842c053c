"""Where a front sends a client's table request: the table host that holds a table, a seat token or an SSH key.

The table hosts write the keys (cl-table's store; the names are the cluster contract's), the gateway only reads:

- ``{prefix}:token:{hex sha256 of the token}`` -> the table id a seat token is for;
- ``{prefix}:keyseat:{fingerprint}`` -> ``"{table_id} {seat}"``, the seat an SSH key holds;
- the table's lease (``Directory.holder``) names its holder, and the holder's heartbeat its table port.

Each lookup is one or two Redis round trips, paid when a client sits down or its table moves, never per move.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..store import hash_token
from .directory import Directory, HostInfo
from .leases import TABLE_LEASE_TTL


@dataclass(frozen=True)
class Target:
    """A table host a front can connect to."""

    host_id: str
    address: str  # HOST:PORT of its table port

    @property
    def host_port(self) -> tuple[str, int]:
        host, _, port = self.address.rpartition(":")
        return host.strip("[]"), int(port)


@dataclass(frozen=True)
class KeySeat:
    table_id: str
    seat: int


class Routes:
    """Lookups in the cluster's directory for the gateway."""

    def __init__(self, directory: Directory) -> None:
        self.directory = directory

    def key(self, *parts: str) -> str:
        return ":".join((self.directory.prefix, *parts))

    async def holder(self, table_id: str) -> Target | None:
        """The live table host holding ``table_id``'s lease, or None (nobody: not yet taken over, or no table)."""
        lease = await self.directory.holder(table_id)
        if lease is None:
            return None
        return _target(await self.directory.hosts(), lease.owner)

    async def least_loaded(self) -> Target | None:
        """Where a new table goes."""
        host = await self.directory.least_loaded()
        return None if host is None else Target(host.host_id, host.address)

    async def lease_renewed(self, table_id: str) -> float | None:
        """Seconds since ``table_id``'s lease was last taken or renewed (its time to live counts down from
        ``TABLE_LEASE_TTL``), or None if nobody holds it."""
        left = await self.directory.client.pttl(self.key("lease", table_id))
        return None if left < 0 else max(0.0, TABLE_LEASE_TTL - left / 1000)

    async def table_of_token(self, token: str) -> str | None:
        value = await self.directory.client.get(self.key("token", hash_token(token).hex()))
        return None if value is None else _text(value)

    async def seat_of_key(self, fingerprint: str) -> KeySeat | None:
        value = await self.directory.client.get(self.key("keyseat", fingerprint))
        if value is None:
            return None
        table_id, _, seat = _text(value).rpartition(" ")
        try:
            return KeySeat(table_id, int(seat))
        except ValueError:
            return None


def _target(hosts: list[HostInfo], host_id: str) -> Target | None:
    for host in hosts:
        if host.host_id == host_id:
            return Target(host.host_id, host.address)
    return None


def _text(value: bytes | str) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value
