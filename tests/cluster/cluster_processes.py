"""A whole cluster as real processes on one machine, for the end-to-end tests and scripts/soak_cluster.py.

Why: the cluster's promises (a table outlives its host, a player outlives their front, an old owner cut off by a
partition can no longer write) hold only between processes that really die, stop and start again. So this starts
what an operator would run (README, "More than one machine"): ``redis-server`` with ``appendonly yes`` and
``appendfsync always``, table hosts (``nothanks server --role table``) and fronts (``--role front``, SSH and TCP,
one shared SSH host key) each on a loopback address of its own, and HAProxy (docs/haproxy.cfg) in front of the
fronts' SSH and TCP ports, connecting from 127.0.0.2, the address the fronts' ``--proxy-from`` names. It reads each
member's ready lines for its ports, kills (SIGKILL), stops (SIGSTOP) and restarts members, and stops everything it
started when the test ends, however it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import haproxy
from .conftest import BALANCER

WAIT = 30.0  # upper bound on one process's start, or on a wait that normally takes a few seconds
SECRET = "e2e cluster secret: at least sixteen characters"
TABLE_ADDRESSES = ["127.0.0.11", "127.0.0.12", "127.0.0.13", "127.0.0.14", "127.0.0.15"]
FRONT_ADDRESSES = ["127.0.0.21", "127.0.0.22"]  # the documented game machines game1, game2 (docs/haproxy.cfg)
LISTENING = re.compile(r"listening on [^\s:]+:(\d+)")
TABLE_PORT = re.compile(r"table port [^\s:]+:(\d+)")
SSH_PORT = re.compile(r"ssh -p (\d+)")


@dataclass
class Member:
    """One ``nothanks server`` of the cluster: a table host or a front, on its own loopback address."""

    name: str  # its host id, e.g. "table1", "front2"
    role: str  # "table" or "front"
    address: str
    arguments: list[str]  # the command line after ``nothanks server``, but for the ports
    workdir: Path
    env: dict[str, str]
    process: asyncio.subprocess.Process | None = None
    port: int = 0  # --port as bound: the table port of a table host, the clients' TCP port of a front
    table_port: int = 0  # "table port" line, if printed
    ssh_port: int = 0
    lines: list[str] = field(default_factory=list)  # its standard output, every start
    starts: int = 0
    _reader: asyncio.Task[None] | None = None

    @property
    def log(self) -> Path:
        """Its standard error (the log), appended to by every start."""
        return self.workdir / "stderr.log"

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.returncode is None

    def command(self) -> list[str]:
        ports = ["--port", str(self.port)]
        if self.role == "front":
            ports += ["--ssh-port", str(self.ssh_port)]
        return [sys.executable, "-m", "nothanks_tui", "server", *ports, *self.arguments]

    async def start(self) -> None:
        """Start it (again: on the ports it had, so the balancer's configuration stays right) and wait for its
        ready lines: the ports it bound."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as log:
            log.write(f"---- start {self.starts + 1}: {' '.join(self.command())}\n".encode())
            log.flush()
            self.process = await asyncio.create_subprocess_exec(
                *self.command(),
                stdout=asyncio.subprocess.PIPE,
                stderr=log,
                stdin=asyncio.subprocess.DEVNULL,
                env=self.env,
                cwd=self.workdir,
            )
        self.starts += 1
        assert self.process.stdout is not None
        seen: list[str] = []
        try:
            async with asyncio.timeout(WAIT):
                while not self._ready(seen):
                    line = (await self.process.stdout.readline()).decode(errors="replace")
                    if not line:
                        await self.process.wait()
                        raise RuntimeError(self._failure("exited before it was ready", seen))
                    seen.append(line)
                    self.lines.append(line)
        except TimeoutError:
            raise RuntimeError(self._failure(f"not ready within {WAIT} s", seen)) from None
        self._reader = asyncio.get_running_loop().create_task(self._read_on(self.process))

    def _ready(self, seen: list[str]) -> bool:
        text = "".join(seen)
        listening = LISTENING.search(text)
        if listening is None:
            return False
        self.port = int(listening.group(1))
        table = TABLE_PORT.search(text)
        if table is not None:
            self.table_port = int(table.group(1))
        if self.role == "front":
            ssh = SSH_PORT.search(text)
            if ssh is None:
                return False
            self.ssh_port = int(ssh.group(1))
            return True
        return True

    def _failure(self, what: str, seen: list[str]) -> str:
        tail = self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""
        return f"{self.name} {what}; stdout:\n{''.join(seen)}\nstderr (tail):\n{tail}"

    async def _read_on(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdout is not None
        while line := await process.stdout.readline():
            self.lines.append(line.decode(errors="replace"))

    def send(self, signum: int) -> None:
        if self.alive:
            assert self.process is not None
            self.process.send_signal(signum)

    async def kill(self) -> None:
        """SIGKILL: no goodbye, no lease released; what it wrote to Redis is all that is left of its work."""
        await self._end(signal.SIGKILL)

    async def stop(self) -> None:
        """SIGTERM: a clean stop (leases released, clients told to come back)."""
        await self._end(signal.SIGTERM)

    async def _end(self, signum: int) -> None:
        if self.process is None:
            return
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGCONT)  # a stopped process must run to die of SIGTERM
            self.process.send_signal(signum)
            try:
                await asyncio.wait_for(self.process.wait(), WAIT)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(self._reader, 5)

    def pause(self) -> None:
        """SIGSTOP: a host cut off by a partition, as far as everyone else can tell (it holds its sockets)."""
        self.send(signal.SIGSTOP)

    def resume(self) -> None:
        self.send(signal.SIGCONT)

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


@dataclass
class ClusterShape:
    """How many of each, and the options that tune a cluster for a test or a soak."""

    tables: int = 3
    fronts: int = 2
    bot_pace: float = 0.05
    front_options: tuple[str, ...] = ()
    table_options: tuple[str, ...] = ()
    appendfsync: str = "always"


class Cluster:
    """Redis, table hosts, fronts and HAProxy, all started by ``start`` and all stopped by ``close``."""

    def __init__(self, directory: Path, shape: ClusterShape | None = None) -> None:
        self.directory = directory
        self.shape = shape or ClusterShape()
        self.redis_url = ""
        self.secret_file = directory / "cluster-secret"
        self.host_key = directory / "ssh_host_ed25519_key"  # the one host key every front presents
        self.tables: list[Member] = []
        self.fronts: list[Member] = []
        self.balancer: haproxy.HAProxy | None = None
        self._exits = contextlib.ExitStack()
        self._directories: list[Any] = []
        self.env = os.environ | {
            "XDG_CONFIG_HOME": str(directory / "xdg-config"),
            "XDG_DATA_HOME": str(directory / "xdg-data"),
            "XDG_STATE_HOME": str(directory / "xdg-state"),
            "XDG_CACHE_HOME": str(directory / "xdg-cache"),
            "PYTHONUNBUFFERED": "1",
        }

    @property
    def members(self) -> list[Member]:
        return self.tables + self.fronts

    async def start(self) -> None:
        from .redis_server import running_redis

        self.directory.mkdir(parents=True, exist_ok=True)
        redis_dir = self.directory / "redis"
        redis_dir.mkdir(exist_ok=True)
        options = ("--appendonly", "yes", "--appendfsync", self.shape.appendfsync)
        self.redis_url = self._exits.enter_context(running_redis(redis_dir, *options))
        self.secret_file.write_text(SECRET + "\n")
        self.secret_file.chmod(0o600)
        self.tables = [self._table(n) for n in range(self.shape.tables)]
        self.fronts = [self._front(n) for n in range(self.shape.fronts)]
        write_host_key(self.host_key)  # one key for every front, as an operator would copy it to each machine
        await asyncio.gather(*(member.start() for member in self.members))
        self.balancer = await start_balancer(self.directory, self.fronts)
        await self.balancer.wait_checked()

    def _common(self, member_dir: Path) -> list[str]:
        return [
            "--redis", self.redis_url, "--cluster-secret-file", str(self.secret_file),
            "--data-dir", str(member_dir / "data"), "--no-advertise", "--verbose",
            "--bot-pace", str(self.shape.bot_pace), "--turn-timer", "off",
        ]  # fmt: skip

    def _table(self, number: int) -> Member:
        name, address = f"table{number + 1}", TABLE_ADDRESSES[number]
        workdir = self.directory / name
        arguments = [
            "--role", "table", "--bind", address, "--host-id", name, *self._common(workdir),
            *self.shape.table_options,
        ]  # fmt: skip
        return Member(name, "table", address, arguments, workdir, self.env)

    def _front(self, number: int) -> Member:
        name, address = f"front{number + 1}", FRONT_ADDRESSES[number]
        workdir = self.directory / name
        arguments = [
            "--role", "front", "--bind", address, "--host-id", name, *self._common(workdir),
            "--proxy-from", BALANCER, "--ssh-host-key", str(self.host_key), *self.shape.front_options,
        ]  # fmt: skip
        return Member(name, "front", address, arguments, workdir, self.env)

    async def close(self) -> None:
        """Stop everything that was started, whatever state it is in."""
        for opened in self._directories:
            with contextlib.suppress(Exception):
                await opened.close()
        if self.balancer is not None:
            await self.balancer.stop()
        await asyncio.gather(*(member.kill() for member in self.members), return_exceptions=True)
        self._exits.close()

    # What the tests ask of it -----------------------------------------------------------------------------------

    async def directory_client(self) -> Any:
        """A ``Directory`` on the cluster's Redis, opened once (closed with the cluster)."""
        from nothanks_server.cluster.directory import Directory

        if not self._directories:
            self._directories.append(await Directory.connect(self.redis_url))
        return self._directories[0]

    def member(self, host_id: str) -> Member:
        return next(member for member in self.members if member.name == host_id)

    async def holder(self, table_id: str) -> Member | None:
        """The table host holding ``table_id``'s lease now, if any."""
        lease = await (await self.directory_client()).holder(table_id)
        return None if lease is None else self.member(lease.owner)

    async def wait_holder(self, table_id: str, other_than: Member | None = None, timeout: float = WAIT) -> Member:
        """Until a table host (other than ``other_than``) holds ``table_id``: that one."""
        async with asyncio.timeout(timeout):
            while True:
                holder = await self.holder(table_id)
                if holder is not None and holder is not other_than:
                    return holder
                await asyncio.sleep(0.05)

    async def heal(self) -> None:
        """Every member running again (a stopped one continued, a dead one started on its ports) and both fronts
        UP at the balancer: what a test that shares the cluster starts from."""
        for member in self.members:
            member.resume()
        await asyncio.gather(*(member.start() for member in self.members if not member.alive))
        for front in self.fronts:
            await self.wait_front_state(front, "UP")

    async def wait_front_state(self, front: Member, status: str, timeout: float = WAIT) -> None:
        """Until HAProxy sees ``front`` (its SSH and TCP server lines) as ``status`` ("UP" or "DOWN")."""
        assert self.balancer is not None
        name = f"game{self.fronts.index(front) + 1}"
        async with asyncio.timeout(timeout):
            while True:
                rows = await self.balancer.show_stat()
                states = [row["status"] for row in rows if row["svname"] == name]
                if states and all(state.startswith(status) for state in states):
                    return
                await asyncio.sleep(0.05)


def write_host_key(path: Path) -> None:
    import asyncssh

    key = asyncssh.generate_private_key("ssh-ed25519", comment="nothanks e2e host key")
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as file:
        file.write(key.export_private_key("openssh"))


@contextlib.asynccontextmanager
async def running_cluster(directory: Path, shape: ClusterShape | None = None) -> AsyncIterator[Cluster]:
    cluster = Cluster(directory, shape)
    try:
        await cluster.start()
        yield cluster
    finally:
        await cluster.close()


async def start_balancer(directory: Path, fronts: list[Member]) -> haproxy.HAProxy:
    """HAProxy running docs/haproxy.cfg for ``fronts`` (game1, game2), each on its own loopback address."""
    for _attempt in range(5):
        ssh_port, game_port = haproxy.free_ports(2)
        stats = directory / "haproxy.stats"
        log = directory / "haproxy.log"
        path = directory / "haproxy.cfg"
        text = haproxy.config(
            [(front.port, front.ssh_port) for front in fronts], stats=stats, ssh_port=ssh_port, game_port=game_port
        )
        for front in fronts:  # haproxy.config puts every server on 127.0.0.1: these have addresses of their own
            for port in (front.port, front.ssh_port):
                text = text.replace(f" 127.0.0.1:{port} source", f" {front.address}:{port} source")
        path.write_text(text)
        with log.open("wb") as output:
            process = await asyncio.create_subprocess_exec(
                haproxy.binary() or "haproxy", "-db", "-f", str(path),
                stdout=output, stderr=output, stdin=asyncio.subprocess.DEVNULL,
            )  # fmt: skip
        balancer = haproxy.HAProxy(process, ssh_port, game_port, stats, log)
        if await haproxy._listening(balancer):
            return balancer
        await balancer.stop()
        if b"cannot bind" not in log.read_bytes() and b"Address already in use" not in log.read_bytes():
            raise RuntimeError(f"haproxy did not start:\n{log.read_text(errors='replace')}")
    raise RuntimeError("haproxy found no free port")


async def until(condition: Any, timeout: float = WAIT, every: float = 0.05) -> Any:
    """Poll ``condition`` (a function, maybe async) until it returns something true: that value. Other
    processes' doings have no event here to wait on."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"not true within {timeout} s: {condition}")
        await asyncio.sleep(every)
