"""Difficulty levels for people: ``easy``, ``medium`` and ``hard``.

- ``easy``: a casual player. Takes a card when its net cost (what it adds to the score, less the chips on it) is
  under a limit it picks on a whim each time (0 to 18 points), takes run-extending cards at once, and never plans
  ahead or watches its chips. Beatable by a new player, yet it never takes a card for no reason.
- ``medium``: the search bot on a small budget: 12 sampled worlds, minding only its own score, with no reading of
  its rivals' habits; its playouts have everyone play the ``greedy`` model (take a dear card early rather than
  hoard chips), which held up far better against casual players than the ``rules`` model.
- ``hard``: information-set MCTS (``ismcts``) with light playouts: everyone plays the ``greedy`` model, each rival
  the model that best explains its past moves, rewarded for winning and, less, for its margin over the best rival.
  Its iteration count follows the position (more iterations late in the deck): about 1 ms of one core a decision
  with the C search loop (``_search_c.c``, built where a C compiler is), about 25 ms in pure Python.
  It replaced the flat Monte Carlo search of issue 5, which lost to a public IS-MCTS bot (issue 15).
- ``expert``: the same search with ten times the work (about 10 ms a decision in C, a quarter of a second in pure
  Python), for analysis and ``nothanks advise``.
"""

from __future__ import annotations

import random

from ..engine.fast import mask_take_cost
from .ismcts import IsmctsBot, IsmctsSettings
from .search import SearchBot, SearchSettings
from .simple import FastPolicyBot

FLAT = SearchSettings(prior="greedy")  # ``hard`` of issue 5: flat Monte Carlo, 48..240 worlds
MEDIUM = SearchSettings(max_worlds=12, min_worlds=12, margin_weight=0.0, read_rivals=False, prior="greedy")
HARD = IsmctsSettings(playout="greedy", read_rivals=True, score_weight=0.5, work=150_000)
EXPERT = IsmctsSettings(playout="greedy", read_rivals=True, score_weight=0.5, work=1_500_000)


class EasyBot(FastPolicyBot):
    """A casual player (see the module docstring)."""

    name = "easy"

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed)

    def decide(self, card: int, pot: int, my_chips: int, masks: list[int], seat: int, deck_left: int) -> bool:
        cost = mask_take_cost(masks[seat], card)
        if cost <= 0:
            return True
        return cost - pot <= self._random.randint(0, 18)


def medium_bot(seed: int | None = None) -> SearchBot:
    return SearchBot(seed, MEDIUM, name="medium")


def flat_bot(seed: int | None = None) -> SearchBot:
    return SearchBot(seed, FLAT, name="flat")


def hard_bot(seed: int | None = None) -> IsmctsBot:
    return IsmctsBot(seed, HARD, name="hard")


def expert_bot(seed: int | None = None) -> IsmctsBot:
    return IsmctsBot(seed, EXPERT, name="expert")
