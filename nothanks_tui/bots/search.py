"""The flat search (``medium``, ``flat``): determinized Monte Carlo over worlds consistent with the bot's view.

Each sampled world (an order of the unseen cards, hidden chips from the public history) is played out after taking
and after passing with the rule-based playouts: the same world for both (common random numbers), so their difference
is measured with far less noise than either value. Sampling stops once one action leads by several standard errors;
the worlds depend only on the view and the seed, never the clock. A world's worth mixes the bot's own score with
beating the best rival (``margin_weight``): winning is what a player wants, a lower score what other targets measure.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .base import SearchingBot, SearchResult, decision_seed
from .knowledge import InfoSet, fill_chips
from .rollout import MODELS, limit_tables, playout, scores_of


@dataclass(frozen=True, slots=True)
class SearchSettings:
    """How hard a search bot thinks: worlds sampled per decision and when it may stop early."""

    max_worlds: int = 240
    min_worlds: int = 48
    check_every: int = 16
    stop_z: float = 2.5  # stop once |mean difference| exceeds this many standard errors
    margin_weight: float = 1.0  # weight of (best rival score - own score) against -(own score)
    read_rivals: bool = True  # fit each rival's playout model to its past moves (else all play ``prior``)
    prior: str = "rules"  # playout model for itself, and for rivals until their moves suggest another


def _utility(scores: list[int], seat: int, margin_weight: float) -> float:
    mine = scores[seat]
    best_rival = min(s for i, s in enumerate(scores) if i != seat)
    return margin_weight * (best_rival - mine) - mine


def evaluate(info: InfoSet, settings: SearchSettings, seed: int) -> SearchResult:
    """Estimate take and pass for the seat to move in ``info``."""
    rng = random.Random(decision_seed(info, seed))
    me, card, pot, players = info.seat, info.card, info.pot, info.players
    hidden = any(c is None for c in info.chips)
    known_chips = [0 if c is None else c for c in info.chips]  # every count is known unless ``hidden``
    masks = list(info.masks)
    weight = settings.margin_weight
    models = list(info.models) if settings.read_rivals and info.models else [MODELS[settings.prior]] * players
    tables = limit_tables(models)
    my_chips = known_chips[me] or 0
    take_sum, diff_sum, diff_sq = 0.0, 0.0, 0.0  # utilities (and squares of take - pass)
    take_score_sum = pass_score_sum = worlds = 0  # own final scores
    next_seat = (me + 1) % players
    for worlds in range(1, settings.max_worlds + 1):
        deck = rng.sample(info.unseen, info.deck_left)  # one possible order of the face-down cards
        chips = fill_chips(info, rng) if hidden else known_chips
        take_masks = masks.copy()
        take_masks[me] |= 1 << card
        take_chips = chips.copy()
        take_chips[me] += pot
        if deck:
            take_scores = playout(deck[0], 0, me, take_masks, take_chips, deck, 1, models, tables)
        else:
            take_scores = scores_of(take_masks, take_chips)
        take_value = _utility(take_scores, me, weight)
        take_sum += take_value
        take_score_sum += take_scores[me]
        if my_chips <= 0:
            if worlds >= settings.min_worlds:
                break
            continue
        pass_chips = chips.copy()
        pass_chips[me] -= 1
        pass_scores = playout(card, pot + 1, next_seat, masks.copy(), pass_chips, deck, 0, models, tables)
        pass_score_sum += pass_scores[me]
        diff = take_value - _utility(pass_scores, me, weight)
        diff_sum += diff
        diff_sq += diff * diff
        if worlds >= settings.min_worlds and worlds % settings.check_every == 0:
            mean = diff_sum / worlds
            variance = max(0.0, diff_sq / worlds - mean * mean)
            if mean * mean > settings.stop_z**2 * variance / worlds:
                break
    take_mean = take_sum / worlds
    take_score = take_score_sum / worlds
    if my_chips <= 0:
        return SearchResult(take_mean, None, take_score, None, worlds)
    return SearchResult(take_mean, take_mean - diff_sum / worlds, take_score, pass_score_sum / worlds, worlds)


class SearchBot(SearchingBot):
    """Plays from its own view by sampling worlds and playing each out after taking and after passing."""

    def __init__(self, seed: int | None = None, settings: SearchSettings | None = None, name: str = "search") -> None:
        super().__init__(seed, name)
        self.settings = settings or SearchSettings()
        self.prior = self.settings.prior

    def evaluate(self, info: InfoSet) -> SearchResult:
        return evaluate(info, self.settings, self.seed)
