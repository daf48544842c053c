"""What one seat knows about a game, and the hidden worlds consistent with it.

A search bot must decide from its own view only. This module turns a ``PlayerView`` (or an advise position) into
an ``InfoSet``: the public table plus every chip count the seat can know. Hidden chip counts are recovered exactly
from the public move history (everyone starts with the same chips, a pass pays one, a take collects the pot);
without a history (an advise position) the hidden total is known and is split evenly; the unseen cards are the
face-down ones and those set aside, in any order.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..engine import ALL_CARDS, STANDARD, Action, PlayerView, variant_of
from ..engine.config import TOTAL_CHIPS
from ..engine.fast import cards_to_mask
from .opponents import fit_models
from .rollout import Model


@dataclass(frozen=True, slots=True)
class InfoSet:
    """The deciding seat's knowledge. ``chips[i]`` is None only where it cannot be known (no history)."""

    players: int
    seat: int
    card: int
    pot: int
    deck_left: int
    masks: tuple[int, ...]
    chips: tuple[int | None, ...]
    chips_per_player: int
    unseen: tuple[int, ...]  # cards that may still be in the deck (known set-aside cards excluded)
    models: tuple[Model, ...] = ()  # playout model per seat (see ``opponents``); empty means ``rules`` for all

    @property
    def position_key(self) -> tuple[object, ...]:
        """The public position in ints (and tuples of them) only, for the search bots' per-decision seeds: strings
        and ``None`` hash differently from one process to the next (``None`` before Python 3.12), so an unknown chip
        count is -1 here."""
        chips = tuple(-1 if count is None else count for count in self.chips)
        return (self.players, self.seat, self.card, self.pot, self.deck_left, self.masks, chips, self.models)


def chips_from_history(view: PlayerView) -> tuple[int, ...] | None:
    """Every seat's chips replayed from the public moves, or None if the history is missing or inconsistent."""
    takes = sum(1 for move in view.moves if move.action is Action.TAKE)
    if len(view.moves) != view.state_id or takes != sum(len(hand) for hand in view.hands):
        return None
    chips = [view.chips_per_player] * view.players
    pot = 0
    for move in view.moves:
        if not 0 <= move.seat < view.players:
            return None
        if move.action is Action.PASS:
            chips[move.seat] -= 1
            pot += 1
        else:
            chips[move.seat] += move.pot
            pot = 0
    if pot != view.pot or any(c < 0 for c in chips):
        return None
    if any(known is not None and known != replayed for known, replayed in zip(view.chips, chips)):
        return None
    return tuple(chips)


def info_from_view(view: PlayerView, prior: str = "rules") -> InfoSet:
    """The InfoSet of the seat that owns ``view``; call only when it is that seat's turn. Each rival's playout
    model is the one (see ``opponents.fit_models``) that best explains its past moves, ``prior`` by default."""
    if view.seat is None or view.card is None:
        raise ValueError("a bot decides only for its own seat while a card is face up")
    chips: tuple[int | None, ...] = chips_from_history(view) or view.chips
    where = (view.players, view.seat, view.card, view.pot, view.deck_left, view.hands, chips, view.chips_per_player)
    return make_info(*where, view.variant, tuple(fit_models(view, prior)))


def make_info(
    players: int,
    seat: int,
    card: int,
    pot: int,
    deck_left: int,
    hands: tuple[tuple[int, ...], ...] | list[list[int]],
    chips: tuple[int | None, ...] | list[int | None],
    chips_per_player: int,
    variant: str = STANDARD,
    models: tuple[Model, ...] = (),
) -> InfoSet:
    seen = {card, *variant_of(variant).set_aside}  # (the variant's set-aside cards are known too)
    for hand in hands:
        seen.update(hand)
    unseen = tuple(c for c in ALL_CARDS if c not in seen)
    masks = tuple(cards_to_mask(hand) for hand in hands)
    return InfoSet(players, seat, card, pot, deck_left, masks, tuple(chips), chips_per_player, unseen, models)


def fill_chips(info: InfoSet, rng: random.Random) -> list[int]:
    """Every seat's chips: the known ones, and the hidden total split evenly (remainder at random) otherwise."""
    chips = list(info.chips)
    hidden = [seat for seat, value in enumerate(chips) if value is None]
    if hidden:  # every chip is in a hand or on the card
        total = min(TOTAL_CHIPS, info.chips_per_player * info.players) - info.pot
        share, extra = divmod(max(0, total - sum(c for c in chips if c is not None)), len(hidden))
        lucky = set(rng.sample(hidden, extra))
        for seat in hidden:
            chips[seat] = share + (1 if seat in lucky else 0)
    return chips  # type: ignore[return-value]
