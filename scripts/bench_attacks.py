#!/usr/bin/env python3
"""Replay the abuse of a public host from one address while bystanders play, and report what the bystanders got.

Each attack of issue 16 ("A public host survives the internet") runs against a fresh ``nothanks server`` process
on loopback. Meanwhile a bystander plays a game over TCP from another loopback address (127.0.0.3), and at the end
of the attack a newcomer (127.0.0.4) asks for a seat. Reported per attack: the bystander's move round trip
(action sent -> its update back) p50/p99, whether the newcomer got a seat and how fast, the host's CPU (% of one
core over the attack) and its RSS growth. The attacker is 127.0.0.2: the per-address limits apply to it alone.

TCP attacks (the SSH ones run from the same script once the SSH front's per-address limits land):

- idle: 4,999 connections send hello and sit idle;
- watchers: 1,000 connections watch a table that has not started and never read; 4 more toggle spectate/leave
  about 44 times a second;
- tables: 499 connections each create a 7-seat table; 3 more ask list_tables 45 times a second;
- bot-tables: 500 connections send hello and create_table {players: 7, bots: 6};
- slow-frame: 20 connections each send a 100 KB frame in 100-byte pieces.

Loopback only, bounded in time and count, stops by itself.

    .venv/bin/python scripts/bench_attacks.py [--attack NAME ...] [--seconds 10] [--nothanks PATH]

``--nothanks`` runs another build's server (e.g. an older checkout's .venv/bin/nothanks) for before/after runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import msgpack

HOST = "127.0.0.1"
ATTACKER, BYSTANDER, NEWCOMER = "127.0.0.2", "127.0.0.3", "127.0.0.4"
PROTOCOL = 2
CONNECT_TIMEOUT = 5.0
THINK = 0.1  # seconds the bystander waits before each of its moves


def frame(message: dict[str, object]) -> bytes:
    return msgpack.packb(message, use_bin_type=True)


class Link:
    """A raw protocol connection: send maps, read maps, or do nothing at all."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=1 << 22)

    @classmethod
    async def open(cls, port: int, source: str, name: str | None = "p") -> Link:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(HOST, port, local_addr=(source, 0)), CONNECT_TIMEOUT
        )
        link = cls(reader, writer)
        if name is not None:
            link.send({"type": "hello", "protocol": PROTOCOL, "name": name})
        return link

    def send(self, message: dict[str, object]) -> None:
        if not self.writer.is_closing():
            self.writer.write(frame(message))

    async def next(self, timeout: float = 10.0) -> dict[str, object] | None:
        async def read() -> dict[str, object] | None:
            while True:
                for message in self.unpacker:
                    return message  # type: ignore[no-any-return]
                try:
                    data = await self.reader.read(65536)
                except (ConnectionError, OSError):
                    return None
                if not data:
                    return None
                self.unpacker.feed(data)

        return await asyncio.wait_for(read(), timeout)

    async def until(self, kind: str, timeout: float = 10.0) -> dict[str, object] | None:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            message = await self.next(left)
            if message is None or message.get("type") == kind:
                return message
            if message.get("type") == "error" and message.get("fatal"):
                return message
        return None

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.transport.abort()


# ------------------------------------------------------------------------------------------------ bystanders


@dataclass
class Bystander:
    """Plays 2-player games against a bot, as fast as the host answers, timing each move's round trip."""

    round_trips: list[float] = field(default_factory=list)
    failure: str = ""

    async def play(self, port: int, stop: asyncio.Event) -> None:
        try:
            link = await Link.open(port, BYSTANDER, "bystander")
            link.send({"type": "create_table", "players": 2, "bots": 1})
            joined = await link.until("joined")
            if joined is None or joined.get("type") != "joined":
                self.failure = f"no table: {joined}"
                return
            link.send({"type": "start"})
            sent: tuple[int, float] | None = None
            while not stop.is_set():
                message = await link.next(timeout=15.0)
                if message is None:
                    self.failure = "the host closed the bystander's connection"
                    return
                if message.get("type") == "error" and message.get("fatal"):
                    self.failure = f"dropped: {message.get('code')}"
                    return
                if message.get("type") != "update":
                    continue
                view = message["view"]
                assert isinstance(view, dict)
                if sent is not None and view["state_id"] > sent[0]:
                    self.round_trips.append(time.monotonic() - sent[1])
                    sent = None
                if view["finished"]:
                    await asyncio.sleep(THINK)
                    link.send({"type": "play_again"})
                elif view["to_move"] == view["seat"] and sent is None:
                    await asyncio.sleep(THINK)  # a quick player, well inside the host's message budget
                    chips = view["chips"][view["seat"]]
                    action = "pass" if chips and view["pot"] < 3 else "take"
                    sent = (view["state_id"], time.monotonic())
                    link.send({"type": "action", "action": action, "state_id": view["state_id"]})
            link.close()
        except (TimeoutError, OSError) as error:
            self.failure = f"{type(error).__name__}: {error}"


