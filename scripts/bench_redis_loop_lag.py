#!/usr/bin/env python3
"""How late a table host's event loop runs while 500 tables play over Redis (issue 28's target: p99 at most 5 ms).

Starts its own redis-server on loopback TCP (127.0.0.1, a free port) with the cluster's durability (``appendonly
yes``, ``appendfsync always``: a write is answered once it is on the disk; ``--no-aof``: nothing on disk) and, on
one event loop, the table host's real parts: a ``Lobby`` on the ``RedisTableStore`` (cluster/redis_store.py, every
write fenced by a lease), its group commit, and the ``Takeover`` that renews the leases and looks for due tables.
Then ``--tables`` tables of three seats, each seat a scripted player (a ``Member`` that plays on its turns and
asks for the next game once one is over, after ``--pace`` seconds give or take a quarter), so every table makes
about one move every ``--pace`` seconds through ``Table.submit``. ``--bots 2`` seats two ``threshold`` bots at the
same pace instead of two players: bots think in threads, whose hold on the interpreter (up to its 5 ms switch
interval) is a lag of its own (scripts/bench_bot_gil.py), not the store's. After a warm-up a sampler asks to wake
every ``--tick`` seconds and counts how late each wake-up was (the loop's lag); prints its median, p99 and max, the
moves committed per second, and the load average (the machine may be shared: quote it with the figures).
``--store sqlite`` plays the same tables on the single host's store in memory instead (no Redis, no takeover):
the lag that is the tables' own work and the machine's, not Redis's.

    .venv/bin/python scripts/bench_redis_loop_lag.py [--tables 500] [--pace 1.0] [--seconds 30] [--store sqlite]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

import redis

from nothanks_server.cluster.redis_store import open_redis_store
from nothanks_server.cluster.takeover import Takeover
from nothanks_server.errors import HostError
from nothanks_server.lobby import Lobby, LobbySettings
from nothanks_tui.engine import Action
from nothanks_tui.link import NewTable, TableUpdate


class Player:
    """A member that plays its seat: on its turn it passes when it can (else takes) after a pause, and once the
    game is over it asks for another."""

    def __init__(self, number: int, pace: float, rng: random.Random) -> None:
        self.name = f"p{number}"
        self.pace = pace
        self.rng = rng
        self.table: Any = None
        self.seat: int | None = None
        self.pending: asyncio.TimerHandle | None = None
        self.refused = 0

    def deliver(self, event: object) -> None:
        if not isinstance(event, TableUpdate) or self.table is None or self.pending is not None:
            return
        view = event.view
        if view.finished:
            if self.seat not in event.again:
                self._later(lambda: self.table.play_again(self))
        elif view.to_move == self.seat:
            action = Action.PASS if "pass" in view.legal else Action.TAKE
            self._later(lambda: self.table.submit(self, action, view.state_id))

    def _later(self, call: Any) -> None:
        def run() -> None:
            self.pending = None
            try:
                call()
            except Exception:  # (a stale press, a refused store): counted, the next update tries again
                self.refused += 1

        wait = self.pace * self.rng.uniform(0.75, 1.25)
        self.pending = asyncio.get_running_loop().call_later(wait, run)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


async def run(
    url: str | None, tables: int, bots: int, pace: float, seconds: float, warmup: float, tick: float
) -> dict[str, float]:
    store = None if url is None else open_redis_store(url, "bench", None)
    if store is not None:
        store.leases.owner = "bench-host"
    lobby = Lobby(LobbySettings(bot_delay=pace, turn_timer=None, seed=28), store=store)
    lobby.start()
    takeover = None if store is None else Takeover(lobby, store)
    if takeover is not None:
        takeover.start()
    rng = random.Random(28)
    players = []
    unset = 0  # tables whose set-up the store refused (a lease lost while the loop was held: the old store)
    for number in range(tables):
        creator = Player(number, pace, rng)
        seated = [creator]
        try:
            table, seat, _token = lobby.create_table(NewTable(players=3, bots=bots, bot="threshold"), creator)
            creator.table, creator.seat = table, seat
            for _ in range(2 - bots):
                other = Player(number, pace, rng)
                other.table, (other.seat, _token) = table, table.join(other)
                seated.append(other)
            table.start(creator)
        except HostError:
            unset += 1
        players += seated
        # Players arrive one after another (the first tables play while the others are set): a table's set-up is
        # a few blocking round trips (its seats), and a loop kept busy by them would starve the leases' renewal.
        await asyncio.sleep(0.005)
    await asyncio.sleep(warmup)
    loop = asyncio.get_running_loop()
    lags: list[float] = []
    moves_before, commits_before = lobby.commits.moves, lobby.commits.commits
    start = loop.time()
    while loop.time() - start < seconds:
        due = loop.time() + tick
        await asyncio.sleep(tick)
        lags.append(max(0.0, loop.time() - due))
    elapsed = loop.time() - start
    playing = len(lobby.all_tables()) + unset
    moves = lobby.commits.moves - moves_before
    commits = lobby.commits.commits - commits_before
    if takeover is not None:
        await takeover.close()
    lobby.close("the benchmark is over", forget=True)
    ordered = sorted(lags)
    return {
        "median_ms": statistics.median(ordered) * 1e3,
        "p99_ms": ordered[max(0, int(len(ordered) * 0.99) - 1)] * 1e3,
        "max_ms": ordered[-1] * 1e3,
        "moves_per_s": moves / elapsed,
        "moves_per_commit": moves / max(1, commits),
        "refused": sum(player.refused for player in players),
        "samples": len(lags),
        "stopped": tables - playing,
        "unset": unset,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=500)
    parser.add_argument("--pace", type=float, default=1.0, help="seconds between a table's moves (about)")
    parser.add_argument("--seconds", type=float, default=30.0, help="how long the lag is sampled")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--tick", type=float, default=0.01, help="the sampler's interval, seconds")
    parser.add_argument("--no-aof", action="store_true", help="Redis keeps nothing on disk (answers sooner)")
    parser.add_argument("--bots", type=int, choices=(0, 1, 2), default=0, help="bots at each table (the rest play)")
    parser.add_argument("--store", choices=("redis", "sqlite"), default="redis")
    args = parser.parse_args()
    if args.store == "sqlite":
        before = load()
        result = asyncio.run(run(None, args.tables, args.bots, args.pace, args.seconds, args.warmup, args.tick))
        report(args, result, before, load(), "SQLite in memory")
        return
    program = shutil.which("redis-server") or "/usr/bin/redis-server"
    port = free_port()
    with tempfile.TemporaryDirectory() as directory:
        server = subprocess.Popen(
            [program, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--dir", directory]
            + (["--appendonly", "no"] if args.no_aof else ["--appendonly", "yes", "--appendfsync", "always"]),
            stdout=subprocess.DEVNULL,
        )
        try:
            client = redis.Redis(host="127.0.0.1", port=port)
            for _ in range(500):
                try:
                    client.ping()
                    break
                except redis.ConnectionError:
                    time.sleep(0.01)
            client.close()
            before = load()
            result = asyncio.run(
                run(
                    f"redis://127.0.0.1:{port}/0",
                    args.tables,
                    args.bots,
                    args.pace,
                    args.seconds,
                    args.warmup,
                    args.tick,
                )
            )
            after = load()
        finally:
            server.terminate()
            server.wait(10)
    durability = "no AOF" if args.no_aof else "AOF, fsync always"
    report(args, result, before, after, f"Redis on 127.0.0.1:{port} ({durability})")


def report(args: argparse.Namespace, result: dict[str, float], before: str, after: str, store: str) -> None:
    print(
        f"{store}: {args.tables} tables ({args.bots} bots each), a move each about every {args.pace:g} s, "
        f"lag sampled every {args.tick * 1e3:g} ms for {args.seconds:g} s ({result['samples']:.0f} samples)"
    )
    print(
        f"loop lag: median {result['median_ms']:.2f} ms, p99 {result['p99_ms']:.2f} ms, max {result['max_ms']:.1f} ms"
    )
    print(
        f"moves committed: {result['moves_per_s']:.0f}/s, {result['moves_per_commit']:.1f} a commit; "
        f"player's presses refused: {result['refused']:.0f}; tables stopped (lease lost): {result['stopped']:.0f}, "
        f"not set up: {result['unset']:.0f}"
    )
    versions = f"python {sys.version.split()[0]}, redis-py {redis.__version__}"
    print(f"load average before {before}, after {after} ({versions})")


if __name__ == "__main__":
    main()
