"""The SSH front in the host process: it owns the listening socket and hands each connection to a worker process
(worker.py), where every SSH player's app runs, so the host imports neither Textual nor asyncssh. Here are what
must be counted across workers: per-network limits before any SSH (``_refusal``; a refusal is the version line and
a disconnect packet saying why), the fair shares at the totals (``_make_room``, ``_evict``), and the workers' lives
(recycled past ``worker_sessions`` logins or ``worker_mib``, or once empty, replaced when they die, at most
``max_workers`` and ``memory_mib`` in all). docs/architecture.md, "Over SSH", tells why each limit is there.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import hashlib
import logging
import math
import multiprocessing
import os
import socket
import struct
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from multiprocessing.process import BaseProcess
from multiprocessing.sharedctypes import SynchronizedArray
from pathlib import Path
from typing import Any

from ..background import stop_task
from ..limits import TokenBucket, spend
from ..proxy_protocol import BadProxyHeader, ProxySources, read_header, socket_reader
from .settings import STOPPED, SSHSettings, Watched, WorkerPlan, remember, shared_counts

log = logging.getLogger(__name__)

MAX_WORKERS = 64  # workers alive at once (taking players or draining): the shared counts' size
START_TIMEOUT = 60.0  # seconds a worker may take to say it is ready
STOP_TIMEOUT = 10.0  # seconds workers may take to end their sessions before they are killed
WATCH_INTERVAL = 1.0  # seconds between two looks at the workers' memory
RETRY_HAND_OVER = 0.01  # seconds before handing a connection over again to a worker whose socket was full
AUTH_WINDOW = 600.0  # seconds over which an address's failed passwords count against its budget
LOG_INTERVAL = 60.0  # seconds between two log lines about the same address turned away for the same reason
REMEMBERED = 10_000  # addresses remembered for their failures or refusals before the oldest are forgotten
REFUSED = "No Thanks!: {reason} from your address. Please try again later."
MEMORY_FULL = "No Thanks! has no memory left for one more player right now. Please try again in a few minutes."
ACCEPT_BATCH = 16  # connections taken in one turn of the event loop (the listening socket stays readable)
NOAUTH_PENALTY = 1.0  # seconds of penalty a connection closed before authenticating costs its network (OpenSSH's
PENALTY_LIMIT = 10.0  # PerSourcePenalties noauth); past this many seconds owed, the network is turned away until then
ROOM_TRIES = 8  # networks asked in turn to close a place for one newcomer at the sessions cap (each had none: ``u``)
PLAYER_MEMORY = 3600.0  # seconds a network whose player sat at a table counts as a player's (``_place``)
SEAT_GRACE = 5.0  # seconds a worker whose players left their tables takes no stranger (a player between two games)
IDLE_LOOKS = 10  # looks (seconds) a worker with no connection is left before it is recycled if its memory grew
MESSAGE_MOST = 65536  # bytes of a worker's message (``t`` lists its places by network)
STRIKE_FORGIVEN = 60.0  # seconds after which a connection turned away no longer counts against its network
COUNTS = ("open", "logging_in", "playing", "placed")  # a front's and a worker's counts of connections, by network
SERVER_VERSION = b"SSH-2.0-nothanks\r\n"
DISC_TOO_MANY_CONNECTIONS = 12  # RFC 4253, 11.1 (and 4250, 4.2.2)
LINGER = 1.0  # seconds a refused connection stays open for its client to read why (write side shut)
MAX_LINGERING = 256  # refused connections lingering at once; more are closed at once
MAX_HEADERS = 1024  # load balancer connections whose PROXY header is being read at once; more are closed at once
PRELOAD = ["nothanks_server.ssh.preload"]
OPENSSH_PRIVATE = "OPENSSH PRIVATE KEY"
OPENSSH_MAGIC = b"openssh-key-v1\0"
KEY_TYPES = {"ssh-ed25519": ("ED25519", 256)}  # the key type as ssh-keygen names it, and its bits


class SSHFrontError(RuntimeError):
    """The SSH front cannot serve: its workers cannot start (the message says why, in one sentence)."""


def _worker_main(plan: WorkerPlan, control: socket.socket, counts: SynchronizedArray[float]) -> None:
    from .worker import run_worker  # preloaded in the forkserver: costs nothing here

    run_worker(plan, control, counts)


def loopback_for(bind: str) -> str:
    """Where a worker reaches the host's TCP port bound to ``bind``."""
    return {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}.get(bind, bind)


