"""The searches (``hard`` and ``expert``'s kind, the belief-game search of ``pubmcts``; our IS-MCTS) give exactly
the root statistics recorded in ``tests/data/search_golden.json``: a change meant only to make them faster must not
change a move, or the games measured in docs/bots.md no longer describe the bots we ship (scripts/search_golden.py
says more)."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "search_golden.py"


def test_the_search_gives_the_recorded_statistics_in_every_position():
    golden = runpy.run_path(str(SCRIPT))
    expected = json.loads(golden["GOLDEN"].read_text())
    actual = golden["results"]()
    assert len(actual) == len(expected) >= 100
    assert {row[0] for row in actual} == set(golden["SETTINGS"]) | set(golden["PUB_KINDS"])
    for got, want in zip(actual, expected):
        assert got == want, f"{got[0]} at position {got[1]}"
