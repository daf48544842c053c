"""A front of a cluster (``nothanks server --redis URL --role front``, or the front half of ``--role both``).

A front owns no tables and no table store: its gateway (gateway.py) is the public client port, relaying each
client to the table host of its table, and its SSH front's workers reach the gateway on loopback exactly as a
single host's reach its TCP port (with this front's own ``proxy_key``, so each SSH player counts against their
own address). Stopping it tells every client ``closing`` with ``restart: true``: they come back through the load
balancer, by another front, to the same seats, which the table hosts keep.

``serve`` runs a front, a table host (``Host`` with ``cluster=``), or both in one process, until a signal.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..host import RESTART_REASON, STOP_SIGNALS, Host
from ..limits import ClientLimits
from ..open_files import raise_open_file_limit
from ..proxy_protocol import ProxySources
from ..session import MAX_CONNECTIONS, RATE_PER_SECOND
from .directory import Directory
from .gateway import Gateway
from .settings import ClusterSettings

if TYPE_CHECKING:
    from ..ssh.front import SSHFront
    from ..ssh.settings import SSHSettings


class FrontHost:
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
        self.cluster = cluster
        self.bind = bind
        self.requested_port = port
        self.ssh_settings = ssh
        self.rate = rate
        self.limits = limits
        self.proxy_from = proxy_from
        self.proxy_key = secrets.token_urlsafe(24)  # this front's own SSH workers say for whom they connect
        self.gateway: Gateway | None = None
        self.ssh_front: SSHFront | None = None
        self._closed = False

    @property
    def port(self) -> int:
        return self.gateway.port if self.gateway is not None else self.requested_port

    @property
    def ssh_port(self) -> int | None:
        return None if self.ssh_front is None else self.ssh_front.port

    async def start(self) -> None:
        """Reach Redis, listen for clients, then on SSH if asked; on any failure nothing is left listening."""
        ssh = self.ssh_settings
        # Each client holds two sockets here: its own and its upstream to a table host.
        raise_open_file_limit(2 * MAX_CONNECTIONS + (ssh.max_sessions + ssh.login_limit if ssh is not None else 0))
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
        if self.ssh_settings is not None:
            from ..ssh.front import start_ssh_front

            try:
                self.ssh_front = await start_ssh_front(
                    self.ssh_settings, self.bind, gateway.port, self.proxy_key, self.proxy_from
                )
            except BaseException:
                await self.close()
                raise

    async def close(self, reason: str = RESTART_REASON, *, restart: bool = True) -> None:
        """Tell every client to come back (``restart``) and hang up; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        gateway, self.gateway = self.gateway, None
        if gateway is not None:
            await gateway.close(reason, restart=restart)
            await gateway.directory.close()
        if self.ssh_front is not None:
            await self.ssh_front.close(reason)


async def serve(front: FrontHost | None, table: Host | None, ready: Callable[[], None] | None = None) -> None:
    """Run ``front`` and/or ``table`` (started) until SIGINT/SIGTERM/SIGHUP; then close them as a restart: the
    front first (its clients come back through another), then the table host (its tables move to another)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in STOP_SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop.set)
    if ready is not None:
        ready()
    try:
        await stop.wait()
    finally:
        if front is not None:
            await front.close(RESTART_REASON, restart=True)
        if table is not None:
            await table.close(RESTART_REASON, restart=True)
        for signum in STOP_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signum)
