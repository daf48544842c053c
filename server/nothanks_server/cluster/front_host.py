"""A front of a cluster (``nothanks server --redis URL --role front``, or the front half of ``--role both``).

A front owns no tables and no table store: its gateway (gateway.py) is the public client port, relaying each
client to the table host of its table, and its SSH front's workers reach the gateway on loopback exactly as a
single host's reach its TCP port (with this front's own ``proxy_key``, so each SSH player counts against their
own address). Stopping it tells every client ``closing`` with ``restart: true``: they come back through the load
balancer, by another front, to the same seats, which the table hosts keep.

host.py's ``serve`` runs a front, a table host (``Host`` with ``cluster=``), or both in one process, until a
signal; the SSH front beside the clients' port is the same as a single host's (``PlayerPorts``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..host import RESTART_REASON, PlayerPorts
from ..limits import ClientLimits
from ..proxy_protocol import ProxySources
from ..session import RATE_PER_SECOND
from .directory import Directory
from .gateway import Gateway
from .settings import ClusterSettings

if TYPE_CHECKING:
    from ..ssh.settings import SSHSettings


class FrontHost(PlayerPorts):
    """The gateway on ``bind``:``port`` and, with ``ssh``, the SSH front. ``start`` binds; ``close`` ends both."""

    def __init__(
        self,
        cluster: ClusterSettings,
        bind: str,
        port: int,
        *,
        ssh: SSHSettings | None = None,
        rate: float = RATE_PER_SECOND,
        limits: ClientLimits | None = None,
        proxy_from: ProxySources | None = None,
    ) -> None:
        super().__init__(bind, ssh, proxy_from)
        self.cluster = cluster
        self.requested_port = port
        self.rate = rate
        self.limits = limits
        self.gateway: Gateway | None = None
        self._closed = False

    @property
    def port(self) -> int:
        return self.gateway.port if self.gateway is not None else self.requested_port

    async def start(self) -> None:
        """Reach Redis, listen for clients, then on SSH if asked; on any failure nothing is left listening."""
        self._raise_open_files(2)  # each client holds two sockets here: its own and its upstream to a table host
        directory = await Directory.connect(self.cluster.redis_url, self.cluster.prefix)
        gateway = Gateway(
            directory,
            self.cluster.secret,
            self.bind,
            self.requested_port,
            rate=self.rate,
            limits=self.limits,
            proxy_key=self.proxy_key,
            proxy_from=self.proxy_from,
        )
        try:
            await gateway.start()
        except BaseException:
            await directory.close()
            raise
        self.gateway = gateway
        try:
            await self._start_ssh(gateway.port)
        except BaseException:
            await self.close()
            raise

    async def close(self, reason: str = RESTART_REASON, *, restart: bool = True, forget: bool = False) -> None:
        """Tell every client to come back (``restart``) and hang up; safe to call twice (``forget``: no tables
        here to end)."""
        if self._closed:
            return
        self._closed = True
        gateway, self.gateway = self.gateway, None
        if gateway is not None:
            await gateway.close(reason, restart=restart)
            await gateway.directory.close()
        await self._close_ssh(reason)
