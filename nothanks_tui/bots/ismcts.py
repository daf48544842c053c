"""Single-observer information-set MCTS (Cowling, Powley and Whitehouse, 2012): the ``ismcts`` sparring partner,
and the search of ``hard`` and ``expert`` from issue 15 until issue 33 (``tools/ismcts_levels.py``), when ``pubmcts``'s
belief-game search beat it against the published bot.

Every iteration draws a determinization of what the seat cannot see (the face-down cards' order, hidden chips as
``knowledge`` fills them), walks one tree with UCB1, expands one node, plays the world out and backs up every seat's
reward. Moves are public, so a node is the public history since the root: a pass's child is the same card with one
more chip, a take's children are keyed by the card turned up next. Playouts are random (even odds) or light (every
seat plays a ``rollout.Model``, rivals' read from their moves with ``read_rivals``). A world's reward to a seat is
its win share (1/k in a k-way tie) plus ``score_weight`` per 100 points of margin over its best rival.

A decision is a pure function of (seed, view): the random stream and the iteration count depend on the bot's seed
and the public position only, never the clock.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from .base import SearchingBot, SearchResult, decision_seed
from .knowledge import InfoSet, fill_chips
from .rollout import MODELS, limit_tables, playout, scores_of

try:  # the same loop in C, built by setup.py where a C compiler is (it plays exactly the same moves, faster)
    from . import _search_c as search_in_c
except ImportError:  # a machine without a C compiler
    search_in_c = None  # type: ignore[assignment]

# Whether ``search`` runs its iterations in C (when built); tests turn it off to compare the two.
ACCELERATED = search_in_c is not None
MOST_ITERATIONS = 1_000_000  # what ``bot:N`` may ask of ismcts and pubmcts


@dataclass(frozen=True, slots=True)
class IsmctsSettings:
    """How an IS-MCTS bot searches."""

    iterations: int = 400
    exploration: float = 0.7  # UCB1 constant (rewards are in about [0, 1])
    playout: str = "random"  # "random", or a ``rollout.MODELS`` name every seat plays in the playouts
    read_rivals: bool = False  # play each rival's playouts with the model that best explains its moves
    score_weight: float = 0.0  # reward per 100 points of margin over the best rival, added to the win share
    # With ``work`` > 0 the iterations are ``work // ((deck_left + 4) * (players + 7))`` (what a light-playout
    # iteration costs, measured): a decision costs about the same time at any point and table size.
    work: int = 0

    def iterations_for(self, deck_left: int, players: int) -> int:
        """Iterations for a decision with ``deck_left`` cards face down at a table of ``players``."""
        if self.work > 0:
            return max(1, self.work // ((deck_left + 4) * (players + 7)))
        return self.iterations


# A node is a list, for speed: [take visits, take reward, pass visits, pass reward, pass child, {card: take child}].
# The reward sums are for the seat to move at the node, the same seat in every determinization.
_TV, _TW, _PV, _PW, _PASS, _TAKE = range(6)


def _rewards(scores: list[int], score_weight: float) -> list[float]:
    """Every seat's reward for a finished world: its win share, plus ``score_weight`` per 100 points of margin over
    its best rival (whose score is the best one, or the second best for a seat that alone holds the best)."""
    best, runner_up = sorted(scores)[:2]  # the runner-up is the best again when several share it
    share = 1.0 / scores.count(best)
    if not score_weight:
        return [share if mine == best else 0.0 for mine in scores]
    return [
        share + score_weight * (runner_up - mine) / 100.0 if mine == best else score_weight * (best - mine) / 100.0
        for mine in scores
    ]


def search(info: InfoSet, settings: IsmctsSettings, seed: int) -> SearchResult:
    """Run ``settings.iterations`` iterations from the seat to move in ``info`` and return the root statistics."""
    rng = random.Random(decision_seed(info, 15, seed))
    rand = rng.random
    players = info.players
    hidden = any(c is None for c in info.chips)
    known_chips = [0 if c is None else c for c in info.chips]  # every count is known unless ``hidden``
    c = settings.exploration
    light = settings.playout != "random"
    models = []
    if light:
        models = list(info.models) if settings.read_rivals and info.models else [MODELS[settings.playout]] * players
    tables = limit_tables(models)
    score_weight = settings.score_weight
    log, sqrt = math.log, math.sqrt
    root: list = [0, 0.0, 0, 0.0, None, {}]
    me = info.seat
    root_scores = [0, 0]  # own final score summed over the iterations that passed, that took at the root
    unseen = list(info.unseen)
    pool = len(unseen)
    deck_left = info.deck_left
    iterations = settings.iterations_for(deck_left, players)
    if ACCELERATED and search_in_c is not None:
        position = (list(info.masks), known_chips, info.card, info.pot, info.seat, unseen, deck_left)
        fill, light_tables = (lambda: fill_chips(info, rng)) if hidden else None, tables if light else None
        found = search_in_c.run(position, iterations, float(c), float(score_weight), light_tables, rand, fill)
        tv, pv, take_sum, pass_sum, pass_total, take_total = found
        return _result(tv, pv, take_sum, pass_sum, [pass_total, take_total], (known_chips[me] or 0) > 0, iterations)
    TV, TW, PV, PW, PASS, TAKE = _TV, _TW, _PV, _PW, _PASS, _TAKE  # (local names: the loop runs by the million)
    for _ in range(iterations):
        # A uniformly random ordered draw of deck_left unseen cards (a partial Fisher-Yates shuffle of the pool).
        for i in range(deck_left):
            j = i + int(rand() * (pool - i))
            unseen[i], unseen[j] = unseen[j], unseen[i]
        deck = unseen  # its first deck_left cards, untouched until the next iteration shuffles
        chips = fill_chips(info, rng) if hidden else known_chips.copy()
        masks = list(info.masks)
        card, pot, seat, index, end, node = info.card, info.pot, info.seat, 0, deck_left, root
        path: list[tuple[list, int, int]] = []  # (node, TV if the mover took else PV, mover)
        finished = False
        while True:  # selection, then expansion of one new node
            mine = chips[seat]
            if mine <= 0:
                take = True
            else:
                tv, pv = node[TV], node[PV]
                if tv == 0 or pv == 0:
                    take = (rand() < 0.5) if tv == pv else tv == 0
                else:
                    log_n = log(tv + pv)
                    take = node[TW] / tv + c * sqrt(log_n / tv) >= node[PW] / pv + c * sqrt(log_n / pv)
            path.append((node, TV if take else PV, seat))
            if take:
                chips[seat] = mine + pot
                masks[seat] |= 1 << card
                if index == end:
                    finished = True
                    break
                card = deck[index]
                index += 1
                pot = 0
                children = node[TAKE]
                child = children.get(card)
                if child is None:
                    children[card] = [0, 0.0, 0, 0.0, None, {}]
                    break
            else:
                chips[seat] = mine - 1
                pot += 1
                seat = (seat + 1) % players
                child = node[PASS]
                if child is None:
                    node[PASS] = [0, 0.0, 0, 0.0, None, {}]
                    break
            node = child
        if finished:
            scores = scores_of(masks, chips)
        else:
            scores = playout(card, pot, seat, masks, chips, deck, index, models, tables, end, None if light else rand)
        rewards = _rewards(scores, score_weight)
        root_scores[path[0][1] == TV] += scores[me]
        for visited, visits, mover in path:  # a node's reward sum sits right after its visit count
            visited[visits] += 1
            visited[visits + 1] += rewards[mover]
    return _result(root[_TV], root[_PV], root[_TW], root[_PW], root_scores, (known_chips[me] or 0) > 0, iterations)


def _result(
    tv: int, pv: int, take_sum: float, pass_sum: float, root_scores: list[int], may_pass: bool, iterations: int
) -> SearchResult:
    """The root statistics from the root's visit counts and reward sums, and the own final scores summed over the
    iterations that passed (``root_scores[0]``) and took (``[1]``)."""
    take, take_score = (take_sum / tv, root_scores[1] / tv) if tv else (0.0, 0.0)
    if not may_pass:
        return SearchResult(take, None, take_score, None, iterations, tv)
    pass_, pass_score = (pass_sum / pv, root_scores[0] / pv) if pv else (0.0, 0.0)
    return SearchResult(take, pass_, take_score, pass_score, iterations, tv, pv)


class IsmctsBot(SearchingBot):
    """Plays from its own view with single-observer IS-MCTS (see the module docstring); by default the plain
    ``ismcts`` bot: 400 iterations, random playouts."""

    def __init__(self, seed: int | None = None, settings: IsmctsSettings | None = None, name: str = "ismcts") -> None:
        super().__init__(seed, name)
        self.settings = settings or IsmctsSettings()
        self.prior = self.settings.playout if self.settings.playout in MODELS else "rules"

    def evaluate(self, info: InfoSet) -> SearchResult:
        """The search from an advise position or a view's InfoSet (``nothanks advise`` calls this)."""
        return search(info, self.settings, self.seed)


def parse_iterations(bot: str, setting: str) -> int:
    """The N of ``bot:N`` (1..1,000,000 iterations); ValueError otherwise."""
    try:
        iterations = int(setting)
    except ValueError:
        raise ValueError(f"{bot}:N takes a number of iterations, not {setting!r}") from None
    if not 1 <= iterations <= MOST_ITERATIONS:
        raise ValueError(f"{bot}:N takes 1..{MOST_ITERATIONS} iterations, not {iterations}")
    return iterations


def ismcts_with(seed: int | None, iterations: int) -> IsmctsBot:
    """``ismcts:N``: N iterations, random playouts."""
    return IsmctsBot(seed, IsmctsSettings(iterations=iterations))
