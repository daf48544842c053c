"""``pubmcts:N``: a sparring partner built to play like the published IS-MCTS bot of lomackie/no-thanks-rl (issue 33),
written from its description, not its code (our own ``ismcts`` proved a much weaker opponent); ``hard``'s search.

- One tree over the information sets of the *belief game*: a node is the public position (hands, chip counts, the
  face-up card, its pot, the mover), shared by every history reaching it. A take's next card is a chance event drawn
  uniformly from the cards the seat has not seen, until the public count of face-down cards runs out.
- A new node is added and valued by one playout with the ``threshold`` rule (recording nothing that iteration).
- The value is every seat's final score; each node's mover minimises its own: an untried action first (at random
  between two), else the lowest ``mean - c * sqrt(ln(n + 1) / n_a)``, ``c`` = 30 points. (``hard`` and ``expert``
  play to win: the deciding seat's score counts ``bonus`` points more when it loses.) The move is the most visited.

Unlike the published bot, a fresh tree every decision, so that a decision is a pure function of (seed, view);
hidden chips are read from the public history, else filled once a decision (``knowledge``).
``search`` runs in C (``_search_c.pub_run``) when built, else in the Python loop below: the same random numbers at
the same moments, the same statistics bit for bit (tests/test_pubmcts.py).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from ..engine import PlayerView
from ..engine.fast import mask_take_cost
from .base import SearchingBot, SearchResult, decision_seed
from .ismcts import search_in_c
from .knowledge import InfoSet, fill_chips, info_from_view
from .opponents import threshold_odds
from .rollout import THRESHOLD, Model, Tables, limit_tables, playout, scores_of

# Whether ``search`` runs in C (when built); tests turn it off to compare the two.
ACCELERATED = search_in_c is not None and hasattr(search_in_c, "pub_run")

EXPLORATION = 30.0  # the published bot's constant for full games, in points of score


def _heuristic_playout(
    card: int,
    pot: int,
    seat: int,
    masks: list[int],
    chips: list[int],
    pool: list[int],
    left: int,
    deck_left: int,
    rand: Callable[[], float],
    models: list[Model] | None = None,
    tables: Tables | None = None,
) -> list[int]:
    """Play the belief game to the end with the threshold rule (the published heuristic), or every seat by its
    ``models`` (``tables`` is their ``limit_tables``), ``deck_left`` cards still face down; a take turns up one of
    ``pool[:left]`` (the unseen cards) uniformly, moved to ``pool[left - 1]``. Changes its lists in place. (The
    threshold rule has its own loop: ``rollout.playout`` plays it alike, 15% slower in the whole search.)"""
    if models is not None:  # every card drawn first, as the C loop does: a light playout draws nothing else
        deck = []
        for _ in range(deck_left):
            j = int(rand() * left)
            left -= 1
            deck.append(pool[j])
            pool[j] = pool[left]
            pool[left] = deck[-1]
        return playout(card, pot, seat, masks, chips, deck, 0, models, tables)
    players = len(masks)
    while True:
        mine = chips[seat]
        mask = masks[seat]
        if mine > 0:
            if (mask >> (card - 1)) & 1:
                cost = -(card + 1) if (mask >> (card + 1)) & 1 else 0
            else:
                cost = -1 if (mask >> (card + 1)) & 1 else card
            if cost - pot > 0:
                chips[seat] = mine - 1
                pot += 1
                seat = (seat + 1) % players
                continue
        chips[seat] = mine + pot
        masks[seat] = mask | (1 << card)
        if deck_left == 0:
            return scores_of(masks, chips)
        deck_left -= 1
        j = int(rand() * left)
        left -= 1
        card = pool[j]
        pool[j] = pool[left]
        pool[left] = card
        pot = 0


def _python_search(
    masks0: list[int],
    chips0: list[int],
    card0: int,
    pot0: int,
    seat0: int,
    unseen: list[int],
    deck_left0: int,
    iterations: int,
    c: float,
    rand: Callable[[], float],
    tree: dict[tuple, list] | None = None,
    bonus: float = 0.0,
    ruled: int = 0,
    odds: tuple[float, ...] = (),
    models: list[Model] | None = None,
) -> tuple[int, int, float, float, float, float]:
    """The search loop (see the module docstring). Returns take visits, pass visits and the root mover's summed
    own final score after each. ``tree`` (a fresh dict by default; tests pass one to look at it) maps each node's
    key, (card, pot, seat to move, hands, chips), to [take visits, pass visits, the mover's score sums after taking,
    after passing]: the only part of the backed-up score vector a node's mover reads. The seats in ``ruled``, and
    each seat s in an iteration with probability ``odds[s]``, play the threshold rule; such steps are not recorded
    (a ruled mover reads no statistics). Playouts play every seat by its ``models`` (default: the threshold rule)."""
    players = len(masks0)
    log, sqrt = math.log, math.sqrt
    if tree is None:
        tree = {}
    tables = limit_tables(models) if models is not None else None  # (once a search, not once a playout)
    own = [0, 0]  # the root mover's own final score summed over the iterations that passed, that took at the root
    root_key = (card0, pot0, seat0, tuple(masks0), tuple(chips0))
    for i, p in enumerate(odds[:players]):
        if p >= 1.0:
            ruled |= 1 << i
    ruled &= ~(1 << seat0)  # (the root mover always searches)
    drawn = [(i, p) for i, p in enumerate(odds[:players]) if i != seat0 and 0.0 < p < 1.0 and not (ruled >> i) & 1]
    for _ in range(iterations):
        ruled_now = ruled
        for i, p in drawn:
            if rand() < p:
                ruled_now |= 1 << i
        pool = list(unseen)
        left = len(pool)
        masks = list(masks0)
        chips = list(chips0)
        card, pot, seat, deck_left = card0, pot0, seat0, deck_left0
        key = root_key
        path: list[tuple[list, bool, int]] = []
        while True:
            node = tree.get(key)
            if node is None:
                tree[key] = [0, 0, 0.0, 0.0]
                value = _heuristic_playout(card, pot, seat, masks, chips, pool, left, deck_left, rand, models, tables)
                break
            mine = chips[seat]
            if mine <= 0:
                take = True
                path.append((node, take, seat))
            elif (ruled_now >> seat) & 1:  # a rival read as a threshold player (``opponents``)
                take = mask_take_cost(masks[seat], card) <= pot
            else:
                tv, pv = node[0], node[1]
                if tv == 0 or pv == 0:
                    take = (rand() < 0.5) if tv == pv else tv == 0
                else:
                    log_n = log(tv + pv + 1)
                    take = node[2] / tv - c * sqrt(log_n / tv) <= node[3] / pv - c * sqrt(log_n / pv)
                path.append((node, take, seat))
            if take:
                chips[seat] = mine + pot
                masks[seat] |= 1 << card
                if deck_left == 0:
                    value = scores_of(masks, chips)
                    break
                deck_left -= 1
                j = int(rand() * left)  # the chance node: one of the unseen cards, uniformly
                left -= 1
                card = pool[j]
                pool[j] = pool[left]
                pool[left] = card
                pot = 0
            else:
                chips[seat] = mine - 1
                pot += 1
                seat = (seat + 1) % players
            key = (card, pot, seat, tuple(masks), tuple(chips))
        if path:
            own[path[0][1]] += value[seat0]
        values: list[float] = list(value)
        if bonus:  # the root mover's value gains ``bonus`` on a loss to its best rival, half of it on a tie
            rival = min(v for i, v in enumerate(value) if i != seat0)
            values[seat0] += bonus * ((value[seat0] > rival) + (value[seat0] >= rival)) / 2
        for visited, took, mover in path:
            side = 0 if took else 1  # (a node's score sum sits two after its visit count)
            visited[side] += 1
            visited[side + 2] += values[mover]
    root = tree[root_key]
    return root[0], root[1], root[2], root[3], own[1], own[0]


def search(
    info: InfoSet,
    iterations: int,
    seed: int,
    c: float = EXPLORATION,
    bonus: float = 0.0,
    ruled: int = 0,
    odds: tuple[float, ...] = (),
    playout_model: Model = THRESHOLD,
    own_playout_model: Model | None = None,
) -> SearchResult:
    """``iterations`` iterations from the seat to move in ``info`` (which must be allowed to pass). With ``bonus``
    the root mover (only) minimises its score plus ``bonus`` points on a loss to its best rival, half on a tie (the
    published bot's rule is 0); the result's scores are the root mover's own either way. The seats in the bit set
    ``ruled`` play the threshold rule in the tree, and each seat s in an iteration with probability ``odds[s]``
    (``opponents.threshold_odds``; the published bot: none). Playouts play ``playout_model`` at every seat (the
    published bot: the threshold rule), the root mover ``own_playout_model`` if given (issue 33, round 5)."""
    rng = random.Random(decision_seed(info, 33, seed))
    chips = fill_chips(info, rng)
    args = (list(info.masks), chips, info.card, info.pot, info.seat, list(info.unseen), info.deck_left)
    odds = tuple(float(p) for p in odds)
    seats = [playout_model] * info.players
    if own_playout_model is not None:
        seats[info.seat] = own_playout_model
    models = None if all(model == THRESHOLD for model in seats) else seats  # (None: the threshold rule's own loop)
    if ACCELERATED and search_in_c is not None:
        tables = limit_tables(models) if models is not None else None
        tv, pv, _, _, take_own, pass_own = search_in_c.pub_run(
            args, iterations, float(c), float(bonus), ruled, rng.random, odds, tables
        )
    else:
        tv, pv, _, _, take_own, pass_own = _python_search(
            *args, iterations, float(c), rng.random, bonus=float(bonus), ruled=ruled, odds=odds, models=models
        )
    take, pass_ = take_own / tv if tv else 0.0, pass_own / pv if pv else 0.0
    return SearchResult(-take, -pass_, take, pass_, iterations, tv, pv)  # (values: the mean scores negated)


class PubMctsBot(SearchingBot):
    """Plays like the published IS-MCTS bot (see the module docstring). ``python_iterations``, if given, replaces
    ``iterations`` where the C loop is not built (a pure function of (seed, view) on either backend).
    ``rival_prior``: above 0, each rival is searched as a threshold player in a share of the iterations, the
    probability that it is one given its public choices and this prior (``opponents.threshold_odds``); at 1, every
    rival is one until it departs from the rule. ``playout_model``: what every seat plays in the playouts
    (``own_playout_model``, if given, its own seat)."""

    def __init__(
        self,
        seed: int | None = None,
        iterations: int = 400,  # (the published bot's deployed setting)
        name: str = "pubmcts",
        bonus: float = 0.0,
        python_iterations: int | None = None,
        rival_prior: float = 0.0,
        playout_model: Model = THRESHOLD,
        own_playout_model: Model | None = None,
    ) -> None:
        super().__init__(seed, name)
        self.iterations = iterations
        self.bonus = bonus
        self.python_iterations = python_iterations
        self.rival_prior = rival_prior
        self.playout_model = playout_model
        self.own_playout_model = own_playout_model

    def evaluate(self, info: InfoSet, odds: tuple[float, ...] = ()) -> SearchResult:
        """The search from an advise position or a view's InfoSet (``nothanks advise`` and the coach call this)."""
        iterations = self.iterations if ACCELERATED else self.python_iterations or self.iterations
        return search(
            info,
            iterations,
            self.seed,
            bonus=self.bonus,
            odds=odds,
            playout_model=self.playout_model,
            own_playout_model=self.own_playout_model,
        )

    def evaluate_view(self, view: PlayerView) -> SearchResult:
        odds = threshold_odds(view, self.rival_prior) if self.rival_prior > 0 else ()
        return self.evaluate(info_from_view(view, self.prior), odds)
