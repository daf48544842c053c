"""SSH sessions in worker processes, so that a host with many SSH players uses every core.

Each SSH session runs its own Textual app. In the host's process they all share one core and one heap: at 50
playing sessions that core is 60-80 % busy with drawing, every key waits behind other players' screens, and each
deep garbage collection (collector.py) pauses everyone for about a second (docs/benchmarks.md, "SSH front").
With ``nothanks server --ssh-workers N``, N worker processes each run an SSH front and their sessions' apps; the
host process keeps the lobby and every table, the single authority, and serves the workers' players over its TCP
port on loopback, exactly as it serves ``nothanks join`` players (each SSH player is one TCP client of the host,
so every view is still filtered for its seat by the host before it leaves the host process).

- All workers listen on the same SSH port (``SO_REUSEPORT``): the kernel spreads new connections over them. The
  host reserves the port first (bound, not listening), so ``--ssh-port 0`` picks one port for all.
- ``--max-sessions`` holds across the workers: one count per worker in shared memory, summed under one lock.
- A player who logged in with a key finds their seat again whichever worker the reconnection lands on: the seats
  are remembered in files (``SeatFiles``, in ``ssh-seats/`` next to the host key), not in one worker's memory.
- A worker that dies is started again (its players' connections are lost; their seats wait for them, away).
  Workers stop when the host tells them (each player is told why) or when the host process is gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import signal
import socket
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from multiprocessing.sharedctypes import SynchronizedArray
from pathlib import Path
from typing import Any

from .game import SeatFiles, tcp_game_app_factory
from .hostkey import load_or_create_host_key
from .server import SSHFront, SSHSettings

log = logging.getLogger(__name__)

SEATS_DIR = "ssh-seats"
START_TIMEOUT = 60.0  # seconds a worker may take to import everything and listen
STOP_TIMEOUT = 10.0  # seconds a worker may take to end its sessions before it is killed
WATCH_INTERVAL = 1.0  # seconds between checks that every worker is alive
STOPPED = "the host stopped"


class SharedAdmission:
    """The session cap across worker processes: one count per worker in shared memory, summed under its lock."""

    def __init__(self, counts: SynchronizedArray[int], index: int, limit: int) -> None:
        self._counts = counts
        self._index = index
        self._limit = limit

    def admit(self) -> bool:
        with self._counts.get_lock():
            if sum(self._counts) >= self._limit:
                return False
            self._counts[self._index] += 1
            return True

    def release(self) -> None:
        with self._counts.get_lock():
            self._counts[self._index] = max(0, self._counts[self._index] - 1)


@dataclass(frozen=True)
class WorkerPlan:
    """What one worker process needs (sent to it when it is spawned)."""

    index: int
    ssh: SSHSettings  # its port is the reserved one
    lobby_host: str  # the host's TCP port, on loopback
    lobby_port: int
    seats_dir: Path
    log_level: int


def run_worker(plan: WorkerPlan, counts: SynchronizedArray[int], channel: Connection) -> None:
    """A worker process's main: serve SSH sessions until the host says stop (or is gone)."""
    logging.basicConfig(level=plan.log_level, format=f"%(asctime)s ssh-worker-{plan.index} %(name)s: %(message)s")
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the host's whole process group: the host decides
    asyncio.run(_serve(plan, counts, channel))


async def _serve(plan: WorkerPlan, counts: SynchronizedArray[int], channel: Connection) -> None:
    settings = replace(plan.ssh, reuse_port=True, workers=0)
    seats = SeatFiles(plan.seats_dir)
    front = SSHFront(
        settings,
        tcp_game_app_factory(plan.lobby_host, plan.lobby_port, seats),
        SharedAdmission(counts, plan.index, settings.max_sessions),
    )
    await front.start()
    channel.send(("ready", front.port))
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    loop.add_reader(channel.fileno(), stop.set)  # a message from the host, or end of file: the host is gone
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    loop.remove_reader(channel.fileno())
    reason = STOPPED
    with contextlib.suppress(EOFError, OSError, ValueError, TypeError):
        if channel.poll():
            _kind, reason = channel.recv()
    await front.close(str(reason))


def reserve_port(bind: str, port: int) -> socket.socket:
    """A socket bound to ``bind``:``port`` with SO_REUSEPORT and not listening: the workers' port, chosen once."""
    if not hasattr(socket, "SO_REUSEPORT"):
        raise OSError("--ssh-workers needs SO_REUSEPORT, which this system lacks (Linux and the BSDs have it)")
    family = socket.AF_INET6 if ":" in bind else socket.AF_INET
    reserved = socket.socket(family, socket.SOCK_STREAM)
    try:
        reserved.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        reserved.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        reserved.bind((bind or "0.0.0.0", port))
    except BaseException:
        reserved.close()
        raise
    return reserved


