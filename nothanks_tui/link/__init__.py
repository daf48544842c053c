"""The link layer: everything a client and a host share, and nothing either does on its own: events (events.py),
the connection interfaces (connections.py), the wire protocol (wire.py, messages.py), error codes (errors.py), and
names and chat lines cleaned the same way at every door. It imports only the engine; the client and the host
import it, never each other.
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