def _log_file() -> str | None:
    """The file the host process logs to, if any: its workers log there too."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.FileHandler):
            return handler.baseFilename
    return None


def resident_mib(pid: int) -> float:
    """A process's resident memory (Linux; 0 elsewhere)."""
    try:
        with open(f"/proc/{pid}/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


@dataclass(eq=False, kw_only=True)
class Shares:
    """Connections by network (``SSHSettings.network``): open, of which logging in, of which in a session; and of
    the open, those holding a place at the sessions cap. The front counts all of them; each ``Worker`` those it holds
    (counted out with it if it dies)."""

    open: Counter[str] = field(default_factory=Counter)
    logging_in: Counter[str] = field(default_factory=Counter)
    playing: Counter[str] = field(default_factory=Counter)
    placed: Counter[str] = field(default_factory=Counter)

    def count(self, network: str, names: str, step: int) -> None:
        for name in names.split():
            counts = getattr(self, name)
            counts[network] += step
            if counts[network] <= 0:
                del counts[network]


@dataclass(eq=False)
class Worker(Shares):
    """One worker process as the front sees it."""

    slot: int
    process: BaseProcess
    control: socket.socket
    state: str = "starting"  # starting -> taking -> (retiring ->) draining; "gone" once exited
    handed: int = 0  # connections handed to it
    logins: int = 0  # ... that logged in (what counts against worker_sessions)
    ready: asyncio.Future[bool] = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    ready_mib: float = 0.0  # its resident memory once ready
    idle: int = 0  # looks since it was last seen with a connection
    seated: int = 0  # players there at a table, as it last said (``t``)
    sat_until: float = -math.inf  # when it last said so with players seated (front clock)
    start_error: str | None = None  # why it could not start, as it said before exiting

    @property
    def pid(self) -> int:
        return self.process.pid or 0


class SSHFront(Shares, Watched):
    """The SSH port of a host whose TCP lobby is at ``lobby_host``:``lobby_port`` (the module docstring). With the
    host's ``proxy_key`` each player counts against their own address in the host's limits, not the workers'
    loopback; ``proxy_from``: load balancers whose connections open with a PROXY v2 header naming the client."""

    def __init__(
        self,
        settings: SSHSettings,
        lobby_host: str,
        lobby_port: int,
        proxy_key: str | None = None,
        proxy_from: ProxySources | None = None,
    ) -> None:
        Shares.__init__(self)  # connections by network, waiting or in a worker
        self.settings = settings
        lobby_host = loopback_for(lobby_host)
        if proxy_from is not None and proxy_from.trusts(lobby_host):
            raise ValueError(f"the workers reach the host from {lobby_host}: not a load balancer")
        self.proxy_from = proxy_from
        self._reading_headers: dict[socket.socket, asyncio.Task[None]] = {}  # balancer connections, header unread
        # Each worker's plan but for its slot and the host's logging, as they are when it starts.
        self._plan = WorkerPlan(0, settings, lobby_host, lobby_port, settings.host_key_path.parent, 0, proxy_key)
        self._context: Any = multiprocessing.get_context("forkserver")
        self._counts: SynchronizedArray[float] = shared_counts(self._context, MAX_WORKERS)
        self._workers: list[Worker] = []
        self._listener: socket.socket | None = None
        # Accepted, not yet handed to a worker: the socket, the client's address, and its (address, port) if a
        # load balancer's PROXY header named it (else the worker asks the socket).
        self._waiting: deque[tuple[socket.socket, str, tuple[str, int] | None]] = deque()
        self._asked: Counter[str] = Counter()  # connections asked to close for a newcomer, by network, not yet seen
        # Room requests waiting for a closing: (worker, number, network asked, the newcomer's, key, networks asked).
        self._rooms: list[tuple[Worker, bytes, str, str, bool, frozenset[str]]] = []
        self.memory = 0.0  # the workers' resident memory in all (MiB), at the last look
        self._failures: dict[str, deque[float]] = {}  # failed passwords by address, within AUTH_WINDOW
        self._connects: dict[str, TokenBucket] = {}  # new connections by address (settings.connect_rate)
        self._penalties: dict[str, float] = {}  # network -> when its penalty has run out (self.clock)
        self._players: dict[str, float] = {}  # network -> when a worker last said a player of it sat at a table
        self._logged_refusals: dict[tuple[str, str], tuple[float, int]] = {}  # last logged, refused since
        # network -> when its connections turned away are forgiven, STRIKE_FORGIVEN each (told with each: strikes)
        self._struck: dict[str, float] = {}
        self.refused: Counter[str] = Counter()  # connections turned away, by reason (tests, the benchmark)
        self._lingering: set[socket.socket] = set()  # refused, left open a moment for their client to read why
        self.clock: Callable[[], float] = time.monotonic
        self._turn = 0
        self._watcher: asyncio.Task[None] | None = None
        self._closing = False
        self._changed = asyncio.Event()
        self.restarts = 0  # workers that died and were replaced
        self._wanted = 0  # replacements not started because max_workers were alive: started as workers exit
        self._starting = 0  # replacements asked for and not yet started
        self.recycled = 0  # workers that drained and exited

    async def start(self) -> None:
        self._context.set_forkserver_preload(PRELOAD)
        listener = socket.create_server(
            (self.settings.bind, self.settings.port),
            family=socket.AF_INET6 if ":" in self.settings.bind else socket.AF_INET,
            backlog=max(128, self.settings.login_limit),
        )
        listener.setblocking(False)
        self._listener = listener
        try:
            await asyncio.gather(*(self._start_worker() for _ in range(self.settings.workers)))
        except BaseException:
            await self.close(STOPPED)
            raise
        asyncio.get_running_loop().add_reader(listener.fileno(), self._accept)
        self._watcher = asyncio.get_running_loop().create_task(self._watch(), name="ssh front watcher")
        log.info("SSH front listening on %s port %d (%d workers)", self.settings.bind, self.port, self.settings.workers)

    @property
    def port(self) -> int:
        assert self._listener is not None, "start() first"
        return int(self._listener.getsockname()[1])

    def host_key_fingerprint(self) -> str:
        """The host key's fingerprint as ``ssh-keygen -lf`` shows it (the workers made the key if it was new)."""
        return host_key_fingerprint(self.settings.host_key_path)

    async def close(self, reason: str = STOPPED) -> None:
        """Stop listening, tell every worker to end its sessions with ``reason``, and wait for them."""
        self._closing = True
        loop = asyncio.get_running_loop()
        await stop_task(self._watcher)
        self._watcher = None
        if self._listener is not None:
            loop.remove_reader(self._listener.fileno())
            self._listener.close()
            self._listener = None
        while self._waiting:
            self._waiting.popleft()[0].close()
        for connection, task in list(self._reading_headers.items()):
            connection.close()
            await stop_task(task)  # (one that ended is no longer there)
        while self._lingering:
            self._lingering.pop().close()
        workers = [worker for worker in self._workers if worker.state != "gone"]
        for worker in workers:
            self._send(worker, b"s" + reason.encode()[:900])
        await asyncio.gather(*(loop.run_in_executor(None, _stop, worker.process) for worker in workers))
        for worker in workers:
            self._gone(worker)

    async def _start_worker(self) -> Worker:
        free = set(range(MAX_WORKERS)).difference(worker.slot for worker in self._workers if worker.state != "gone")
        if not free:
            raise RuntimeError(f"{MAX_WORKERS} SSH workers alive at once: none can be added")
        slot = min(free)  # (its count in self._counts went back to 0 as its last worker was gone)
        plan = replace(self._plan, slot=slot, log_level=logging.getLogger().getEffectiveLevel(), log_file=_log_file())
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        process = self._context.Process(
            target=_worker_main, args=(plan, theirs, self._counts), name=f"nothanks-ssh-worker-{slot}", daemon=True
        )
        worker = Worker(slot, process, ours)
        self._workers.append(worker)  # known at once, so that close() stops it too
        process.start()
        theirs.close()
        ours.setblocking(False)
        loop = asyncio.get_running_loop()
        loop.add_reader(ours.fileno(), self._message, worker)
        loop.add_reader(process.sentinel, self._exited, worker)
        try:
            async with asyncio.timeout(START_TIMEOUT):
                if not await worker.ready:
                    raise SSHFrontError(
                        worker.start_error or f"SSH worker {slot} exited while starting (code {process.exitcode})"
                    )
        except TimeoutError:
            process.kill()
            raise SSHFrontError(f"SSH worker {slot} did not start within {START_TIMEOUT:.0f} s") from None
        if worker.state == "gone":  # it said ready, then exited before this task ran again: never bring it back
            raise SSHFrontError(f"SSH worker {slot} exited as it started (code {process.exitcode})")
        worker.state = "taking"
        worker.ready_mib = resident_mib(worker.pid)
        self._changed.set()
        self._hand_waiting()
        return worker

    def _message(self, worker: Worker) -> None:
        """Handle what a worker sent (an exited worker's last words too: why it could not start, its closings)."""
        while worker.state != "gone" and worker.control.fileno() >= 0:
            try:
                data = worker.control.recv(MESSAGE_MOST)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                data = b""
            self._handle(worker, data)
            if not data:
                return

    def _handle(self, worker: Worker, data: bytes) -> None:
        """One control message from a worker (worker.py names them)."""
        if data[:1] == b"k":  # it cannot serve, and is exiting
            worker.start_error = data[1:].decode(errors="replace")
        elif data == b"r" and not worker.ready.done():
            worker.ready.set_result(True)
        elif data == b"e" and worker.handed:
            self._retire(worker, f"empty after {worker.handed} connections")
        elif data[:1] == b"f":
            self._auth_failed(self._network(data[1:]))
        elif data[:1] == b"a":
            self._count(worker, self._network(data[1:]), "logging_in")
            worker.logins += 1
            self._check_recycle(worker)
        elif data[:1] == b"o":
            self._count(worker, self._network(data[1:]), "playing", 1)
        elif data[:1] == b"x":  # its tier says which counts it leaves (server.py: _Gate.tier)
            network = self._network(data[2:])
            tier = int(data[1:2])
            if tier == 0:  # closed before authenticating: churn, a scan (or a newcomer closed for another)
                owed = max(self._penalties.get(network, 0), self.clock()) + NOAUTH_PENALTY
                remember(self._penalties, network, owed, REMEMBERED)
            self._count(worker, network, "open logging_in" if tier < 2 else "open playing" if tier > 2 else "open")
            self._seen(network)
        elif data[:1] == b"t":  # its players at a table (``_hand_waiting`` hands newcomers to others if it can) and
            seated, *places = data[1:].decode(errors="replace").split() or ["0"]  # its places by network, absolute:
            now = Counter(dict(zip(places[::2], map(int, places[1::2]))))  # what a lost ``p`` or ``q`` left off heals
            for network in worker.placed.keys() | now.keys():
                self._count(worker, network, "placed", now[network] - worker.placed[network])
            if worker.seated:
                worker.sat_until = self.clock()
            worker.seated = int(seated)
            self._changed.set()
            self._spare_if_flooded()
        elif data[:1] == b"j":  # a player of that network sits at a table there
            remember(self._players, self._network(data[1:]), self.clock(), REMEMBERED)
        elif data[:1] in (b"p", b"q"):  # a connection took a place at the sessions cap, or let go of it
            self._count(worker, self._network(data[1:]), "placed", 1 if data[:1] == b"p" else -1)
        elif data[:1] in (b"g", b"u"):  # a place of the network asked closed (its place free now), or none was
            self._seen(data[1:].decode(errors="replace"), met=data[:1] == b"g")
        elif data[:1] == b"w":
            number, _, network = data[2:].decode(errors="replace").partition(" ")
            self._ask_room(worker, number.encode(), network, data[1:2] == b"k")
        elif not data:
            asyncio.get_running_loop().remove_reader(worker.control.fileno())

    def _network(self, address: bytes) -> str:
        return self.settings.network(address.decode(errors="replace"))

    def _exited(self, worker: Worker) -> None:
        worker.process.join(0)
        self._message(worker)
        was = worker.state
        self._gone(worker)
        if not worker.ready.done():
            worker.ready.set_result(False)
        if self._closing:
            return
        if self._wanted > 0:
            self._wanted -= 1
            self._replace()
        if was == "draining":
            self.recycled += 1
            log.info("SSH worker %d recycled (it took %d connections)", worker.slot, worker.handed)
        elif was in ("taking", "retiring"):
            self.restarts += 1
            log.warning("SSH worker %d exited (code %s): starting another", worker.slot, worker.process.exitcode)
            self._replace()

    def _gone(self, worker: Worker) -> None:
        if worker.state == "gone":
            return
        worker.state = "gone"
        loop = asyncio.get_running_loop()
        with contextlib.suppress(ValueError, OSError):
            loop.remove_reader(worker.process.sentinel)
        if worker.control.fileno() >= 0:
            loop.remove_reader(worker.control.fileno())
            worker.control.close()
        with self._counts.get_lock():
            self._counts[worker.slot] = self._counts[MAX_WORKERS + worker.slot] = 0  # its sessions and holds are gone
            self._counts[2 * MAX_WORKERS + worker.slot] = math.inf  # ... and its passwords waiting
        for name in COUNTS:  # ... and its connections
            own = getattr(worker, name)
            setattr(self, name, getattr(self, name) - own)
            own.clear()
        if worker in self._workers:
            self._workers.remove(worker)
        self._changed.set()
        self._hand_waiting()  # (what waited for it, had it been starting)

    def _replace(self) -> None:
        """Start one more worker taking players (for one retiring or dead), or once one exits if ``max_workers``
        are alive or their memory is at ``memory_mib`` (until then a retiring worker goes on taking players)."""
        if not self._room_for_a_worker():
            if self._wanted == 0 and not self._closing:
                log.warning("%d SSH workers alive, %.0f MiB: the next starts later", len(self._workers), self.memory)
            self._wanted += 1
            return
        self._starting += 1  # (several may be asked for before the first task runs)
        task = asyncio.get_running_loop().create_task(self._start_replacement(), name="ssh worker start")
        task.add_done_callback(lambda done: done.cancelled() or done.exception())

    def _room_for_a_worker(self) -> bool:
        most = min(MAX_WORKERS, max(self.settings.max_workers, self.settings.workers + 1))
        return len(self._workers) + self._starting < most and self.memory < self.settings.memory_mib

    async def _start_replacement(self) -> None:
        self._starting -= 1
        try:
            await self._start_worker()
        except Exception:
            log.exception("an SSH worker could not be started")
            return
        retiring = next((worker for worker in self._workers if worker.state == "retiring"), None)
        if retiring is not None:  # the oldest retiring one gets no more players and exits once empty
            self._drain(retiring)

    def _drain(self, worker: Worker) -> None:
        worker.state = "draining"
        self._send(worker, b"d")
        self._changed.set()

    def _retire(self, worker: Worker, why: str) -> None:
        """What a worker's sessions left behind goes back to the system with it (a fresh worker from the forkserver
        costs milliseconds): it takes players until its replacement is ready, then none, and exits once empty."""
        if worker.state == "taking" and not self._closing:
            worker.state = "retiring"
            log.info("SSH worker %d is retiring: %s", worker.slot, why)
            others = [other for other in self._workers if other.state == "taking"]
            if len(others) >= self.settings.workers and any(map(self._calm, others)):
                self._drain(worker)  # enough others take players (a calm spare among them): none needs to start
            else:
                self._replace()

    def _check_recycle(self, worker: Worker) -> None:
        # Logins, not connections: one closed before logging in (a port scan, churn from a botnet) leaves nothing in
        # the frozen heap, so counting those started a worker every 200 of them.
        settings = self.settings
        if worker.state == "taking" and (
            worker.logins >= settings.worker_sessions or resident_mib(worker.pid) >= settings.worker_limit_mib
        ):
            self._retire(worker, f"{worker.logins} logins, {resident_mib(worker.pid):.0f} MiB")

    async def _watch(self) -> None:
        while not self._closing:
            await asyncio.sleep(WATCH_INTERVAL)  # memory has no event to wait on: a look every second
            self.memory = sum(resident_mib(worker.pid) for worker in self._workers)
            if self._wanted > 0 and self._room_for_a_worker():  # its memory went back
                self._wanted -= 1
                self._replace()
            for worker in list(self._workers):
                worker.idle = worker.idle + 1 if not worker.open else 0
                extra = worker.state == "taking" and len(self._taking()) > self.settings.workers
                if worker.idle >= IDLE_LOOKS and extra:
                    self._drain(worker)  # a spare a flood left (or its replacement), idle: its memory back
                elif worker.idle >= IDLE_LOOKS and resident_mib(worker.pid) > 1.1 * worker.ready_mib > 0:
                    worker.idle = 0
                    if worker.handed:  # what churn left in its frozen heap goes back with it
                        self._retire(worker, "idle, its memory grew by a tenth")
                elif worker.state == "retiring" and worker.idle:
                    if any(self._calm(other) for other in self._taking() if other is not worker):
                        self._drain(worker)  # nobody in it, a calm one takes players: no need to wait for one to start
                self._check_recycle(worker)

    def _accept(self) -> None:
        """Take up to ``ACCEPT_BATCH`` new connections; the kernel keeps the rest for the loop's next turn, so that
        a flood of connections does not hold up the games this process also serves."""
        listener = self._listener
        for _ in range(ACCEPT_BATCH):
            if listener is None:
                return
            try:
                connection, peer = listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:
                log.warning("SSH accept failed: %s", error)
                return
            address = str(peer[0])
            if self.proxy_from is None or not self.proxy_from.trusts(address):
                self._admit(connection, address, None)
            elif len(self._reading_headers) >= MAX_HEADERS:
                log.warning(
                    "SSH: closed a connection from load balancer %s: %d headers being read", address, MAX_HEADERS
                )
                connection.close()
            else:
                connection.setblocking(False)
                task = asyncio.get_running_loop().create_task(self._proxied(connection, address), name="proxy header")
                self._reading_headers[connection] = task

    def _admit(self, connection: socket.socket, address: str, client: tuple[str, int] | None) -> None:
        """Turn the connection away, or queue it for a worker (``client``: what a PROXY header said)."""
        address = self.settings.network(address)  # every count below is by network (an IPv6 /64...)
        refusal = self._refusal(address) or self._make_room(address)
        if refusal is not None:
            self._refuse(connection, address, refusal)
            return
        self.count(address, "open logging_in", 1)
        self._waiting.append((connection, address, client))
        self._hand_waiting()

    async def _proxied(self, connection: socket.socket, balancer: str) -> None:
        """Read a balancer connection's PROXY header (bounded, with a deadline), then admit it as its client."""
        try:
            header = await read_header(socket_reader(connection))
        except (BadProxyHeader, TimeoutError, OSError) as error:
            log.warning("SSH: closed a connection from load balancer %s: %s", balancer, str(error) or "no header")
            connection.close()
            return
        finally:
            self._reading_headers.pop(connection, None)
        if self._closing:
            connection.close()
        elif header.source is None:
            self._admit(connection, balancer, None)  # the balancer's own connection: a health check
        else:
            log.info("SSH: connection from %s:%d through load balancer %s", *header.source, balancer)
            self._admit(connection, header.source[0], header.source)

    def _refusal(self, address: str) -> str | None:
        """Why a new connection from ``address`` is turned away, or None."""
        settings = self.settings
        if self._failures_of(address) >= settings.auth_failures:
            return "too many failed passwords"
        if self._penalties.get(address, 0) - self.clock() > PENALTY_LIMIT:
            return "too many connections closed before logging in"
        if self.open[address] >= settings.per_address:
            return "too many connections"
        if self.logging_in[address] >= settings.logins_per_address:
            return "too many logins in progress"
        if settings.connect_rate > 0 and not spend(
            self._connects, address, 60 * settings.connect_rate, max(1.0, settings.connect_burst)
        ):
            return "too many new connections"  # churn: turned away here costs far less than an SSH handshake
        return None

    def _make_room(self, network: str) -> str | None:
        """At a total, have the biggest holder's connection least in use closed for a newcomer from ``network``
        (the module docstring); why the newcomer is turned away instead: its own network holds the most."""
        settings = self.settings
        if self.memory >= settings.memory_mib:
            return MEMORY_FULL
        if self.open.total() >= settings.max_connections and self._evict(network, self.open[network], 5) is None:
            if self.open[network] >= max(self.open.values()):  # else what was asked to close is on its way out
                return "too many connections"
        if self.logging_in.total() >= settings.login_limit:
            if 0 < self.logging_in[network] >= max(self.logging_in.values()):
                return "too many logins in progress"
            # The worker with the most logins closes its least in use (server.py: least_in_use), not the front: it
            # knows how far each got, so that a slow login is not closed for a flood of ones that never get far.
            busiest = max(self._workers, key=lambda worker: worker.logging_in.total(), default=None)
            if busiest is not None:
                self._send(busiest, b"v2")
        return None

    def _evict(
        self, newcomer: str, mine: int, below: int, idle: bool = False, skip: frozenset[str] = frozenset()
    ) -> str | None:
        """Ask the worker holding the most of the network holding the most (more than ``mine``, the newcomer's) to
        close what that network uses least there, below tier ``below`` (server.py ``evict``; none of ``skip``). At the
        connections total (5) counted in connections; at the sessions cap in places (3: not in a session; 4: a key's
        newcomer; ``idle``: an idle login or session, server.py ``_Gate.idle``). The network asked, or None."""
        places = below != 5  # (a botnet's connections mostly hold none: asking their network found nothing)
        held = self.placed if places else self.open
        spare = held - self.playing if below == 3 and not idle else held.copy()
        for net in (newcomer, *skip):
            spare[net] = 0
        left = {net: count - self._asked[net] for net, count in held.items() if spare[net] > self._asked[net]}
        network = max(left, key=left.__getitem__, default=None)
        if network is None or left[network] <= mine:
            return None

        def spare_in(worker: Worker) -> int:
            there = worker.placed if places else worker.open
            return there[network] - (below == 3 and not idle) * worker.playing[network]

        worker = max(self._workers, key=spare_in, default=None)
        if worker is None:
            return None
        self._send(worker, b"v" + (b"i" if idle else str(below).encode()) + network.encode())
        self._asked[network] += 1
        return network

    def _ask_room(
        self, worker: Worker, number: bytes, network: str, key: bool, tried: frozenset[str] = frozenset()
    ) -> None:
        """Have a place at the sessions cap closed in some worker for ``worker``'s newcomer of ``network`` (``w``);
        ``tried``: networks asked already, whose worker had none to close (``u``). ``m`` 0 once none is left."""
        below, mine = (4, 0) if key else (3, self.placed[network] + 1)  # (with the newcomer's: +1)
        asked = self._evict(network, mine, below, skip=tried) if len(tried) < ROOM_TRIES else None
        if asked is None and not key and len(tried) < ROOM_TRIES:  # then an idle one, as in a worker (take_place)
            asked = self._evict(network, mine - 1, below, idle=True, skip=tried)
        if asked is None:
            self._send(worker, b"m" + number + b" 0")  # nothing to close for it: refused
        else:  # (its worker waits 2 s at most)
            self._rooms = [*self._rooms[-255:], (worker, number, asked, network, key, tried | {asked})]

    def _seen(self, network: str, met: bool | None = None) -> None:
        """A connection of ``network`` closed (``met`` None), or the worker asked to close a place of it answered:
        closed, its place free (``g``: ``met``), or none there (``u``); that answers the oldest room request that
        waited on the network (a connection merely closing does not: it may have held no place)."""
        if met is not True:  # (one closed for room is seen closing too)
            if self._asked[network] <= 1:
                self._asked.pop(network, None)
            else:
                self._asked[network] -= 1
        for index, (worker, number, asked, newcomer, key, tried) in enumerate(self._rooms if met is not None else ()):
            if asked == network:
                del self._rooms[index]
                if met:
                    self._send(worker, b"m" + number + b" 1")
                else:  # the worker asked had none of it to close: the next network is asked
                    self._ask_room(worker, number, newcomer, key, tried)
                return

    def _count(self, worker: Worker, network: str, names: str, step: int = -1) -> None:
        """Count a connection ``worker`` holds of ``network`` in (``step`` 1) or out of the ``names`` counts, its and
        the front's (a worker's once gone are dropped: never counted out twice)."""
        for name in names.split():
            if getattr(worker, name)[network] + step >= 0:
                self.count(network, name, step)
                worker.count(network, name, step)

    def _failures_of(self, address: str) -> int:
        failures = self._failures.get(address, deque())
        while failures and failures[0] < self.clock() - AUTH_WINDOW:
            failures.popleft()
        if not failures:
            self._failures.pop(address, None)
        return len(failures)

    def _auth_failed(self, address: str) -> None:
        limit = self.settings.auth_failures
        already_out = self._failures_of(address) >= limit
        # (at most ``limit`` kept: no more are needed to know it is past its budget)
        remember(self._failures, address, self._failures.get(address) or deque(maxlen=limit), REMEMBERED)
        self._failures[address].append(self.clock())
        if not already_out and self._failures_of(address) >= limit:
            log.warning("SSH: %s is shut out for %.0f s: %d failed passwords", address, AUTH_WINDOW, limit)
            for worker in self._workers:  # its logins under way end too, in every worker
                if worker.state != "gone":
                    self._send(worker, b"b" + address.encode())

    def _close_lingering(self, connection: socket.socket) -> None:
        self._lingering.discard(connection)
        connection.close()

    def _refuse(self, connection: socket.socket, address: str, reason: str) -> None:
        self.refused[reason] += 1
        now = self.clock()
        remember(self._struck, address, max(self._struck.get(address, 0.0), now) + STRIKE_FORGIVEN, REMEMBERED)
        try:
            connection.setblocking(False)
            text = reason if reason == MEMORY_FULL else REFUSED.format(reason=reason)
            connection.send(SERVER_VERSION + disconnect_packet(text))
            connection.shutdown(socket.SHUT_WR)
        except OSError:
            connection.close()
        else:
            if len(self._lingering) < MAX_LINGERING:  # closing now, with the client's version line unread, would
                self._lingering.add(connection)  # reset it, and the client might lose the message before reading it
                asyncio.get_running_loop().call_later(LINGER, self._close_lingering, connection)
            else:
                connection.close()
        key = (address, reason)
        last, since = self._logged_refusals.get(key, (-LOG_INTERVAL, 0))
        if now - last < LOG_INTERVAL:
            self._logged_refusals[key] = (last, since + 1)
            return
        log.warning("SSH: turned away %s: %s (%d more since the last line)", address, reason, since)
        remember(self._logged_refusals, key, (now, 0), REMEMBERED)

    def _spare_if_flooded(self) -> None:
        """Start a spare, room allowing, while every worker taking players holds a seated one and connections not in
        a session (a flood of handshakes, a botnet's logins) pile up there: they then run beside nobody's game. A
        crowd arriving one by one starts none (a worker's memory for nothing)."""
        taking = self._taking()
        if not all(worker.seated for worker in taking) or self._starting:
            return
        waiting = sum(worker.open.total() - worker.playing.total() for worker in taking)
        if waiting >= self.settings.spare_after and self._room_for_a_worker():
            if "starting" not in [other.state for other in self._workers]:
                self._replace()

    def _taking(self) -> list[Worker]:
        return [worker for worker in self._workers if worker.state in ("taking", "retiring")]

    def _held_for_spare(self, taking: list[Worker]) -> bool:
        """True while every worker taking players holds a seated one and another is starting (``_spare_if_flooded``):
        the flood waits here for it, not beside a game; past ``login_limit`` waiting, the biggest holder's newest
        goes."""
        if not all(worker.seated for worker in taking) or not (
            self._starting or any(worker.state == "starting" for worker in self._workers)
        ):
            return False
        while len(self._waiting) > self.settings.login_limit:
            held = Counter(address for _, address, _ in self._waiting)
            newest = next(entry for entry in reversed(self._waiting) if held[entry[1]] == max(held.values()))
            self._waiting.remove(newest)
            self.count(newest[1], "open logging_in", -1)
            self._refuse(newest[0], newest[1], "too many logins in progress")
        return True

    def _calm(self, worker: Worker) -> bool:
        """Nobody sits there and no flood lands there."""
        return not worker.seated and worker.logging_in.total() < self.settings.spare_after

    def _place(self, taking: list[Worker], network: str) -> Worker | None:
        """The worker for a connection of ``network`` (None: it waits for a spare on its way). A network whose player
        sat at a table (``j``) goes where the fewest logins are under way; any other where nobody sits (``t``) nor
        sat ``SEAT_GRACE`` ago, so that a flood stays off a player's worker between two games too."""
        if self.clock() - self._players.get(network, -math.inf) < PLAYER_MEMORY:
            return min(taking, key=lambda worker: (worker.logging_in.total(), worker.seated))
        if self._held_for_spare(taking):
            return None
        now = self.clock()
        free = [w for w in taking if not w.seated and now - w.sat_until >= SEAT_GRACE]
        taking = free or taking
        self._turn = (self._turn + 1) % len(taking)
        return taking[self._turn]

    def _hand_waiting(self) -> None:
        while self._waiting:
            connection, address, client = self._waiting[0]
            taking = self._taking()
            worker = self._place(taking, address) if taking else None
            if worker is None:
                return  # the next worker to be ready takes them
            struck = math.ceil((self._struck.get(address, 0.0) - self.clock()) / STRIKE_FORGIVEN)
            told = f"{max(0, struck)}" + ("" if client is None else f" {client[0]} {client[1]}")
            try:
                socket.send_fds(worker.control, [b"c" + told.encode()], [connection.fileno()])
            except (BlockingIOError, InterruptedError):
                # The worker has not read its earlier connections yet: try again in a moment, in order.
                asyncio.get_running_loop().call_later(RETRY_HAND_OVER, self._hand_waiting)
                return
            except OSError as error:
                log.warning("could not hand a connection to SSH worker %d: %s", worker.slot, error)
                self.count(address, "open logging_in", -1)
            else:
                worker.handed += 1
                worker.count(address, "open logging_in", 1)
                self._spare_if_flooded()
            self._waiting.popleft()
            connection.close()  # the worker has its own copy now (or it could not be handed over)

    def _send(self, worker: Worker, message: bytes) -> None:
        with contextlib.suppress(OSError, ValueError):
            worker.control.send(message)

    @property
    def sessions(self) -> int:
        """Players let in (past key exchange) across every worker now."""
        with self._counts.get_lock():
            return int(sum(self._counts[:MAX_WORKERS]))

    def workers(self) -> list[Worker]:
        """The workers alive now."""
        return list(self._workers)

    def worker_pids(self) -> list[int]:
        return [worker.pid for worker in self._workers]


def disconnect_packet(message: str, reason: int = DISC_TOO_MANY_CONNECTIONS) -> bytes:
    """An SSH_MSG_DISCONNECT as the first binary packet of a connection (no key exchange yet: no cipher, no MAC).
    RFC 4253, 6: length, padding length, payload, at least 4 bytes of padding, the whole a multiple of 8."""
    text = message.encode()
    payload = b"\x01" + struct.pack(">I", reason) + struct.pack(">I", len(text)) + text + struct.pack(">I", 0)
    padding = 8 - (5 + len(payload)) % 8
    if padding < 4:
        padding += 8
    return struct.pack(">IB", 1 + len(payload) + padding, padding) + payload + bytes(padding)


def _stop(process: BaseProcess) -> None:
    if process.pid is None:
        return  # never started
    process.join(STOP_TIMEOUT)
    if process.is_alive():
        process.terminate()
        process.join(2.0)
    if process.is_alive():
        process.kill()
        process.join(2.0)


def host_key_fingerprint(private_key: Path) -> str:
    """``256 SHA256:... (ED25519)`` for the host key at ``private_key``, as ``ssh-keygen -lf`` and a first ``ssh``
    show it (players check it): from its ``.pub``, else from the public half an OpenSSH private key keeps in the
    clear (the host process never imports asyncssh)."""
    public = private_key.with_name(private_key.name + ".pub")
    try:
        line = public.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        line = public_line_of_private_key(private_key.read_text(encoding="ascii", errors="replace"))
    kind, blob = line.split()[:2]
    digest = base64.b64encode(hashlib.sha256(base64.b64decode(blob)).digest()).decode().rstrip("=")
    name, bits = KEY_TYPES.get(kind, (kind.removeprefix("ssh-").upper(), 0))
    return f"{bits} SHA256:{digest} ({name})" if bits else f"SHA256:{digest} ({name})"


def public_line_of_private_key(text: str) -> str:
    """The public key line (``ssh-ed25519 AAAA...``) of an OpenSSH private key file, read from its unencrypted
    header (``PROTOCOL.key`` in OpenSSH: magic, cipher, KDF, KDF options, key count, then the first public key),
    so even a passphrase-protected key says it. ``ValueError`` for any other file."""
    lines = text.strip().splitlines()
    if (
        len(lines) < 3
        or lines[0] != f"-----BEGIN {OPENSSH_PRIVATE}-----"
        or lines[-1] != f"-----END {OPENSSH_PRIVATE}-----"
    ):
        raise ValueError("not an OpenSSH private key")
    try:
        data = base64.b64decode("".join(lines[1:-1]), validate=True)
    except binascii.Error:
        raise ValueError("not an OpenSSH private key (its base64 is broken)") from None
    if not data.startswith(OPENSSH_MAGIC):
        raise ValueError("not an OpenSSH private key (no openssh-key-v1 header)")
    offset = len(OPENSSH_MAGIC)
    for index in range(4):  # cipher, KDF, KDF options, then (after the key count) the first public key
        blob, offset = _ssh_string(data, offset + 4 * (index == 3), "cut short")
    kind, _ = _ssh_string(blob, 0, "its public key is broken")
    return f"{kind.decode('ascii', 'replace')} {base64.b64encode(blob).decode()}"


def _ssh_string(data: bytes, offset: int, problem: str) -> tuple[bytes, int]:
    """The SSH string (a 4-byte length, then as many bytes) at ``offset``, and the offset after it."""
    size = struct.unpack_from(">I", data, offset)[0] if offset + 4 <= len(data) else len(data)
    if offset + 4 + size > len(data):
        raise ValueError(f"not an OpenSSH private key ({problem})")
    return data[offset + 4 : offset + 4 + size], offset + 4 + size
