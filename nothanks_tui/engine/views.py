"""What one seat (or a spectator) may know about a game, and nothing more: never the deck order, the removed cards
or the seed; others' chips only with open chips. A view also says what its recipient may play now and why not the
rest (``legal``, ``refused``, from ``apply``'s own rule), so no client, bot or widget derives a move rule again."""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any

from .config import CARDS_REMOVED, GameConfig
from .errors import NOT_SEATED
from .scoring import take_cost
from .state import Action, GameState, Move, refusal


@dataclass(frozen=True, slots=True)
class PlayerView:
    """One recipient's picture of the table (``seat`` None: a spectator; ``chips[i]`` None: hidden). ``legal``: the
    actions it may play now; ``refused``: each other with the engine's refusal code. Both in ``Action`` order."""

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
    legal: tuple[Action, ...]
    refused: tuple[tuple[Action, str], ...]

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

    def refusal(self, action: Action) -> str | None:
        """The code the table would refuse ``action`` with now, or None when it is legal."""
        return dict(self.refused).get(action)

    def take_cost(self, seat: int | None = None) -> int | None:
        """Change in card points if ``seat`` (default: this seat) took the face-up card, chips not counted."""
        who = self.seat if seat is None else seat
        if who is None or self.card is None:
            return None
        return take_cost(self.hands[who], self.card)

    def to_dict(self, include_moves: bool = True) -> dict[str, Any]:
        """Plain data for the wire (``include_moves=False``: all but the move list), the fields in their order."""
        data: dict[str, Any] = {name: getattr(self, name) for name in _WIRE_FIELDS}
        data["hands"] = [list(hand) for hand in self.hands]
        data["chips"] = list(self.chips)
        data["legal"] = [action.value for action in self.legal]
        data["refused"] = {action.value: code for action, code in self.refused}
        if include_moves:
            data["moves"] = [[m.seat, m.action.value, m.card, m.pot] for m in self.moves]
        return data


_WIRE_FIELDS = tuple(field.name for field in fields(PlayerView) if field.name != "moves")  # (moves come last)
Choices = tuple[tuple[Action, ...], tuple[tuple[Action, str], ...]]


@lru_cache(maxsize=4096)  # a host builds a view per seat per move; the answers are few, and pure
def choices(seat: int | None, *, players: int, to_move: int, mover_chips: int, finished: bool) -> Choices:
    """(legal, refused) for a recipient: a spectator plays nothing (``not_seated``, as the host refuses it); a seat
    what ``state.refusal`` allows, with its code for the rest."""
    if seat is None:
        return (), tuple((action, NOT_SEATED) for action in Action)
    legal: list[Action] = []
    refused: list[tuple[Action, str]] = []
    for action in Action:
        why = refusal(action, seat, players=players, to_move=to_move, mover_chips=mover_chips, finished=finished)
        if why is None:
            legal.append(action)
        else:
            refused.append((action, why.code))
    return tuple(legal), tuple(refused)


def _view(state: GameState, seat: int | None) -> PlayerView:
    config: GameConfig = state.config
    finished = state.finished
    chips: tuple[int | None, ...] = state.chips  # (at the end every chip is counted in the open, as at a real table)
    if not config.open_chips and not finished:
        chips = tuple(c if i == seat else None for i, c in enumerate(state.chips))
    legal, refused = choices(
        seat, players=config.players, to_move=state.to_move, mover_chips=state.chips[state.to_move], finished=finished
    )
    return PlayerView(
        players=config.players,
        seat=seat,
        open_chips=config.open_chips,
        chips_per_player=config.chips,
        variant=config.variant,
        card=state.card,
        pot=state.pot,
        deck_left=state.deck_left,
        hands=state.hands,
        chips=chips,
        to_move=state.to_move,
        finished=finished,
        state_id=state.state_id,
        moves=state.moves,
        legal=legal,
        refused=refused,
    )


def view_for(state: GameState, seat: int) -> PlayerView:
    """What ``seat`` may know: its own chips, others' chips only with open chips, never the deck or seed."""
    if not isinstance(seat, int) or not 0 <= seat < state.config.players:
        raise ValueError(f"no seat {seat!r} at this table")
    return _view(state, seat)


def spectator_view(state: GameState) -> PlayerView:
    """What a watcher may know: no private chip counts (unless open chips), never the deck or seed."""
    return _view(state, None)
