"""The authoritative game: the deal, whose turn, chips and cards, and the two moves (take, pass). Pure and
deterministic: built from a config and a seed (or a deal, for replays); each move returns a new frozen state, and
an illegal one raises ``IllegalMove``."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from enum import StrEnum

from .config import ALL_CARDS, CARDS_PLAYED, CARDS_REMOVED, GameConfig
from .errors import BAD_CONFIG, BAD_SEAT, GAME_OVER, NO_CHIPS, NOT_YOUR_TURN, UNKNOWN_ACTION, IllegalMove
from .scoring import score, winners


class Action(StrEnum):
    """The two things a player can do with the face-up card."""

    TAKE = "take"
    PASS = "pass"  # "No thanks!": pay one chip onto the card

    @classmethod
    def parse(cls, value: object) -> Action:
        """An Action from itself or its wire name; anything else is an ``unknown_action`` refusal."""
        if isinstance(value, str) and value in tuple(cls):  # (an Action is a str equal to its name)
            return cls(value)
        raise IllegalMove(UNKNOWN_ACTION, f"unknown action {str(value)[:40]!r}: use 'take' or 'pass'")


@dataclass(frozen=True, slots=True)
class Move:
    """One public move: who, what, and the face-up card and chips on it just before the move."""

    seat: int
    action: Action
    card: int
    pot: int


@dataclass(frozen=True, slots=True)
class GameState:
    """Everything about one game, hidden parts included. Only the host holds it; players get views."""

    config: GameConfig
    seed: int | None
    deck: tuple[int, ...]  # the 24 played cards in flip order (hidden)
    removed: tuple[int, ...]  # the 9 set aside unseen (hidden), sorted
    first_player: int
    taken: int  # cards taken so far; deck[taken] is face up while taken < 24
    pot: int  # chips on the face-up card
    chips: tuple[int, ...]  # per seat (hidden from others unless open_chips)
    hands: tuple[tuple[int, ...], ...]  # per seat, sorted (public)
    to_move: int
    moves: tuple[Move, ...]  # public history

    @property
    def players(self) -> int:
        return self.config.players

    @property
    def finished(self) -> bool:
        """True once the 24th card has been taken."""
        return self.taken >= CARDS_PLAYED

    @property
    def card(self) -> int | None:
        """The face-up card, or None when the game is over."""
        return None if self.taken >= CARDS_PLAYED else self.deck[self.taken]

    @property
    def deck_left(self) -> int:
        """Cards still face down (the face-up card not counted)."""
        return max(0, CARDS_PLAYED - self.taken - 1)

    @property
    def state_id(self) -> int:
        """Counts moves; a client's intent names the state it saw so a repeated key cannot act twice."""
        return len(self.moves)

    def scores(self) -> tuple[int, ...]:
        return tuple(score(hand, chips) for hand, chips in zip(self.hands, self.chips))

    def winners(self) -> tuple[int, ...]:
        return winners(self.scores())


