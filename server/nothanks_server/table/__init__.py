"""A table of the host: the authority (authority.py: seats, members, the game, the only place a move is accepted),
the bot driver (driver.py), the recorder (recorder.py) and what they share (seats.py). Callers use these names."""

from .authority import Table, TableParts
from .seats import BOT_SEAT_NAMES, HostEvent, Member, Seat, TableSettings

__all__ = ["BOT_SEAT_NAMES", "HostEvent", "Member", "Seat", "Table", "TableParts", "TableSettings"]
