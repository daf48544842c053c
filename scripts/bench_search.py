#!/usr/bin/env python3
"""CPU time of the ``hard`` and ``expert`` searches (``pubmcts.search`` since issue 33), one core, over fixed
positions: the figure to watch when making the search faster (scripts/search_golden.py checks that it still plays
the same moves).

Each level searches every position ``--repeats`` times in a row; the least total CPU time of a round is reported
(the other rounds are the machine's noise), as ms per decision. To compare with another version of the code, run
the same script with that version first on the path: ``PYTHONPATH=/path/to/old/checkout scripts/bench_search.py``.

Where the C search loop is built (setup.py), that is what runs; ``--python`` measures the pure-Python loop instead
(the two give exactly the same results: tests/test_search_c.py, tests/test_pubmcts.py).

``--odds P`` searches every rival as a threshold player with probability P an iteration, as ``hard`` does with the
rivals it reads (issue 33, round 4): the cost of that reading at its worst, every rival drawn every iteration.

Usage: scripts/bench_search.py [--positions 48] [--repeats 5] [--levels hard,expert] [--python] [--odds P]
"""

from __future__ import annotations

import argparse
import random
import time

import nothanks_tui
from nothanks_tui.bots import ismcts, pubmcts
from nothanks_tui.bots.knowledge import info_from_view
from nothanks_tui.bots.levels import expert_bot, hard_bot
from nothanks_tui.engine import Action, GameConfig, apply, new_game, view_for


def positions(count: int) -> list:
    """Decisions from games at 3, 4 and 5 players with open chips (the benchmark tables'), early to late."""
    rng = random.Random(3)
    infos = []
    game = 0
    while len(infos) < count:
        state = new_game(GameConfig(players=3 + game % 3, open_chips=True), rng.randrange(1 << 30))
        game += 1
        while state.taken < 24 and len(infos) < count:
            view = view_for(state, state.to_move)
            if (view.my_chips or 0) > 0 and rng.random() < 0.15:
                infos.append(info_from_view(view, "greedy"))
            take = state.chips[state.to_move] <= 0 or rng.random() < 0.35
            state = apply(state, Action.TAKE if take else Action.PASS)
    return infos


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=48)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--levels", default="hard,expert")
    parser.add_argument("--python", action="store_true", help="the pure-Python loop, even where the C one is built")
    parser.add_argument("--odds", type=float, default=0.0, help="each rival searched by the threshold rule so often")
    args = parser.parse_args()
    if args.python:
        ismcts.ACCELERATED = False
        pubmcts.ACCELERATED = False
    infos = positions(args.positions)
    print(f"code: {nothanks_tui.__file__}; search loop in {'C' if pubmcts.ACCELERATED else 'Python'}")
    for level in args.levels.split(","):
        bot = {"hard": hard_bot, "expert": expert_bot}[level](0)
        count = len(infos) if level == "hard" else max(1, len(infos) // 4)
        rounds = []
        for _ in range(args.repeats):
            start = time.process_time()
            for info in infos[:count]:
                bot.evaluate(info, tuple(0.0 if seat == info.seat else args.odds for seat in range(info.players)))
            rounds.append(time.process_time() - start)
        print(
            f"{level:7s} {count} decisions: best round {1000 * min(rounds) / count:.1f} ms CPU a decision"
            f"  (rounds: {', '.join(f'{r:.2f}' for r in rounds)} s)"
        )


if __name__ == "__main__":
    main()
