"""Difficulty levels for people: ``easy``, ``medium``, ``hard`` and ``expert``.

- ``easy``: a casual player: takes a card whose net cost (score added less the chips on it) is under a limit drawn
  on a whim (0 to 18), or that extends a run; never plans ahead. Beatable by a new player, never absurd.
- ``medium``: the flat search (``search``) on 12 worlds, minding only its own score, every seat playing ``greedy``
  (which held up far better against casual players than ``rules``).
- ``hard``: the belief-game search of the published IS-MCTS bot (``pubmcts``) with 20,000 iterations instead of
  400, playing to win (its own score counts 40 points more in a playout it loses): against the published bot it
  beat every change to our own IS-MCTS (issue 33, docs/bots.md). It reads its rivals: each is searched as a
  threshold player in the share of the iterations that is the probability it is one, given its public choices and
  a prior of 20% (``opponents.threshold_odds``): against two ``threshold`` it wins about 93% instead of 87%, at no
  cost measured against ``pubmcts:400`` (docs/bots.md, "Issue 33, round 4"). Its playouts play the threshold rule,
  as the published bot's do: ``greedy`` playouts win back at 4 and 5 players against ``ismcts:400`` what this
  search lost there, but cost 11 to 12 points against ``pubmcts:400`` (round 5).
- ``expert``: the same search ten times deeper, reading rivals as ``hard`` does, for analysis and ``nothanks
  advise``: reading, it wins about 95% instead of 86% against two ``threshold``, for a small cost against
  ``pubmcts:4000`` (its mean score 1.25 points higher on the same deals, its win share the same within the noise;
  docs/bots.md, "Issue 33, round 7").
"""

from __future__ import annotations

import random
from functools import partial

from ..engine.fast import mask_take_cost
from .pubmcts import PubMctsBot
from .rollout import THRESHOLD
from .search import SearchBot, SearchSettings
from .simple import FastPolicyBot

FLAT = SearchSettings(prior="greedy")  # ``hard`` of issue 5: flat Monte Carlo, 48..240 worlds
MEDIUM = SearchSettings(max_worlds=12, min_worlds=12, margin_weight=0.0, read_rivals=False, prior="greedy")
# Iterations a decision with the C loop, and without it (pure Python, ~25 us an iteration: 100 ms p50 for hard and
# 1 s p99 for expert); a decision is a pure function of (seed, view) on each.
HARD_ITERATIONS, HARD_PYTHON_ITERATIONS = 20_000, 3_000
EXPERT_ITERATIONS, EXPERT_PYTHON_ITERATIONS = 200_000, 15_000
WIN_BONUS = 40.0  # points added to hard's and expert's own final score in a playout it loses (issue 33)
RIVAL_PRIOR = 0.2  # hard's and expert's prior that a rival plays the threshold rule (issue 33, rounds 4 and 7)
HARD_PLAYOUT = THRESHOLD  # what every seat plays in hard's playouts (issue 33, round 5: greedy costs against pubmcts)


class EasyBot(FastPolicyBot):
    name = "easy"

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed)

    def decide(self, card: int, pot: int, my_chips: int, masks: list[int], seat: int, deck_left: int) -> bool:
        cost = mask_take_cost(masks[seat], card)
        if cost <= 0:
            return True
        return cost - pot <= self._random.randint(0, 18)


# The factories the registry calls with a seed.
medium_bot = partial(SearchBot, settings=MEDIUM, name="medium")
flat_bot = partial(SearchBot, settings=FLAT, name="flat")
hard_bot = partial(
    PubMctsBot,
    iterations=HARD_ITERATIONS,
    name="hard",
    bonus=WIN_BONUS,
    python_iterations=HARD_PYTHON_ITERATIONS,
    rival_prior=RIVAL_PRIOR,
    playout_model=HARD_PLAYOUT,
)
expert_bot = partial(
    PubMctsBot,
    iterations=EXPERT_ITERATIONS,
    name="expert",
    bonus=WIN_BONUS,
    python_iterations=EXPERT_PYTHON_ITERATIONS,
    rival_prior=RIVAL_PRIOR,
)
