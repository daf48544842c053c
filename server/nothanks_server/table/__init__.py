"""A table of the host, in three parts: the authority (authority.py: seats, members, the game, the only place a
move is accepted), the bot driver (driver.py: who plays a seat no connected human plays, and when) and the
recorder (recorder.py: the log of comings and goings, the match, the finished games' records). seats.py holds
what they share: the settings, the chairs, the members. Callers use ``Table`` and these names only.
"""

from .authority import Table
from .seats import BOT_SEAT_NAMES, HostEvent, Member, Seat, TableSettings

__all__ = ["BOT_SEAT_NAMES", "HostEvent", "Member", "Seat", "Table", "TableSettings"]