def deal(config: GameConfig, seed: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """Shuffle from ``seed`` alone (a private ``random.Random``, the same on every machine): (deck in flip order,
    removed cards sorted, first player)."""
    rng = random.Random(seed)
    set_aside = config.rules.set_aside
    cards = [card for card in ALL_CARDS if card not in set_aside]
    rng.shuffle(cards)
    # The cards set aside at random come last of the shuffle when none is set aside by the variant, first when
    # some are: the orders the standard and tactical deals always had, so a seed deals the game it dealt before
    # (a host restores a game in progress from its seed and moves).
    extra = CARDS_REMOVED - len(set_aside)
    at_random = cards[CARDS_PLAYED:] if not set_aside else cards[:extra]
    deck = tuple(cards[:CARDS_PLAYED] if not set_aside else cards[extra:])
    removed = tuple(sorted(set_aside + tuple(at_random)))
    first = rng.randrange(config.players)
    return deck, removed, first


def new_game(config: GameConfig, seed: int) -> GameState:
    """A fresh game dealt from ``seed``."""
    deck, removed, first = deal(config, seed)
    return from_deal(config, deck, removed, first, seed=seed)


def from_deal(
    config: GameConfig,
    deck: tuple[int, ...] | list[int],
    removed: tuple[int, ...] | list[int],
    first_player: int,
    seed: int | None = None,
) -> GameState:
    """A fresh game from an explicit deal (used to replay records); the deal is checked against the rules."""
    deck_t = tuple(deck)
    removed_t = tuple(sorted(removed))
    if len(deck_t) != CARDS_PLAYED or len(removed_t) != CARDS_REMOVED:
        raise IllegalMove(BAD_CONFIG, f"a deal has {CARDS_PLAYED} played and {CARDS_REMOVED} removed cards")
    if sorted(deck_t + removed_t) != list(ALL_CARDS):
        raise IllegalMove(BAD_CONFIG, "deck and removed cards must be exactly the cards 3..35, once each")
    if not set(config.rules.set_aside) <= set(removed_t):
        cards = ", ".join(map(str, config.rules.set_aside))
        raise IllegalMove(BAD_CONFIG, f"the {config.variant} variant always sets aside {cards}")
    if not isinstance(first_player, int) or not 0 <= first_player < config.players:
        raise IllegalMove(BAD_SEAT, f"first player must be a seat 0..{config.players - 1}")
    return GameState(
        config=config,
        seed=seed,
        deck=deck_t,
        removed=removed_t,
        first_player=first_player,
        taken=0,
        pot=0,
        chips=(config.chips,) * config.players,
        hands=((),) * config.players,
        to_move=first_player,
        moves=(),
    )


def refusal(
    action: Action, seat: int | None, *, players: int, to_move: int, mover_chips: int, finished: bool
) -> IllegalMove | None:
    """Why ``seat`` (None: the player to move) may not play ``action`` now, or None if it may: the move rules in one
    place, for ``apply`` and every view (``views.choices``). The first that applies wins: the end, the seat, the turn,
    then the chips (so a seat whose turn it is not learns nothing about the mover's chips)."""
    if finished:
        return IllegalMove(GAME_OVER, "the game is over: all 24 cards have been taken")
    if seat is not None:
        if not isinstance(seat, int) or not 0 <= seat < players:
            return IllegalMove(BAD_SEAT, f"no seat {seat!r} at this table")
        if seat != to_move:
            return IllegalMove(NOT_YOUR_TURN, f"it is seat {to_move}'s turn, not seat {seat}'s")
    if action is Action.PASS and mover_chips <= 0:
        return IllegalMove(NO_CHIPS, "you have no chips left, so you must take the card")
    return None


def _refusal(state: GameState, action: Action, seat: int | None) -> IllegalMove | None:
    return refusal(
        action,
        seat,
        players=state.config.players,
        to_move=state.to_move,
        mover_chips=state.chips[state.to_move],
        finished=state.taken >= CARDS_PLAYED,
    )


def legal_actions(state: GameState) -> tuple[Action, ...]:
    """What the player to move may do: nothing once the game is over, only take with no chips."""
    return tuple(action for action in Action if _refusal(state, action, None) is None)


def check(state: GameState, action: Action | str, seat: int | None = None) -> Action:
    """Raise ``IllegalMove`` unless ``seat`` (default: the player to move) may play ``action`` now."""
    parsed = Action.parse(action)
    refused = _refusal(state, parsed, seat)
    if refused is not None:
        raise refused
    return parsed


def apply(state: GameState, action: Action | str, seat: int | None = None) -> GameState:
    """The state after ``action``; raises ``IllegalMove`` (and changes nothing) if it is not legal."""
    parsed = check(state, action, seat)
    mover = state.to_move
    card = state.deck[state.taken]
    moves = state.moves + (Move(mover, parsed, card, state.pot),)
    chips = list(state.chips)
    if parsed is Action.PASS:
        chips[mover] -= 1
        next_seat = (mover + 1) % state.config.players
        return replace(state, pot=state.pot + 1, chips=tuple(chips), to_move=next_seat, moves=moves)
    chips[mover] += state.pot
    hands = list(state.hands)
    hands[mover] = tuple(sorted(hands[mover] + (card,)))
    # The taker flips the next card and decides again, so the turn stays with them.
    return replace(state, taken=state.taken + 1, pot=0, chips=tuple(chips), hands=tuple(hands), moves=moves)
