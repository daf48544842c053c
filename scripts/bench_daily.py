#!/usr/bin/env python3
"""Benchmark the daily deal (issue 30's target): N scripted TCP players (default 200) play today's deal on one host
at once, each at their own table against the two daily bots.

Starts a real ``nothanks server`` (loopback, free port, a fresh data dir, per-address limits lifted: every player
comes from this machine's one address) and, in this process, N players speaking the documented protocol: hello,
``daily``, then each move as soon as it is their turn. Reports the ``daily`` request's latency (to ``joined``),
each move's latency (the ``action`` sent to the next view), the whole run's time, the host's CPU and RSS; then
checks that the ranking counts every player and that a second ``daily`` is refused ``daily_played``.

    nice -n 10 .venv/bin/python scripts/bench_daily.py [--players 200] [--bot-pace 0]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

import msgpack

sys.path.insert(0, str(Path(__file__).parent))
from bench_host import HOST, cpu_seconds, percentile, rss_kib, start_process, stop

from nothanks_tui.link.identity import Identity
from nothanks_tui.link.wire import PROTOCOL_VERSION

TIMEOUT = 600.0
KEYS = Path(tempfile.mkdtemp(prefix="nothanks-bench-daily-keys-"))  # each player's key, made at its first hello


class Player:
    """One scripted player: its connection, and the frames it reads."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
        self.view: dict | None = None

    @classmethod
    async def connect(cls, port: int, name: str) -> Player:
        player = cls(*await asyncio.open_connection(HOST, port))
        nonce = (await player.frame())["nonce"]  # the host's hello
        proof = Identity.load(KEYS / name).prove(nonce)  # (a guest, with no key, cannot play the daily deal)
        player.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": name} | proof)
        assert (await player.frame())["type"] == "welcome"
        return player

    def send(self, message: dict) -> None:
        self.writer.write(msgpack.packb(message))

    async def frame(self) -> dict:
        while True:
            for frame in self.unpacker:
                return frame
            data = await self.reader.read(65536)
            if not data:
                raise ConnectionError("the host closed the connection")
            self.unpacker.feed(data)

    async def until(self, kind: str) -> dict:
        """The next frame of type ``kind`` (or an error); a view met on the way is kept (``view``)."""
        while (frame := await self.frame())["type"] not in (kind, "error"):
            if frame["type"] == "update":
                self.view = frame  # (the deal comes before ``joined``)
        return frame


async def play(port: int, name: str, joins: list[float], moves: list[float]) -> None:
    """``name`` plays today's deal to its end."""
    player = await Player.connect(port, name)
    sent = time.perf_counter()
    player.send({"type": "daily", "id": 1})
    joined = await player.until("joined")
    assert joined["type"] == "joined", joined
    joins.append(time.perf_counter() - sent)
    moved: float | None = None
    while True:
        frame, player.view = player.view or await player.frame(), None
        if frame["type"] != "update":
            continue
        view = frame["view"]
        if moved is not None:
            moves.append(time.perf_counter() - moved)
            moved = None
        if view["finished"]:
            player.writer.close()
            return
        if view["to_move"] == view["seat"]:
            chips = view["chips"][view["seat"]]
            action = "take" if chips == 0 or view["pot"] >= view["card"] // 3 else "pass"
            player.send({"type": "action", "action": action, "state_id": view["state_id"]})
            moved = time.perf_counter()


async def run(port: int, players: int) -> None:
    joins: list[float] = []
    moves: list[float] = []
    started = time.perf_counter()
    games = [play(port, f"p{number}", joins, moves) for number in range(players)]
    await asyncio.wait_for(asyncio.gather(*games), TIMEOUT)
    wall = time.perf_counter() - started
    print(f"{players} players played today's deal at once in {wall:.1f} s")
    print(f"daily -> joined ms: p50 {percentile(joins, 0.5) * 1000:.1f}  p99 {percentile(joins, 0.99) * 1000:.1f}")
    print(f"action -> view ms:  p50 {percentile(moves, 0.5) * 1000:.1f}  p99 {percentile(moves, 0.99) * 1000:.1f}")
    print(f"player moves: {len(moves)} ({len(moves) / wall:.0f}/s)")
    checker = await Player.connect(port, "p0")
    checker.send({"type": "daily_ranking", "id": 2})
    ranking = await checker.until("daily_ranking")
    checker.send({"type": "daily", "id": 3})
    again = await checker.until("error")
    print(f"ranking counts {ranking['count']} of {players}; a second daily: {again['code']}")
    assert ranking["count"] == players and again["code"] == "daily_played"
    checker.writer.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--bot-pace", default="0", help="the host's bot pace in seconds (default 0: at once)")
    args = parser.parse_args()
    print(f"load before: {os.getloadavg()}; cpus: {os.cpu_count()}; python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as data_dir:
        lifted = ["--per-address-connections", "100000", "--per-address-tables", "100000", "--rate-limit", "100000"]
        lifted += ["--connects-per-minute", "1000000"]  # (every player comes from this machine's one address)
        command = [sys.executable, "-m", "nothanks_tui", "server", "--bind", HOST, "--port", "0", "--no-advertise"]
        host, port = start_process([*command, "--bot-pace", args.bot_pace, *lifted, "--data-dir", data_dir])
        try:
            cpu_before, wall_before = cpu_seconds(host.pid), time.perf_counter()
            asyncio.run(run(port, args.players))
            cpu = (cpu_seconds(host.pid) - cpu_before) / (time.perf_counter() - wall_before) * 100
            rss, peak = rss_kib(host.pid)
            print(f"host CPU {cpu:.0f}% of one core; RSS {rss / 1024:.0f} MiB (peak {peak / 1024:.0f} MiB)")
        finally:
            stop(host)
    print(f"load after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
