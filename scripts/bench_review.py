#!/usr/bin/env python3
"""Time the review of a game (issue 30's target: a 3-player game's review ready in under 2 s on this machine).

Plays a few 3-player games with fixed seeds (cheap bots, so the games take no time), reviews one seat of each with
``bots.review`` and prints the time (and the CPU time, which a shared machine's load does not stretch), the
decisions graded, how many of them exactly, and the iterations searched. ``--python`` times the pure-Python search
loop (a machine without the C loop). Not a test: run it on a quiet machine.

    .venv/bin/python scripts/bench_review.py [--games 5] [--bots easy,medium,rules] [--python]
"""

from __future__ import annotations

import argparse
import statistics
import time

from nothanks_tui.bots import make_bot, pubmcts
from nothanks_tui.bots.review import review_game
from nothanks_tui.engine import GameConfig
from nothanks_tui.simulate import play_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--bots", default="easy,medium,rules", help="three bot names, comma-separated")
    parser.add_argument("--seat", type=int, default=0, help="the seat reviewed")
    parser.add_argument("--python", action="store_true", help="without the C search loop")
    args = parser.parse_args()
    if args.python:
        pubmcts.ACCELERATED = False
    config = GameConfig(players=3)
    names = args.bots.split(",")
    print(f"search loop: {'C' if pubmcts.ACCELERATED else 'Python'}; bots {names}; seat {args.seat}")
    times = []
    for seed in range(args.games):
        state = play_game(config, seed, [make_bot(name, seed + index) for index, name in enumerate(names)])
        started, cpu = time.perf_counter(), time.process_time()
        grades = review_game(state.moves, 3, config.chips, config.variant, args.seat)
        took, cpu = time.perf_counter() - started, time.process_time() - cpu
        times.append(took)
        exact = sum(grade.exact for grade in grades)
        iterations = sum(grade.iterations for grade in grades)
        print(
            f"game {seed}: {len(state.moves)} moves, {len(grades)} decisions ({exact} exact), "
            f"{iterations:,} iterations: {took:.2f} s ({cpu:.2f} s of CPU)"
        )
    print(f"median {statistics.median(times):.2f} s, worst {max(times):.2f} s (target: under 2 s)")


if __name__ == "__main__":
    main()
