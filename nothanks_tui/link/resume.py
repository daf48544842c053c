"""Taking a seat back after its connection was lost: the one ladder a client (client/tcp.py) and a cluster's front
(cluster/gateway.py) both climb: try again, waiting a little longer each time up to a ceiling, until a deadline;
then ask for the seat back with what the host gave (its token, the SSH key of the hello, or the table to watch).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from .messages import ClientMessage, Resume, ResumeKey, Spectate

T = TypeVar("T")


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