def loopback_for(bind: str) -> str:
    """Where a worker reaches the host's TCP port bound to ``bind``."""
    if bind in ("", "0.0.0.0"):
        return "127.0.0.1"
    if bind == "::":
        return "::1"
    return bind


@dataclass
class _Worker:
    process: BaseProcess
    channel: Connection
    listening: bool = False  # it said it is ready


class SSHWorkers:
    """The host's SSH front when ``settings.workers`` > 0: starts the workers, restarts any that dies, stops them."""

    def __init__(self, settings: SSHSettings, lobby_host: str, lobby_port: int) -> None:
        self.settings = settings
        self.lobby_host = loopback_for(lobby_host)
        self.lobby_port = lobby_port
        self.seats_dir = settings.host_key_path.parent / SEATS_DIR
        self._context = multiprocessing.get_context("spawn")  # never fork a process that runs an event loop
        self._counts: SynchronizedArray[int] = self._context.Array("i", max(1, settings.workers))
        self._workers: list[_Worker | None] = [None] * settings.workers
        self._reserved: socket.socket | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._closing = False
        self.restarts = 0

    @property
    def port(self) -> int:
        assert self._reserved is not None, "start() first"
        return int(self._reserved.getsockname()[1])

    def worker_pids(self) -> list[int]:
        """The process ids of the workers listening now."""
        return [worker.process.pid for worker in self._workers if worker and worker.listening and worker.process.pid]

    async def start(self) -> None:
        load_or_create_host_key(self.settings.host_key_path)  # made once here, not by two workers at once
        self._reserved = reserve_port(self.settings.bind, self.settings.port)
        SeatFiles(self.seats_dir).clear()  # the tokens of an earlier host process mean nothing to this one
        try:
            await asyncio.gather(*(self._spawn(index) for index in range(self.settings.workers)))
        except BaseException:
            await self.close(STOPPED)
            raise
        self._watcher = asyncio.get_running_loop().create_task(self._watch(), name="ssh workers watcher")
        log.info("%d SSH workers listening on %s port %d", self.settings.workers, self.settings.bind, self.port)

    async def _spawn(self, index: int) -> None:
        plan = WorkerPlan(
            index=index,
            ssh=replace(self.settings, port=self.port),
            lobby_host=self.lobby_host,
            lobby_port=self.lobby_port,
            seats_dir=self.seats_dir,
            log_level=logging.getLogger().getEffectiveLevel(),
        )
        ours, theirs = self._context.Pipe()
        process = self._context.Process(
            target=run_worker, args=(plan, self._counts, theirs), name=f"nothanks-ssh-worker-{index}", daemon=True
        )
        process.start()
        theirs.close()
        worker = self._workers[index] = _Worker(process, ours)  # known at once, so that close() stops it too
        ready = await asyncio.get_running_loop().run_in_executor(None, _wait_ready, ours, process)
        if not ready:
            process.kill()
            raise RuntimeError(f"SSH worker {index} did not start (exit code {process.exitcode})")
        worker.listening = True

    async def _watch(self) -> None:
        while not self._closing:
            await asyncio.sleep(WATCH_INTERVAL)
            for index, worker in enumerate(self._workers):
                if self._closing or worker is None or worker.process.is_alive():
                    continue
                log.warning("SSH worker %d exited (code %s): starting it again", index, worker.process.exitcode)
                worker.channel.close()
                with self._counts.get_lock():
                    self._counts[index] = 0  # its sessions are gone with it
                try:
                    await self._spawn(index)
                    self.restarts += 1
                except Exception:
                    log.exception("SSH worker %d could not be started again", index)

    async def close(self, reason: str = STOPPED) -> None:
        """Tell every worker to end its sessions with ``reason``, wait for them, and free the port."""
        self._closing = True
        if self._watcher is not None:
            self._watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher
            self._watcher = None
        workers = [worker for worker in self._workers if worker is not None]
        for worker in workers:
            with contextlib.suppress(OSError, ValueError):
                worker.channel.send(("stop", reason))
        loop = asyncio.get_running_loop()
        await asyncio.gather(*(loop.run_in_executor(None, _stop, worker.process) for worker in workers))
        for worker in workers:
            worker.channel.close()
        self._workers = [None] * len(self._workers)
        if self._reserved is not None:
            self._reserved.close()


def _wait_ready(channel: Connection, process: BaseProcess) -> bool:
    """Block (in a thread) until the worker says it listens, dies, or takes too long."""
    with contextlib.suppress(EOFError, OSError):
        if channel.poll(START_TIMEOUT):
            message: Any = channel.recv()
            return bool(message and message[0] == "ready")
    return False


def _stop(process: BaseProcess) -> None:
    process.join(STOP_TIMEOUT)
    if process.is_alive():
        process.terminate()
        process.join(2.0)
    if process.is_alive():
        process.kill()
        process.join(2.0)
