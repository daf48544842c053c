"""The SSH front of a host: an asyncssh server where every interactive session is a game app in this process.

The gate (one ``_Gate`` per TCP connection) decides who gets in: anyone by default, or holders of a shared
password, or of a key listed in an authorized-keys file. A public key that the client proves it holds becomes the
player's identity (its fingerprint), so a reconnect can find the same seat. Everything an SSH server could do
besides running our session is switched off: shell, exec, port/agent/X11 forwarding, SFTP and SCP. The number of
connections past key exchange is capped (``max_sessions``); one over the cap is told why and disconnected. A
session channel keeps only the few ``env`` variables the game reads (``environment.py``).
"""

from __future__ import annotations

import asyncio
import contextvars
import gc
import hmac
import logging
import threading
import weakref
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import asyncssh
from textual._context import active_app
from textual.app import App
from textual.binding import Binding
from textual.css.model import RuleSet
from textual.theme import Theme

from ..lobby import Lobby
from ..table import Table
from .caches import check_instance_caches, clear_instance_caches
from .collector import PROCESS_COLLECTOR
from .component_styles import reuse_virtual_nodes
from .css_cache import check_stylesheet_internals
from .environment import check_environment_internals, limit_environment
from .hostkey import load_or_create_host_key
from .inbound_shaper import INBOUND_BURST, INBOUND_RATE, InboundShaper, check_connection_internals, shape_inbound
from .input_gate import INPUT_WINDOW
from .keys import check_parser_internals
from .session import AppFactory, GameSession
from .stdio import StdioGuard
from .strips import install_strip_fixes
from .sweeper import SessionTasks, SweepResult, sweep

log = logging.getLogger(__name__)

FULL_MESSAGE = "No Thanks! is full right now ({limit} at once). Please try again in a few minutes."
BUSY_MESSAGE = "No Thanks! had too many logins in progress, and yours was the oldest. Please try again."


@dataclass(frozen=True)
class SSHSettings:
    """How the SSH front listens and whom it lets in."""

    host_key_path: Path
    bind: str = "127.0.0.1"
    port: int = 2222  # 0: any free port (tests)
    password: str | None = None  # a shared password for everyone
    authorized_keys: Path | None = None  # only these public keys get in
    max_sessions: int = 100
    max_logins: int = 128  # logins in progress at once (max_sessions if higher); one more: the oldest gives way
    login_timeout: float = 30.0  # seconds from TCP connect to finished authentication
    keepalive_interval: float = 30.0  # seconds between keepalives to an idle client
    keepalive_count_max: int = 3  # unanswered keepalives before the connection is dropped
    freeze_objects: bool = True  # keep full garbage collections short (collector.py); off only to compare
    workers: int = 0  # 0: sessions run in the host's process; N: in N worker processes (workers.py)
    reuse_port: bool = False  # SO_REUSEPORT: several worker processes listen on the same port
    sweep_finished_apps: bool = True  # free a finished session's app by reference counting (sweeper.py)
    inbound_rate: float = INBOUND_RATE  # bytes a second one connection may send, sustained (inbound_shaper.py)
    inbound_burst: int = INBOUND_BURST  # ... and at once; inbound_rate 0: no budget (to compare)

    @property
    def login_limit(self) -> int:
        """Logins in progress allowed at once: a crowd as large as ``max_sessions`` may arrive together."""
        return max(1, self.max_logins, self.max_sessions)


SWEEP_AFTER = (0.5, 2.0, 8.0)  # seconds after an app finished to sweep it, and to try again if it was still held
SWEEP_HISTORY = 50  # sweeps remembered (tests, the benchmark)


SWEEP_STOP_TYPES: tuple[type, ...] = (
    App,  # another session's app (the swept one is where the walk starts)
    GameSession,
    Lobby,
    Table,
    asyncio.AbstractEventLoop,
    logging.Logger,
    threading.Thread,
    RuleSet,  # parsed CSS, shared by every session (css_cache.py)
    Theme,
    Binding,
)
"""Long-lived objects a sweep does not walk into: they lead to other sessions or to what all sessions share."""


class Admission(Protocol):
    """Counts the sessions let in against ``max_sessions`` (one front's own count, or one shared by workers)."""

    def admit(self) -> bool: ...
    def release(self) -> None: ...


