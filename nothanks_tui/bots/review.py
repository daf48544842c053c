"""The review of a finished game: each of one player's decisions graded from what that player knew then.

Only the public moves are read (each holds its card and the chips on it), so the review is the same from a record
and from the player's own final view, and never uses the deck order or the cards set aside. For each decision with
chips to spare, the expected final score of taking and of passing (lower is better), from either:

- **exact**: every seat minimising its own expected final score, each next card drawn uniformly from the cards the
  player has not seen (the belief game ``pubmcts`` searches, solved by enumeration). Tried where at most
  ``EXACT_DECK`` cards are face down, last decisions first, under one budget of positions for the whole review;
- **search**: ``pubmcts.search`` (``hard``'s and ``expert``'s search) minimising the score this review reports,
  ``first`` iterations for every decision, then ``close_budget`` more shared by the decisions closer than ``CLOSE``.

Seeds come from each position alone, so the same game gives the same review.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ..engine import CARDS_PLAYED, Action, GameConfig, IllegalMove, Move, PlayerView, apply, from_deal, variant_of
from ..engine.config import ALL_CARDS
from ..engine.fast import cards_to_mask
from . import pubmcts
from .knowledge import make_info
from .rollout import scores_of

REVIEW_FORMAT = "nothanks-review/1"
EXACT_DECK = 3  # cards face down at most where an exact solve is tried
EXACT_NODES = 80_000  # positions the exact solves of one review may visit (about 0.25 s)
CLOSE = 2.0  # points between take and pass under which a decision gets more search
# Search iterations (every decision, shared by the close ones, most for one close one), with the C loop and without
# it (about 8x slower an iteration): a 3-player game's review in about 1 s (scripts/bench_review.py).
BUDGETS = {True: (3_000, 300_000, 40_000), False: (400, 24_000, 4_000)}
SEED = 30  # the search's seed (each decision's comes from it and its position)


@dataclass(frozen=True, slots=True)
class Grade:
    """One decision: ``move`` its number in the game (1 = the first move), the player's ``chips`` before it, the
    expected final score after ``take`` and ``pass_``, and the search ``iterations`` (0 when ``exact``)."""

    move: int
    card: int
    pot: int
    chips: int
    deck_left: int
    played: Action
    take: float
    pass_: float
    exact: bool
    iterations: int

    @property
    def best(self) -> Action:
        return Action.TAKE if self.take <= self.pass_ else Action.PASS

    @property
    def lost(self) -> float:
        """Points the move played costs against the better one (0 for the better one)."""
        return abs(self.take - self.pass_) if self.played is not self.best else 0.0


class _TooBig(Exception):
    """The exact solves have visited their budget of positions."""


class _Exact:
    """The belief game solved by enumeration (see the module docstring), its positions kept across decisions."""

    def __init__(self, players: int, set_aside: Sequence[int], budget: int) -> None:
        self.players = players
        self.pool = [card for card in ALL_CARDS if card not in set_aside]
        self.memo: dict[tuple[Any, ...], tuple[float, ...]] = {}
        self.left = budget

    def node(self, card: int, pot: int, seat: int, masks: tuple[int, ...], chips: tuple[int, ...]) -> tuple[float, ...]:
        """Every seat's expected final score, ``seat`` to move on ``card`` with ``pot`` on it."""
        key = (card, pot, seat, masks, chips)
        value = self.memo.get(key)
        if value is None:
            self.left -= 1
            if self.left < 0:
                raise _TooBig
            took, passed = self.choices(card, pot, seat, masks, chips)
            value = passed if passed is not None and passed[seat] < took[seat] else took
            self.memo[key] = value
        return value

    def choices(
        self, card: int, pot: int, seat: int, masks: tuple[int, ...], chips: tuple[int, ...]
    ) -> tuple[tuple[float, ...], tuple[float, ...] | None]:
        """Every seat's expected final score after ``seat`` takes, and after it passes (None without chips)."""
        took = self.took(card, pot, seat, masks, chips)
        if chips[seat] == 0:
            return took, None
        paid = chips[:seat] + (chips[seat] - 1,) + chips[seat + 1 :]
        return took, self.node(card, pot + 1, (seat + 1) % self.players, masks, paid)

    def took(self, card: int, pot: int, seat: int, masks: tuple[int, ...], chips: tuple[int, ...]) -> tuple[float, ...]:
        """Every seat's expected final score once ``seat`` has taken ``card`` and ``pot``."""
        masks = masks[:seat] + (masks[seat] | 1 << card,) + masks[seat + 1 :]
        chips = chips[:seat] + (chips[seat] + pot,) + chips[seat + 1 :]
        seen = 0
        for mask in masks:
            seen |= mask
        if seen.bit_count() == CARDS_PLAYED:
            return tuple(map(float, scores_of(list(masks), list(chips))))
        unseen = [next_card for next_card in self.pool if not (seen >> next_card) & 1]
        total = [0.0] * self.players
        for next_card in unseen:
            for index, value in enumerate(self.node(next_card, 0, seat, masks, chips)):
                total[index] += value
        return tuple(value / len(unseen) for value in total)


