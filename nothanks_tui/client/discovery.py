"""Hosts found on the LAN (DNS-SD ``_nothanks._tcp``, link/dnssd.py), for the Join tab and ``nothanks join``.

Every answer is hostile: unreadable records are skipped, names cleaned, hosts and lookups bounded."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ..link.dnssd import SERVICE_TYPE, read_txt
from ..link.names import MAX_NAME
from ..link.wire import PROTOCOL_VERSION
from .safe_text import clean_name

if TYPE_CHECKING:
    from zeroconf import Zeroconf
    from zeroconf.asyncio import AsyncServiceBrowser, AsyncZeroconf

log = logging.getLogger(__name__)

MAX_HOSTS = 64  # hosts kept (and lookups in flight) at once; more are ignored until some go away
RESOLVE_TIMEOUT_MS = 3000
MAX_SERVICE_NAME = 255


@dataclass(frozen=True, slots=True)
class FoundHost:
    """A host seen on the network: where it is, what it calls itself, and whether we can play there."""

    key: str  # the service's name on the network: one entry per host
    name: str  # safe to draw (cleaned), though still to be drawn as plain text
    address: str
    port: int
    protocol: int | None  # None: it did not say (an unknown or broken record)
    free_seats: int | None

    @property
    def compatible(self) -> bool:
        return self.protocol == PROTOCOL_VERSION

    @property
    def target(self) -> str:
        """What the Join tab's address field takes: ``address:port``, IPv6 in brackets."""
        return f"[{self.address}]:{self.port}" if ":" in self.address else f"{self.address}:{self.port}"


def found_host(service: object, addresses: Iterable[object], port: object, properties: object) -> FoundHost | None:
    """A ``FoundHost`` from what a lookup answered, or None if it is not one we could reach. Never raises."""
    if not isinstance(service, str) or not isinstance(port, int) or not 0 < port < 65536:
        return None
    address = _reachable(addresses)
    if address is None:
        return None
    txt = read_txt(properties)
    service = service[:MAX_SERVICE_NAME]
    name = txt.name or clean_name(service.removesuffix("." + SERVICE_TYPE), max_input=64)[:MAX_NAME]
    return FoundHost(service, name, address, port, txt.protocol, txt.free_seats)


def _reachable(addresses: Iterable[object]) -> str | None:
    """The first usable address, IPv4 before IPv6 (a link-local IPv6 address needs a scope we do not keep)."""
    usable: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = []
    for raw in list(addresses)[:16]:
        with contextlib.suppress(ValueError, TypeError):
            address = ipaddress.ip_address(str(raw)[:64])
            if not (address.is_multicast or address.is_unspecified or (address.is_link_local and address.version == 6)):
                usable.append(address)
    usable.sort(key=lambda address: address.version)
    return str(usable[0]) if usable else None


def sorted_hosts(hosts: Iterable[FoundHost]) -> list[FoundHost]:
    """Hosts to list: those we can play at first, then by name."""
    return sorted(hosts, key=lambda host: (not host.compatible, host.name.casefold(), host.key))


HostsChanged = Callable[[list[FoundHost]], None]


class HostBrowser(Protocol):
    """Finds hosts on the network and calls ``on_change`` with all it knows each time they change."""

    async def start(self, on_change: HostsChanged) -> None:
        """Begin browsing; returns at once. Raises ``OSError``/``RuntimeError`` if the network cannot be browsed."""

    async def close(self) -> None: ...


class ZeroconfBrowser:
    """A ``HostBrowser`` over multicast DNS (zeroconf), on the running event loop."""

    def __init__(self) -> None:
        self._zeroconf: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._hosts: dict[str, FoundHost] = {}
        self._lookups: dict[str, asyncio.Task[None]] = {}
        self._on_change: HostsChanged = lambda hosts: None

    async def start(self, on_change: HostsChanged) -> None:
        from zeroconf import IPVersion
        from zeroconf.asyncio import AsyncServiceBrowser, AsyncZeroconf

        self._on_change = on_change
        self._zeroconf = AsyncZeroconf(ip_version=IPVersion.V4Only)
        self._browser = AsyncServiceBrowser(self._zeroconf.zeroconf, [SERVICE_TYPE], handlers=[self._changed])

    def _changed(self, zeroconf: Zeroconf, service_type: str, name: str, state_change: object) -> None:
        from zeroconf import ServiceStateChange

        if state_change is ServiceStateChange.Removed:
            if self._hosts.pop(name, None) is not None:
                self._on_change(sorted_hosts(self._hosts.values()))
            return
        if name in self._lookups or (len(self._lookups) + len(self._hosts) >= MAX_HOSTS and name not in self._hosts):
            return
        lookup = asyncio.get_running_loop().create_task(self._look_up(zeroconf, service_type, name))
        self._lookups[name] = lookup
        lookup.add_done_callback(lambda _task: self._lookups.pop(name, None))

    async def _look_up(self, zeroconf: Zeroconf, service_type: str, name: str) -> None:
        from zeroconf.asyncio import AsyncServiceInfo

        try:
            info = AsyncServiceInfo(service_type, name)
            if not await info.async_request(zeroconf, RESOLVE_TIMEOUT_MS):
                return
            host = found_host(name, info.parsed_addresses(), info.port, info.properties)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a record zeroconf itself could not make sense of
            log.debug("skipped %r: %s", name[:80], error)
            return
        if host is None or self._hosts.get(name) == host:
            return
        self._hosts[name] = host
        self._on_change(sorted_hosts(self._hosts.values()))

    async def close(self) -> None:
        for lookup in list(self._lookups.values()):
            lookup.cancel()
        browser, self._browser = self._browser, None
        zeroconf, self._zeroconf = self._zeroconf, None
        with contextlib.suppress(Exception):
            if browser is not None:
                await browser.async_cancel()
        with contextlib.suppress(Exception):
            if zeroconf is not None:
                await zeroconf.async_close()
