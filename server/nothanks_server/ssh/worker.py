"""A worker process of the SSH front: asyncssh and a game app for each connection the front hands it (front.py).

From the front, one datagram each: ``c`` + a socket + its network's connections the front turned away (+ `` ADDRESS
PORT`` when a PROXY header named the client); ``d`` drain (exit once empty); ``s`` + a reason: stop now (so does end of
file); ``b`` + an address: shut out, its logins end; ``v`` + a tier (or ``i``: idle) + a network: close that network's
connection least in use below the tier (``evict``); ``m`` + ``NUMBER 1|0``: room request NUMBER met or not. To the
front: ``r`` ready; ``e`` empty again after a player's app ran; ``t`` + a count + `` NETWORK COUNT`` pairs: players
here at a table and places held by network now, when that changes; ``j`` + a network: one of its players newly at a
table; with the client's address: ``f`` failed password, ``a`` logged in, ``o`` session opened, ``x`` + tier closed;
``u`` + network: nothing of it here to close, ``g`` + network: its place closed (``v`` 3, 4, ``i``); ``p``, ``q`` +
address: a place at the sessions cap taken, let go of; ``w`` + ``k``|``-`` + ``NUMBER NETWORK``: room wanted at the
sessions cap (``want_room``); ``k`` + a sentence: cannot serve (a host key it cannot use).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import itertools
import logging
import os
import signal
import socket
import time
from collections import Counter
from collections.abc import Callable
from multiprocessing.sharedctypes import SynchronizedArray

from . import patches
from .server import HostKeyError, SessionServer
from .session import AppFactory
from .settings import STOPPED, WorkerPlan, cancel

log = logging.getLogger(__name__)

LAG_TICK = 0.02  # seconds between two looks at how late the event loop runs
STALL_LOGGED = 0.05  # seconds late: logged ("event loop stalled"), since every player of this worker waited that long
FREEZE_INTERVAL = 1.0  # seconds between two ticks
SEATED_LOOK = 0.25  # seconds between two looks at how many players here sit at a table (told to the front)
ROOM_WAIT = 2.0  # seconds a newcomer waits for the front to close a place in another worker


def load_app_factory(plan: WorkerPlan) -> AppFactory:
    """The worker's app factory, from ``plan.ssh.app`` ("module:function", the function taking the plan)."""
    module_name, _, function_name = plan.ssh.app.partition(":")
    make: Callable[[WorkerPlan], AppFactory] = getattr(importlib.import_module(module_name), function_name)
    return make(plan)


def run_worker(plan: WorkerPlan, control: socket.socket, counts: SynchronizedArray[float]) -> None:
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
            control.send(b"k" + str(error).encode("utf-8", "replace")[:240])
        raise SystemExit(1) from None


async def _serve(plan: WorkerPlan, control: socket.socket, counts: SynchronizedArray[float]) -> None:
    patches.install()  # self-referencing lines, CSS parsed per app, unused line caches, a key cache holding apps
    server = SessionServer(plan.ssh, load_app_factory(plan), counts, plan.slot)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    reason = [STOPPED]
    draining = False
    rooms: dict[int, asyncio.Future[bool]] = {}  # room requests to the front, by number, unanswered
    numbers = itertools.count()

    def tell(message: bytes) -> bool:
        try:
            control.send(message)
        except OSError:  # (a full socket too: what counts is told again, absolute, by _tell_seated)
            return False
        return True

    def idle() -> None:
        if draining:
            stop.set()
        elif server.apps_started:  # a player's app ran here (a port probe or a failed login leaves nothing)
            tell(b"e")  # the front may recycle this worker now that nobody is in it

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
            kind, text = data[:1], data[1:].decode("utf-8", "replace")
            if kind == b"c" and fds:
                struck, _, told = text.partition(" ")
                server.serve(socket.socket(fileno=fds[0]), _client(told), int(struck) if struck.isdigit() else 0)
            elif kind == b"d":
                draining = True
                log.info("draining: %d connections left", server.connections)
                if server.connections == 0:
                    stop.set()
            elif kind == b"b":
                server.shut_out(text)
            elif kind == b"v":
                below, idle = (3, True) if text[:1] == "i" else (int(text[:1] or 0), False)
                if not server.evict(text[1:], below, lone=bool(text[1:]), idle=idle):
                    tell(b"u" + data[2:])
                elif below in (3, 4):  # a place closed for a room request: free now
                    tell(b"g" + data[2:])
            elif kind == b"m":
                number, _, met = text.partition(" ")
                room = rooms.pop(int(number), None) if number.isdigit() else None
                if room is not None and not room.done():
                    room.set_result(met == "1")
            elif kind == b"s":
                reason[0] = text or STOPPED
                stop.set()

    server.on_idle = idle
    server.tell = tell

    async def want_room(network: str, key: bool) -> bool:
        number = next(numbers)
        rooms[number] = room = loop.create_future()
        tell(b"w" + (b"k" if key else b"-") + f"{number} {network}".encode())
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
    lag = loop.create_task(_watch_lag(loop), name="lag watch")
    seated = loop.create_task(_tell_seated(server, tell), name="seated watch")
    try:
        try:
            control.send(b"r")
        except OSError:  # the front died while this worker started: nobody to serve, nothing to say
            return
        await stop.wait()
    finally:
        lag.cancel()
        seated.cancel()
        freezer.stop()
        log.info("frozen heap: %s", freezer.summary())
        loop.remove_reader(control.fileno())
        await server.close(reason[0])
        control.close()