class SSHFront:
    """Runs the asyncssh server and owns the sessions' tasks, counts and shared state."""

    def __init__(self, settings: SSHSettings, app_factory: AppFactory, admission: Admission | None = None) -> None:
        check_parser_internals()  # fail at startup, not on the first key press, if textual changed underneath
        check_instance_caches()
        check_stylesheet_internals()
        check_environment_internals()
        check_connection_internals()
        install_strip_fixes()
        reuse_virtual_nodes()
        self.settings = settings
        self.app_factory = app_factory
        self.stdio = StdioGuard()
        self._server: asyncssh.SSHAcceptor | None = None
        self._authorized: asyncssh.SSHAuthorizedKeys | None = None
        self._admitted = 0
        self._admission = admission  # None: this front's own count is the cap's
        self._tasks: set[asyncio.Task[None]] = set()
        self._running_apps: set[App[Any]] = set()
        self._all_apps: weakref.WeakSet[App[Any]] = weakref.WeakSet()
        self._changed = asyncio.Event()  # set whenever a count above changes
        self.farewell: str | None = None  # once closing: the line every session prints as it ends
        self._collecting = False  # holds PROCESS_COLLECTOR between start() and close()
        self._session_tasks = SessionTasks(active_app)
        self._sweeping = False  # between start() and close(), with settings.sweep_finished_apps
        self.sweeps: list[SweepResult] = []  # the last SWEEP_HISTORY, oldest first
        self.sweep_counts = {"freed": 0, "kept": 0}  # apps freed by a sweep, and left to a deep collection
        self.connections_held = 0  # connections that went over their inbound budget (inbound_shaper.py)
        self._logins: dict[_Gate, None] = {}  # connections not yet logged in, oldest first (settings.login_limit)
        self.logins_evicted = 0

    # Lifecycle -------------------------------------------------------------------------------------------------

    async def start(self) -> None:
        settings = self.settings
        host_key = load_or_create_host_key(settings.host_key_path)
        if settings.authorized_keys is not None:
            self._authorized = asyncssh.read_authorized_keys(str(settings.authorized_keys))
        self._server = await asyncssh.create_server(
            lambda: _Gate(self),
            settings.bind,
            settings.port,
            server_host_keys=[host_key],
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
            reuse_port=settings.reuse_port or None,
        )
        if settings.freeze_objects:
            PROCESS_COLLECTOR.acquire()
            self._collecting = True
        if settings.sweep_finished_apps:
            self._session_tasks.install(asyncio.get_running_loop())
            self._sweeping = True
        log.info("SSH front listening on %s port %d", settings.bind, self.port)

    @property
    def port(self) -> int:
        assert self._server is not None, "start() first"
        return int(self._server.sockets[0].getsockname()[1])

    async def close(self, reason: str = "the host stopped") -> None:
        """Stop listening, end every session's app (each player is told ``reason``) and wait for them."""
        self.farewell = reason
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for app in list(self._running_apps):
            app.exit()
        if self._tasks:
            _done, pending = await asyncio.wait(set(self._tasks), timeout=5)
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending, timeout=2)
        if self._sweeping:
            self._sweeping = False
            self._session_tasks.uninstall()
        if self._collecting:
            self._collecting = False
            PROCESS_COLLECTOR.release()

    # Sessions ------------------------------------------------------------------------------------------------

    def spawn(self, coroutine: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        """Run a session in a fresh context (nothing of whatever app started this server leaks into it)."""
        task = asyncio.get_running_loop().create_task(coroutine, name=name, context=contextvars.Context())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def app_starting(self, app: App[Any]) -> None:
        self._running_apps.add(app)
        self._all_apps.add(app)
        if self._sweeping:
            self._session_tasks.watch(app)
        self.stdio.app_starting()
        if self._collecting:
            PROCESS_COLLECTOR.session_started()
        self._changed.set()

    def app_finished(self, app: App[Any]) -> None:
        self._running_apps.discard(app)
        self.stdio.app_finished()
        clear_instance_caches()
        if self._collecting:
            PROCESS_COLLECTOR.session_ended(left_garbage=not self._sweeping)
        if self._sweeping:
            self._sweep_later(weakref.ref(app), id(app), 0)
        self._changed.set()

    def _sweep_later(self, app_ref: weakref.ref[App[Any]], app_id: int, attempt: int) -> None:
        # An empty context: the app's own (this runs in it) would hold the app from outside until the timer fires.
        # The handle is not kept: a callback that refers to its own handle is one more cycle of garbage per sweep.
        asyncio.get_running_loop().call_later(
            SWEEP_AFTER[attempt], self._sweep_finished, app_ref, app_id, attempt, context=contextvars.Context()
        )

    def _sweep_finished(self, app_ref: weakref.ref[App[Any]], app_id: int, attempt: int) -> None:
        """Free a finished app by breaking its cycles; if something still holds it, try again, then give it up to
        the deep collection (collector.py). After ``close()`` a pending sweep does nothing."""
        if not self._sweeping:
            return
        result = sweep(app_ref, self._session_tasks.alive(app_id), SWEEP_STOP_TYPES)
        if not result.freed and attempt + 1 < len(SWEEP_AFTER):
            self._sweep_later(app_ref, app_id, attempt + 1)
            return
        self._session_tasks.forget(app_id)
        self.sweeps.append(result)
        del self.sweeps[:-SWEEP_HISTORY]
        self.sweep_counts["freed" if result.freed else "kept"] += 1
        self._changed.set()
        if result.freed and result.walked == 0:
            log.info("a finished app was gone before its sweep (%s: a deep collection came first)", result.reason)
        elif result.freed:
            log.info(
                "swept a finished app: %d of %d objects walked were garbage, %.0f ms",
                result.garbage,
                result.walked,
                1000 * result.seconds,
            )
        else:
            log.info(
                "a finished app is left to the deep collection: %s (%.0f ms)", result.reason, 1000 * result.seconds
            )
            if self._collecting:
                PROCESS_COLLECTOR.garbage_left()

    async def wait_until(self, condition: Callable[[], bool], timeout: float) -> None:
        """Wait until ``condition()`` holds, checking whenever a session count changes (TimeoutError after)."""
        async with asyncio.timeout(timeout):
            while not condition():
                self._changed.clear()
                await self._changed.wait()

    @property
    def running_apps(self) -> int:
        """Apps running right now."""
        return len(self._running_apps)

    def live_apps(self) -> int:
        """Session apps still in memory after a full garbage collection (running ones included): a leak check."""
        if self._collecting:
            PROCESS_COLLECTOR.collect_everything("leak check")  # frozen objects too
        else:
            gc.collect()
        return len(self._all_apps)

    async def live_apps_after_settling(self, timeout: float = 10.0) -> int:
        """``live_apps()`` once ending sessions had time to let go (their tasks finish, their connections close).

        Garbage has no event to wait on, so this collects and looks again a few times until ``timeout``; apps that
        are really leaked never go away and are counted.
        """
        deadline = asyncio.get_running_loop().time() + timeout
        while (count := self.live_apps()) and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.1)
        return count

    @property
    def logins_in_progress(self) -> int:
        """Connections not yet logged in (at most ``settings.login_limit``)."""
        return len(self._logins)

    @property
    def admitted(self) -> int:
        """Connections past key exchange and not yet closed."""
        return self._admitted

    def admit(self) -> bool:
        if self._admission is not None:
            if not self._admission.admit():
                return False
        elif self._admitted >= self.settings.max_sessions:
            return False
        self._admitted += 1
        self._changed.set()
        return True

    def release(self) -> None:
        if self._admission is not None and self._admitted > 0:
            self._admission.release()
        self._admitted = max(0, self._admitted - 1)
        self._changed.set()

    # Authentication policy -------------------------------------------------------------------------------------

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


