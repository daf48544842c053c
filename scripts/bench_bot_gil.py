#!/usr/bin/env python3
"""What a table's bots cost the host's event loop: its wake-up lag while N bot decisions run in threads.

A table lets its bots decide through ``asyncio.to_thread`` (server/nothanks_server/table.py), so a search runs in
the host process, beside the event loop that reads and answers every player. Python runs one thread at a time (the
GIL, handed over every ``sys.getswitchinterval()`` seconds, 5 ms by default), so while bots think, the loop waits
its turn for the interpreter: every message a player sends, every view the host sends, waits with it. This measures
that wait the way the loop sees it: a task sleeps 10 ms again and again and records how late it wakes, first with no
bot thinking, then with N threads deciding one position after another with the chosen bot (``hard``, ``expert``,
...), as N tables whose bots all think at once would. Positions come from seeded 3-player games.

    .venv/bin/python scripts/bench_bot_gil.py [--bot expert] [--threads 0 1 2 4] [--seconds 6] [--processes]

With ``--processes`` the N searches go where ``nothanks server`` sends them (server/nothanks_server/thinking.py:
worker processes, as many as N, at a lower priority) instead of threads. The numbers are the loop's lag per
wake-up; a move's way through the host takes a few wake-ups.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time

from nothanks_server import thinking
from nothanks_tui.bots import make_bot
from nothanks_tui.engine import Action, GameConfig, PlayerView, apply, legal_actions, new_game, view_for

PROBE = 0.010  # seconds the probe sleeps each time


def positions(count: int) -> list[PlayerView]:
    """Views of the seat to move, sampled from seeded 3-player games played by a fixed take/pass pattern."""
    out: list[PlayerView] = []
    seed = 0
    while len(out) < count:
        state = new_game(GameConfig(players=3), seed=seed)
        seed += 1
        move = 0
        while not state.finished and len(out) < count:
            if move % 7 == 3:
                out.append(view_for(state, state.to_move))
            take = move % 3 == 0 or Action.PASS not in legal_actions(state)
            state = apply(state, Action.TAKE if take else Action.PASS)
            move += 1
    return out


async def measure(bot_name: str, threads: int, seconds: float, processes: bool = False) -> dict[str, float]:
    """The loop's wake-up lag (ms) while ``threads`` threads (or worker processes) decide with ``bot_name``, and
    the decisions made."""
    bot = make_bot(bot_name, 1)
    views = positions(200)
    stop = time.monotonic() + seconds
    decided = [0] * threads

    def think(index: int) -> None:
        position = index
        while time.monotonic() < stop:
            bot.choose(views[position % len(views)])
            decided[index] += 1
            position += threads

    lags: list[float] = []

    async def probe() -> None:
        while time.monotonic() < stop:
            started = time.perf_counter()
            await asyncio.sleep(PROBE)
            lags.append((time.perf_counter() - started - PROBE) * 1000)

    async def think_elsewhere(index: int) -> None:
        position = index
        while time.monotonic() < stop:
            await thinking.choose(bot, views[position % len(views)])
            decided[index] += 1
            position += threads

    if processes:
        thinking.use_processes(max(1, threads))
        await thinking.run_search(abs, 0)  # the workers started before the clock runs
        stop = time.monotonic() + seconds
        await asyncio.gather(probe(), *(think_elsewhere(index) for index in range(threads)))
        thinking.use_processes(0)
    else:
        await asyncio.gather(probe(), *(asyncio.to_thread(think, index) for index in range(threads)))
    lags.sort()
    return {
        "p50": statistics.median(lags),
        "p99": lags[int(len(lags) * 0.99)],
        "max": lags[-1],
        "probes": len(lags),
        "decisions": sum(decided),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bot", default="expert")
    parser.add_argument("--threads", type=int, nargs="+", default=[0, 1, 2, 4])
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--processes", action="store_true", help="search in worker processes (thinking.py)")
    args = parser.parse_args()
    where = "worker processes" if args.processes else "threads"
    interval = sys.getswitchinterval() * 1000
    print(
        f"bot {args.bot} in {where}, {args.seconds:g} s a line, switch interval {interval:g} ms, "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    print("threads  loop lag p50 ms  p99 ms  max ms  probes  decisions")
    for threads in args.threads:
        result = asyncio.run(measure(args.bot, threads, args.seconds, args.processes))
        print(
            f"{threads:7d}  {result['p50']:15.1f}  {result['p99']:6.1f}  {result['max']:6.1f}  "
            f"{result['probes']:6.0f}  {result['decisions']:9.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
