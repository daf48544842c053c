"""The first bots: ``random`` (a floor to beat), ``threshold`` (the baseline named in the bot issue) and
``rules`` (a rule-based player that weighs runs, bridging, the chips on the card and its own reserve).

Each decides in ``decide`` from public facts in the fast playout form (hands as bit masks), so the same
logic serves ``choose(view)`` at a table and the fast headless simulator.
"""

from __future__ import annotations

import random

from ..engine import Action, PlayerView
from ..engine.fast import cards_to_mask
from .rollout import RULES, THRESHOLD, Model, model_takes, rivals_union


class FastPolicyBot:
    """Base for bots whose decision needs only the face-up card, the pot, own chips and every hand."""

    name = "policy"

    def decide(self, card: int, pot: int, my_chips: int, masks: list[int], seat: int, deck_left: int) -> bool:
        """True to take, False to pass. Only called when ``my_chips > 0``."""
        raise NotImplementedError

    def choose(self, view: PlayerView) -> Action:
        chips = view.my_chips or 0
        if chips <= 0 or view.card is None or view.seat is None:
            return Action.TAKE
        masks = [cards_to_mask(hand) for hand in view.hands]
        take = self.decide(view.card, view.pot, chips, masks, view.seat, view.deck_left)
        return Action.TAKE if take else Action.PASS


class RandomBot(FastPolicyBot):
    """Takes or passes at random (always takes when it has no chips)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed).random

    def decide(self, card: int, pot: int, my_chips: int, masks: list[int], seat: int, deck_left: int) -> bool:
        return self._random() < 0.5


class ModelBot(FastPolicyBot):
    """Plays one member of the playout family (``rollout.Model``), so the bot and its playout model are one rule."""

    model: Model

    def __init__(self, seed: int | None = None) -> None:
        del seed  # deterministic

    def decide(self, card: int, pot: int, my_chips: int, masks: list[int], seat: int, deck_left: int) -> bool:
        others = rivals_union(masks, seat)
        return model_takes(self.model, card, pot, my_chips, masks[seat], others, len(masks), deck_left)


class ThresholdBot(ModelBot):
    """Takes when the real increase of its own score from the card, minus the chips on it, is at most 0."""

    name = "threshold"
    model = THRESHOLD


class RuleBot(ModelBot):
    """A sensible rule-based player.

    It prices the card by what taking it really costs (an isolated card costs its value, extending a run costs
    0 or -1, bridging two runs lowers the score), subtracts the chips on it, and takes when that net cost is
    below a limit that grows as its own chip reserve shrinks (a player with no chips must take whatever comes).
    With a card that only it wants, it lets the card go round to collect chips while that is safe.
    """

    name = "rules"
    model = RULES
