"""The link layer: all a client and a host share (events, the connection interfaces, the wire protocol, error
codes, names and chat lines cleaned the same way at every door). It imports only the engine; the client and the
host import it, never each other."""

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