def game_states(moves: Sequence[Move], players: int, chips_per_player: int, variant: str) -> list[Any]:
    """Every state of a finished game rebuilt from its public moves alone (a deck in the order the cards turned up,
    the rest set aside); ``ValueError`` when the moves are not a finished game's (they may come from a host)."""
    deck = list(dict.fromkeys(move.card for move in moves))
    try:
        config = GameConfig(players=players, chips_per_player=chips_per_player, variant=variant)
        removed = [card for card in ALL_CARDS if card not in deck]
        states = [from_deal(config, deck, removed, moves[0].seat if moves else -1)]
        for move in moves:
            states.append(apply(states[-1], move.action, seat=move.seat))
    except (IllegalMove, TypeError) as error:
        raise ValueError(f"not a finished game's moves: {error}") from None
    if not states[-1].finished or states[-1].moves != tuple(moves):
        raise ValueError("not a finished game's moves")
    return states


def review_game(
    moves: Sequence[Move], players: int, chips_per_player: int, variant: str, seat: int
) -> tuple[Grade, ...]:
    """Every decision of ``seat`` (a forced take is none) in the finished game ``moves``, graded."""
    states = game_states(moves, players, chips_per_player, variant)
    decisions = [
        (number, state)
        for number, state in enumerate(states[:-1], 1)
        if state.to_move == seat and state.chips[seat] > 0
    ]
    solver = _Exact(players, variant_of(variant).set_aside, EXACT_NODES)

    def grade(number: int, values: tuple[float, float], iterations: int) -> Grade:
        state, played = states[number - 1], moves[number - 1].action
        where = (number, state.card, state.pot, state.chips[seat], state.deck_left)
        return Grade(*where, played, *values, not iterations, iterations)

    grades: dict[int, Grade] = {}
    for number, state in reversed(decisions):
        if state.deck_left > EXACT_DECK:
            continue
        try:
            took, passed = solver.choices(
                state.card, state.pot, seat, tuple(map(cards_to_mask, state.hands)), state.chips
            )
        except _TooBig:
            break
        assert passed is not None  # (a decision: the seat has chips)
        grades[number] = grade(number, (took[seat], passed[seat]), 0)
    first, close_budget, most = BUDGETS[pubmcts.ACCELERATED]
    searched = {
        number: grade(number, _search(state, first), first) for number, state in decisions if number not in grades
    }
    close = [number for number, found in searched.items() if abs(found.take - found.pass_) < CLOSE]
    more = min(most, close_budget // len(close)) if close else 0
    if more > first:
        for number in close:
            searched[number] = grade(number, _search(states[number - 1], more), more)
    grades.update(searched)
    return tuple(grades[number] for number, _ in decisions)


def _search(state: Any, iterations: int) -> tuple[float, float]:
    """The expected final scores after taking and passing, by ``iterations`` of ``pubmcts.search``."""
    config = state.config
    info = make_info(
        config.players, state.to_move, state.card, state.pot, state.deck_left, state.hands, state.chips,
        config.chips, config.variant,
    )  # fmt: skip
    result = pubmcts.search(info, iterations, SEED)
    assert result.pass_score is not None  # (a decision: the seat has chips)
    return result.take_score, result.pass_score


def costliest(grades: Sequence[Grade], count: int = 3) -> list[Grade]:
    """The ``count`` decisions that lost the most points (none that lost nothing), costliest first."""
    lost = sorted((grade for grade in grades if grade.lost >= 0.05), key=lambda grade: (-grade.lost, grade.move))
    return lost[:count]


def review_json(grades: Sequence[Grade], seat: int) -> dict[str, Any]:
    """The review as plain data (``nothanks review --json``, the client's screens; docs/review.md)."""
    return {
        "format": REVIEW_FORMAT,
        "seat": seat,
        "lost": round(sum(grade.lost for grade in grades), 1),
        "costliest": [grade.move for grade in costliest(grades)],
        "decisions": [
            {
                **{key.rstrip("_"): value for key, value in asdict(grade).items()},  # (``pass_`` is ``pass``)
                "played": grade.played.value,
                "best": grade.best.value,
                "take": round(grade.take, 2),
                "pass": round(grade.pass_, 2),
                "lost": round(grade.lost, 2),
            }
            for grade in grades
        ],
    }


def review_view(view: PlayerView) -> dict[str, Any]:
    """The review of the seat whose finished view this is, from its public moves (what the client holds at the end
    of a game, locally, over TCP or SSH); ``ValueError`` when the view is not a seat's finished game."""
    if view.seat is None or not view.finished:
        raise ValueError("a review is of a seat's finished game")
    return review_json(review_game(view.moves, view.players, view.chips_per_player, view.variant, view.seat), view.seat)
