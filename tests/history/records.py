"""Finished games made by the engine for the history tests: records with known players, scores and dates."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nothanks_tui.engine import Action, GameConfig, apply, legal_actions, new_game, to_record


def finished_record(
    players: Sequence[str], seed: int = 1, *, finished_at: float = 1_700_000_000.0, bots: Sequence[bool] | None = None
) -> dict[str, Any]:
    """A whole game (take when the card carries 2 chips or more, else pass) as its ``nothanks-record/1`` record."""
    state = new_game(GameConfig(players=len(players)), seed)
    while not state.finished:
        legal = legal_actions(state)
        action = Action.TAKE if state.pot >= 2 or Action.PASS not in legal else Action.PASS
        state = apply(state, action)
    flags = list(bots) if bots is not None else [False] * len(players)
    return to_record(state, list(players), bots=flags, finished_at=finished_at, table="t1")


def scores_of(record: dict[str, Any]) -> list[int]:
    return [entry["score"] for entry in record["final"]]
