"""What a table says to one recipient, whatever carries it: the link layer's events and summaries (wire.py
carries them). They hold only what the recipient may know: a view is filtered for its seat first."""

from __future__ import annotations

from dataclasses import dataclass

from ..defaults import DEFAULT_BOT
from ..engine import PlayerView
from .names import GUEST_MARK


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Public facts about a seat: display name (untrusted text: never render as markup), bot or not, away."""

    name: str
    is_bot: bool = False
    away: bool = False  # a player's seat whose player is not connected (dropped out, or left: see ``left``)
    empty: bool = False  # nobody sits here yet (before the game, or freed by a player who left a finished game)
    left: bool = False  # the player left on purpose: during the game (away too; a bot plays the seat until they
    # return), or after it (empty too: ``name`` is who sat here, and the seat is free for the next game)
    stand_in: bool = False  # a bot plays this player's seat now (they left, or were away too long)
    level: str = ""  # a bot's kind ("medium", "hard"): its seat is named like a person's ("ana", "bo")
    rating: int | None = None  # the host's shown rating of this player (a bot's: its level's, fixed)
    change: int | None = None  # what the game just over changed that rating by (people only)
    guest: bool = False  # a player with no key: shown after ``GUEST_MARK`` (``label``), left unrated

    @property
    def label(self) -> str:
        """The name as others see it: a guest's after ``GUEST_MARK`` (untrusted text, as ``name``)."""
        return GUEST_MARK + self.name if self.guest else self.name


# What happened to a seat during a game, as ``SeatEvent.kind`` (the client words them in its own language).
SEAT_LEFT = "left"  # the player left on purpose: a bot plays the seat at once, until they come back
SEAT_AWAY = "away"  # the player's connection dropped: the seat waits for them (the turn timer runs)
SEAT_STAND_IN = "stand_in"  # a bot now plays for the away player (their turn timer ran out, or the creator asked)
SEAT_BACK = "back"  # the player is back in their seat; they play it again themselves
SEAT_CLOCK = "clock"  # the present player's turn clock ran out: a bot played this one move for them
SEAT_EVENT_KINDS = frozenset({SEAT_LEFT, SEAT_AWAY, SEAT_STAND_IN, SEAT_BACK, SEAT_CLOCK})


@dataclass(frozen=True, slots=True)
class SeatEvent:
    """Something that happened to ``seat`` during the game, after ``at`` moves had been played (for the log)."""

    at: int
    seat: int
    kind: str


@dataclass(frozen=True, slots=True)
class MatchTotals:
    """A table's running match across "play again": finished games, per seat the games won (a shared win counts
    for each winner) and the sum of its final scores."""

    games: int
    wins: tuple[int, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TableUpdate:
    """The table changed: the new view for this recipient, and who sits where."""

    view: PlayerView
    seats: tuple[SeatInfo, ...]
    table_id: str = ""
    can_restart: bool = False  # this recipient may start another game at this table once it is over
    seat_events: tuple[SeatEvent, ...] = ()  # this game's comings and goings, oldest first
    bot_in: float | None = None  # seconds until a bot plays this turn (its player away, or out of time); None: never
    creator: bool = False  # this recipient created the table (may let a bot play for an away player)
    match: MatchTotals | None = None  # the games finished at this table so far (None: none yet)
    # Once the game is over (never before: chips may be hidden): every seat's score after each card taken.
    timeline: tuple[tuple[int, ...], ...] = ()
    coach: bool = False  # this table lets its players ask the coach (``TableConnection.ask_coach``)
    # Once the game is over: the seats whose players asked for another game (it is dealt when everyone here has).
    again: tuple[int, ...] = ()
    invite: str | None = None  # a private table's invite code (to its players only)


@dataclass(frozen=True, slots=True)
class CoachAdvice:
    """What the coach (``hard``, from the asking seat's view) would play in state ``state_id``, and the final score
    it expects for that seat after each choice (``pass_score`` None: passing is impossible)."""

    state_id: int
    action: str  # "take" or "pass"
    take_score: float
    pass_score: float | None


@dataclass(frozen=True, slots=True)
class Rejected:
    """The table refused an intent; ``code`` is the engine's (or host's) stable error code."""

    code: str
    message: str


@dataclass(frozen=True, slots=True)
class Closed:
    """The connection ended; ``reason`` is shown to the player."""

    reason: str


@dataclass(frozen=True, slots=True)
class TableWaiting:
    """Seats are still filling and no game runs yet (only tables from a host send this)."""

    table_id: str
    seats: tuple[SeatInfo, ...]
    my_seat: int | None  # None for a spectator
    can_start: bool  # this recipient may start the game now
    open_chips: bool = False
    variant: str = "standard"
    coach: bool = False  # the table lets its players ask the coach
    invite: str | None = None  # a private table's invite code (to its players only)
    removed_players: tuple[str, ...] = ()  # the players the creator removed before this deal


@dataclass(frozen=True, slots=True)
class ChatLine:
    """Someone at the table said ``text`` (plain text, never markup); ``seat`` None: a spectator. ``at``: the moves
    of this game played when it was said, ``events`` the seat events told by then (None: said before this game).
    ``lobby``: said in the host's lobby (at no table) instead."""

    name: str
    text: str
    seat: int | None = None
    at: int | None = None
    events: int = 0
    lobby: bool = False


@dataclass(frozen=True, slots=True)
class ChatHistory:
    """The table's recent chat, oldest first: sent to whoever sits down, watches or comes back."""

    lines: tuple[ChatLine, ...]


@dataclass(frozen=True, slots=True)
class TableMoving:
    """The table is moving to another server of a cluster: the seat is kept, the updates come back by themselves."""


TableEvent = TableUpdate | TableWaiting | Rejected | Closed | ChatLine | ChatHistory | TableMoving


@dataclass(frozen=True, slots=True)
class TableSummary:
    """One line of a host's lobby."""

    table_id: str
    players: int
    seats: tuple[SeatInfo, ...]
    started: bool
    finished: bool
    open_chips: bool
    variant: str
    spectators: int = 0
    coach: bool = False  # the table lets its players ask the coach
    turn_clock: int = 0  # seconds per move of a connected player, then a bot plays it (0: off)

    @property
    def free_seats(self) -> int:
        return sum(1 for seat in self.seats if seat.empty)


@dataclass(frozen=True, slots=True)
class NewTable:
    """What a player asks for when creating a table at a host."""

    players: int = 4
    bots: int = 0  # seats filled with bots right away
    bot: str = DEFAULT_BOT
    open_chips: bool = False
    variant: str = "standard"
    coach: bool = False  # players at the table may ask the coach what the hard bot would play
    turn_clock: int | None = None  # whole seconds per move, then a bot plays it (0: off; None: the host's default)
    private: bool = False  # not listed: its invite code lets players in
