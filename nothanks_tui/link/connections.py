"""The interfaces between a client and a host: a seat at a table, and a host's lobby, whatever carries them.
The app sends intents through a ``TableConnection`` and renders the events that come back; the host implements
both in-process (``nothanks play``, ``nothanks host``'s own player), the client over TCP (``join``, SSH workers)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..engine import Action
from ..engine.errors import CodedError
from . import errors
from . import messages as m
from .events import ChatHistory, ChatLine, CoachAdvice, NewTable, Rejected, TableEvent, TableSummary
from .history import HistorySource
from .wire import DailyRanking


class LobbyError(CodedError):
    """The host refused a lobby request (``code`` is the host's stable error code; ``free_name``: ``name_taken``'s
    offer)."""

    def __init__(self, code: str, message: str, free_name: str = "") -> None:
        super().__init__(code, message)
        self.free_name = free_name


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

    async def send_intent(self, message: m.ClientMessage) -> None:
        """Send one of the intents below as its protocol message; a refusal comes back as a ``Rejected`` event."""
        raise NotImplementedError

    async def send_action(self, action: Action, state_id: int) -> None:
        """Ask to play ``action`` in the state numbered ``state_id`` (a stale id is refused, not replayed)."""
        await self.send_intent(m.Act(action=Action(action).value, state_id=state_id))

    async def play_again(self) -> None:
        """Ask for a new game at the same table once this one is over."""
        await self.send_intent(m.PlayAgain())

    @abstractmethod
    async def close(self) -> None:
        """Leave the table on purpose (during a game a bot plays the seat until we come back); safe to call twice."""

    # Host tables only (a local table starts at once and has no empty seats).
    async def start_game(self) -> None:
        """Start the game (the table's creator, once every seat is filled)."""
        await self.send_intent(m.Start())

    async def add_bot(self, bot: str | None = None) -> None:
        """Fill the next empty seat with a bot (``None``: the host's default bot)."""
        await self.send_intent(m.AddBot(bot=bot))

    async def remove(self, seat: int) -> None:
        """Free ``seat`` before the deal: its bot, or its player, goes (the table's creator)."""
        await self.send_intent(m.Remove(seat=seat))

    async def stand_in_for(self, seat: int) -> None:
        """Let a bot play for the away player in ``seat`` until they come back (the table's creator, in a game)."""
        await self.send_intent(m.StandIn(seat=seat))

    async def ask_coach(self, state_id: int) -> CoachAdvice:
        """What the coach would play for this seat in state ``state_id``; ``LobbyError`` if refused (``coach_off``)."""
        raise LobbyError(errors.COACH_OFF, "this table has no coach")

    @property
    def seat_token(self) -> str | None:
        """The secret that resumes this seat after a disconnect (None: not seated, or not a host table)."""
        return None

    @property
    def seat_kept(self) -> bool:
        """Whether the host keeps this seat for the player who leaves it (a token, or an SSH key it is bound to)."""
        return self.seat_token is not None

    async def game_record(self) -> dict[str, Any]:
        """This table's latest finished game's record; ``LobbyError`` (``not_finished``; ``no_game``: none kept)."""
        raise LobbyError(errors.NO_GAME, "this table keeps no records")

    # Chat (tables at a host that speaks it; a local table against bots has nobody to talk to).
    @property
    def can_chat(self) -> bool:
        """Lines sent with ``send_chat`` reach the others at this table (``ChatLine`` events come back)."""
        return False

    async def send_chat(self, text: str) -> None:
        """Say ``text`` to everyone at the table; a refusal comes back as a ``Rejected`` event."""
        await self.send_intent(m.Chat(text=text))


class LobbyConnection(HistorySource):
    """A host's lobby: list, create, join and watch tables; also its history and daily deal."""

    info: ConnectionInfo
    on_chat: Callable[[ChatLine | ChatHistory | Rejected], None] | None = None  # the lobby's chat, while at no table

    @abstractmethod
    async def start(self) -> None:
        """Connect and introduce ourselves; raises ``LobbyError`` if the host refuses."""

    @property
    def can_chat(self) -> bool:
        """Lines sent with ``send_chat`` reach everyone at no table at this host (they come back to ``on_chat``)."""
        return False

    async def send_chat(self, text: str) -> None:
        """Say ``text`` to everyone in the lobby; a refusal comes back to ``on_chat`` as a ``Rejected``."""

    @abstractmethod
    async def list_tables(self) -> list[TableSummary]:
        """The host's tables now."""

    @abstractmethod
    async def create_table(self, settings: NewTable) -> TableConnection:
        """Create a table and sit at it as its creator (who adds bots and starts the game)."""

    @abstractmethod
    async def join(self, table_id: str, seat: int | None = None, code: str | None = None) -> TableConnection:
        """Sit at a table (``seat`` None: the first free one; ``code``: a private table's invite code). Raises
        ``LobbyError``."""

    @abstractmethod
    async def spectate(self, table_id: str, code: str | None = None) -> TableConnection:
        """Watch a table without a seat."""

    @abstractmethod
    async def resume(self, token: str) -> TableConnection:
        """Take back the seat a token was given for. Raises ``LobbyError`` (code ``bad_token``)."""

    @abstractmethod
    async def close(self) -> None:
        """Disconnect; safe to call twice."""

    @abstractmethod
    async def daily(self) -> TableConnection:
        """Play today's daily deal at a table of your own (``daily_played`` if you have)."""

    @abstractmethod
    async def daily_ranking(self) -> DailyRanking:
        """Today's ranking of the daily deal, with your own line."""
