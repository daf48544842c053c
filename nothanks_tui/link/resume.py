"""Taking a seat back after its connection was lost: the one ladder a client (client/tcp.py) and a cluster's front
(cluster/gateway.py) both climb: try again, waiting a little longer each time up to a ceiling, until a deadline;
then ask for the seat back with what the host gave (its token, the SSH key of the hello, or the table to watch).
Then both send again the last move whose outcome they did not see (``LastMove``): it may have been lost with
the connection, and a copy of a move that was played is refused by its ``state_id``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from . import errors
from .messages import MAX_ID, Act, ClientMessage, Resume, ResumeKey, Spectate, with_id

T = TypeVar("T")

# The id of a move sent again after a seat was taken back. Its refusal (``stale_state``: it was played before the
# connection was lost, or the game went on) is the sender's own business, never shown (a client's ids stay lower).
RESENT_MOVE_ID = MAX_ID


class LastMove:
    """The last move sent whose outcome was not seen yet: no update since that moved the game on, no ``not_saved``.
    A move refused ``not_saved`` is never sent again: the player may choose another."""

    def __init__(self) -> None:
        self.move: Act | None = None

    def heard(self, frame: dict[str, object]) -> None:
        """A frame from the host: an update past the move's state, a ``waiting`` room or the move's ``not_saved``
        settle it."""
        kind, view = frame.get("type"), frame.get("view")
        if self.move is None:
            return
        if kind == "waiting" or (kind == "error" and frame.get("code") == errors.NOT_SAVED and "re" not in frame):
            self.move = None
        elif kind == "update" and (not isinstance(view, dict) or view.get("state_id") != self.move.state_id):
            self.move = None

    def again(self) -> Act | None:
        """The move to send again once the seat is back (once), with ``RESENT_MOVE_ID``; None if there is none."""
        move, self.move = self.move, None
        return None if move is None else with_id(move, RESENT_MOVE_ID)  # type: ignore[return-value]


@dataclass(frozen=True)
class SeatRoute:
    """Where a connection sits (or watches), as the host's ``joined`` said, and how to ask for it back."""

    table_id: str
    seat: int | None = None
    token: str | None = None
    by_key: bool = False  # the seat is bound to the SSH key of the hello (``resume_key``)

    @classmethod
    def of_joined(cls, joined: dict[str, object], by_key: bool) -> SeatRoute | None:
        """The route a ``joined`` reply gives (None if it names no table)."""
        table, seat, token = joined.get("table"), joined.get("seat"), joined.get("token")
        if not isinstance(table, str):
            return None
        seat = seat if isinstance(seat, int) and not isinstance(seat, bool) else None
        return cls(table, seat, token if isinstance(token, str) else None, by_key and seat is not None)

    def request(self) -> ClientMessage | None:
        """What takes the place back: the token, else the key's seat, else watching the table again."""
        if self.token is not None:
            return Resume(token=self.token)
        if self.seat is not None and self.by_key:
            return ResumeKey()
        if self.table_id:
            return Spectate(table=self.table_id)
        return None


async def climb(attempt: Callable[[], Awaitable[T | None]], *, within: float, first: float, most: float) -> T | None:
    """``attempt()`` until it gives something (not None), pausing ``first`` seconds after the first try and twice
    as long after each next one, ``most`` at most; None once ``within`` seconds would pass before the next try."""
    loop = asyncio.get_running_loop()
    deadline, pause = loop.time() + within, first
    while True:
        found = await attempt()
        if found is not None:
            return found
        if loop.time() + pause > deadline:
            return None
        await asyncio.sleep(pause)  # what we wait for happens elsewhere, with no event to wait on here
        pause = min(most, pause * 2)
