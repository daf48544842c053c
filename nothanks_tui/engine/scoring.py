"""Scoring: runs count only their lowest card, each chip is -1, lowest total wins, ties share.

Also the marginal cost of one card for a hand, which the UI shows ("Take: +22 points") and bots weigh.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .fast import cards_to_mask, mask_points, mask_take_cost


def runs_of(cards: Iterable[int]) -> tuple[tuple[int, ...], ...]:
    """Split cards into maximal runs of consecutive numbers, ascending; an isolated card is a run of one."""
    runs: list[list[int]] = []
    for card in sorted(cards):
        if runs and card == runs[-1][-1] + 1:
            runs[-1].append(card)
        else:
            runs.append([card])
    return tuple(tuple(run) for run in runs)


def card_points(cards: Iterable[int]) -> int:
    """Points from cards alone: the lowest card of every run (isolated cards are runs of one)."""
    return mask_points(cards_to_mask(cards))


def score(cards: Iterable[int], chips: int) -> int:
    """Final score: card points minus chips held. Lower is better."""
    return card_points(cards) - chips


def take_cost(cards: Iterable[int] | set[int] | frozenset[int], card: int) -> int:
    """How much card points change if this hand takes ``card`` (chips not counted): +card alone, 0 extending a run
    upwards, -1 downwards, -(card+1) bridging two runs (holding 24 and 26, taking 25 lowers the score by 26)."""
    return mask_take_cost(cards_to_mask(cards), card)


@dataclass(frozen=True, slots=True)
class ScoreBreakdown:
    """One player's score explained: runs (isolated cards are runs of one), card total, chips, final score."""

    runs: tuple[tuple[int, ...], ...]
    card_total: int
    chips: int
    score: int


def breakdown(cards: Iterable[int], chips: int) -> ScoreBreakdown:
    """Explain a score the way the rule texts do: 3 + 7 + 10 + 14 + 25 = 59, minus 8 chips = 51."""
    runs = runs_of(cards)
    total = sum(run[0] for run in runs)
    return ScoreBreakdown(runs=runs, card_total=total, chips=chips, score=total - chips)


def winners(scores: Sequence[int]) -> tuple[int, ...]:
    """Seats with the lowest score; several when tied, and they share the win."""
    best = min(scores)
    return tuple(seat for seat, value in enumerate(scores) if value == best)
