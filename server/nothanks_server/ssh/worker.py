"""A worker process of the SSH front: it runs SSH and a game app for each connection the front hands it.

The front (front.py) accepts every TCP connection and sends its socket here over a Unix socket (``send_fds``); this
process runs asyncssh on it (``SessionServer.serve``). Messages from the front, one per datagram:

- ``c`` with one file descriptor: a new connection, this worker's from now on; ``c`` + ``ADDRESS PORT``: one whose
  client is at that address (a load balancer's PROXY header said so: the socket's own peer is the balancer);
- ``d``: drain: no more connections will come; exit once the last one has closed (at once if there is none);
- ``s`` + a reason: stop now, telling each player the reason. End of file (the front is gone) stops too;
- ``b`` + an address: it is shut out (too many failed passwords): its connections still logging in are closed;
- ``v`` + a tier + a network (or none: any): close the connection of that network least in use here, below that
  tier (the front's totals: ``SessionServer.evict``); ``m`` + ``NUMBER 1`` / ``NUMBER 0``: room request NUMBER
  was met / cannot be.

To the front: ``r`` once ready, and ``e`` each time its last connection has closed (it is empty) if a player's
app has run in it since it started. For the front's per-address limits, with the client's address after the
letter: ``f`` a failed password, ``a`` a connection logged in, ``o`` one that opened its session, ``x`` + its tier
(``_Gate.tier``) one closed; ``u`` + a network: nothing of it to close here; ``w`` + ``k`` (a key's player) or
``-`` + ``NUMBER NETWORK``: a newcomer of that network wants room at the sessions cap (``SessionServer.want_room``).

Memory: the apps of a worker live in one heap. Every ``FREEZE_INTERVAL`` seconds the worker collects what is not
frozen yet (the last second's survivors only) and moves everything alive into Python's permanent generation
(``gc.freeze``, a public API that costs a list splice), so that automatic collections only ever walk what is newer
and no player waits for a collection of the whole heap (freezer.py). What dies in frozen cycles afterwards (a
screen a player has left, a departed player's app) stays until the worker exits: the front stops giving a worker
players after a number of connections or megabytes, and it exits when its last player leaves. The system gets the
memory back then; nothing walks the heap for it.
At play a session makes almost no garbage in cycles once Textual's ``Strip.divide`` stops making each line refer to
itself (patch 3 in patches.py): measured at 40 players, the host's memory then grows about 0.06 MiB/s instead of
2 MiB/s, and keys p99 went from 302 to 114 ms (docs/benchmarks.md, "SSH front, worker processes"). Without the
periodic freeze memory stays flat without that patch too, but the collections of the whole heap stall the worker
(keys p99 745 ms, a 7.9 s stall, in the same hour). What the collection before each freeze is worth:
docs/benchmarks.md, "Closed screens given back in a frozen heap".
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import itertools
import logging
import os
import signal
import socket
from collections.abc import Callable
from multiprocessing.sharedctypes import SynchronizedArray

from .freezer import FREEZE_INTERVAL, Freezer
from .hostkey import HostKeyError
from .patches import divide_without_cycles, lazy_strip_caches, share_parsed_css
from .server import SessionServer, SharedAdmission
from .session import AppFactory
from .settings import WorkerPlan

log = logging.getLogger(__name__)

LAG_TICK = 0.02  # seconds between two looks at how late the event loop runs
STALL_LOGGED = 0.05  # seconds late: logged ("event loop stalled"), since every player of this worker waited that long
STOPPED = "the host stopped"
READY = b"r"
CONNECTION = b"c"
DRAIN = b"d"
STOP = b"s"
SHUT_OUT = b"b"
EMPTY = b"e"
AUTH_FAILED = b"f"
LOGGED_IN = b"a"
CLOSED = b"x"
SESSION = b"o"
EVICT = b"v"
NOTHING_TO_EVICT = b"u"
WANT_ROOM = b"w"
ROOM = b"m"
ROOM_WAIT = 2.0  # seconds a newcomer waits for the front to close a place in another worker
START_FAILED = b"k"  # + one sentence: why this worker cannot serve (a host key it cannot use), just before it exits


def load_app_factory(plan: WorkerPlan) -> AppFactory:
    """The worker's app factory, from ``plan.ssh.app`` ("module:function", the function taking the plan)."""
    module_name, _, function_name = plan.ssh.app.partition(":")
    make: Callable[[WorkerPlan], AppFactory] = getattr(importlib.import_module(module_name), function_name)
    return make(plan)


