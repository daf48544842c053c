"""What a table is made of beside its game: its settings, its chairs, who may sit at it (a ``Member``), and the
names a seat gets. The authority, the bot driver and the recorder read these; only the authority changes them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from nothanks_tui.bots import Bot
from nothanks_tui.defaults import BOT_PACE, BOT_PACE_SPREAD, DEFAULT_BOT, TURN_CLOCK, TURN_TIMER
from nothanks_tui.engine import GameConfig
from nothanks_tui.link import ChatHistory, ChatLine, Closed, Rejected, SeatInfo, TableUpdate, TableWaiting

from ..ratings import bot_rating
from ..store import StoredSeat

HostEvent = TableUpdate | TableWaiting | Rejected | Closed | ChatLine | ChatHistory
BOT_SEAT_NAMES = ("ana", "bo", "cy", "dee", "eli", "fay", "gus", "hal")  # bots' names, at a host as locally


class Member(Protocol):
    """Someone at a table (a player's connection or a spectator's). ``deliver`` must not block."""

    name: str  # (and ``guest``, if true: no key vouches for the name)

    def deliver(self, event: HostEvent) -> None: ...


@dataclass(frozen=True)
class TableSettings:
    """How a table is set up and paced. ``bot_delay``: seconds a bot waits before moving, give or take
    ``bot_delay_spread`` of it (tables started together would otherwise move in step, every screen redrawn in the
    same instant). ``turn_timer``: seconds an away player's turn waits before a stand-in bot plays (None: forever);
    ``turn_clock``: a present player's, before the stand-in bot plays that one move (None: off)."""

    players: int = 4
    open_chips: bool = False
    variant: str = "standard"
    bot_delay: float = BOT_PACE
    bot_delay_spread: float = BOT_PACE_SPREAD
    turn_timer: float | None = TURN_TIMER
    turn_clock: float | None = TURN_CLOCK
    default_bot: str = DEFAULT_BOT
    chips_per_player: int | None = None  # None: the rules' count for the number of players (tests deal fewer)
    coach: bool = False  # players may ask what the hard bot would play in their place (local tables: yes)

    def config(self) -> GameConfig:
        return GameConfig(self.players, self.chips_per_player, self.open_chips, self.variant)


@dataclass
class Seat:
    """One chair: empty, a bot, or a human (present or away) holding a resume token (its SHA-256 digest only)."""

    name: str | None = None
    bot: Bot | None = None
    token_hash: bytes | None = None
    member: Member | None = None
    stand_in: Bot | None = None  # plays for an away human: they left, their turn timer ran out, or the creator asked
    left: bool = False  # the human left this game on purpose (a stand-in plays at once until they come back)
    former: str | None = None  # an empty seat's last player, who left the finished game (shown until the next)
    bot_kind: str | None = None  # the registry name a restored table makes this bot from again
    bot_seed: int | None = None
    rating: int | None = None  # a person's shown rating at this host (ratings.py; a bot's is its level's)
    change: int | None = None  # ...and what the game just over changed it by
    guest: bool = False  # its player has no key

    @property
    def empty(self) -> bool:
        return self.name is None

    @property
    def human(self) -> bool:
        return self.name is not None and self.bot is None

    @property
    def away(self) -> bool:
        return self.human and self.member is None

    @property
    def present(self) -> bool:  # a player at the table now
        return self.human and self.member is not None

    @property
    def player(self) -> Bot | None:
        """The bot that plays this seat now (its own, or a stand-in for its away player), if any."""
        return self.bot or self.stand_in

    def info(self) -> SeatInfo:
        if self.name is None:
            return SeatInfo(name=self.former or "", empty=True, left=self.former is not None)
        level = (self.bot_kind or self.bot.name) if self.bot is not None else ""
        return SeatInfo(
            name=self.name,
            is_bot=self.bot is not None,
            level=level,
            rating=bot_rating(level) if level else self.rating,
            change=self.change,
            away=self.away,
            left=self.left and self.away,
            stand_in=self.stand_in is not None,
            guest=self.guest,
        )

    def stored(self) -> StoredSeat | None:
        if self.name is None:
            return None
        if self.bot is not None:
            return StoredSeat(self.name, bot_kind=self.bot_kind or self.bot.name, bot_seed=self.bot_seed)
        stand_in = self.stand_in is not None
        return StoredSeat(self.name, token_hash=self.token_hash, stand_in=stand_in, left=self.left, guest=self.guest)


def unique_name(seats: Sequence[Seat], name: str) -> str:
    """``name``, or ``name 2``, ``name 3``...: two seats at one table never look alike (case aside)."""
    taken = {seat.name.casefold() for seat in seats if seat.name is not None}
    if name.casefold() not in taken:
        return name
    for n in range(2, len(seats) + 2):
        label = f"{name[:17]} {n}"
        if label.casefold() not in taken:
            return label
    return name


def bot_name(seats: Sequence[Seat]) -> str:
    """A new bot's name: the first of ``BOT_SEAT_NAMES`` nobody at the table has (a player called "Ana" keeps
    theirs), as a local table names its bots; the seat info says it is a bot, not its kind ("medium 2")."""
    taken = {seat.name.casefold() for seat in seats if seat.name is not None}
    return next((name for name in BOT_SEAT_NAMES if name not in taken), None) or unique_name(seats, "bot")
