"""A fast playout core for headless play (``nothanks simulate``, tournaments, search-bot rollouts): the rules of
``state.py`` on mutable lists and bit masks (bit ``c`` set: card ``c`` held), several times faster than a frozen
state and view per move. Tests check that it agrees with the reference engine move for move."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

# A fast decider: (card, pot, my_chips, hand_masks, seat, deck_left) -> True to take, False to pass.
# It is only asked when my_chips > 0 (a player with no chips must take).
FastDecider = Callable[[int, int, int, list[int], int, int], bool]
FastMove = tuple[int, bool]  # (seat, took)


def mask_points(mask: int) -> int:
    """Card points of a hand given as a bit mask: the sum of the lowest card of each run."""
    lows = mask & ~(mask << 1)
    total = 0
    while lows:
        low_bit = lows & -lows
        total += low_bit.bit_length() - 1
        lows ^= low_bit
    return total


def mask_take_cost(mask: int, card: int) -> int:
    """Change in card points if a hand (bit mask) takes ``card`` (``scoring.take_cost``)."""
    below = (mask >> (card - 1)) & 1
    above = (mask >> (card + 1)) & 1
    if below:
        return -(card + 1) if above else 0
    return -1 if above else card


def cards_to_mask(cards: Iterable[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def play_fast(
    deck: Sequence[int], first_player: int, chips_each: int, deciders: Sequence[FastDecider]
) -> tuple[list[FastMove], list[int], list[int]]:
    """Play a whole game from a deal. Returns (moves, final hand masks, final chips)."""
    players = len(deciders)
    chips = [chips_each] * players
    masks = [0] * players
    moves: list[FastMove] = []
    append = moves.append
    seat = first_player
    last = len(deck) - 1
    for index, card in enumerate(deck):
        pot = 0
        deck_left = last - index
        while True:
            mine = chips[seat]
            if mine <= 0 or deciders[seat](card, pot, mine, masks, seat, deck_left):
                append((seat, True))
                chips[seat] = mine + pot
                masks[seat] |= 1 << card
                break  # the taker flips the next card and decides again
            append((seat, False))
            chips[seat] = mine - 1
            pot += 1
            seat += 1
            if seat == players:
                seat = 0
    return moves, masks, chips
