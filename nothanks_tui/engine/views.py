"""What one seat (or a spectator) may know about a game, and nothing more.

A view never holds the deck order, the removed cards or the seed, and holds other players' chip counts only
when the table plays with open chips. Bots and clients see the game only through views.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .config import CARDS_PLAYED, CARDS_REMOVED, GameConfig
from .scoring import take_cost
from .state import Action, GameState, Move


@dataclass(frozen=True, slots=True)
class PlayerView:
    """One recipient's picture of the table. ``seat`` is None for a spectator.

    ``chips[i]`` is None where seat i's chips are hidden from this recipient.
    """

    players: int
    seat: int | None
    open_chips: bool
    chips_per_player: int
    variant: str
    card: int | None  # face-up card, None when the game is over
    pot: int  # chips on the face-up card
    deck_left: int  # cards still face down, the face-up card not counted
    hands: tuple[tuple[int, ...], ...]
    chips: tuple[int | None, ...]
    to_move: int
    finished: bool
    state_id: int
    moves: tuple[Move, ...]

    @property
    def my_chips(self) -> int | None:
        return None if self.seat is None else self.chips[self.seat]

    @property
    def my_hand(self) -> tuple[int, ...]:
        return () if self.seat is None else self.hands[self.seat]

    @property
    def my_turn(self) -> bool:
        return not self.finished and self.seat == self.to_move

    @property
    def removed_count(self) -> int:
        return CARDS_REMOVED

    def legal_actions(self) -> tuple[Action, ...]:
        """What this seat may do now (empty when it is not its turn)."""
        if not self.my_turn:
            return ()
        return (Action.TAKE, Action.PASS) if (self.my_chips or 0) > 0 else (Action.TAKE,)

    def unseen_cards(self) -> tuple[int, ...]:
        """Cards this recipient has not seen: still in the deck or among the 9 removed."""
        seen = {card for hand in self.hands for card in hand}
        if self.card is not None:
            seen.add(self.card)
        return tuple(card for card in range(3, 36) if card not in seen)

    def take_cost(self, seat: int | None = None) -> int | None:
        """Change in card points if ``seat`` (default: this seat) took the face-up card, chips not counted."""
        who = self.seat if seat is None else seat
        if who is None or self.card is None:
            return None
        return take_cost(self.hands[who], self.card)

    def to_dict(self, include_moves: bool = True) -> dict[str, Any]:
        """Plain data for the wire (msgpack) or JSON (``include_moves=False``: all but the move list)."""
        data = {
            "players": self.players,
            "seat": self.seat,
            "open_chips": self.open_chips,
            "chips_per_player": self.chips_per_player,
            "variant": self.variant,
            "card": self.card,
            "pot": self.pot,
            "deck_left": self.deck_left,
            "hands": [list(hand) for hand in self.hands],
            "chips": list(self.chips),
            "to_move": self.to_move,
            "finished": self.finished,
            "state_id": self.state_id,
        }
        if include_moves:
            data["moves"] = [[m.seat, m.action.value, m.card, m.pot] for m in self.moves]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PlayerView:
        """Inverse of ``to_dict``. Raises ValueError/TypeError/KeyError on malformed data."""
        moves = tuple(Move(int(s), Action(a), int(c), int(p)) for s, a, c, p in data["moves"])
        seat = data["seat"]
        return cls(
            players=int(data["players"]),
            seat=None if seat is None else int(seat),
            open_chips=bool(data["open_chips"]),
            chips_per_player=int(data["chips_per_player"]),
            variant=str(data["variant"]),
            card=None if data["card"] is None else int(data["card"]),
            pot=int(data["pot"]),
            deck_left=int(data["deck_left"]),
            hands=tuple(tuple(int(c) for c in hand) for hand in data["hands"]),
            chips=tuple(None if c is None else int(c) for c in data["chips"]),
            to_move=int(data["to_move"]),
            finished=bool(data["finished"]),
            state_id=int(data["state_id"]),
            moves=moves,
        )


def _view(state: GameState, seat: int | None) -> PlayerView:
    config: GameConfig = state.config
    finished = state.taken >= CARDS_PLAYED
    if config.open_chips or finished:
        # At the end every chip is counted in the open, as at a real table.
        chips: tuple[int | None, ...] = state.chips
    else:
        chips = tuple(c if i == seat else None for i, c in enumerate(state.chips))
    return PlayerView(
        players=config.players,
        seat=seat,
        open_chips=config.open_chips,
        chips_per_player=config.chips,
        variant=config.variant,
        card=None if finished else state.deck[state.taken],
        pot=state.pot,
        deck_left=max(0, CARDS_PLAYED - state.taken - 1),
        hands=state.hands,
        chips=chips,
        to_move=state.to_move,
        finished=finished,
        state_id=len(state.moves),
        moves=state.moves,
    )


def view_for(state: GameState, seat: int) -> PlayerView:
    """What ``seat`` may know: its own chips, others' chips only with open chips, never the deck or seed."""
    if not isinstance(seat, int) or not 0 <= seat < state.config.players:
        raise ValueError(f"no seat {seat!r} at this table")
    return _view(state, seat)


def spectator_view(state: GameState) -> PlayerView:
    """What a watcher may know: no private chip counts (unless open chips), never the deck or seed."""
    return _view(state, None)
