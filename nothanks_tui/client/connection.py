"""The one interface between the Textual client and a table, whatever carries it.

The app never touches the engine: it sends intents through a ``TableConnection`` and renders the events that
come back. Local play uses an in-process connection (engine and bots in this process); ``nothanks join`` a TCP
connection to a host; an SSH session an in-process connection to the host's table. Build the UI once.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from ..engine import Action, PlayerView


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Public facts about a seat: display name (untrusted text: never render as markup), bot or not, away."""

    name: str
    is_bot: bool = False
    away: bool = False


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


TableEvent = TableUpdate | Rejected | Closed


@dataclass
class ConnectionInfo:
    """How the client got here, for the title bar."""

    description: str = "local"
    extras: dict[str, str] = field(default_factory=dict)


class TableConnection(ABC):
    """A seat (or a spectator's chair) at one table."""

    info: ConnectionInfo

    @abstractmethod
    async def start(self) -> None:
        """Open the connection; the first ``TableUpdate`` follows on ``next_event``."""

    @abstractmethod
    async def next_event(self) -> TableEvent:
        """Wait for the next event. After a ``Closed`` event no more come."""

    @abstractmethod
    async def send_action(self, action: Action, state_id: int) -> None:
        """Ask to play ``action`` in the state numbered ``state_id`` (a stale id is refused, not replayed)."""

    @abstractmethod
    async def play_again(self) -> None:
        """Ask for a new game at the same table once this one is over."""

    @abstractmethod
    async def close(self) -> None:
        """Leave the table; safe to call twice."""
