"""A host: one lobby and the transports that serve it, started and stopped as one object; and ``serve``, which runs
hosts until a signal: a single host, a cluster's front (gateway.py's FrontHost), a table host, or both in one process.

A signal (SIGTERM, SIGINT, SIGHUP) is a restart: clients hear ``closing`` with ``restart: true`` and come back, and
every table stays in the store for the next start. Only ``nothanks host``'s own player (``Host.player``, in this
process) leaving ends the tables for good."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import secrets
import signal
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from nothanks_tui.i18n import N_, _
from nothanks_tui.link import ConnectionInfo

from . import thinking
from .inprocess import InProcessLobby
from .limits import ClientLimits
from .lobby import Lobby, LobbySettings
from .proxy_protocol import ProxySources
from .session import PortOptions
from .tcp import MAX_CONNECTIONS, RATE_PER_SECOND, Session, TcpHost

if TYPE_CHECKING:
    from .cluster.directory import Presence
    from .cluster.settings import ClusterSettings
    from .cluster.takeover import Takeover
    from .ssh.front import SSHFront
    from .ssh.settings import SSHSettings
    from .store import TableStore
    from .table import Table

log = logging.getLogger(__name__)

# Ctrl-C, ``kill`` / systemd, and the terminal going away (SIGHUP): each a restart that keeps every game.
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
SHUTDOWN_REASON = N_("the host is shutting down")
RESTART_REASON = N_("the host is restarting: your seat and your game are kept, come back in a moment")
YOUNG_COLLECTION = 7000  # allocations between two young collections while serving (Python's default: 700)
SPARE_FILES = 256  # descriptors beyond the connection caps: game records, logs, the event loop, worker pipes


class CannotListen(OSError):
    """A port the host cannot have (in use, no such address...), with the system's errno, for the player's words."""

    def __init__(self, error: OSError, bind: str, port: int, *, ssh: bool = False) -> None:
        super().__init__(error.errno, error.strerror or str(error))
        self.cause, self.bind, self.port, self.ssh = error, bind, port, ssh


class HostPlugin(Protocol):
    """Something beside a host while it serves (its LAN advertisement: advertise.py). ``start``, once the host
    listens, returns promptly; ``close`` comes first when it stops. A plug-in's failure never stops the host."""

    async def start(self, host: Host) -> None: ...

    async def close(self) -> None: ...


class Servable(Protocol):
    """What ``serve`` runs: a ``Host`` or a ``FrontHost``. ``close`` is safe twice; ``forget`` ends the tables."""

    async def start(self) -> None: ...

    async def close(self, reason: str = ..., *, restart: bool = False, forget: bool = False) -> None: ...


class PlayerPorts:
    """What a host and a cluster's front share: the players' TCP port (the subclass's) and, with ``ssh``, the SSH
    front, whose workers reach that port on loopback, each player counted against their own address (``proxy_key``)."""

    def __init__(self, bind: str, ssh: SSHSettings | None, proxy_from: ProxySources | None) -> None:
        self.bind = bind
        self.ssh_settings = ssh
        self.proxy_from = proxy_from
        self.proxy_key = secrets.token_urlsafe(24)
        self.ssh_front: SSHFront | None = None

    @property
    def ssh_port(self) -> int | None:
        return None if self.ssh_front is None else self.ssh_front.port

    def _raise_open_files(self, per_client: int) -> None:
        """Room for ``per_client`` sockets per TCP client, and the SSH front's connections (its workers inherit it)."""
        ssh = self.ssh_settings
        raise_open_file_limit(per_client * MAX_CONNECTIONS + (ssh.max_connections if ssh else 0))

    async def _start_ssh(self, port: int) -> None:
        if self.ssh_settings is not None:
            from .ssh.front import SSHFront

            front = SSHFront(self.ssh_settings, self.bind, port, self.proxy_key, self.proxy_from)
            try:
                await front.start()
                self.ssh_front = front
            except OSError as error:
                raise CannotListen(error, self.ssh_settings.bind, self.ssh_settings.port, ssh=True) from error

    async def _close_ssh(self, reason: str) -> None:
        if self.ssh_front is not None:
            await self.ssh_front.close(reason)


