#!/usr/bin/env python3
"""How long a killed table host's table takes to play again on another host (docs/scaling.md quotes it).

Starts its own redis-server (on a Unix socket in a temporary directory) and two real ``nothanks server --redis``
processes on loopback ports (any free ones), then, ``--runs`` times: a player creates a table with a bot on the
first host and plays a few moves; the first host is SIGKILLed; the player's client (standing for its front)
reads the table's lease holder in Redis every 10 ms (what a front reads) until it is the second host ("taken"),
resumes the seat there with the token and plays the next move, timing its ``update`` ("playing"). Both are
measured from the kill.
A killed host is started again (with a new id) for the next run, so each run kills the table's current host.

    .venv/bin/python scripts/bench_takeover.py [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgpack
import redis

from nothanks_tui.link.wire import PROTOCOL_VERSION, encode

WAIT = 30.0


class Client:
    """A bare protocol client: frames in and out, nothing else."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)

    @classmethod
    async def connect(cls, port: int) -> Client:
        client = cls(*await asyncio.open_connection("127.0.0.1", port))
        await client.until("hello")
        await client.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "ann"})
        await client.until("welcome")
        return client

    async def send(self, message: dict[str, Any]) -> None:
        self.writer.write(encode(message))
        await self.writer.drain()

    async def until(self, kind: str, check: Any = None) -> dict[str, Any]:
        async with asyncio.timeout(WAIT):
            while True:
                for frame in self.unpacker:
                    if frame.get("type") == kind and (check is None or check(frame)):
                        return frame  # type: ignore[no-any-return]
                data = await self.reader.read(65536)
                if not data:
                    raise ConnectionError(f"closed while waiting for {kind}")
                self.unpacker.feed(data)

    def close(self) -> None:
        self.writer.close()


async def start_host(redis_url: str, host_id: str, data_dir: Path) -> tuple[asyncio.subprocess.Process, int]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "nothanks_tui", "server", "--bind", "127.0.0.1", "--port", "0", "--no-advertise",
        "--bot-pace", "0", "--turn-timer", "off", "--data-dir", str(data_dir / host_id),
        "--redis", redis_url, "--host-id", host_id,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    assert process.stdout is not None
    line = (await asyncio.wait_for(process.stdout.readline(), WAIT)).decode()
    if "listening on" not in line:
        raise RuntimeError(f"the host did not start: {line!r}")
    port = int(line.split("listening on ", 1)[1].split(";")[0].rsplit(":", 1)[1])
    return process, port


def my_turn(seat: int, after: int = -1) -> Any:
    def check(frame: dict[str, Any]) -> bool:
        view = frame["view"]
        return bool(view["to_move"] == seat and view["state_id"] > after and not view["finished"])

    return check


async def one_run(
    first: int, second: int, killed: asyncio.subprocess.Process, killed_id: str, redis_client: Any
) -> tuple[float, float]:
    ann = await Client.connect(first)
    await ann.send({"type": "create_table", "players": 3, "bots": 2, "bot": "rules", "id": 1})
    joined = await ann.until("joined")
    table_id, seat = joined["table"], joined["seat"]
    await ann.send({"type": "start"})
    turn = await ann.until("update", my_turn(seat))
    for _ in range(3):
        view = turn["view"]
        await ann.send({"type": "action", "action": view["legal"][0], "state_id": view["state_id"]})
        turn = await ann.until("update", my_turn(seat, view["state_id"]))
    killed.send_signal(signal.SIGKILL)
    kill = time.perf_counter()
    ann.close()
    while True:  # what a front reads to find the table's host: its lease's holder (Directory.holder)
        holder = redis_client.get(f"nothanks:lease:{table_id}")
        if holder is not None and not holder.decode().startswith(f"{killed_id} "):
            break
        await asyncio.sleep(0.01)
    listed = time.perf_counter() - kill
    other = await Client.connect(second)
    await other.send({"type": "resume", "token": joined["token"], "id": 3})
    resumed = await other.until("update", my_turn(seat))
    view = resumed["view"]
    assert view["state_id"] == turn["view"]["state_id"], "not at the last accepted move"
    await other.send({"type": "action", "action": view["legal"][0], "state_id": view["state_id"]})
    await other.until("update", lambda frame: frame["view"]["state_id"] > view["state_id"])
    playing = time.perf_counter() - kill
    other.close()
    return listed, playing


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    program = shutil.which("redis-server") or "/usr/bin/redis-server"
    with tempfile.TemporaryDirectory() as directory_name:
        directory = Path(directory_name)
        sock = directory / "redis.sock"
        server = subprocess.Popen(
            [program, "--port", "0", "--unixsocket", str(sock), "--save", "", "--dir", directory_name],
            stdout=subprocess.DEVNULL,
        )
        hosts: list[tuple[asyncio.subprocess.Process, int]] = []
        try:
            for _ in range(500):
                if sock.exists():
                    break
                await asyncio.sleep(0.01)
            url = f"unix://{sock}"
            redis_client = redis.Redis(unix_socket_path=str(sock))
            hosts = [await start_host(url, "h0", directory), await start_host(url, "h1", directory)]
            ids = ["h0", "h1"]
            results = []
            for run in range(args.runs):
                (victim, first), (_, second) = hosts
                listed, playing = await one_run(first, second, victim, ids[0], redis_client)
                await victim.wait()
                print(f"run {run + 1}: taken by the other host {listed:.2f} s after the kill, playing {playing:.2f} s")
                results.append((listed, playing))
                hosts = [hosts[1], await start_host(url, f"h{run + 2}", directory)]
                ids = [ids[1], f"h{run + 2}"]
            listed_all = [r[0] for r in results]
            playing_all = [r[1] for r in results]
            print(
                f"taken: median {statistics.median(listed_all):.2f} s, max {max(listed_all):.2f} s; "
                f"playing: median {statistics.median(playing_all):.2f} s, max {max(playing_all):.2f} s"
            )
        finally:
            for process, _port in hosts:
                if process.returncode is None:
                    process.send_signal(signal.SIGTERM)
                    await process.wait()
            server.terminate()
            server.wait(10)
    print(f"(python {sys.version.split()[0]}, {os.cpu_count()} cores, lease 3 s, takeover looks every 0.25 s)")


if __name__ == "__main__":
    asyncio.run(main())
