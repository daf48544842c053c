"""The searches' playout: the rest of one sampled game played by a rule-based policy, in one loop over plain ints
(hands as bit masks, the union of all hands kept so "does a rival want this card" is one AND): a decision runs
hundreds of them.

Each seat plays a ``Model`` of one family: take a card that extends its run (with ``milk``: let it go round for
chips while no rival could use it and the pot is under ``card * milk_q / 16 - players``); take an isolated card when
its value less ``pot_weight / 4`` times the pot is within ``base - slope * chips`` (never below 0; plus ``late`` with
fewer than 4 cards face down; less ``rival_penalty`` when a rival could use it). The ``rules`` and ``threshold``
bots play ``RULES`` and ``THRESHOLD``; the searches read each rival's model from its past moves (``opponents``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from ..engine.config import TOTAL_CHIPS
from ..engine.fast import mask_take_cost


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


def rivals_union(masks: list[int], seat: int) -> int:
    """Every hand but ``seat``'s in one mask: "does a rival want this card" is then one AND."""
    union = 0
    for other, mask in enumerate(masks):
        if other != seat:
            union |= mask
    return union


def model_takes(model: Model, card: int, pot: int, mine: int, mask: int, others: int, players: int, left: int) -> bool:
    """What ``model`` does with ``card`` (``pot`` on it) holding ``mine`` chips and hand ``mask``; ``others`` is
    the union of every rival's hand and ``left`` the cards still face down. Same rule as ``playout``."""
    if mine <= 0:
        return True
    cost = mask_take_cost(mask, card)
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


_SUM12 = [sum(i for i in range(12) if (n >> i) & 1) for n in range(1 << 12)]  # the set bits' indices summed
# The same for bits 12..23 and 24..35 of a 36-bit mask, read as 12-bit chunks: each set bit counts its offset too.
_SUM12_MID = [total + 12 * n.bit_count() for n, total in enumerate(_SUM12)]
_SUM12_HIGH = [total + 24 * n.bit_count() for n, total in enumerate(_SUM12)]


class Tables(NamedTuple):
    """What a playout reads per seat, built once per search rather than once per playout (``limit_tables``)."""

    early: list[list[int]]  # per seat and chip count, four times the most an isolated card may cost net of its pot
    late: list[list[int]]  # the same when fewer than 4 cards are left face down
    milks: list[bool]
    pot_weights: list[int]
    penalties: list[int]  # four times the rival penalty
    milk_qs: list[int]


def limit_tables(models: list[Model]) -> Tables:
    """Everything ``playout`` reads of ``models``, per seat (see ``Tables``)."""
    early = [[4 * max(0, m.base - m.slope * chips) for chips in range(TOTAL_CHIPS + 1)] for m in models]
    late = [[limit + 4 * m.late for limit in row] for m, row in zip(models, early)]
    return Tables(
        early,
        late,
        [m.milk for m in models],
        [m.pot_weight for m in models],
        [4 * m.rival_penalty for m in models],
        [m.milk_q for m in models],
    )


def playout(
    card: int,
    pot: int,
    seat: int,
    masks: list[int],
    chips: list[int],
    deck: list[int],
    next_index: int,
    models: list[Model],
    tables: Tables | None = None,
    end: int | None = None,
    coin: Callable[[], float] | None = None,
) -> list[int]:
    """Play on from ``card`` (face up, ``pot`` on it, ``seat`` to move) through ``deck[next_index:end]`` (``end``
    defaults to the whole list), seat ``i`` playing ``models[i]`` (``tables`` is ``limit_tables(models)``, passed
    in to save rebuilding it), or every seat taking or passing at even odds by ``coin`` when it is given (IS-MCTS's
    random playouts). A seat out of chips takes. ``masks`` and ``chips`` are changed in place. Returns every seat's
    final score."""
    players = len(masks)
    early, late, milks, pot_weights, penalties, milk_qs = tables or limit_tables(models)
    union = 0
    for mask in masks:
        union |= mask
    if end is None:
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
        elif coin is not None:
            take = coin() < 0.5
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
            seat = (seat + 1) % players
    return scores_of(masks, chips)


def scores_of(masks: list[int], chips: list[int]) -> list[int]:
    """Every seat's final score (card points less chips) by table lookup: the card points of a hand are the sum of the
    indices of the lowest card of every run, and playouts end by the thousand."""
    low_sums, mid_sums, high_sums = _SUM12, _SUM12_MID, _SUM12_HIGH
    out = []
    for mask, held in zip(masks, chips):
        lows = mask & ~(mask << 1)
        out.append(low_sums[lows & 0xFFF] + mid_sums[(lows >> 12) & 0xFFF] + high_sums[lows >> 24] - held)
    return out
