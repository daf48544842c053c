"""A real HAProxy in front of a host, for the tests: the documented configuration (docs/haproxy.cfg: mode tcp,
leastconn, send-proxy-v2, health checks that speak each protocol, long tunnel timeouts), on loopback ports.

HAProxy cannot be told to pick a free port, so its two listening ports are looked for in 18700-18799 (free ones
are tried in turn if another program takes one first). It connects to the host from 127.0.0.2 (``source``), the
address the host believes PROXY headers from; its stats socket says when its health checks passed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import shutil
import socket
from dataclasses import dataclass
from pathlib import Path

from .conftest import BALANCER, WAIT

PORTS = range(18700, 18800)
DOCUMENTED = Path(__file__).resolve().parents[2] / "docs" / "haproxy.cfg"
# What the documented configuration becomes here: each piece must be found in it as written (a change to the
# documentation that this does not follow fails the test, rather than testing something else).
LOCAL = [
    ("fd-hard-limit 40000", "fd-hard-limit 4000"),  # a test needs few connections (HAProxy sizes its tables by it)
    ("/run/haproxy/admin.sock", "{stats}"),
    ("bind :22 ", "bind 127.0.0.1:{ssh_port} "),
    ("bind :7777\n", "bind 127.0.0.1:{game_port}\n"),
    ("check inter 2s", "check inter 300ms"),  # the first checks pass sooner
]
MACHINES = [("10.0.0.11", "game1"), ("10.0.0.12", "game2")]  # the documented game machines, in order


def config(servers: list[tuple[int, int]], **values: object) -> str:
    """docs/haproxy.cfg with this machine's loopback addresses and ports: ``servers`` are (TCP port, SSH port)
    of the hosts standing for the documented game machines (one or two), reached from the balancer's address."""
    text = DOCUMENTED.read_text()
    for documented, here in LOCAL:
        assert documented in text, f"docs/haproxy.cfg no longer has {documented!r}"
        text = text.replace(documented, here.format(**values))
    for index, (machine, name) in enumerate(MACHINES):
        for documented_port, which in ((2222, 1), (7777, 0)):
            line = f"    server {name} {machine}:{documented_port}\n"
            assert line in text, f"docs/haproxy.cfg no longer has {line!r}"
            here = (
                f"    server {name} 127.0.0.1:{servers[index][which]} source {BALANCER}\n"
                if index < len(servers)
                else ""
            )
            text = text.replace(line, here)
    return text


def binary() -> str | None:
    """The haproxy program (Debian puts it in /usr/sbin, which a non-root PATH may lack), or None."""
    found = shutil.which("haproxy")
    if found is None and os.access("/usr/sbin/haproxy", os.X_OK):
        found = "/usr/sbin/haproxy"
    return found


def free_ports(count: int) -> list[int]:
    """``count`` ports of 18700-18799 free on 127.0.0.1 right now, in a random order (tests may run at once)."""
    found: list[int] = []
    for port in random.sample(PORTS, len(PORTS)):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        found.append(port)
        if len(found) == count:
            return found
    raise RuntimeError("no free ports in 18700-18799")


@dataclass
class HAProxy:
    process: asyncio.subprocess.Process
    ssh_port: int
    game_port: int
    stats: Path
    log: Path

    async def show_stat(self) -> list[dict[str, str]]:
        """``show stat`` on the stats socket, one dict per proxy and server."""
        reader, writer = await asyncio.open_unix_connection(str(self.stats))
        writer.write(b"show stat\n")
        await writer.drain()
        data = await reader.read()
        writer.close()
        lines = data.decode().strip().splitlines()
        columns = lines[0].lstrip("# ").split(",")
        return [dict(zip(columns, line.split(","), strict=False)) for line in lines[1:] if line]

    async def wait_checked(self) -> None:
        """Until both servers' last health check passed at layer 7 (the SSH banner, the host's hello)."""
        async with asyncio.timeout(WAIT):
            while True:
                servers = [row for row in await self.show_stat() if row["svname"] not in ("FRONTEND", "BACKEND")]
                if servers and all(row["check_status"] == "L7OK" for row in servers):
                    return
                await asyncio.sleep(0.05)

    async def command(self, line: str) -> str:
        """One command on the stats socket (``set server nothanks_ssh/game1 state drain``): its answer."""
        reader, writer = await asyncio.open_unix_connection(str(self.stats))
        writer.write(line.encode() + b"\n")
        await writer.drain()
        answer = await reader.read()
        writer.close()
        return answer.decode()

    async def stop(self) -> None:
        if self.process.returncode is None:
            self.process.terminate()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), 10)
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()


async def start_haproxy(directory: Path, servers: list[tuple[int, int]]) -> HAProxy:
    """HAProxy in the foreground, listening once this returns (a few free ports are tried if one is taken)."""
    for _attempt in range(5):
        ssh_port, game_port = free_ports(2)
        stats = directory / "haproxy.stats"
        log = directory / "haproxy.log"
        path = directory / "haproxy.cfg"
        path.write_text(config(servers, stats=stats, ssh_port=ssh_port, game_port=game_port))
        with log.open("wb") as output:
            process = await asyncio.create_subprocess_exec(
                binary() or "haproxy",
                "-db",  # in the foreground: this test owns the process
                "-f",
                str(path),
                stdout=output,
                stderr=output,
                stdin=asyncio.subprocess.DEVNULL,
            )
        haproxy = HAProxy(process, ssh_port, game_port, stats, log)
        if await _listening(haproxy):
            return haproxy
        await haproxy.stop()
        if b"cannot bind" not in log.read_bytes() and b"Address already in use" not in log.read_bytes():
            raise RuntimeError(f"haproxy did not start:\n{log.read_text(errors='replace')}")
    raise RuntimeError("haproxy found no free port")


async def _listening(haproxy: HAProxy) -> bool:
    """Wait until its stats socket answers (it binds every listener before it serves any); False if it exited
    first. No connection is made to its game ports: each would reach the host as a client."""
    async with asyncio.timeout(WAIT):
        while haproxy.process.returncode is None:
            try:
                await haproxy.show_stat()
                return True
            except (OSError, IndexError):
                await asyncio.sleep(0.05)
    return False