async def newcomer_seat_time(port: int) -> float | None:
    """Seconds from connecting to holding a seat at a new table; None if refused or too slow (10 s)."""
    started = time.monotonic()
    try:
        link = await Link.open(port, NEWCOMER, "newcomer")
        link.send({"type": "create_table", "players": 3, "bots": 2})
        joined = await link.until("joined", timeout=10.0)
        link.close()
    except (TimeoutError, OSError):
        return None
    if joined is None or joined.get("type") != "joined":
        return None
    return time.monotonic() - started


# ------------------------------------------------------------------------------------------------ attacks

Attack = Callable[[int, asyncio.Event, list[Link]], Awaitable[None]]


async def _open_many(port: int, count: int, held: list[Link], name: str | None = "x") -> list[Link]:
    opened: list[Link] = []
    for start in range(0, count, 100):
        batch = await asyncio.gather(
            *(Link.open(port, ATTACKER, name) for _ in range(min(100, count - start))), return_exceptions=True
        )
        opened.extend(link for link in batch if isinstance(link, Link))
    held.extend(opened)
    return opened


async def attack_idle(port: int, stop: asyncio.Event, held: list[Link]) -> None:
    for link in await _open_many(port, 4999, held):
        link.writer.transport.pause_reading()
    await stop.wait()


async def attack_watchers(port: int, stop: asyncio.Event, held: list[Link]) -> None:
    [owner] = await _open_many(port, 1, held)
    owner.send({"type": "create_table", "players": 7})
    joined = await owner.until("joined")
    table = joined.get("table") if joined else None
    for link in await _open_many(port, 1000, held):
        link.send({"type": "spectate", "table": table})
        link.writer.transport.pause_reading()  # never reads
    togglers = await _open_many(port, 4, held)
    while not stop.is_set():
        for link in togglers:
            link.send({"type": "spectate", "table": table})
            link.send({"type": "leave"})
        await asyncio.sleep(1 / 44)


async def attack_tables(port: int, stop: asyncio.Event, held: list[Link]) -> None:
    for link in await _open_many(port, 499, held):
        link.send({"type": "create_table", "players": 7})
    askers = await _open_many(port, 3, held)
    readers = [asyncio.create_task(_read_and_forget(link, stop)) for link in askers]
    while not stop.is_set():
        for link in askers:
            link.send({"type": "list_tables"})
        await asyncio.sleep(1 / 45)
    await asyncio.gather(*readers, return_exceptions=True)


async def _read_and_forget(link: Link, stop: asyncio.Event) -> None:
    with contextlib.suppress(TimeoutError, OSError):
        while not stop.is_set() and await link.next(timeout=30.0) is not None:
            pass


async def attack_bot_tables(port: int, stop: asyncio.Event, held: list[Link]) -> None:
    for link in await _open_many(port, 500, held):
        link.send({"type": "create_table", "players": 7, "bots": 6})
    await stop.wait()


async def attack_slow_frame(port: int, stop: asyncio.Event, held: list[Link]) -> None:
    big = frame({"type": "ping", "pad": "x" * 500, "more": ["y" * 500] * 16}) * 12  # about 100 KB
    links = await _open_many(port, 20, held)
    for start in range(0, len(big), 100):
        if stop.is_set():
            return
        for link in links:
            if not link.writer.is_closing():
                link.writer.write(big[start : start + 100])
        await asyncio.sleep(0.001)
    await stop.wait()


