"""The search bot's playout: the rest of one sampled game, played by a rule-based policy, as fast as CPython allows.

Everything is inlined in one loop over plain ints and lists (hands as bit masks, the union of all hands kept so
"does any rival want this card" is one AND), because a decision runs hundreds of these playouts.

Each seat plays a member of one policy family, given as a ``Model``: price the card by what taking it really
costs, take when that cost net of the pot is within a limit (``base - slope * chips``, never below 0, plus
``late`` when fewer than 4 cards are left face down), and, with ``milk``, let a card that only this player wants
go round to collect chips. ``RULES`` is exactly the ``rules`` bot (see ``simple.RuleBot``), ``THRESHOLD`` the
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


RULES = Model(9, 2, 3, True)
THRESHOLD = Model(0, 0, 0, False)
GREEDY = Model(14, 2, 4, False)  # takes dear cards early: a player who does not hoard chips
MODELS: dict[str, Model] = {"rules": RULES, "threshold": THRESHOLD, "greedy": GREEDY}


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
        return bool(others & near) or pot + players >= card // 2
    limit = model.base - model.slope * mine
    if limit < 0:
        limit = 0
    if left < 4:
        limit += model.late
    return cost - pot <= limit


def mask_score(mask: int, chips: int) -> int:
    """Final score of a hand (bit mask) holding ``chips``."""
    lows = mask & ~(mask << 1)
    total = 0
    while lows:
        low_bit = lows & -lows
        total += low_bit.bit_length() - 1
        lows ^= low_bit
    return total - chips


def limit_tables(models: list[Model]) -> tuple[list[list[int]], list[list[int]]]:
    """Per seat and chip count, the most a card may cost net of its pot for the seat to take it: (early, late)."""
    early = [[max(0, m.base - m.slope * chips) for chips in range(TOTAL_CHIPS + 1)] for m in models]
    late = [[limit + m.late for limit in row] for m, row in zip(models, early)]
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
    union = 0
    for mask in masks:
        union |= mask
    end = len(deck)
    index = next_index
    # Per face-up card: the neighbours' bits, half its value (the milking test) and which limits apply.
    near = (1 << (card - 1)) | (1 << (card + 1))
    half = card // 2
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
                    take = bool((union ^ mask) & near) or pot + players >= half
            else:  # an isolated card costs its value
                take = card - pot <= limits[seat][mine]
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
            half = card // 2
            if end - index < 4:
                limits = late
        else:
            chips[seat] = mine - 1
            pot += 1
            seat += 1
            if seat == players:
                seat = 0
    return [mask_score(m, c) for m, c in zip(masks, chips)]
