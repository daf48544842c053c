"""Reading rivals from the public history: which playout model best explains each rival's past moves.

Every past decision is public (who took or passed which card with how many chips on it), and so is every hand at
that moment and, replayed from the history, every chip count. For each rival this counts how often each candidate
``Model`` would have decided differently and keeps the one with fewest misses (the prior model, ``rules`` unless
the bot's settings say otherwise, wins ties and needs no evidence, so a rival with little history is played as
the prior says).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..engine import CARDS_PLAYED, Action, PlayerView
from ..engine.fast import mask_take_cost
from .rollout import MODELS, Model, model_takes, rivals_union

# Misses a model other than ``rules`` must save before it replaces ``rules`` as a rival's model.
SWITCH_MARGIN = 1


def _rival_choices(view: PlayerView) -> Iterator[tuple[int, tuple[int, int, int, int, int, int], bool]]:
    """Each past choice of a rival holding chips: its seat, (card, pot, chips, hand, rivals' hands, cards left)
    as ``model_takes`` reads them, and whether it took."""
    players = view.players
    masks = [0] * players
    chips = [view.chips_per_player] * players
    taken = 0
    for move in view.moves:
        seat = move.seat
        if not 0 <= seat < players:
            break
        took = move.action is Action.TAKE
        mine = chips[seat]
        if seat != view.seat and mine > 0:
            where = (move.card, move.pot, mine, masks[seat], rivals_union(masks, seat), CARDS_PLAYED - taken - 1)
            yield seat, where, took
        if took:
            chips[seat] = mine + move.pot
            masks[seat] |= 1 << move.card
            taken += 1
        else:
            chips[seat] = mine - 1


def fit_models(view: PlayerView, prior: str = "rules", candidates: dict[str, Model] | None = None) -> list[Model]:
    """One playout model per seat, the best of ``candidates`` (default ``MODELS``); the ``prior`` model wins ties
    and needs no evidence, and the viewer's own seat plays it."""
    candidates = candidates or MODELS
    misses = [dict.fromkeys(candidates, 0) for _ in range(view.players)]
    for seat, (card, pot, mine, mask, union, left), took in _rival_choices(view):
        for name, model in candidates.items():
            if model_takes(model, card, pot, mine, mask, union, view.players, left) != took:
                misses[seat][name] += 1
    models = []
    for seat, missed in enumerate(misses):
        best = min(missed, key=missed.__getitem__)  # (the first of the fewest misses)
        switch = seat != view.seat and missed[best] < missed[prior] - SWITCH_MARGIN
        models.append(candidates[best if switch else prior])
    return models


# How often a strong player (``pubmcts:400``, measured over 11,447 choices of 100 three-player games, docs/bots.md)
# decides against the threshold rule, by the take's cost less the chips on the card: (highest such margin, rate).
STRONG_DEPARTURES = (
    (-4, 0.30),
    (-2, 0.45),
    (0, 0.60),
    (2, 0.45),
    (5, 0.25),
    (10, 0.17),
    (15, 0.14),
    (19, 0.11),
    (24, 0.05),
)
STRONG_DEPARTURE_BEYOND = 0.015


def strong_departure(margin: int) -> float:
    """The share of a strong player's choices at this margin (cost less pot) that depart from the threshold rule."""
    for highest, rate in STRONG_DEPARTURES:
        if margin <= highest:
            return rate
    return STRONG_DEPARTURE_BEYOND


def threshold_odds(view: PlayerView, prior: float) -> tuple[float, ...]:
    """For each seat, the probability that it plays the threshold rule, given its public choices so far and
    ``prior``: a threshold player never departs from the rule, the alternative is a strong player departing at
    ``STRONG_DEPARTURES``' rates; one departure rules the rule out. The viewer's own seat: 0. (Issue 33: searched as
    threshold players, ``hard`` wins 97% against two ``threshold``; read all at once, at a cost against stronger
    rivals, docs/bots.md.)"""
    if view.seat is None or prior <= 0.0:
        return (0.0,) * view.players
    alternative = [1.0] * view.players  # each rival's choices' likelihood under the strong player
    departed = [False] * view.players
    for seat, (card, pot, _, mask, _, _), took in _rival_choices(view):
        margin = mask_take_cost(mask, card) - pot
        if took != (margin <= 0):
            departed[seat] = True
        else:
            alternative[seat] *= 1.0 - strong_departure(margin)
    return tuple(
        0.0 if seat == view.seat or departed[seat] else prior / (prior + (1.0 - prior) * alternative[seat])
        for seat in range(view.players)
    )


def threshold_rivals(view: PlayerView) -> int:
    """The rivals (a bit per seat) who never departed from the threshold rule so far (``threshold_odds`` at a
    prior of 1)."""
    odds = threshold_odds(view, 1.0)
    return sum(1 << seat for seat, p in enumerate(odds) if p >= 1.0)
