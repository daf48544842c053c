"""A small cluster in one process for the gateway's tests: real Redis, table hosts (``Host`` with ``cluster=``)
and gateways, each under the test's own key prefix; and a client that says hello with the features it wants."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from nothanks_server import LobbySettings
from nothanks_server.cluster.directory import Directory
from nothanks_server.cluster.gateway import Gateway
from nothanks_server.cluster.settings import ClusterSettings
from nothanks_server.host import RESTART_REASON, Host
from nothanks_tui.link.wire import PROTOCOL_VERSION

from ..net_helpers import RawClient

SECRET = "the members' secret, long enough"


@dataclass
class Cluster:
    redis_url: str
    prefix: str
    hosts: dict[str, Host] = field(default_factory=dict)
    gateways: list[Gateway] = field(default_factory=list)
    directories: list[Directory] = field(default_factory=list)

    async def table_host(self, host_id: str) -> Host:
        host = Host(
            LobbySettings(data_dir=None, bot_delay=0.0, turn_timer=None, seed=5),
            "127.0.0.1",
            0,
            cluster=ClusterSettings(self.redis_url, host_id=host_id, prefix=self.prefix, secret=SECRET),
        )
        await host.start()
        self.hosts[host_id] = host
        return host

    async def gateway(self, **options: Any) -> Gateway:
        directory = await Directory.connect(self.redis_url, self.prefix)
        self.directories.append(directory)
        gateway = Gateway(directory, SECRET, "127.0.0.1", 0, **options)
        await gateway.start()
        self.gateways.append(gateway)
        return gateway

    async def beat(self) -> None:
        """Every table host publishes its lines now, and every gateway reads them (rather than in a beat)."""
        for host in self.hosts.values():
            if host.presence is not None:
                await host.presence.beat()
        for gateway in self.gateways:
            await gateway.cache.beat()

    async def stop_host(self, host_id: str) -> None:
        """As SIGTERM does: the host gives its leases up and tells its members to come back."""
        await self.hosts.pop(host_id).close(RESTART_REASON, restart=True)

    async def close(self) -> None:
        for gateway in self.gateways:
            await gateway.close("the test is over")
        for host in self.hosts.values():
            await host.close("the test is over")
        for directory in self.directories:
            await directory.close()


def crash(host: Host) -> None:
    """As if the host's process died: it stops beating and renewing, and says nothing to anyone."""
    for task in (host.takeover._task, host.presence._task):
        task.cancel()


async def client(
    port: int, name: str, features: tuple[str, ...] = ("moving",), identity: Any = None, **hello: Any
) -> RawClient:
    """A client of ``port`` whose hello lists ``features`` (and any other ``hello`` fields), proving ``identity``
    (a link.identity ``Identity``) if given, else a guest."""
    raw = await RawClient.connect(port, None)
    if identity is not None:
        hello |= identity.prove(raw.frames[0]["nonce"])
    await raw.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": name, "features": list(features), **hello})
    welcome = await raw.next_frame()
    assert welcome["type"] == "welcome", welcome
    raw.welcome = welcome  # type: ignore[attr-defined]
    return raw
