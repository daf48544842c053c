#!/usr/bin/env python3
"""Benchmark the coach: how long from a player's ``coach`` request to the host's ``advice``, over a real socket.

Runs a host (Lobby + TcpHost) in this process on 127.0.0.1 at a free port, and one scripted player over TCP at a
table that allows the coach, against ``rules`` bots that move at once. On every one of the player's turns it asks
the coach once (a fresh question: never one the host has already answered), times the round trip, then plays the
coach's move. Meanwhile a ticker on the host's event loop measures how late it wakes (what a table would feel if
the coach's search held the loop). Target (issue 18): the coach answers in under 300 ms.

    .venv/bin/python scripts/bench_coach.py [--games 5] [--players 4]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time

import msgpack

from nothanks_server import Lobby, LobbySettings
from nothanks_server.tcp import TcpHost
from nothanks_tui.link.wire import PROTOCOL_VERSION, encode

TIMEOUT = 30.0


class Player:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.unpacker = msgpack.Unpacker(raw=False)

    async def send(self, message: dict[str, object]) -> None:
        self.writer.write(encode(message))
        await self.writer.drain()

    async def frame(self, kind: str) -> dict[str, object]:
        while True:
            for message in self.unpacker:
                if message.get("type") == kind:
                    return message
                if message.get("type") == "error":
                    raise RuntimeError(message)
            data = await asyncio.wait_for(self.reader.read(65536), TIMEOUT)
            if not data:
                raise RuntimeError("the host closed the connection")
            self.unpacker.feed(data)


async def loop_lag(samples: list[float], stop: asyncio.Event, every: float = 0.005) -> None:
    """How late the loop wakes a task that sleeps ``every`` seconds, each time."""
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        start = loop.time()
        await asyncio.sleep(every)
        samples.append(loop.time() - start - every)


async def main(games: int, players: int) -> int:
    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=None, default_bot="rules"))
    host = TcpHost(lobby, "127.0.0.1", 0)
    await host.start()
    idle: list[float] = []  # the same ticker with nothing else running: the machine's own lag, for comparison
    stop = asyncio.Event()
    ticker = asyncio.get_running_loop().create_task(loop_lag(idle, stop))
    await asyncio.sleep(2.0)
    stop.set()
    await ticker
    lags: list[float] = []
    stop = asyncio.Event()
    ticker = asyncio.get_running_loop().create_task(loop_lag(lags, stop))
    times: list[float] = []
    reader, writer = await asyncio.open_connection("127.0.0.1", host.port)
    player = Player(reader, writer)
    await player.frame("hello")
    await player.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "bench"})
    await player.frame("welcome")
    await player.send({"type": "create_table", "players": players, "bots": players - 1, "bot": "rules", "coach": True})
    await player.frame("joined")
    await player.send({"type": "start"})
    request = 0
    for game in range(games):
        while True:
            update = await player.frame("update")
            view = update["view"]
            assert isinstance(view, dict)
            if view["finished"]:
                break
            if not view["legal"]:
                continue
            request += 1
            started = time.perf_counter()
            await player.send({"type": "coach", "state_id": view["state_id"], "id": request})
            advice = await player.frame("advice")
            times.append(time.perf_counter() - started)
            await player.send({"type": "action", "action": advice["action"], "state_id": view["state_id"]})
        if game + 1 < games:
            await player.send({"type": "play_again"})
    stop.set()
    await ticker
    writer.close()
    await host.close("the benchmark is over")
    ms = sorted(t * 1000 for t in times)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    print(f"{len(ms)} coach answers over TCP, {games} games of {players} ({os.cpu_count()} cores, load {_load()})")
    print(f"  request to answer: median {statistics.median(ms):.0f} ms, p95 {p95:.0f} ms, max {ms[-1]:.0f} ms")
    print(f"  host loop lag meanwhile: median {statistics.median(lags) * 1000:.1f} ms, max {max(lags) * 1000:.1f} ms")
    print(f"  loop lag idle, before: median {statistics.median(idle) * 1000:.1f} ms, max {max(idle) * 1000:.1f} ms")
    print(f"  target: under 300 ms -> {'met' if p95 < 300 else 'NOT met'} at p95")
    return 0


def _load() -> str:
    try:
        return " ".join(f"{value:.1f}" for value in os.getloadavg())
    except OSError:
        return "?"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--players", type=int, default=4)
    arguments = parser.parse_args()
    sys.exit(asyncio.run(main(arguments.games, arguments.players)))