ATTACKS: dict[str, Attack] = {
    "idle": attack_idle,
    "watchers": attack_watchers,
    "tables": attack_tables,
    "bot-tables": attack_bot_tables,
    "slow-frame": attack_slow_frame,
}


# ------------------------------------------------------------------------------------------------ the host


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    match = re.search(r"VmRSS:\s+(\d+)", Path(f"/proc/{pid}/status").read_text())
    return int(match.group(1)) / 1024 if match else 0.0


@dataclass
class Result:
    attack: str
    round_trips: list[float]
    bystander_failure: str
    newcomer: float | None
    cpu: float
    rss_growth: float


async def run_attack(name: str, nothanks: str, seconds: float) -> Result:
    with tempfile.TemporaryDirectory() as data:
        server = subprocess.Popen(
            [nothanks, "server", "--bind", HOST, "--port", "0", "--data-dir", data, "--bot-pace", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        try:
            assert server.stdout is not None
            line = await asyncio.wait_for(asyncio.to_thread(server.stdout.readline), 30)
            port = int(re.search(r":(\d+);", line).group(1))  # type: ignore[union-attr]
            rss_before = rss_mib(server.pid)
            stop = asyncio.Event()
            bystander = Bystander()
            playing = asyncio.create_task(bystander.play(port, stop))
            await asyncio.sleep(1.0)  # the bystander's game is under way before the attack
            bystander.round_trips.clear()
            cpu_before, started = cpu_seconds(server.pid), time.monotonic()
            # The attack runs in a process of its own, so its client-side work never delays the bystander's reads.
            attacker = await asyncio.create_subprocess_exec(
                sys.executable, __file__, "--attacker", name, "--port", str(port), "--seconds", str(seconds + 15)
            )
            peak = rss_before
            while time.monotonic() - started < seconds:
                await asyncio.sleep(0.5)
                peak = max(peak, rss_mib(server.pid))
            newcomer = await newcomer_seat_time(port)
            cpu = (cpu_seconds(server.pid) - cpu_before) / (time.monotonic() - started) * 100
            stop.set()
            attacker.terminate()
            await attacker.wait()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(playing, 20)
            return Result(name, bystander.round_trips, bystander.failure, newcomer, cpu, peak - rss_before)
        finally:
            server.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.wait(10)
            if server.poll() is None:
                server.kill()


async def attack_for(name: str, port: int, seconds: float) -> None:
    """The attacker's process: run one attack until told to stop (SIGTERM) or ``seconds`` pass."""
    stop = asyncio.Event()
    asyncio.get_running_loop().call_later(seconds, stop.set)
    with contextlib.suppress(NotImplementedError):
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    held: list[Link] = []
    try:
        await ATTACKS[name](port, stop, held)
    finally:
        for link in held:
            link.close()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def report(results: list[Result]) -> str:
    lines = [
        "| attack | bystander moves | RTT p50 | RTT p99 | bystander | newcomer seated | host CPU | RSS growth |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        ms = [t * 1000 for t in r.round_trips]
        newcomer = "no" if r.newcomer is None else f"{r.newcomer * 1000:.0f} ms"
        lines.append(
            f"| {r.attack} | {len(ms)} | {statistics.median(ms) if ms else float('nan'):.1f} ms | "
            f"{percentile(ms, 0.99):.1f} ms | {r.bystander_failure or 'played on'} | {newcomer} | "
            f"{r.cpu:.0f} % | {r.rss_growth:.1f} MiB |"
        )
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--attack", action="append", choices=sorted(ATTACKS), help="default: every attack")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long each attack runs (10)")
    parser.add_argument("--nothanks", default=str(Path(sys.executable).with_name("nothanks")))
    parser.add_argument("--attacker", choices=sorted(ATTACKS), help=argparse.SUPPRESS)  # the attack's own process
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 16384), hard))  # 5,000 connections need the files
    if args.attacker:
        await attack_for(args.attacker, args.port, args.seconds)
        return
    load = os.getloadavg()
    results = []
    for name in args.attack or list(ATTACKS):
        results.append(await run_attack(name, args.nothanks, args.seconds))
        print(report(results[-1:]).splitlines()[-1], flush=True)
    print(f"\nload average at start {load[0]:.2f}; server {args.nothanks}\n")
    print(report(results))


if __name__ == "__main__":
    asyncio.run(main())