class Host(PlayerPorts):
    """The lobby, its TCP transport and, with ``ssh``, its SSH front. ``start`` binds; ``close`` ends it all. With
    ``cluster``, a table host: its tables in Redis under leases, its port for the cluster's members only."""

    def __init__(
        self,
        settings: LobbySettings,
        bind: str,
        port: int,
        *,
        cluster: ClusterSettings | None = None,
        plugins: Sequence[HostPlugin] = (),
        ssh: SSHSettings | None = None,
        rate: float = RATE_PER_SECOND,
        limits: ClientLimits | None = None,
        proxy_from: ProxySources | None = None,  # (proxy_protocol.py)
    ) -> None:
        super().__init__(bind, ssh, proxy_from)
        self.settings = settings
        self.lobby = Lobby(settings, store=self._table_store(cluster, settings))
        options = PortOptions(rate=rate, limits=limits, proxy_key=self.proxy_key, proxy_from=proxy_from)
        options["member_secret"] = (cluster.secret or None) if cluster is not None else None
        self.tcp = TcpHost(self.lobby, bind, port, **options)
        self.cluster = cluster  # with it, this host is listed in the cluster's directory in Redis (cluster/)
        self.presence: Presence | None = None
        self.takeover: Takeover | None = None  # a table host's leases and takeovers (cluster/takeover.py)
        self.plugins = list(plugins)
        self._closed = False

    @property
    def port(self) -> int:  # the TCP port bound (``0`` asked for any free one)
        return self.tcp.port

    async def start(self) -> None:
        """Listen on TCP, then on SSH if asked; on any failure nothing is left listening."""
        self._raise_open_files(1)
        thinking.use_processes(self.settings.bot_processes)  # (before any table plays: thinking.py)
        try:
            await self.tcp.start()
        except OSError as error:
            raise CannotListen(error, self.bind, self.tcp.port) from error
        self.lobby.start()  # the tables the store brought back play on
        try:
            if self.cluster is not None:
                self.presence = await self._join_cluster(self.cluster)
            await self._start_ssh(self.port)  # each worker's players reach this lobby over TCP
        except BaseException:
            await self._leave_cluster()
            await self.tcp.close(SHUTDOWN_REASON)
            raise
        for plugin in self.plugins:
            try:
                await plugin.start(self)
            except Exception:
                log.exception("%s did not start; the host runs without it", type(plugin).__name__)

    # A table host's part of a cluster (cluster/redis_store.py, leases.py, takeover.py): its tables are in Redis,
    # each under a lease this host renews; it takes over the tables of hosts that died or stopped.

    async def _join_cluster(self, cluster: ClusterSettings) -> Presence:
        from .cluster.directory import Directory, Presence  # (redis: only a host given a Redis URL pays for it)
        from .cluster.redis_store import RedisTableStore
        from .cluster.takeover import Takeover

        cluster = self.cluster = cluster.resolved(self.bind, self.port)
        store = self.lobby.store if isinstance(self.lobby.store, RedisTableStore) else None
        if store is not None:
            store.leases.owner = cluster.host_id  # before any table is made: the leases carry it
        directory = await Directory.connect(cluster.redis_url, cluster.prefix)
        presence = Presence(directory, self.lobby, cluster.host_id, cluster.address)
        try:
            await presence.start()
        except BaseException:
            await directory.close()
            raise
        log.info("in the cluster as %s (%s), listed in Redis", cluster.host_id, cluster.address)
        if store is not None:
            self.takeover = Takeover(self.lobby, store, self._tell_moving)
            self.takeover.start()
        return presence

    @staticmethod
    def _table_store(cluster: ClusterSettings | None, settings: LobbySettings) -> TableStore | None:
        """A cluster's table host keeps its tables in Redis (None: the lobby's own store, SQLite)."""
        if cluster is None or not cluster.hosts_tables:
            return None
        from .cluster.redis_store import open_redis_store

        return open_redis_store(cluster.redis_url, cluster.prefix, settings.data_dir)

    @staticmethod
    def _tell_moving(table: Table) -> None:
        """``table`` stops here (its lease is another host's): its connections hear ``closing`` with ``restart``
        and are closed, so that their fronts find the table at its new host."""
        from .cluster.takeover import MOVED_REASON

        for member in list(table.members):
            if isinstance(member, Session):
                member.say_closing(_(MOVED_REASON), restart=True)
                member.abort_after_send()

    async def _leave_cluster(self) -> None:
        if self.takeover is not None:
            await self.takeover.close()  # (the store gives the leases up as the lobby closes it)
            self.takeover = None
        if self.presence is not None:
            await self.presence.close()
            await self.presence.directory.close()
            self.presence = None

    def player(self, name: str, owner: str | None = None) -> InProcessLobby:
        """A way into this host's lobby for a player in this process (``nothanks host``'s own player), whose name
        ``owner`` claims (the user's join key: nobody else may take the hosting player's name)."""
        info = ConnectionInfo(_("hosting on port {port}").format(port=self.port))
        return InProcessLobby(self.lobby, name, info, owner)

    async def close(self, reason: str = SHUTDOWN_REASON, *, restart: bool = False, forget: bool = False) -> None:
        """Close every table and transport (``Servable.close``: the tables stay in the store unless ``forget``)."""
        if self._closed:
            return
        self._closed = True
        log.info("restarting: every table is kept" if restart else "shutting down")
        for plugin in self.plugins:
            with contextlib.suppress(Exception):
                await plugin.close()
        await self._leave_cluster()
        await self.tcp.close(reason, restart=restart, forget=forget)  # closes the lobby (and its store)
        await self._close_ssh(reason)
        thinking.stop()


