"""Reading rivals from the public history: which playout model best explains each rival's past moves.

Every past decision is public (who took or passed which card with how many chips on it), and so is every hand at
that moment and, replayed from the history, every chip count. For each rival this counts how often each candidate
``Model`` would have decided differently and keeps the one with fewest misses (the prior model, ``rules`` unless
the bot's settings say otherwise, wins ties and needs no evidence, so a rival with little history is played as
the prior says).
"""

from __future__ import annotations

from ..engine import CARDS_PLAYED, Action, PlayerView
from .rollout import MODELS, Model, model_takes, rivals_union

# Misses a model other than ``rules`` must save before it replaces ``rules`` as a rival's model.
SWITCH_MARGIN = 1


def fit_models(view: PlayerView, prior: str = "rules", candidates: dict[str, Model] | None = None) -> list[Model]:
    """One playout model per seat, the best of ``candidates`` (default ``MODELS``); the ``prior`` model wins ties
    and needs no evidence, and the viewer's own seat plays it."""
    candidates = candidates or MODELS
    players = view.players
    misses = [dict.fromkeys(candidates, 0) for _ in range(players)]
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
            union, left = rivals_union(masks, seat), CARDS_PLAYED - taken - 1
            for name, model in candidates.items():
                if model_takes(model, move.card, move.pot, mine, masks[seat], union, players, left) != took:
                    misses[seat][name] += 1
        if took:
            chips[seat] = mine + move.pot
            masks[seat] |= 1 << move.card
            taken += 1
        else:
            chips[seat] = mine - 1
    models = []
    for seat in range(players):
        best = candidates[prior]
        best_misses = misses[seat][prior] - SWITCH_MARGIN
        for name, model in candidates.items():
            if misses[seat][name] < best_misses:
                best, best_misses = model, misses[seat][name]
        models.append(candidates[prior] if seat == view.seat else best)
    return models
