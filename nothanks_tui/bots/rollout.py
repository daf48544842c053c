"""The search bot's playout: the rest of one sampled game, played by a rule-based policy, as fast as CPython allows.

Everything is inlined in one loop over plain ints and lists (hands as bit masks, the union of all hands kept so
"does any rival want this card" is one AND), because a decision runs hundreds of these playouts.

Each seat plays a member of one policy family, given as a ``Model``: price the card by what taking it really
costs; take an isolated card when its value less ``pot_weight / 4`` times the pot is within a limit
(``base - slope * chips``, never below 0, plus ``late`` when fewer than 4 cards are left face down, less
``rival_penalty`` when a rival could use the card, who will then likely take it); and, with ``milk``, let a card
that extends its own run go round to collect chips while no rival could use it and the pot is under
``players - card * milk_q / 16``. ``RULES`` is exactly the ``rules`` bot (see ``simple.RuleBot``), ``THRESHOLD`` the
``threshold`` bot; the search bot picks, for each rival, the model that best explains that rival's past moves.
"""

from __future__ import annotations

from typing import NamedTuple

from ..engine.config import TOTAL_CHIPS


class Model(NamedTuple):
    """One member of the playout policy family (see the module docstring)."""

    base: int
    slope: int
    late: int
    milk: bool
    pot_weight: int = 4  # in quarters: 4 counts each chip on the card as one point
    rival_penalty: int = 0
    milk_q: int = 8  # 8: milk until the pot plus the player count reaches half the card


RULES = Model(9, 2, 3, True)
THRESHOLD = Model(0, 0, 0, False)
GREEDY = Model(14, 2, 4, False)  # takes dear cards early: a player who does not hoard chips
# Fitted to the search bot's own decisions (4,809 of them at 3, 5 and 7 players): it milks much longer.
SEARCHER = Model(6, 2, 0, True, pot_weight=4, rival_penalty=-2, milk_q=18)
MODELS: dict[str, Model] = {"rules": RULES, "threshold": THRESHOLD, "greedy": GREEDY, "searcher": SEARCHER}


def model_takes(model: Model, card: int, pot: int, mine: int, mask: int, others: int, players: int, left: int) -> bool:
    """What ``model`` does with ``card`` (``pot`` on it) holding ``mine`` chips and hand ``mask``; ``others`` is
    the union of every rival's hand and ``left`` the cards still face down. Same rule as ``playout``."""
    if mine <= 0:
        return True
    if (mask >> (card - 1)) & 1:
        cost = -(card + 1) if (mask >> (card + 1)) & 1 else 0
    else:
        cost = -1 if (mask >> (card + 1)) & 1 else card
    if cost <= 0:
        if not model.milk or mine < 2 or left == 0:
            return True
        near = (1 << (card - 1)) | (1 << (card + 1))
        return bool(others & near) or pot + players >= (card * model.milk_q) >> 4
    limit = model.base - model.slope * mine
    if limit < 0:
        limit = 0
    if left < 4:
        limit += model.late
    if others & ((1 << (card - 1)) | (1 << (card + 1))):
        limit -= model.rival_penalty
    return 4 * cost - model.pot_weight * pot <= 4 * limit


def _sums(bits: int) -> list[int]:
    """For every ``bits``-bit number, the sum of the indices of its set bits."""
    return [sum(i for i in range(bits) if (n >> i) & 1) for n in range(1 << bits)]


_SUM12 = _sums(12)


def mask_score(mask: int, chips: int) -> int:
    """Final score of a hand (bit mask) holding ``chips``: ``mask_points(mask) - chips`` by table lookup (card
    points are the sum of the indices of the lowest card of every run), as playouts end by the thousand."""
    lows = mask & ~(mask << 1)
    mid = (lows >> 12) & 0xFFF
    high = lows >> 24
    return _SUM12[lows & 0xFFF] + _SUM12[mid] + 12 * mid.bit_count() + _SUM12[high] + 24 * high.bit_count() - chips


def limit_tables(models: list[Model]) -> tuple[list[list[int]], list[list[int]]]:
    """Per seat and chip count, four times the most an isolated card may cost net of its pot for the seat to take
    it: (early, late)."""
    early = [[4 * max(0, m.base - m.slope * chips) for chips in range(TOTAL_CHIPS + 1)] for m in models]
    late = [[limit + 4 * m.late for limit in row] for m, row in zip(models, early)]
    return early, late


def playout(
    card: int,
    pot: int,
    seat: int,
    masks: list[int],
    chips: list[int],
    deck: list[int],
    next_index: int,
    models: list[Model],
    tables: tuple[list[list[int]], list[list[int]]] | None = None,
) -> list[int]:
    """Play on from ``card`` (face up, ``pot`` on it, ``seat`` to move) through ``deck[next_index:]``, seat ``i``
    playing ``models[i]`` (``tables`` is ``limit_tables(models)``, passed in to save rebuilding it).
    ``masks`` and ``chips`` are changed in place. Returns every seat's final score.
    """
    players = len(masks)
    early, late = tables or limit_tables(models)
    milks = [m.milk for m in models]
    pot_weights = [m.pot_weight for m in models]
    penalties = [4 * m.rival_penalty for m in models]
    milk_qs = [m.milk_q for m in models]
    union = 0
    for mask in masks:
        union |= mask
    end = len(deck)
    index = next_index
    # Per face-up card: the neighbours' bits, four times its value and which limits apply.
    near = (1 << (card - 1)) | (1 << (card + 1))
    card4 = 4 * card
    limits = late if end - index < 4 else early
    while True:
        mine = chips[seat]
        if mine <= 0:
            take = True
        else:
            mask = masks[seat]
            if mask & near:  # extends or bridges a run: costs nothing or lowers the score
                if not milks[seat] or mine < 2 or index == end:
                    take = True
                else:
                    take = bool((union ^ mask) & near) or pot + players >= (card * milk_qs[seat]) >> 4
            else:  # an isolated card costs its value
                limit = limits[seat][mine]
                if union & near:  # a rival could use it (this seat holds neither neighbour)
                    limit -= penalties[seat]
                take = card4 - pot_weights[seat] * pot <= limit
        if take:
            chips[seat] = mine + pot
            bit = 1 << card
            masks[seat] |= bit
            union |= bit
            if index == end:
                break
            card = deck[index]
            index += 1
            pot = 0
            near = (1 << (card - 1)) | (1 << (card + 1))
            card4 = 4 * card
            if end - index < 4:
                limits = late
        else:
            chips[seat] = mine - 1
            pot += 1
            seat += 1
            if seat == players:
                seat = 0
    return [mask_score(m, c) for m, c in zip(masks, chips)]
