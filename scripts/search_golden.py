#!/usr/bin/env python3
"""Exact root statistics of the searches over fixed positions: the belief-game search (``pubmcts``, ``hard`` and
``expert``'s kind since issue 33), and our IS-MCTS (``ismcts``, and the light-playout kind hard and expert played
before).

``hard`` and ``expert`` are measured over thousands of games (docs/bots.md); those runs stay valid only while the
search makes the same decisions. A change meant only to make the search faster must leave every number here as it
was: ``tests/test_search_golden.py`` compares the search with ``tests/data/search_golden.json``. A change meant to
make the bots play differently rewrites that file (``--write``) and says in docs/bots.md which runs it voids.

Usage: scripts/search_golden.py [--write]   (without --write: print whether the search still matches)
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

from nothanks_tui.bots import make_bot, pubmcts
from nothanks_tui.bots.ismcts import IsmctsSettings, search
from nothanks_tui.bots.knowledge import info_from_view
from nothanks_tui.bots.levels import WIN_BONUS
from nothanks_tui.bots.rollout import GREEDY, THRESHOLD
from nothanks_tui.engine import GameConfig, PlayerView, apply, new_game, view_for

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/ is not installed
from tools.ismcts_levels import ISMCTS_EXPERT, ISMCTS_HARD

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "data" / "search_golden.json"
SETTINGS = {  # small budgets: the same code paths as the levels, in a fraction of the time
    "hard-kind": replace(ISMCTS_HARD, work=20_000),
    "expert-kind-noread": replace(ISMCTS_EXPERT, read_rivals=False, work=20_000),
    "ismcts": IsmctsSettings(iterations=150),
}
# pubmcts.search on a small budget: the published rule, hard and expert's (their win bonus), and greedy playouts
PUB_KINDS = {
    "pubmcts-kind": (0.0, THRESHOLD),
    "pubmcts-bonus-kind": (WIN_BONUS, THRESHOLD),
    "pubmcts-greedy-kind": (WIN_BONUS, GREEDY),  # (a playout model of round 5's design runs)
}


def positions() -> list[PlayerView]:
    """Views of the seat to move, part way through games the ``rules`` bot plays: 2 to 7 players, chips open and
    hidden, early and late in the deck."""
    views = []
    for seed in range(14):
        players = 2 + seed % 6
        state = new_game(GameConfig(players=players, open_chips=seed % 2 == 0), 1000 + seed)
        bot = make_bot("rules")
        for move in range(300):
            if state.taken >= 24:
                break
            view = view_for(state, state.to_move)
            if move in (7, 40) or (state.taken == 21 and (view.my_chips or 0) > 0 and len(views) % 3 == 0):
                views.append(view)
            state = apply(state, bot.choose(view), state.to_move)
    return views


def results() -> list[list]:
    """For every position and setting: [setting, position, take visits, pass visits, take value, pass value,
    take score, pass score, iterations]."""
    rows = []
    for index, view in enumerate(positions()):
        for name, settings in SETTINGS.items():
            prior = settings.playout if settings.playout != "random" else "rules"
            result = search(info_from_view(view, prior), settings, 7 + index)
            rows.append([
                name, index, result.take_visits, result.pass_visits, result.take, result.pass_,
                result.take_score, result.pass_score, result.worlds,
            ])  # fmt: skip
        info = info_from_view(view)
        for name, (bonus, model) in PUB_KINDS.items():
            if (info.chips[info.seat] or 0) > 0:
                got = pubmcts.search(info, 300, 7 + index, bonus=bonus, playout_model=model)
                rows.append([
                    name, index, got.take_visits, got.pass_visits, got.take, got.pass_,
                    got.take_score, got.pass_score, got.worlds,
                ])  # fmt: skip
    return rows


def main() -> int:
    rows = results()
    if sys.argv[1:] == ["--write"]:
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps(rows, indent=0) + "\n")
        print(f"wrote {len(rows)} searches to {GOLDEN}")
        return 0
    same = rows == json.loads(GOLDEN.read_text())
    print(f"{len(rows)} searches: {'the same as' if same else 'DIFFERENT from'} {GOLDEN}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