def _players(count: int) -> str:
    return f"{count} player" if count == 1 else f"{count} players"


class _Gate(asyncssh.SSHServer):
    """One TCP connection: the cap, authentication, and at most one game session."""

    def __init__(self, front: SSHFront) -> None:
        self._front = front
        self._conn: asyncssh.SSHServerConnection | None = None
        self._admitted = False
        self._username = ""
        self._candidate_fingerprint: str | None = None
        self._fingerprint: str | None = None
        self._has_session = False
        self._inbound: InboundShaper | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        settings = self._front.settings
        logins = self._front._logins
        while len(logins) >= settings.login_limit:
            next(iter(logins))._give_way()
        logins[self] = None  # a login in progress until auth_completed or connection_lost
        if settings.inbound_rate > 0:
            self._inbound = shape_inbound(
                conn, rate=settings.inbound_rate, burst=settings.inbound_burst, on_held=self._over_budget
            )

    def _over_budget(self) -> None:
        self._front.connections_held += 1
        log.info("slowed %s: over %.0f kB/s of SSH traffic", self._peer(), self._front.settings.inbound_rate / 1000)

    def _logged_in(self) -> None:
        logins = self._front._logins
        if self in logins:
            del logins[self]
            self._front._changed.set()

    def _give_way(self) -> None:
        """Too many logins in progress: the oldest (this one) is closed, so that idle connections held open by
        someone cannot keep newcomers out (a real login takes well under a second; login_timeout is 30)."""
        self._logged_in()
        self._front.logins_evicted += 1
        log.info(
            "closed %s: %d logins in progress is the limit, and it was the oldest",
            self._peer(),
            self._front.settings.login_limit,
        )
        if self._conn is not None:
            self._conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, BUSY_MESSAGE)

    def connection_lost(self, exc: Exception | None) -> None:
        self._logged_in()  # or gave up: either way no longer a login in progress
        if self._inbound is not None:
            self._inbound.close()
            self._inbound = None
            if self._conn is not None:
                self._conn.__dict__.pop("data_received", None)  # the shaper and the connection held each other
        if self._admitted:
            self._admitted = False
            self._front.release()

    def begin_auth(self, username: str) -> bool:
        self._username = username
        if not self._admitted:
            if not self._front.admit():
                assert self._conn is not None
                log.info("refused %s: %d sessions is the limit", self._peer(), self._front.settings.max_sessions)
                self._conn.disconnect(
                    asyncssh.DISC_TOO_MANY_CONNECTIONS,
                    FULL_MESSAGE.format(limit=_players(self._front.settings.max_sessions)),
                )
                return True
            self._admitted = True
        return True  # always ask for one auth step, so a client holding a key can be recognised by it

    # Public keys: the last key validated is the one a successful publickey login signed with.
    def public_key_auth_supported(self) -> bool:
        return self._front.open_door or self._front._authorized is not None

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        allowed = self._front.key_allowed(key, self._peer().rsplit(":", 1)[0])
        self._candidate_fingerprint = key.get_fingerprint("sha256") if allowed else None
        return allowed

    def password_auth_supported(self) -> bool:
        return self._front.open_door or self._front.settings.password is not None

    def validate_password(self, username: str, password: str) -> bool:
        self._candidate_fingerprint = None
        return self._front.password_ok(password)

    def kbdint_auth_supported(self) -> bool:
        # Open door: keyboard-interactive with no questions lets key-less clients in without a prompt.
        # With a password: asyncssh asks for it through keyboard-interactive as well.
        return self._front.open_door or self._front.settings.password is not None

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> Any:
        self._candidate_fingerprint = None
        if self._front.open_door:
            return True
        return ("", "", "", [("Password: ", False)])

    def validate_kbdint_response(self, username: str, responses: Any) -> bool:
        self._candidate_fingerprint = None
        return len(responses) == 1 and self._front.password_ok(responses[0])

    def auth_completed(self) -> None:
        self._fingerprint = self._candidate_fingerprint
        self._logged_in()

    # Channels: one game session per connection, nothing else.
    def session_requested(self) -> Any:
        if self._has_session:
            return False
        self._has_session = True
        assert self._conn is not None
        chan = self._conn.create_server_channel(window=INPUT_WINDOW)  # bounds what a paused client can send ahead
        limit_environment(chan, self._peer())  # a client may send any number of env requests: keep only ours
        return chan, GameSession(self._front, self._username, self._fingerprint, self._peer())

    def connection_requested(self, dest_host: str, dest_port: int, orig_host: str, orig_port: int) -> bool:
        return False

    def server_requested(self, listen_host: str, listen_port: int) -> bool:
        return False

    def unix_connection_requested(self, dest_path: str) -> bool:
        return False

    def unix_server_requested(self, listen_path: str) -> bool:
        return False

    def _peer(self) -> str:
        if self._conn is None:
            return "?"
        peer = self._conn.get_extra_info("peername") or ("?", 0)
        return f"{peer[0]}:{peer[1]}"
