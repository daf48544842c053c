"""The SSH sessions of one worker process: an asyncssh server on each connection the front hands over.

A ``_Gate`` per connection lets in anyone, or holders of the shared password or of an authorized key (a proven key
is the player's identity: its fingerprint finds the seat again), gives way by fair shares at the caps
(``take_place``, ``evict``, by ``_Gate.tier``) and bounds password guessing as OpenSSH's ``MaxAuthTries`` and
``PerSourcePenalties`` do (docs/architecture.md, "Over SSH", says how). Shell, exec, forwarding, SFTP and SCP are
off. Private asyncssh names: only those of patches.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hmac
import logging
import math
import multiprocessing
import os
import socket
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine
from multiprocessing.sharedctypes import SynchronizedArray
from pathlib import Path
from typing import Any

import asyncssh
from textual.app import App

from .input_gate import INPUT_WINDOW, InboundShaper
from .patches import check_patches, limit_environment, shape_inbound, unshape_inbound
from .session import AppFactory, ChannelLines, GameSession
from .settings import STOPPED, SSHSettings, Watched, cancel, failure_delay, printable, remember, shared_counts

log = logging.getLogger(__name__)

FULL_MESSAGE = "No Thanks! is full right now ({limit} at once). Please try again in a few minutes."
BUSY_MESSAGE = "No Thanks! had too many logins in progress, and yours was the oldest. Please try again."
ROOM_MESSAGE = "No Thanks! is full, and your address holds the most connections not playing. Please try again."
NO_SESSION_MESSAGE = "No session was asked for in time after logging in."
TRIES_MESSAGE = "Too many authentication failures."
SHUT_OUT_MESSAGE = "Too many failed passwords from your address. Please try again later."
PASSWORD_NETWORKS = 10_000  # networks whose failed passwords are remembered (for the order passwords wait in)
CLIENT_CLOSE_WAIT = 2.0  # seconds a closing server leaves clients to close connections whose sessions ended
LOGIN_IDLE = 1.0  # seconds logged in without asking for a session: idle (a client asks for it at once)


class HostKeyError(RuntimeError):
    """The host key file exists but cannot be used (unreadable, corrupt, or not a private key)."""


def load_or_create_host_key(path: Path) -> asyncssh.SSHKey:
    """Read the private key at ``path``; if there is no file yet, generate an ed25519 key and write it (0600): once,
    since a changed key makes OpenSSH refuse with "REMOTE HOST IDENTIFICATION HAS CHANGED". Nothing is written
    through a symbolic link: one planted at the key's or ``.pub``'s name is refused, both opened ``O_NOFOLLOW``."""
    path = Path(path)
    public = path.with_name(path.name + ".pub")
    if not path.exists():  # (a link to an existing key is the owner's choice: it is only read)
        for written in (path, public):
            if written.is_symlink():
                raise HostKeyError(f"refusing to write the SSH host key through the symbolic link {written}")
    if path.exists():
        try:
            key = asyncssh.read_private_key(str(path))
        except (OSError, asyncssh.KeyImportError, ValueError) as error:
            raise HostKeyError(f"cannot use the SSH host key {path}: {error}") from error
        log.info("SSH host key %s (%s)", path, key.get_fingerprint())
        return key
    key = asyncssh.generate_private_key("ssh-ed25519", comment="nothanks host key")
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(key.export_private_key("openssh"))
            file.flush()
            os.fsync(file.fileno())
        try:
            os.link(temporary, path)  # never replaces a key another process wrote meanwhile
        except FileExistsError:
            return load_or_create_host_key(path)
    finally:
        temporary.unlink(missing_ok=True)
    try:
        descriptor = os.open(public, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
    except OSError as error:  # ELOOP: a symbolic link appeared there since the check above
        raise HostKeyError(f"cannot write the SSH public host key {public}: {error}") from error
    with os.fdopen(descriptor, "wb") as file:
        file.write(key.export_public_key("openssh"))
    log.info("generated SSH host key %s (%s)", path, key.get_fingerprint())
    return key


class SessionServer(Watched):
    """Runs SSH on the connections given to ``serve``, one game app per session; owns their tasks and counts."""

    def __init__(
        self, settings: SSHSettings, factory: AppFactory, counts: SynchronizedArray[float] | None = None, slot: int = 0
    ) -> None:
        check_patches()  # fail at startup, not on the first connection, if a library changed underneath
        self.settings = settings
        self.app_factory = factory
        # The sessions cap and the password rate across workers, in shared memory (settings.shared_counts; counts of
        # its own for a server alone: tests): this worker's sessions, places held, and first password waiting.
        self._counts = counts if counts is not None else shared_counts(multiprocessing, 1)
        slots = (len(self._counts) - 2) // 3
        self._slot, self._held, self._head = slot, slots + slot, 2 * slots + slot
        self._host_key = load_or_create_host_key(settings.host_key_path)
        self._authorized = (
            asyncssh.read_authorized_keys(str(settings.authorized_keys)) if settings.authorized_keys else None
        )
        self._options: asyncssh.SSHServerConnectionOptions | None = None
        self.connections = 0  # connections handed to serve() and not yet closed (logged in or not)
        self.apps_started = 0  # session apps ever started here
        self._tasks: set[asyncio.Task[Any]] = set()
        self._conns: set[asyncssh.SSHServerConnection] = set()
        self._running_apps: set[App[Any] | ChannelLines] = set()  # (the plain front's lines too: both exit)
        self._changed = asyncio.Event()  # set whenever a count above changes
        self.farewell: str | None = None  # once closing: the line every session prints as it ends
        self.connections_held = 0  # connections that went over their inbound budget (input_gate.py)
        self._logins: dict[_Gate, None] = {}  # connections not yet logged in, oldest first (settings.login_limit)
        self._holders: dict[_Gate, None] = {}  # connections counted against max_sessions here, oldest first
        self.made_room = 0  # connections closed for a newcomer at the sessions cap
        self.logins_evicted = 0
        self.on_idle: Callable[[], None] | None = None  # called whenever the last connection closes
        # Tells the front of each failed password, login, session and closing, with the client's address (worker.py).
        self.tell: Callable[[bytes], object] = lambda message: None
        # Asks the front to close a place in another worker for a newcomer of this network (True: one was closed);
        # the flag: the newcomer proved a key (any stranger's connection but a key's may go).
        self.want_room: Callable[[str, bool], Awaitable[bool]] | None = None
        self._tiers: dict[tuple[str, int], int] = {}  # peers of connections served -> how far they got (_Gate.tier)
        # Connections from a load balancer: the socket's own peer (the balancer's end) -> the client's, as the
        # front read it from the PROXY header. Everything here names a connection by the client's.
        self._clients: dict[tuple[str, int], tuple[str, int]] = {}
        self.auth_failures = 0  # failed passwords and refused keys, ever
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep  # tests: a fake clock's
        self.clock: Callable[[], float] = time.monotonic
        self._password_queue: list[tuple[str, asyncio.Future[None]]] = []  # (network, its turn), oldest first
        self._password_pump: asyncio.Task[None] | None = None
        self.password_failures: dict[str, int] = {}  # failed passwords by network (the last PASSWORD_NETWORKS)
        # Connections by network closed before logging in (churn, stalls given way): with failed passwords, what
        # sends a network's logins first at a cap when every network holds as few (a botnet of many addresses).
        self.closed_early: dict[str, int] = {}

    async def prepare(self) -> None:
        """Build what every connection shares (asyncssh's options: its algorithms, the host key) before the first
        player, so that they do not wait for it; and let the app factory warm up, if it can (``warm_up``, awaited:
        game.py's draws the first screen once)."""
        await self._connection_options()
        warm_up = getattr(self.app_factory, "warm_up", None)
        if warm_up is not None:
            await warm_up()

    async def _connection_options(self) -> asyncssh.SSHServerConnectionOptions:
        if self._options is None:
            settings = self.settings
            self._options = await asyncssh.SSHServerConnectionOptions.construct(
                server_factory=lambda: _Gate(self),
                server_host_keys=[self._host_key],
                encoding=None,
                line_editor=False,
                allow_pty=True,
                agent_forwarding=False,
                x11_forwarding=False,
                allow_scp=False,
                sftp_factory=None,
                login_timeout=settings.login_timeout,
                keepalive_interval=settings.keepalive_interval,
                keepalive_count_max=settings.keepalive_count_max,
            )
        return self._options

    def serve(self, sock: socket.socket, client: tuple[str, int] | None = None, struck: int = 0) -> None:
        """Run SSH on an accepted connection (it is this server's from now on); ``client``: its client's address
        and port, when a load balancer's PROXY header named them (the socket's peer is then the balancer);
        ``struck``: its network's connections the front turned away (so many closed early: ``strikes``)."""
        self.connections += 1
        self.spawn(self._serve(sock, client, struck), name="ssh-connection")

    def reached(self, peer: tuple[str, int], tier: int) -> None:
        """Tell the front the connection from ``peer`` logged in (``tier`` 2: once, and not once closed) or opened
        its session (3 or more)."""
        if tier > 2 or self._tiers.get(peer, 2) < 2:
            self._tiers[peer] = tier
            self.tell((b"o" if tier > 2 else b"a") + peer[0].encode())

    def shut_out(self, network: str) -> None:
        """``network`` is past its failed-password budget (the front says so): its logins under way end now."""
        for gate in list(self._logins):
            if gate.network == network:
                gate.end_login(SHUT_OUT_MESSAGE)

    async def _serve(self, sock: socket.socket, client: tuple[str, int] | None = None, struck: int = 0) -> None:
        conn: asyncssh.SSHServerConnection | None = None
        try:
            own: tuple[str, int] = tuple(sock.getpeername()[:2])
        except OSError:
            own = ("?", 0)
        peer = own
        if client is not None:
            self._clients[own] = peer = client
        if struck > self.closed_early.get(network := self.settings.network(peer[0]), 0):
            remember(self.closed_early, network, struck, PASSWORD_NETWORKS)
        self._tiers[peer] = 0
        try:
            conn = await asyncssh.run_server(sock, options=await self._connection_options())
            self._conns.add(conn)
            await conn.wait_closed()
        except (TimeoutError, OSError, asyncssh.Error) as error:
            log.debug("an SSH connection ended before its login: %s", error)
        except Exception:
            log.exception("an SSH connection failed before its login")
        finally:
            self._conns.discard(conn)
            self._changed.set()
            sock.close()  # asyncssh's transport closed its own; this one is ours (a no-op if already closed)
            if client is not None:
                self._clients.pop(own, None)
            tier = self._tiers.pop(peer, 0)
            self.tell(b"x" + str(tier).encode() + peer[0].encode())
            self.connections = max(0, self.connections - 1)
            if self.connections == 0 and self.on_idle is not None:
                self.on_idle()

    async def close(self, reason: str = STOPPED) -> None:
        """End every session's app (each player is told ``reason``) and wait for them."""
        self.farewell = reason
        for app in list(self._running_apps):
            app.exit()
        sessions = {task for task in self._tasks if task.get_name().startswith("ssh-session")}
        if sessions:
            await asyncio.wait(sessions, timeout=5)  # each app leaves its tables and says goodbye
            # A client whose session closed closes its connection itself once it has shown what the session said:
            # closing it from here at once sent OpenSSH a disconnect that could overtake the goodbye on its way
            # to the terminal ("Disconnected by application" instead of why, in 1 of 4 restarts).
            with contextlib.suppress(TimeoutError):
                await self.wait_until(lambda: not self._conns, CLIENT_CLOSE_WAIT)
        for conn in list(self._conns):
            conn.close()
        if self._tasks:
            _done, pending = await asyncio.wait(set(self._tasks), timeout=3)  # (the front kills a worker at 10 s)
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending, timeout=2)

    def spawn(self, coroutine: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        """Run a session in a fresh context (nothing of whatever started this server leaks into it)."""
        task = asyncio.get_running_loop().create_task(coroutine, name=name, context=contextvars.Context())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def app_starting(self, app: App[Any] | ChannelLines) -> None:
        self.apps_started += 1
        self._running_apps.add(app)
        self._changed.set()

    def app_finished(self, app: App[Any] | ChannelLines) -> None:
        self._running_apps.discard(app)
        self._changed.set()

    @property
    def running_apps(self) -> int:
        """Apps running right now."""
        return len(self._running_apps)

    def seated(self) -> Counter[str]:
        """The networks of the players here at a table now, as their apps say (``ssh_session_seated``; an app that
        cannot say: none)."""
        return Counter(gate.network for gate in self._holders if gate.seated)

    def places(self) -> Counter[str]:
        """The places held here at the sessions cap, by network (what ``p`` and ``q`` told the front)."""
        return Counter(gate.network for gate in self._holders)

    @property
    def logins_in_progress(self) -> int:
        """Connections not yet logged in (at most ``settings.login_limit``)."""
        return len(self._logins)

    @property
    def admitted(self) -> int:
        """Connections counted against ``max_sessions`` here and not yet closed."""
        return len(self._holders)

    def admit(self, held: bool = False, met: bool = False) -> bool:
        """Count one more session here if under ``max_sessions``, places held included; ``held``: the place held
        for it is let go of in the same lock (``take_place``: nobody else takes the place freed for it); ``met``: a
        place was freed for it, so the others held do not count (each waits for its own)."""
        self._changed.set()
        with self._counts.get_lock():
            self._counts[self._held] -= held
            if sum(self._counts[: (self._held if met else self._head) - self._slot]) >= self.settings.max_sessions:
                return False
            self._counts[self._slot] += 1
            return True

    def release(self, held: bool = False) -> None:
        with self._counts.get_lock():
            index = self._held if held else self._slot
            self._counts[index] = max(0, self._counts[index] - 1)
        self._changed.set()

    async def take_place(self, newcomer: _Gate, key: bool = False) -> bool:
        """Count ``newcomer`` against ``max_sessions``, making room at the cap (docs/architecture.md, "Fair shares")
        here or, through the front, in another worker; ``key``: it proved a key (any stranger's place may go)."""
        if self.admit():
            return True
        held = self.places()
        mine = -1 if key else held[newcomer.network]
        places = [gate for gate in self._holders if gate.tier < 3 + key and held[gate.network] > mine + 1]
        if not places and not key:  # then an idle login or session (lobby, watching) of a network holding more
            places = [g for g in self._holders if g.tier in (2, 3) and held[g.network] > mine and g.idle]
        victim = self.least_in_use(places, held)
        if victim is not None:
            victim.give_way(ROOM_MESSAGE, newcomer)  # its place passes to the newcomer without a release
            return True
        if self.want_room is None:
            return False
        with self._counts.get_lock():  # a place held until the front has closed one (in the sum: nobody takes it)
            self._counts[self._held] += 1
        try:
            met = await self.want_room(newcomer.network, key)
        except BaseException:
            self.release(held=True)
            raise
        return self.admit(held=True, met=met)

    def evict(self, network: str, below: int, lone: bool = True, idle: bool = False) -> bool:
        """For the totals: close the connection least in use here of ``network`` (or of any, "": the logins cap's),
        of a tier below ``below`` (2: logins only; ``idle``: only an idle one, ``_Gate.idle``); False if there is
        none. Not ``lone``: a network's only connection here, never struck, stays (the front's total across workers
        counts connections on their way)."""
        if below in (3, 4):  # for the sessions cap (``w``): only a place counted there frees one
            gates = dict(self._holders)
        else:
            gates = {gate: None for gate in (*self._logins, *self._holders)}  # (a login may be a holder too)
        held = Counter(gate.network for gate in gates)  # the biggest holder: of connections here, logged in or not
        places = [] if idle else [g for g in gates if g.tier < below and network in ("", g.network)]
        if below == 3 and not places:  # as in ``take_place``: then an idle login or session
            places = [g for g in gates if g.network == network and g.tier in (2, 3) and g.idle]
        victim = self.least_in_use(places, held)
        if victim is None or not (lone or held[victim.network] > 1 or self.strikes(victim.network)):
            return False
        victim.give_way(BUSY_MESSAGE if below == 2 else ROOM_MESSAGE)
        return True

    async def password_turn(self, network: str) -> None:
        """Wait until a password from ``network`` may be looked at: ``password_rate`` a second over every connection,
        the fewest ``strikes`` first (oldest first of those): a botnet's networks, struck by connections closed early
        long before their passwords fail at this pace, never queue ahead of a newcomer's password."""
        rate = self.settings.password_rate
        if rate <= 0:
            return
        strikes = self.strikes(network)
        if not self._password_queue and self._take_password(strikes):
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._password_queue.append((network, turn))
        with self._counts.get_lock():  # said at once: the other workers' guesses do not take the next turn
            self._counts[self._head] = min(self._counts[self._head], strikes)
        if self._password_pump is None:
            self._password_pump = self.spawn(self._pump_passwords(rate), name="ssh-passwords")
        await turn

    def _take_password(self, strikes: float) -> bool:
        """One of the passwords' tokens (a bucket over every worker), unless another worker's first password waiting
        has fewer ``strikes``: this worker's first one then says its own, and waits."""
        rate, counts = self.settings.password_rate, self._counts
        with counts.get_lock():
            counts[self._head] = strikes
            if strikes > min(counts[self._head - self._slot : -2]):
                return False
            now = self.clock()
            tokens = min(max(1.0, rate), counts[-2] + max(0.0, now - counts[-1]) * rate)
            counts[-1] = now
            if tokens < 1:
                counts[-2] = tokens
                return False
            counts[-2], counts[self._head] = tokens - 1, math.inf
            return True

    async def _pump_passwords(self, rate: float) -> None:
        try:
            while queue := [entry for entry in self._password_queue if not entry[1].done()]:
                self._password_queue = queue
                strikes = [self.strikes(network) for network, _turn in queue]
                first = strikes.index(min(strikes))
                if self._take_password(strikes[first]):
                    queue.pop(first)[1].set_result(None)
                else:
                    await self.sleep(1 / rate)
        finally:
            self._password_pump = None
            with self._counts.get_lock():
                self._counts[self._head] = math.inf

    def least_in_use(self, gates: list[_Gate], held: Counter[str]) -> _Gate | None:
        """Of ``gates`` (oldest first), the one least in use of the network holding the most (in ``held``); between
        networks holding as many, the one that behaved worst (connections closed early, failed passwords): a
        newcomer's slow login from a fresh address is not closed for a botnet's churn, however old it is."""
        strikes = {net: self.strikes(net) for net in {gate.network for gate in gates}}
        return min(gates, key=lambda gate: (-held[gate.network], -strikes[gate.network], gate.tier), default=None)

    def strikes(self, network: str) -> int:
        """How badly ``network`` behaved here: its failed passwords and connections closed before logging in."""
        return self.password_failures.get(network, 0) + self.closed_early.get(network, 0)

    def password_failed(self, network: str) -> None:
        remember(self.password_failures, network, self.password_failures.get(network, 0) + 1, PASSWORD_NETWORKS)

    @property
    def open_door(self) -> bool:
        """Anyone gets in (no password, no authorized-keys file)."""
        return self.settings.password is None and self._authorized is None

    def key_allowed(self, key: asyncssh.SSHKey, peer_host: str) -> bool:
        if self._authorized is None:
            return self.open_door  # with only a password set, keys don't get in
        return self._authorized.validate(key, peer_host, peer_host) is not None

    def password_ok(self, password: str) -> bool:
        if self.open_door:
            return True  # clients without keyboard-interactive fall back to a password prompt: any answer will do
        expected = self.settings.password
        return expected is not None and hmac.compare_digest(password.encode(), expected.encode())


class _Gate(asyncssh.SSHServer):
    """One TCP connection: the cap, authentication, and at most one game session."""

    def __init__(self, server: SessionServer) -> None:
        self._server = server
        self._conn: asyncssh.SSHServerConnection  # (from connection_made, the first thing asyncssh calls)
        self._admitted = False
        self._username = ""
        self._candidate_fingerprint: str | None = None
        self._fingerprint: str | None = None
        self._has_session = False
        self._game: GameSession | None = None  # its session, once asked for (at ``_session_at``, server.clock)
        self._session_at = 0.0
        self._logged_in_at = math.inf  # (server.clock)
        self._inbound: InboundShaper | None = None
        self._failures = 0  # failed passwords and refused keys on this connection
        self._not_before = 0.0  # the next password is not looked at before this time (server.clock)
        self.network = "?"  # the share it counts in (SSHSettings.network of its client's address)
        self._address: tuple[str, int] = ("?", 0)  # the client's (behind a load balancer: its PROXY header's)
        self._peer = "?"  # ... as ``address:port``, for the log
        self._session_deadline: asyncio.TimerHandle | None = None
        self._authenticating = False
        self._placing: asyncio.Future[bool] | None = None  # taking its place once logged in (a key's: room made)

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        settings = self._server.settings
        peer = conn.get_extra_info("peername") or ("?", 0)
        own = (str(peer[0]), int(peer[1]))
        self._address = self._server._clients.get(own, own)
        self._peer = "{}:{}".format(*self._address)
        self.network = settings.network(self._address[0])
        logins = self._server._logins
        while len(logins) >= settings.login_limit:
            self._server.evict("", 2)
        logins[self] = None  # a login in progress until auth_completed or connection_lost
        if settings.inbound_rate > 0:
            self._inbound = shape_inbound(
                conn, rate=settings.inbound_rate, burst=settings.inbound_burst, on_held=self._over_budget
            )

    def _over_budget(self) -> None:
        self._server.connections_held += 1
        log.info("slowed %s: over %.0f kB/s of SSH traffic", self._peer, self._server.settings.inbound_rate / 1000)

    def _login_over(self, logged_in: bool = False, closed: bool = False) -> None:
        """No longer a login in progress: it logged in (told to the front: ``reached``), or it is ``closed`` (a
        strike against its network: ``SessionServer.least_in_use``)."""
        server, logins = self._server, self._server._logins
        if self in logins:
            del logins[self]
            if closed:
                early = server.closed_early
                remember(early, self.network, early.get(self.network, 0) + 1, PASSWORD_NETWORKS)
            self._server._changed.set()
        if logged_in:
            self._server.reached(self._address, 2)

    @property
    def idle(self) -> bool:
        """Logged in without a session for ``LOGIN_IDLE`` seconds, or in a session for ``session_settle`` seconds or
        more whose player sits at no table (in the lobby, or watching): one just begun is a newcomer on its way to
        a table, never closed for the next one."""
        server = self._server
        if self._game is None:
            return server.clock() - self._logged_in_at >= LOGIN_IDLE
        settled = server.clock() - self._session_at >= server.settings.session_settle
        return settled and not self._game.seated()

    @property
    def seated(self) -> bool:
        app = self._game and self._game._app
        return bool(getattr(app, "ssh_session_seated", bool)())

    @property
    def tier(self) -> int:
        """How much this connection is in use, least first: 0 before authentication (key exchange), 1 in it, 2
        logged in without a session, 3 in a session, 4 logged in with a key (never closed for a stranger)."""
        if self in self._server._logins:
            return int(self._authenticating)
        return 4 if self._fingerprint is not None else 2 + self._has_session

    def give_way(self, message: str, newcomer: _Gate | None = None) -> None:
        """Closed for a newcomer (fair shares: docs/architecture.md); ``newcomer`` takes its place in the sessions
        count (passed over without a release, else released at once)."""
        server = self._server
        if message is BUSY_MESSAGE:
            server.logins_evicted += 1
        else:
            server.made_room += 1
        log.info("closed %s (%s) for a newcomer: %s", self._peer, self.network, message)
        self._login_over(closed=True)
        if self._admitted:  # its place: the newcomer's, else free now (a room request from another worker is met)
            self._place(False, release=newcomer is None)
        self._conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, message)

    def end_login(self, message: str) -> None:
        self._login_over()
        self._conn.disconnect(asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE, message)

    def connection_lost(self, exc: Exception | None) -> None:
        self._login_over(closed=True)
        self._session_deadline = cancel(self._session_deadline)
        if self._inbound is not None:
            unshape_inbound(self._conn, self._inbound)
            self._inbound = None
        if self._admitted:
            self._place(False, release=True)

    async def begin_auth(self, username: str) -> bool:
        self._username = username
        self._authenticating = True
        await self._take_place()
        return True  # always ask for one auth step, so that a client holding a key can be recognised by it

    async def _take_place(self, key: bool = False) -> bool:
        """Counted against max_sessions (making room at the cap), or False: no place for a stranger now, and the
        connection is refused unless it proves a key (``key``: it did; if still no place, it is refused)."""
        if not self._admitted and await self._server.take_place(self, key):
            self._place(True)
        return self._admitted

    def _place(self, placed: bool, release: bool = False) -> None:
        """Counted against ``max_sessions`` here, or no longer (``release``: its place is free, not passed on); told
        to the front (``p``, ``q``), which ranks networks by the places they hold (``SSHFront._evict``)."""
        server = self._server
        self._admitted = placed
        if placed:
            server._holders[self] = None
        else:
            server._holders.pop(self, None)
        if release:
            server.release()
        server.tell((b"p" if placed else b"q") + self._address[0].encode())

    def _full(self) -> bool:
        """True (and the connection is refused) if it has no place: its password is not even looked at."""
        if self._admitted:
            return False
        settings = self._server.settings
        log.info("refused %s: %d sessions is the limit", self._peer, settings.max_sessions)
        limit = f"{settings.max_sessions} player" + "s" * (settings.max_sessions != 1)
        self._conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, FULL_MESSAGE.format(limit=limit))
        return True

    # Public keys: the last key validated is the one a successful publickey login signed with.
    def public_key_auth_supported(self) -> bool:
        return self._server.open_door or self._server._authorized is not None

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        allowed = self._server.key_allowed(key, self._address[0])
        self._candidate_fingerprint = key.get_fingerprint("sha256") if allowed else None
        if not allowed:
            # Refused keys count towards the tries (as in OpenSSH) but are not delayed: a key cannot be guessed.
            self._failed(username, "key " + key.get_fingerprint("sha256"))
        return allowed

    def password_auth_supported(self) -> bool:
        return self._server.open_door or self._server.settings.password is not None

    async def validate_password(self, username: str, password: str) -> bool:
        self._candidate_fingerprint = None
        return not self._full() and await self._check_password(username, password)

    async def _check_password(self, username: str, password: str) -> bool:
        await self._wait_turn()  # a try sent ahead waits for the delay the last failure set
        await self._server.password_turn(self.network)
        if self._server.password_ok(password):
            return True
        if self._failed(username, "password"):
            await self._wait_turn()
        return False

    async def _wait_turn(self) -> None:
        remaining = self._not_before - self._server.clock()
        if remaining > 0:
            await self._server.sleep(remaining)

    def _failed(self, username: str, what: str) -> bool:
        """Count, log and report a failure; disconnect at ``auth_tries``. True if the connection is still open
        (its next try waits ``failure_delay`` from now)."""
        server = self._server
        settings = server.settings
        self._failures += 1
        server.auth_failures += 1
        address = self._address[0]
        log.warning(
            "failed SSH login from %s as %s (%s; %d of %d on this connection)",
            printable(address),
            printable(username),
            what,
            self._failures,
            settings.auth_tries,
        )
        if what == "password":
            server.password_failed(self.network)
            server.tell(b"f" + address.encode())
        if self._failures >= settings.auth_tries:
            self._conn.disconnect(asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE, TRIES_MESSAGE)
            return False
        if what == "password":
            self._not_before = server.clock() + failure_delay(self._failures, settings.auth_delay)
        return True

    # Open door: keyboard-interactive with no questions lets key-less clients in without a prompt. With a
    # password: asyncssh asks for it through keyboard-interactive as well.
    kbdint_auth_supported = password_auth_supported

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> Any:
        self._candidate_fingerprint = None
        if self._full():
            return False
        if self._server.open_door:
            return True
        return ("", "", "", [("Password: ", False)])

    async def validate_kbdint_response(self, username: str, responses: Any) -> bool:
        self._candidate_fingerprint = None
        if self._server.open_door:
            return True
        return len(responses) == 1 and await self._check_password(username, str(responses[0]))

    async def auth_completed(self) -> None:
        self._fingerprint = self._candidate_fingerprint
        self._logged_in_at = self._server.clock()
        self._login_over(logged_in=True)
        self._placing = asyncio.ensure_future(self._take_place(key=self._fingerprint is not None))  # a key: room made
        if not await self._placing:
            self._full()
            return
        if not self._has_session:
            delay = self._server.settings.session_timeout
            self._session_deadline = asyncio.get_running_loop().call_later(delay, self._no_session)

    def _no_session(self) -> None:
        self._session_deadline = None
        if not self._has_session:
            log.info(
                "closed %s: no session asked for within %.0f s of logging in",
                self._peer,
                self._server.settings.session_timeout,
            )
            self._conn.disconnect(asyncssh.DISC_SERVICE_NOT_AVAILABLE, NO_SESSION_MESSAGE)

    # Channels: one game session per connection, nothing else (asyncssh's SSHServer refuses every forwarding).
    def session_requested(self) -> Any:
        if self._has_session or self._placing is None:
            return False
        self._has_session = True
        self._server.reached(self._address, self.tier)
        self._session_deadline = cancel(self._session_deadline)
        chan = self._conn.create_server_channel(window=INPUT_WINDOW)  # bounds what a paused client can send ahead
        limit_environment(chan, self._peer)  # a client may send any number of env requests: keep only ours
        session = self._game = GameSession(self._server, self._username, self._fingerprint, self._peer)
        self._session_at = self._server.clock()
        return chan, session if self._admitted else self._when_placed(session)

    async def _when_placed(self, session: GameSession) -> GameSession:
        """The session, once its place is made (room in another worker takes a moment), else refused."""
        assert self._placing is not None
        if not await self._placing:
            raise asyncssh.ChannelOpenError(asyncssh.OPEN_CONNECT_FAILED, "No Thanks! is full right now")
        return session