def raise_open_file_limit(connections: int) -> int | None:
    """Lift the soft open-file limit (often 1,024) to ``connections`` plus ``SPARE_FILES``, never above the hard
    limit, logging when it cannot: 1,100 idle connections once left a host unable to open a game record. The soft
    limit after; None where there is no such limit (not POSIX)."""
    try:
        import resource
    except ImportError:  # Windows: no per-process limit of this kind
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted, infinite = connections + SPARE_FILES, resource.RLIM_INFINITY
    if soft != infinite and soft < wanted:
        target = wanted if hard == infinite else min(wanted, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as error:
            log.warning("could not raise the open-file limit from %d to %d: %s", soft, target, error)
    if soft != infinite and soft < wanted:
        log.warning(
            "the open-file limit is %d, below the %d the connection caps allow: raise it (ulimit -n, or "
            "LimitNOFILE= in a systemd unit), or a crowd of connections can leave the host unable to open files",
            soft,
            wanted,
        )
    return None if soft == infinite else int(soft)


async def start(parts: Sequence[Servable]) -> None:
    """Start ``parts`` in order; if one fails, those already started are closed (in the reverse order)."""
    started: list[Servable] = []
    try:
        for part in parts:
            await part.start()
            started.append(part)
    except BaseException:
        for part in reversed(started):
            await part.close()
        raise


async def serve(
    parts: Sequence[Servable],
    main: Callable[[], Awaitable[object]] | None = None,
    stop_main: Callable[[], None] | None = None,
    ready: Callable[[], None] | None = None,
) -> None:
    """Serve ``parts`` (started) until SIGINT/SIGTERM/SIGHUP or until ``main`` (the host player's app) returns, then
    close them in the reverse order (a member's front before its table host: its clients come back through another
    front, then the tables move to another host). A signal is a restart: every game kept, clients told to come back,
    ``main`` first asked to finish (``stop_main``, e.g. ``app.exit``) so the host's own player sees why. When ``main``
    returns (``nothanks host``'s player left), the tables end with it. ``ready``: called once signals are handled."""
    gc.collect()  # what starting left (imports, restored tables) goes once; what stays is frozen: a full collection
    gc.freeze()  # never walks it again (each was a pause of 40-100 ms for every player under a botnet's churn)
    thresholds = gc.get_threshold()  # young collections 10 times rarer: a botnet's churn made every object that
    gc.set_threshold(YOUNG_COLLECTION, *thresholds[1:])  # lived 30 ms old, and full collections paused 20-80 ms
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in STOP_SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop.set)
    if ready is not None:
        ready()
    waiters: list[asyncio.Future[object]] = [loop.create_task(stop.wait())]
    if main is not None:
        waiters.append(asyncio.ensure_future(main()))
    signalled = False
    try:
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        signalled = stop.is_set()
        if main is not None and not waiters[1].done():
            for part in parts:  # every TCP client hears it before the host stops, while it winds down
                for session in list(part.tcp.sessions) if isinstance(part, Host) else ():
                    session.say_closing(RESTART_REASON, restart=True)
            if stop_main is not None:
                stop_main()
            await asyncio.wait([waiters[1]], timeout=5.0)
    finally:
        for waiter in waiters:
            waiter.cancel()
        for part in reversed(parts):  # (a signal: every game kept; the host's own player left: the tables end)
            reason = RESTART_REASON if signalled else SHUTDOWN_REASON
            await part.close(reason, restart=signalled, forget=not signalled and main is not None)
        for signum in STOP_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signum)
        gc.unfreeze()  # (a process that serves again, as tests do, starts from a heap like this one's)
        gc.set_threshold(*thresholds)