def run_worker(plan: WorkerPlan, control: socket.socket, counts: SynchronizedArray[int]) -> None:
    """A worker process's main: serve what the front hands over until it says stop or drain (or is gone)."""
    if plan.log_file is not None:
        # The host logs to a file because its terminal is taken (``nothanks host`` runs the host player's app
        # there): this worker's log, and anything else written to its stdout or stderr, goes to that file too.
        descriptor = os.open(plan.log_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        os.dup2(descriptor, 1)
        os.dup2(descriptor, 2)
        os.close(descriptor)
    logging.basicConfig(
        level=plan.log_level, format=f"%(asctime)s ssh-worker-{plan.slot} %(name)s: %(message)s", force=True
    )
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the host's whole process group: the host decides
    try:
        asyncio.run(_serve(plan, control, counts))
    except HostKeyError as error:  # the front says it in one sentence and stops; a traceback here would say less
        with contextlib.suppress(OSError):
            control.send(START_FAILED + str(error).encode("utf-8", "replace")[:240])
        raise SystemExit(1) from None


async def _serve(plan: WorkerPlan, control: socket.socket, counts: SynchronizedArray[int]) -> None:
    divide_without_cycles()  # else every frame leaves self-referencing lines to the frozen heap (patches.py)
    share_parsed_css()  # else every app parses the same CSS into rule sets of its own (patches.py)
    lazy_strip_caches()  # else every line drawn makes seven caches it seldom uses (patches.py)
    server = SessionServer(plan.ssh, load_app_factory(plan), SharedAdmission(plan.ssh.max_sessions, counts, plan.slot))
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    reason = [STOPPED]
    draining = False
    rooms: dict[int, asyncio.Future[bool]] = {}  # room requests to the front, by number, unanswered
    numbers = itertools.count()

    def idle() -> None:
        if draining:
            stop.set()
        elif server.apps_started:  # a player's app ran here (a port probe or a failed login leaves nothing)
            with contextlib.suppress(OSError):
                control.send(EMPTY)  # the front may recycle this worker now that nobody is in it

    def receive() -> None:
        nonlocal draining
        while True:
            try:
                data, fds, _flags, _address = socket.recv_fds(control, 1024, 4)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                data, fds = b"", []
            for extra in fds[1:]:
                with contextlib.suppress(OSError):
                    socket.close(extra)
            if not data:  # the front is gone
                stop.set()
                return
            kind = data[:1]
            if kind == CONNECTION and fds:
                server.serve(socket.socket(fileno=fds[0]), _client(data[1:]))
            elif kind == DRAIN:
                draining = True
                log.info("draining: %d connections left", server.connections)
                if server.connections == 0:
                    stop.set()
            elif kind == SHUT_OUT:
                server.shut_out(data[1:].decode(errors="replace"))
            elif kind == EVICT and not server.evict(data[2:].decode(errors="replace"), int(data[1:2] or 0)):
                tell(NOTHING_TO_EVICT + data[2:])
            elif kind == ROOM:
                number, _, met = data[1:].decode(errors="replace").partition(" ")
                room = rooms.pop(int(number), None) if number.isdigit() else None
                if room is not None and not room.done():
                    room.set_result(met == "1")
            elif kind == STOP:
                reason[0] = data[1:].decode("utf-8", "replace") or STOPPED
                stop.set()

    def tell(message: bytes) -> None:
        with contextlib.suppress(OSError):
            control.send(message)

    server.on_idle = idle
    server.on_auth_failure = lambda address: tell(AUTH_FAILED + address.encode())
    server.on_login_done = lambda address: tell(LOGGED_IN + address.encode())
    server.on_connection_closed = lambda address, tier: tell(CLOSED + str(tier).encode() + address.encode())
    server.on_session = lambda address: tell(SESSION + address.encode())

    async def want_room(network: str, key: bool) -> bool:
        number = next(numbers)
        rooms[number] = room = loop.create_future()
        tell(WANT_ROOM + (b"k" if key else b"-") + f"{number} {network}".encode())
        try:
            async with asyncio.timeout(ROOM_WAIT):
                return await room
        except TimeoutError:
            return False
        finally:
            rooms.pop(number, None)

    server.want_room = want_room
    control.setblocking(False)
    loop.add_reader(control.fileno(), receive)
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGTERM, stop.set)
    await server.prepare()
    freezer = Freezer(FREEZE_INTERVAL)
    freezer.start(loop)
    lag = _LagWatch(loop)
    try:
        try:
            control.send(READY)
        except OSError:  # the front died while this worker started: nobody to serve, nothing to say
            return
        await stop.wait()
    finally:
        lag.stop()
        freezer.stop()
        log.info("frozen heap: %s", freezer.summary())
        loop.remove_reader(control.fileno())
        await server.close(reason[0])
        control.close()


def _client(told: bytes) -> tuple[str, int] | None:
    """The client's (address, port) the front read from a PROXY header, if it sent one with the connection."""
    address, _, port = told.decode(errors="replace").partition(" ")
    return (address, int(port)) if address and port.isdigit() else None


class _LagWatch:
    """Logs every time the worker's event loop ran more than ``STALL_LOGGED`` late: a pause every player here saw."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._due = loop.time() + LAG_TICK
        self._handle: asyncio.TimerHandle | None = loop.call_at(self._due, self._tick)

    def _tick(self) -> None:
        late = self._loop.time() - self._due
        if late > STALL_LOGGED:
            log.info("event loop stalled %.0f ms", 1000 * late)
        self._due = self._loop.time() + LAG_TICK
        self._handle = self._loop.call_at(self._due, self._tick)

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
