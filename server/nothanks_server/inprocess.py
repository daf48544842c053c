"""The link's connection interfaces on a ``Lobby`` or ``Table`` of this very process, with no socket between.

``nothanks host`` gives its own player an ``InProcessLobby``; ``nothanks play`` a seat at a table of its own
(``solo_table``: a seat with no lobby, whose game is dealt when the app starts reading and which closes the table
when it leaves); tests drive tables with them. Each request is the message a TCP client would send, handed as a
Struct (never bytes) to the host's own handler for it (tcp.py ``HostSide``): the same checks, events and refusals.

Local play is a host ``Table`` with one human seat, checked, paced and played exactly as at a network host. Only
the set-up differs: the table is nobody else's, a seed makes its deals reproducible, it closes when its player
leaves, and given a data dir (``records_dir``) its finished games are kept there (history.py ``LocalRecords``)."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from nothanks_tui.bots import Bot, make_bot
from nothanks_tui.defaults import BOT_PACE, DEFAULT_BOT, MIN_BOT_PACE, SOLO_BOTS_ROUND
from nothanks_tui.engine import IllegalMove
from nothanks_tui.i18n import N_
from nothanks_tui.link import ChatHistory, ChatLine, errors
from nothanks_tui.link import messages as m
from nothanks_tui.link.connections import ConnectionInfo, LobbyConnection, LobbyError, TableConnection
from nothanks_tui.link.events import Closed, CoachAdvice, NewTable, Rejected, TableEvent, TableSummary, TableWaiting
from nothanks_tui.link.history import HISTORY_PAGE, HistoryPage, PlayerStats, Rated
from nothanks_tui.link.names import BadName, clean_name
from nothanks_tui.link.wire import DailyRanking

from .history import LocalRecords
from .lobby import Lobby
from .store import StoreError
from .table import HostEvent, Table, TableSettings
from .tcp import HostSide

Result = TypeVar("Result")
SOLO_TABLE_ID = "local"


class InProcessTable(HostSide, TableConnection):
    """A seat (or a spectator's chair) at a ``Table`` of this process, and the table's ``Member``."""

    def __init__(
        self, name: str, info: ConnectionInfo | None = None, lobby: Lobby | None = None, owner: str | None = None
    ) -> None:
        self.name, self.owner = name, owner
        self.info = info or ConnectionInfo(description=N_("host"))
        self.solo = lobby is None  # a solo table's seat: nobody else is there to wait for, or to talk to
        if lobby is not None:
            self.lobby = lobby
        self._events: asyncio.Queue[HostEvent] = asyncio.Queue()
        self._closed = False
        self.begin()

    def deliver(self, event: HostEvent) -> None:
        if isinstance(event, Closed):
            self._at_no_table()
        elif self.solo and isinstance(event, TableWaiting):
            return  # a solo table has no waiting room: its game is dealt as soon as the app reads
        self._events.put_nowait(event)

    async def start(self) -> None:
        if self.table is None and not self._closed:
            raise RuntimeError("join a table through InProcessLobby first")
        if self.solo and self.table is not None and not self.table.started:
            self.table.start(None)

    async def next_event(self) -> TableEvent:
        if self._closed and self._events.empty():
            return Closed(N_("left the table"))
        return await self._events.get()

    async def ask_coach(self, state_id: int) -> CoachAdvice:
        _refusing(lambda: self.handle(m.Coach(state_id=state_id)))
        try:
            return await self._coaching  # type: ignore[misc]
        except IllegalMove as error:
            raise LobbyError(error.code, error.message) from None

    @property
    def seat_token(self) -> str | None:
        return self.token

    @property
    def can_chat(self) -> bool:
        return not self.solo

    async def game_record(self) -> dict[str, Any]:
        """The finished game at this table, as its record (the host's own code sees it all; the game is over)."""
        table = self.table
        if table is None or table.state is None:
            raise LobbyError(errors.NO_GAME, "no game at this table")
        if not table.state.finished:
            raise LobbyError(errors.NOT_FINISHED, "the game is still being played")
        return table.recorder.record(table.state, table.seats, table.started_at)

    async def close(self) -> None:
        if not self._closed:
            table, self._closed = self.table, True
            self.on_leave(m.Leave())
            self._events.put_nowait(Closed(N_("left the table")))
            if self.solo and table is not None:
                table.close(N_("you left the table"))

    async def send_intent(self, message: m.ClientMessage) -> None:
        """Its refusal comes back as a ``Rejected`` event, as a TCP client's ``error`` frame."""
        try:
            self.handle(message)
        except IllegalMove as error:
            self._events.put_nowait(Rejected(error.code, error.message))


class InProcessLobby(LobbyConnection):
    """A player's way into a ``Lobby`` of this process. ``name`` is cleaned here (``LobbyError`` bad_name); ``owner``:
    the key that claims it at ``start``, as a TCP hello's (``nothanks host``'s own player: the user's join key)."""

    def __init__(self, lobby: Lobby, name: str, info: ConnectionInfo | None = None, owner: str | None = None) -> None:
        self.lobby, self.raw_name, self.name, self.owner = lobby, name, "", owner
        self.info = info or ConnectionInfo(description=N_("host"))

    async def start(self) -> None:
        try:
            self.name = clean_name(self.raw_name)
            holder = self.owner and self.lobby.store.claim_name(self.name, self.owner)
        except BadName as error:
            raise LobbyError(errors.BAD_NAME, str(error)) from None
        except StoreError as error:
            raise LobbyError(errors.NOT_SAVED, f"the host cannot read or keep names now ({error})") from None
        if holder != self.owner:
            raise LobbyError(errors.NAME_TAKEN, f"another player's key owns the name {self.name!r} here")
        self.lobby.hear(self, True)  # the lobby's chat, as a joined client's (it keeps what is said meanwhile)

    can_chat = True  # (the interface says it with a property)

    async def send_chat(self, text: str) -> None:
        try:
            self.lobby.say(self, text)
        except IllegalMove as error:
            self.deliver(Rejected(error.code, error.message))

    def deliver(self, event: HostEvent) -> None:
        """The lobby's chat (a ``Member`` of its hearing)."""
        if self.on_chat is not None and isinstance(event, ChatLine | ChatHistory | Rejected):
            self.on_chat(event)

    async def list_tables(self) -> list[TableSummary]:
        return self.lobby.tables()

    async def create_table(self, settings: NewTable) -> TableConnection:
        return self._sit(m.CreateTable(**dataclasses.asdict(settings)))

    async def join(self, table_id: str, seat: int | None = None, code: str | None = None) -> TableConnection:
        return self._sit(m.Join(table=table_id, seat=seat, code=code))

    async def spectate(self, table_id: str, code: str | None = None) -> TableConnection:
        return self._sit(m.Spectate(table=table_id, code=code))

    async def resume(self, token: str) -> TableConnection:
        return self._sit(m.Resume(token=token))

    async def close(self) -> None:
        self.lobby.hear(self, False)

    async def list_games(self, offset: int = 0, limit: int = HISTORY_PAGE) -> HistoryPage:
        return _refusing(lambda: self.lobby.history(offset, limit))

    async def open_game(self, game_id: str) -> dict[str, Any]:
        return _refusing(lambda: self.lobby.game_record(game_id))

    async def player_stats(self) -> list[PlayerStats]:
        return _refusing(lambda: self.lobby.stats(self.owner))

    async def leaderboard(self) -> list[Rated]:
        return _refusing(self.lobby.leaderboard)

    async def daily(self) -> TableConnection:
        return self._sit(m.Daily())

    async def daily_ranking(self) -> DailyRanking:
        return msgspec.convert(_refusing(lambda: self.lobby.daily_ranking(self.name)), DailyRanking)

    def _sit(self, message: m.ClientMessage) -> InProcessTable:
        """A new member of this lobby, seated (or watching) by the host's handler of ``message``."""
        if not self.name:
            raise LobbyError(errors.HELLO_FIRST, "call start() first")
        member = InProcessTable(self.name, self.info, self.lobby, self.owner)
        _refusing(lambda: member.handle(message))
        return member


def _refusing(call: Callable[[], Result]) -> Result:
    """``call()``, with the host's refusal turned into the lobby interface's ``LobbyError``."""
    try:
        return call()
    except IllegalMove as error:
        raise LobbyError(error.code, error.message) from None


@dataclass(frozen=True)
class SoloGame:
    """A local table: the human in seat 0, bots of one kind in the others. ``seed`` replays the same deals."""

    players: int = 4
    bot: str = DEFAULT_BOT
    name: str = "you"
    seed: int | None = None
    open_chips: bool = False
    variant: str = "standard"
    bot_pace: float = BOT_PACE
    chips_per_player: int | None = None  # None: the rules' count
    bot_names: Sequence[str] | None = None  # the bots' seat names; default: ana, bo, cy... (never the human's)
    records_dir: Path | None = None  # where finished games are kept (the data dir); None: not kept
    coach: bool = True  # the player may ask what the hard bot would play (nobody else is there to mind)
    turn_clock: float | None = None  # seconds per move, then a bot plays it for the player (None: off)
    daily: bool = False  # the daily deal (commands/daily.py): played once, so never "play again"


def solo_bot_pace(pace: float, bots: int) -> float:
    """Each bot's wait at a local table of ``bots`` bots: ``pace``, shortened at big tables so that the bots between
    two of your turns take about ``SOLO_BOTS_ROUND`` in all, never below ``MIN_BOT_PACE`` (a move you can read)
    unless ``pace`` itself is lower (``--bot-pace 0``: at once)."""
    pace = max(0.0, pace)
    if bots <= 0 or pace * bots <= SOLO_BOTS_ROUND + 1e-9:
        return pace
    return min(pace, max(MIN_BOT_PACE, SOLO_BOTS_ROUND / bots))


def solo_table(game: SoloGame, bots: Sequence[Bot] | None = None) -> TableConnection:
    """A new solo table with the player seated, dealt when the connection starts; ``bots``: tests' scripted ones.
    Raises ``ValueError`` (a bad name or bot, a wrong number of bots) or ``IllegalMove`` (``bad_config``)."""
    name = clean_name(game.name)  # BadName is a ValueError
    if bots is None:
        bot_seeds = random.Random(game.seed)
        bots = [
            make_bot(game.bot, None if game.seed is None else bot_seeds.randrange(2**32))
            for _ in range(game.players - 1)
        ]
    if len(bots) != game.players - 1:
        raise ValueError(f"a table of {game.players} needs {game.players - 1} bots, got {len(bots)}")
    settings = TableSettings(
        players=game.players,
        open_chips=game.open_chips,
        variant=game.variant,
        bot_delay=solo_bot_pace(game.bot_pace, len(bots)),
        turn_timer=None,  # the only human is the one who left: nobody to play for
        turn_clock=game.turn_clock,
        default_bot=game.bot,
        chips_per_player=game.chips_per_player,
        coach=game.coach,
    )
    rng = None if game.seed is None else random.Random(game.seed)
    records = None if game.records_dir is None else LocalRecords(game.records_dir)
    table = Table("daily" if game.daily else SOLO_TABLE_ID, settings, rng=rng, records=records)  # (lobby.is_daily)
    seat = InProcessTable(name, ConnectionInfo(N_("local"), {"players": str(game.players)}))
    seat.seated(table, table.join(seat)[0], None)  # no token: leaving closes the table, nothing to resume
    table.seat_bots(bots, game.bot_names or ())  # (by default the table names them: ana, bo...)
    return seat
