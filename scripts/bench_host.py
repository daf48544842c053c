#!/usr/bin/env python3
"""Benchmark the host over loopback: move-to-broadcast latency, moves/s and host RSS at 10, 100, 1000 clients.

Starts a real ``nothanks server`` process on 127.0.0.1 (free port, bots paced 0, rate limit raised) and, in this
process, N scripted TCP clients speaking the documented protocol, 5 to a table, every seat a client. A move's
latency runs from its client sending the ``action`` to the last client of that table receiving the new view.
In the same run it measures the floor: a bare asyncio msgpack echo server (another process) with the same N
connections and the same number of messages in flight (one per table), timing each round trip.

Loopback only, bounded: each phase runs for --seconds (default 5), every wait has a timeout.

    .venv/bin/python scripts/bench_host.py [--clients 10 100 1000] [--seconds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import msgpack

from nothanks_tui.link.wire import PROTOCOL_VERSION

PLAYERS = 5
HOST = "127.0.0.1"
SETUP_TIMEOUT = 60.0


# ------------------------------------------------------------------------------------------------ game clients


@dataclass
class Table:
    table_id: str = ""
    clients: list[GameClient] = field(default_factory=list)
    sent_at: dict[int, float] = field(default_factory=dict)  # state_id the move leads to -> send time
    pending: dict[int, int] = field(default_factory=dict)  # state_id -> clients yet to see it


class Bench:
    def __init__(self, think: float = 0.0) -> None:
        self.think = think  # mean seconds a client waits before each move (0: as fast as possible)
        self.rng = random.Random(1)
        self.latencies: list[float] = []
        self.measuring = False
        self.moves = 0
        self.errors: list[dict] = []


class GameClient(asyncio.Protocol):
    """One scripted player: plays a simple policy whenever the view says it is its turn."""

    def __init__(self, bench: Bench, table: Table, index: int) -> None:
        self.bench = bench
        self.table = table
        self.index = index
        self.unpacker = msgpack.Unpacker(raw=False, max_buffer_size=1 << 22)
        self.transport: asyncio.Transport | None = None
        self.replies: asyncio.Queue[dict] = asyncio.Queue()
        self.ready = asyncio.Event()
        self.can_start = asyncio.Event()

    def connection_made(self, transport) -> None:  # type: ignore[no-untyped-def]
        self.transport = transport

    def send(self, message: dict) -> None:
        assert self.transport is not None
        self.transport.write(msgpack.packb(message))

    def data_received(self, data: bytes) -> None:
        self.unpacker.feed(data)
        for message in self.unpacker:
            kind = message.get("type")
            if kind == "update":
                self.on_update(message)
            elif kind == "waiting":
                if message.get("can_start"):
                    self.can_start.set()
            elif kind == "error":
                self.bench.errors.append(message)
            elif kind in ("welcome", "joined", "hello"):
                self.replies.put_nowait(message)

    def on_update(self, message: dict) -> None:
        view = message["view"]
        state_id = view["state_id"]
        table = self.table
        now = time.perf_counter()
        left = table.pending.get(state_id)
        if left is not None:
            left -= 1
            if left == 0:
                del table.pending[state_id]
                sent = table.sent_at.pop(state_id, None)
                if sent is not None and self.bench.measuring:
                    self.bench.latencies.append(now - sent)
                    self.bench.moves += 1
                if view["finished"]:  # everyone has seen the end: all ask for another game (the host waits for all)
                    for client in table.clients:
                        client.send({"type": "play_again"})
            else:
                table.pending[state_id] = left
        if view["finished"]:
            return
        if view["to_move"] == view["seat"]:
            chips = view["chips"][view["seat"]]
            action = "pass" if chips > 0 and view["pot"] < 3 else "take"

            def act() -> None:
                table.sent_at[state_id + 1] = time.perf_counter()
                table.pending[state_id + 1] = len(table.clients)
                self.send({"type": "action", "action": action, "state_id": state_id})

            if self.bench.think:
                asyncio.get_running_loop().call_later(self.bench.think * self.bench.rng.uniform(0.5, 1.5), act)
            else:
                act()


async def run_game_phase(port: int, clients: int, seconds: float, think: float) -> tuple[Bench, int]:
    loop = asyncio.get_running_loop()
    bench = Bench(think)
    tables = [Table() for _ in range(clients // PLAYERS)]
    all_clients: list[GameClient] = []
    for table in tables:
        for index in range(PLAYERS):
            _, client = await loop.create_connection(lambda t=table, i=index: GameClient(bench, t, i), HOST, port)
            table.clients.append(client)
            all_clients.append(client)
    for n, client in enumerate(all_clients):
        client.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": f"b{n}"})
    for client in all_clients:
        await wait_reply(client, "hello")
        await wait_reply(client, "welcome")
    for table in tables:
        creator = table.clients[0]
        creator.send({"type": "create_table", "players": PLAYERS, "id": 1})
        table.table_id = (await wait_reply(creator, "joined"))["table"]
        for client in table.clients[1:]:
            client.send({"type": "join", "table": table.table_id, "id": 2})
        for client in table.clients[1:]:
            await wait_reply(client, "joined")
    for table in tables:
        await asyncio.wait_for(table.clients[0].can_start.wait(), SETUP_TIMEOUT)
        table.clients[0].send({"type": "start"})
    await asyncio.sleep(min(1.0, seconds / 5))  # warm-up: let every table get going before measuring
    bench.measuring = True
    started = time.perf_counter()
    await asyncio.sleep(seconds)
    bench.measuring = False
    elapsed = time.perf_counter() - started
    for client in all_clients:
        assert client.transport is not None
        client.transport.close()
    return bench, int(bench.moves / elapsed)


async def wait_reply(client: GameClient, kind: str) -> dict:
    while True:
        message = await asyncio.wait_for(client.replies.get(), SETUP_TIMEOUT)
        if message.get("type") == kind:
            return message


# ------------------------------------------------------------------------------------------------ echo floor


FANOUT_FRAME = 800  # bytes of padding in a fan-out reply: about a mid-game update frame
GROUPS: dict[int, list[EchoServer]] = {}


class EchoServer(asyncio.Protocol):
    """Echoes each message back; a message naming a group (``g``) is instead sent, padded, to the whole group."""

    def connection_made(self, transport) -> None:  # type: ignore[no-untyped-def]
        self.transport = transport
        self.unpacker = msgpack.Unpacker(raw=False, max_buffer_size=1 << 16)

    def data_received(self, data: bytes) -> None:
        self.unpacker.feed(data)
        for message in self.unpacker:
            group = message.get("g")
            if group is None:
                self.transport.write(msgpack.packb(message))
            elif message.get("join"):
                GROUPS.setdefault(group, []).append(self)
            else:
                frame = msgpack.packb({"n": message["n"], "pad": "x" * FANOUT_FRAME})
                for member in GROUPS[group]:
                    member.transport.write(frame)


async def echo_server_main() -> None:
    server = await asyncio.get_running_loop().create_server(EchoServer, HOST, 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()


class EchoClient(asyncio.Protocol):
    def __init__(self, bench: Bench, active: bool) -> None:
        self.bench = bench
        self.active = active
        self.unpacker = msgpack.Unpacker(raw=False)
        self.sent = 0.0
        self.n = 0

    def connection_made(self, transport) -> None:  # type: ignore[no-untyped-def]
        self.transport = transport

    def fire(self) -> None:
        self.n += 1
        self.sent = time.perf_counter()
        self.transport.write(msgpack.packb({"type": "action", "action": "take", "state_id": self.n}))

    def data_received(self, data: bytes) -> None:
        self.unpacker.feed(data)
        for _ in self.unpacker:
            if self.bench.measuring:
                self.bench.latencies.append(time.perf_counter() - self.sent)
                self.bench.moves += 1
            if self.bench.think:
                asyncio.get_running_loop().call_later(self.bench.think * self.bench.rng.uniform(0.5, 1.5), self.fire)
            else:
                self.fire()


class FanoutClient(asyncio.Protocol):
    """One of a group of 5: the first sends, all receive; a round ends when all 5 have the frame."""

    def __init__(self, bench: Bench, group: list[FanoutClient], index: int, state: dict) -> None:
        self.bench = bench
        self.group = group
        self.index = index
        self.state = state  # shared by the group: n in flight, sent time, receivers left
        self.unpacker = msgpack.Unpacker(raw=False)

    def connection_made(self, transport) -> None:  # type: ignore[no-untyped-def]
        self.transport = transport

    def fire(self) -> None:
        self.state["n"] += 1
        self.state["left"] = len(self.group)
        self.state["sent"] = time.perf_counter()
        self.transport.write(msgpack.packb({"g": id(self.group), "n": self.state["n"]}))

    def data_received(self, data: bytes) -> None:
        self.unpacker.feed(data)
        for _ in self.unpacker:
            self.state["left"] -= 1
            if self.state["left"] == 0:
                if self.bench.measuring:
                    self.bench.latencies.append(time.perf_counter() - self.state["sent"])
                    self.bench.moves += 1
                sender = self.group[0]
                if self.bench.think:
                    delay = self.bench.think * self.bench.rng.uniform(0.5, 1.5)
                    asyncio.get_running_loop().call_later(delay, sender.fire)
                else:
                    sender.fire()


async def run_fanout_phase(port: int, clients: int, seconds: float, think: float) -> tuple[Bench, int]:
    loop = asyncio.get_running_loop()
    bench = Bench(think)
    groups: list[list[FanoutClient]] = []
    for _ in range(clients // PLAYERS):
        group: list[FanoutClient] = []
        state = {"n": 0, "left": 0, "sent": 0.0}
        for index in range(PLAYERS):
            _, client = await loop.create_connection(
                lambda g=group, i=index, st=state: FanoutClient(bench, g, i, st), HOST, port
            )
            group.append(client)
            client.transport.write(msgpack.packb({"g": id(group), "join": True}))
        groups.append(group)
    await asyncio.sleep(0.2)  # let the joins land before the first round (not a measurement)
    for group in groups:
        group[0].fire()
    await asyncio.sleep(min(1.0, seconds / 5))
    bench.measuring = True
    started = time.perf_counter()
    await asyncio.sleep(seconds)
    bench.measuring = False
    elapsed = time.perf_counter() - started
    for group in groups:
        for client in group:
            client.transport.close()
    return bench, int(bench.moves / elapsed)


async def run_echo_phase(port: int, clients: int, seconds: float, think: float) -> tuple[Bench, int]:
    loop = asyncio.get_running_loop()
    bench = Bench(think)
    in_flight = max(1, clients // PLAYERS)
    conns = []
    for n in range(clients):
        _, client = await loop.create_connection(lambda a=n < in_flight: EchoClient(bench, a), HOST, port)
        conns.append(client)
    for client in conns:
        if client.active:
            client.fire()
    await asyncio.sleep(min(1.0, seconds / 5))
    bench.measuring = True
    started = time.perf_counter()
    await asyncio.sleep(seconds)
    bench.measuring = False
    elapsed = time.perf_counter() - started
    for client in conns:
        client.transport.close()
    return bench, int(bench.moves / elapsed)


# ------------------------------------------------------------------------------------------------ driver


def rss_kib(pid: int) -> tuple[int, int]:
    """(current RSS, peak RSS) of a process, KiB."""
    status = Path(f"/proc/{pid}/status").read_text()
    rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1))
    hwm = int(re.search(r"VmHWM:\s+(\d+)", status).group(1))
    return rss, hwm


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def start_process(args: list[str]) -> tuple[subprocess.Popen, int]:
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    match = re.search(r":(\d+);", line) or re.fullmatch(r"(\d+)\n?", line)
    if match is None:
        process.kill()
        raise SystemExit(f"could not start: {line!r}")
    return process, int(match.group(1))


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument(
        "--think",
        type=float,
        nargs="+",
        default=[0.0, 0.2],
        metavar="SECONDS",
        help="mean wait before each move (and each echo): 0 saturates the host; default runs 0 and 0.2",
    )
    parser.add_argument("--echo-server", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo_server:
        asyncio.run(echo_server_main())
        return 0
    if any(n < PLAYERS or n % PLAYERS for n in args.clients):
        parser.error(f"client counts must be multiples of {PLAYERS}")
    print(f"load before: {os.getloadavg()}; cpus: {os.cpu_count()}; python {sys.version.split()[0]}")
    header = (
        f"{'clients':>7} | {'host p50 ms':>11} {'host p99 ms':>11} {'moves/s':>8} {'RSS MiB':>8} {'peak MiB':>8} | "
        f"{'echo p50 ms':>11} {'echo p99 ms':>11} {'echo/s':>8} | {'p99/echo p99':>12} | "
        f"{'fan50 ms':>9} {'fan99 ms':>9} | {'host CPU%':>8}"
    )
    with tempfile.TemporaryDirectory() as records:
        for think in args.think:
            print(
                f"\nthink time {think * 1000:.0f} ms per move"
                + (" (saturation: as fast as replies come)" if not think else "")
            )
            print(header)
            print("-" * len(header))
            for clients in args.clients:
                run_one(args, clients, think, records)
    print(f"load after: {os.getloadavg()}")
    return 0


def run_one(args: argparse.Namespace, clients: int, think: float, records: str) -> None:
    """One row: the host with ``clients`` clients, then the echo floor with as many."""
    host, port = start_process(
        [
            sys.executable,
            "-m",
            "nothanks_tui",
            "server",
            "--bind",
            HOST,
            "--port",
            "0",
            "--bot-pace",
            "0",
            "--no-advertise",  # the LAN advertisement (zeroconf) is measured apart: docs/benchmarks.md
            "--turn-timer",
            "off",
            "--rate-limit",
            "100000",
            # every client comes from this machine's one address: lift the per-address limits
            "--per-address-connections",
            "100000",
            "--connects-per-minute",
            "1000000",
            "--per-address-tables",
            "100000",
            "--data-dir",
            records,
        ]
    )
    try:
        cpu_before, wall_before = cpu_seconds(host.pid), time.perf_counter()
        bench, rate = asyncio.run(asyncio.wait_for(run_game_phase(port, clients, args.seconds, think), 600))
        cpu = (cpu_seconds(host.pid) - cpu_before) / (time.perf_counter() - wall_before) * 100
        rss, peak = rss_kib(host.pid)
    finally:
        stop(host)
    echo, echo_port = start_process([sys.executable, __file__, "--echo-server"])
    try:
        floor, floor_rate = asyncio.run(asyncio.wait_for(run_echo_phase(echo_port, clients, args.seconds, think), 600))
    finally:
        stop(echo)
    echo, echo_port = start_process([sys.executable, __file__, "--echo-server"])
    try:
        fanout, _ = asyncio.run(asyncio.wait_for(run_fanout_phase(echo_port, clients, args.seconds, think), 600))
    finally:
        stop(echo)
    f50, f99 = percentile(fanout.latencies, 0.5) * 1e3, percentile(fanout.latencies, 0.99) * 1e3
    p50, p99 = percentile(bench.latencies, 0.5) * 1e3, percentile(bench.latencies, 0.99) * 1e3
    e50, e99 = percentile(floor.latencies, 0.5) * 1e3, percentile(floor.latencies, 0.99) * 1e3
    print(
        f"{clients:>7} | {p50:>11.2f} {p99:>11.2f} {rate:>8} {rss / 1024:>8.1f} {peak / 1024:>8.1f} | "
        f"{e50:>11.3f} {e99:>11.3f} {floor_rate:>8} | {p99 / e99:>12.1f} | {f50:>9.2f} {f99:>9.2f} | {cpu:>8.0f}",
        flush=True,
    )
    if bench.errors:
        print(f"        host errors: {len(bench.errors)}, first {bench.errors[0]}")


if __name__ == "__main__":
    raise SystemExit(main())
