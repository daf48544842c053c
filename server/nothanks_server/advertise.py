"""A host made visible on the local network: DNS-SD over multicast DNS, so ``nothanks join`` finds it by itself.

A ``Host`` plug-in (``nothanks host`` and ``server`` add one unless ``--no-advertise``): a ``_nothanks._tcp``
service whose TXT record (link/dnssd.py) says the host's name, protocol and free seats, kept up to date at most
once per ``MIN_INTERVAL``. It runs in a task of its own on zeroconf's asyncio API: the host never waits for the
network, and a network without multicast costs one log line, never the host's start."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import re
import socket
from typing import TYPE_CHECKING

from nothanks_tui.link.dnssd import SERVICE_TYPE, txt_record
from nothanks_tui.link.wire import PROTOCOL_VERSION

if TYPE_CHECKING:
    from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

    from .host import Host
    from .lobby import Lobby

log = logging.getLogger(__name__)

MIN_INTERVAL = 2.0  # seconds between two updates of the free seats (each update is a few multicast packets)
GOODBYE_TIMEOUT = 1.0  # seconds a closing host gives its goodbye packets before it stops regardless
MAX_LABEL = 63  # bytes in a DNS label: the service's instance name


def free_seats(lobby: Lobby) -> int:
    """Empty seats at the tables whose game has not started: what a newcomer could sit at."""
    return sum(table.free_seats for table in lobby.tables() if not table.started and not table.finished)


def instance_name(name: str, port: int) -> str:
    """A DNS-SD instance name for this host, unique on the LAN in practice: "NAME (MACHINE:PORT)", one label."""
    machine = socket.gethostname().split(".")[0] or "nothanks"
    where = f"{machine}:{port}"
    label = (where if name == machine else f"{name} ({where})").replace(".", " ")
    while len(label.encode()) > MAX_LABEL:
        label = label[:-1]
    return label.strip() or f"nothanks {port}"


def _specific(bind: str) -> bool:
    """``bind`` is one IPv4 address (not 0.0.0.0, not a name)."""
    with contextlib.suppress(ValueError):
        address = ipaddress.ip_address(bind)
        return address.version == 4 and not address.is_unspecified
    return False


def advertised_addresses(bind: str) -> list[str]:
    """The IPv4 addresses clients may reach us on: the one bound, else every interface's (loopback only when there
    is nothing else, e.g. in a network namespace with just ``lo``)."""
    if _specific(bind):
        return [bind]
    from zeroconf import get_all_addresses

    addresses = sorted(set(get_all_addresses()))
    return [a for a in addresses if not ipaddress.ip_address(a).is_loopback] or addresses


class Advertiser:
    """The host's DNS-SD service, from ``start`` (the host listens) to ``close`` (it stops)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.registered = asyncio.Event()  # set once the service is on the network (then closing says goodbye)
        self.seats: int | None = None  # the free seats last advertised
        self._zeroconf: AsyncZeroconf | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self, host: Host) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(host), name="advertise")

    async def _run(self, host: Host) -> None:
        from zeroconf import InterfaceChoice, IPVersion
        from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

        lobby, addresses = host.lobby, advertised_addresses(host.bind)
        machine = re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname().split(".")[0])[:MAX_LABEL] or "nothanks"

        def info(name: str, seats: int) -> AsyncServiceInfo:
            return AsyncServiceInfo(
                SERVICE_TYPE,
                name,
                port=host.port,
                properties=txt_record(self.name, PROTOCOL_VERSION, seats),
                parsed_addresses=addresses,
                server=f"{machine}.local.",
            )

        seen, self.seats = lobby.version, free_seats(lobby)  # the lobby as these seats were counted
        service = info(f"{instance_name(self.name, host.port)}.{SERVICE_TYPE}", self.seats)
        try:  # bound to one address (e.g. loopback): announced there only, where players can reach it
            interfaces = addresses if _specific(host.bind) else InterfaceChoice.All
            self._zeroconf = AsyncZeroconf(interfaces=interfaces, ip_version=IPVersion.V4Only)
            await (await self._zeroconf.async_register_service(service, allow_name_change=True))
        except Exception as error:  # no multicast, no interface, a name taken: the host plays on unseen
            log.warning("not advertised on the local network (join by address instead): %s", error or type(error))
            await self._close_zeroconf()
            return
        self.registered.set()
        log.info("advertised on the local network as %r", service.name)
        while True:  # the free seats, at most once per ``MIN_INTERVAL``
            await asyncio.sleep(MIN_INTERVAL)
            if lobby.version == seen:
                continue
            seen, seats = lobby.version, free_seats(lobby)
            if seats == self.seats or self._zeroconf is None:
                continue
            self.seats = seats
            service = info(service.name, seats)  # the name as registered (it may have changed)
            try:
                await (await self._zeroconf.async_update_service(service))
            except Exception as error:
                log.warning("could not update the advertised free seats: %s", error)

    async def close(self) -> None:
        """Say goodbye on the network (bounded) and stop."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
        await self._close_zeroconf()

    async def _close_zeroconf(self) -> None:
        zeroconf, self._zeroconf = self._zeroconf, None
        if zeroconf is None:
            return
        if self.registered.is_set():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(zeroconf.async_unregister_all_services(), GOODBYE_TIMEOUT)
        with contextlib.suppress(Exception):
            await zeroconf.async_close()