def _client(told: str) -> tuple[str, int] | None:
    """The client's (address, port) the front read from a PROXY header, if it sent one with the connection."""
    address, _, port = told.partition(" ")
    return (address, int(port)) if address and port.isdigit() else None


async def _watch_lag(loop: asyncio.AbstractEventLoop) -> None:
    """Logs every time the event loop ran more than ``STALL_LOGGED`` late: a pause every player here saw."""
    while True:
        due = loop.time() + LAG_TICK
        await asyncio.sleep(LAG_TICK)
        if loop.time() - due > STALL_LOGGED:
            log.info("event loop stalled %.0f ms", 1000 * (loop.time() - due))


async def _tell_seated(server: SessionServer, tell: Callable[[bytes], bool]) -> None:
    """Tells the front how many players here sit at a table and the places held here by network whenever that
    changes (``t``: absolute, told again until sent, so that a ``p``, ``q`` or ``t`` lost on a full control socket
    heals), and the networks of newly seated players: it hands newcomers (a botnet's handshakes among them) to a
    worker where nobody plays, if there is one, and a player's next login to where no flood is (front.py ``_place``)."""
    told: Counter[str] = Counter()
    reported = b""
    while True:
        await asyncio.sleep(SEATED_LOOK)
        seated = server.seated()
        for network in seated.keys() - told.keys():
            tell(b"j" + network.encode())
        told = seated
        places = b"".join(b" %s %d" % (network.encode(), count) for network, count in server.places().items())
        report = b"t%d" % seated.total() + places
        if report != reported and tell(report):
            reported = report


class Freezer:
    """Every ``interval`` seconds: ``gc.collect()`` of what is not frozen yet (the last second's survivors: without
    it, cycles already garbage, as Textual makes at every layout, were frozen with a screen's widgets), then
    ``gc.freeze()``, so no collection walks every player's app (without it keys p99 745 ms, a 7.9 s stall:
    docs/benchmarks.md, "SSH front, worker processes"). What dies in a frozen cycle stays until the worker exits
    (the front recycles it); walking the heap for it saved about 4 % of a player's PSS for pauses of 51-137 ms."""

    def __init__(self, interval: float = FREEZE_INTERVAL) -> None:
        self.interval = interval
        self.ticks = 0
        self.longest_tick = 0.0  # seconds
        self._handle: asyncio.TimerHandle | None = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        gc.collect()  # what starting up left (imports, the first parse of everything) goes once, before any player
        gc.freeze()
        self._handle = loop.call_later(self.interval, self._again, loop)

    def tick(self) -> None:
        started = time.perf_counter()
        gc.collect()
        gc.freeze()
        self.ticks += 1
        self.longest_tick = max(self.longest_tick, time.perf_counter() - started)

    def summary(self) -> str:
        return f"{self.ticks} freezes, each with its collection at most {1000 * self.longest_tick:.0f} ms"

    def stop(self) -> None:
        self._handle = cancel(self._handle)

    def _again(self, loop: asyncio.AbstractEventLoop) -> None:
        self.tick()
        self._handle = loop.call_later(self.interval, self._again, loop)
