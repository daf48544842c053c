#!/usr/bin/env python3
"""What the cluster hop costs: key-to-update latency through a front's gateway against straight to the table host,
and the gateway's CPU per move (docs/scaling.md, issue 19).

It starts a real ``redis-server`` (a Unix socket in a temporary directory), one table host
(``nothanks server --role table``) and one front (``--role front``) as processes, then plays 2-player games
against a bot (``--bot-pace 0``) twice: once connected to the table host's port directly (as a member, with the
proof of the cluster secret), once through the gateway. A sample is the time from writing an ``action`` to reading
the ``update`` that shows it; the front's CPU (user + system, from /proc) over the gateway run is divided by the
updates it relayed and by our actions.

    .venv/bin/python scripts/bench_gateway.py [--moves 2000] [--clients 1]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgpack

from nothanks_server.cluster.membership import proof
from nothanks_tui.link.wire import PROTOCOL_VERSION, encode

SECRET = "bench secret of the members, long enough"


class Client:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.unpacker = msgpack.Unpacker(raw=False, max_buffer_size=1 << 22)
        self.frames = 0

    @classmethod
    async def connect(cls, port: int, name: str, member: bool) -> Client:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        client = cls(reader, writer)
        hello = await client.next()
        message: dict[str, Any] = {"type": "hello", "protocol": PROTOCOL_VERSION, "name": name}
        if member:
            message |= {"proof": proof(SECRET, hello["nonce"]), "via": "192.0.2.1"}
        client.send(message)
        assert (await client.next())["type"] == "welcome"
        return client

    def send(self, message: dict[str, Any]) -> None:
        self.writer.write(encode(message))

    async def next(self) -> dict[str, Any]:
        while True:
            for frame in self.unpacker:
                self.frames += 1
                return frame
            data = await self.reader.read(65536)
            if not data:
                raise ConnectionError("closed")
            self.unpacker.feed(data)


async def play(port: int, member: bool, moves: int, name: str) -> list[float]:
    """Seconds from each of our actions to the update showing it, over ``moves`` actions."""
    client = await Client.connect(port, name, member)
    client.send({"type": "create_table", "players": 2, "bots": 1, "bot": "random", "id": 1})
    client.send({"type": "start"})
    samples: list[float] = []
    sent_at: float | None = None
    waiting_for = -1
    while len(samples) < moves:
        frame = await client.next()
        if frame.get("type") != "update":
            continue
        view = frame["view"]
        if sent_at is not None and view["state_id"] > waiting_for:
            samples.append(time.perf_counter() - sent_at)
            sent_at = None
        if view["finished"]:
            client.send({"type": "play_again"})
            continue
        if view["legal"] and sent_at is None:
            action = "pass" if "pass" in view["legal"] and view["pot"] < 2 else "take"
            waiting_for = view["state_id"]
            sent_at = time.perf_counter()
            client.send({"type": "action", "action": action, "state_id": waiting_for})
    client.send({"type": "bye"})
    client.writer.close()
    return samples


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def server(*arguments: str) -> tuple[asyncio.subprocess.Process, list[str]]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "nothanks_tui", "server", "--bind", "127.0.0.1", "--no-advertise",
        "--bot-pace", "0", "--rate-limit", "100000", "--per-address-tables", "1000", *arguments,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    assert process.stdout is not None
    lines = []
    while not any(line.startswith("Ctrl-C") for line in lines):
        line = (await asyncio.wait_for(process.stdout.readline(), 30)).decode()
        if not line:
            raise RuntimeError(f"server {arguments} exited: {lines}")
        lines.append(line)
    return process, lines


def summary(name: str, samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return f"{name:>16}: {len(ms)} moves, median {statistics.median(ms):.3f} ms, p99 {p99:.3f} ms, max {ms[-1]:.2f} ms"


async def main(moves: int, clients: int) -> None:
    program = shutil.which("redis-server") or "/usr/bin/redis-server"
    with tempfile.TemporaryDirectory() as tmp:
        sock = f"{tmp}/redis.sock"
        redis = subprocess.Popen(
            [program, "--port", "0", "--unixsocket", sock, "--save", "", "--appendonly", "no", "--dir", tmp],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        secret = Path(tmp, "secret")
        secret.write_text(SECRET)
        processes = []
        try:
            for _ in range(100):
                if os.path.exists(sock):
                    break
                await asyncio.sleep(0.05)  # redis-server makes its socket when it is ready
            common = ("--redis", f"unix://{sock}", "--cluster-secret-file", str(secret))
            table, table_lines = await server("--role", "table", "--port", "0", "--data-dir", f"{tmp}/t", *common)
            processes.append(table)
            table_port = int(table_lines[0].split(";")[0].rsplit(":", 1)[1])
            front, front_lines = await server("--role", "front", "--port", "0", "--data-dir", f"{tmp}/f", *common)
            processes.append(front)
            front_port = int(front_lines[0].split(";")[0].rsplit(":", 1)[1])
            await play(front_port, False, 20, "warm")  # the front's lobby and first connection made
            direct = await asyncio.gather(*(play(table_port, True, moves, f"d{n}") for n in range(clients)))
            before = cpu_seconds(front.pid)
            started = time.perf_counter()
            relayed = await asyncio.gather(*(play(front_port, False, moves, f"g{n}") for n in range(clients)))
            elapsed = time.perf_counter() - started
            spent = cpu_seconds(front.pid) - before
            print(summary("direct", [s for run in direct for s in run]))
            print(summary("through gateway", [s for run in relayed for s in run]))
            total = moves * clients
            print(
                f"gateway CPU: {spent:.2f} s over {elapsed:.1f} s for {total} of our moves "
                f"({spent / total * 1e6:.0f} us per move of ours, each relaying the request in and about two "
                f"updates out: ours and the bot's reply); {spent / elapsed * 100:.0f} % of a core meanwhile"
            )
        finally:
            for process in processes:
                process.terminate()
                await process.wait()
            redis.kill()
            redis.wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=2000, help="our moves per client and per run")
    parser.add_argument("--clients", type=int, default=1, help="clients playing at once")
    options = parser.parse_args()
    asyncio.run(main(options.moves, options.clients))
