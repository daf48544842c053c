"""A real HAProxy in front of a host, for the tests: the configuration docs/load-balancer.md documents (mode tcp,
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
CONFIG = """\
global
    maxconn 2000
    stats socket {stats} mode 600 level admin

defaults
    mode tcp
    balance leastconn
    option tcp-check
    timeout connect 5s
    timeout client 1h
    timeout server 1h
    timeout tunnel 1h
    timeout client-fin 30s
    timeout check 5s

frontend ssh
    bind 127.0.0.1:{ssh_port}
    default_backend ssh_fronts

backend ssh_fronts
    tcp-check expect rstring ^SSH-2\\.0-
    server front1 127.0.0.1:{front_ssh_port} source {balancer} send-proxy-v2 check inter 300ms rise 1 fall 2

frontend game
    bind 127.0.0.1:{game_port}
    default_backend game_hosts

backend game_hosts
    tcp-check expect string hello
    server host1 127.0.0.1:{host_port} source {balancer} send-proxy-v2 check inter 300ms rise 1 fall 2
"""


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

    async def stop(self) -> None:
        if self.process.returncode is None:
            self.process.terminate()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), 10)
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()


async def start_haproxy(directory: Path, host_port: int, front_ssh_port: int) -> HAProxy:
    """HAProxy in the foreground, listening once this returns (a few free ports are tried if one is taken)."""
    for _attempt in range(5):
        ssh_port, game_port = free_ports(2)
        stats = directory / "haproxy.stats"
        config = directory / "haproxy.cfg"
        log = directory / "haproxy.log"
        config.write_text(
            CONFIG.format(
                stats=stats,
                ssh_port=ssh_port,
                game_port=game_port,
                front_ssh_port=front_ssh_port,
                host_port=host_port,
                balancer=BALANCER,
            )
        )
        with log.open("wb") as output:
            process = await asyncio.create_subprocess_exec(
                binary() or "haproxy",
                "-db",  # in the foreground: this test owns the process
                "-f",
                str(config),
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
