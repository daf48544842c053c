"""What a table says to one recipient, whatever carries it: the events and summaries of the link layer.

The client renders these and the host produces them; the wire codec (wire.py) turns them into msgpack maps and
back. They hold only what the recipient may know: a view is filtered for its seat before it becomes an event.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..defaults import DEFAULT_BOT
from ..engine import PlayerView


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Public facts about a seat: display name (untrusted text: never render as markup), bot or not, away."""

    name: str
    is_bot: bool = False
    away: bool = False
    empty: bool = False  # nobody sits here yet (only before the game starts)


@dataclass(frozen=True, slots=True)
class TableUpdate:
    """The table changed: the new view for this recipient, and who sits where."""

    view: PlayerView
    seats: tuple[SeatInfo, ...]
    table_id: str = ""
    can_restart: bool = False  # this recipient may start another game at this table once it is over


@dataclass(frozen=True, slots=True)
class Rejected:
    """The table refused an intent; ``code`` is the engine's (or host's) stable error code."""

    code: str
    message: str


@dataclass(frozen=True, slots=True)
class Closed:
    """The connection ended; ``reason`` is shown to the player."""

    reason: str


@dataclass(frozen=True, slots=True)
class TableWaiting:
    """Seats are still filling and no game runs yet (only tables from a host send this)."""

    table_id: str
    seats: tuple[SeatInfo, ...]
    my_seat: int | None  # None for a spectator
    can_start: bool  # this recipient may start the game now
    open_chips: bool = False
    variant: str = "standard"


@dataclass(frozen=True, slots=True)
class ChatLine:
    """Someone at the table said ``text`` (cleaned by the host; still drawn as plain text, never markup).
    ``seat`` is the speaker's seat, None for a spectator; ``name`` their name at the table."""

    name: str
    text: str
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class ChatHistory:
    """The table's recent chat, oldest first: sent to whoever sits down, watches or comes back."""

    lines: tuple[ChatLine, ...]


TableEvent = TableUpdate | TableWaiting | Rejected | Closed | ChatLine | ChatHistory


@dataclass(frozen=True, slots=True)
class TableSummary:
    """One line of a host's lobby."""

    table_id: str
    players: int
    seats: tuple[SeatInfo, ...]
    started: bool
    finished: bool
    open_chips: bool
    variant: str
    spectators: int = 0

    @property
    def free_seats(self) -> int:
        return sum(1 for seat in self.seats if seat.empty)


@dataclass(frozen=True, slots=True)
class NewTable:
    """What a player asks for when creating a table at a host."""

    players: int = 4
    bots: int = 0  # seats filled with bots right away
    bot: str = DEFAULT_BOT
    open_chips: bool = False
    variant: str = "standard"
