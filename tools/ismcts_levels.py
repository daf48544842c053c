"""``hard`` and ``expert`` of issues 15 to 32 (docs/bots.md): our IS-MCTS with light playouts. No level plays them
now; the golden searches, the C-loop tests and the bench scripts still do, so they live here, out of the package."""

from __future__ import annotations

from nothanks_tui.bots.ismcts import IsmctsSettings

ISMCTS_HARD = IsmctsSettings(playout="greedy", read_rivals=True, score_weight=0.5, work=150_000)
ISMCTS_EXPERT = IsmctsSettings(playout="greedy", read_rivals=True, score_weight=0.5, work=1_500_000)
