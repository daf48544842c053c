"""The link layer: everything a client and a host share, and nothing either does on its own.

- events.py: what a table says to one recipient (``TableUpdate``, ``TableWaiting``, ``Rejected``, ``Closed``),
  lobby lines (``TableSummary``) and table requests (``NewTable``);
- connections.py: the ``TableConnection`` and ``LobbyConnection`` interfaces the client app talks to, which the
  host implements in-process and the client over TCP;
- wire.py: the msgpack codec and the schema of every message (docs/protocol.md);
- errors.py: the registry of every stable error code;
- names.py: what a player name is, cleaned the same way at every door;
- chat.py: what a chat line is (its limits), cleaned as names are.

It imports only the engine (and the shared defaults): the client and the host import it, never each other.
"""

from .connections import ConnectionInfo, LobbyConnection, LobbyError, TableConnection
from .events import (
    ChatHistory,
    ChatLine,
    Closed,
    CoachAdvice,
    MatchTotals,
    NewTable,
    Rejected,
    SeatEvent,
    SeatInfo,
    TableEvent,
    TableMoving,
    TableSummary,
    TableUpdate,
    TableWaiting,
)

__all__ = [
    "ChatHistory",
    "ChatLine",
    "Closed",
    "CoachAdvice",
    "ConnectionInfo",
    "LobbyConnection",
    "LobbyError",
    "MatchTotals",
    "NewTable",
    "Rejected",
    "SeatEvent",
    "SeatInfo",
    "TableConnection",
    "TableEvent",
    "TableMoving",
    "TableSummary",
    "TableUpdate",
    "TableWaiting",
]
