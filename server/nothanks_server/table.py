"""One table: the single authority over its seats and its game. Every transport talks to this object.

A member (a TCP connection, an in-process connection, a test) joins a seat or watches. Every intent goes
through ``submit``, which checks it with the engine and refuses a stale ``state_id``. After every change each
member gets, through ``Member.deliver``, the view filtered for its seat at that moment (never the deck, the
removed cards, the seed, or hidden chip counts). Bots and stand-ins for away players move from tasks on the
event loop, their ``choose`` running in a worker thread so a slow search bot never stalls the host.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import random
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from nothanks_tui.bots import Bot, make_bot
from nothanks_tui.defaults import BOT_PACE, BOT_PACE_SPREAD, DEFAULT_BOT, TURN_TIMER
from nothanks_tui.engine import Action, GameConfig, GameState, IllegalMove, apply, new_game, to_record
from nothanks_tui.engine import spectator_view as engine_spectator_view
from nothanks_tui.engine import view_for as engine_view_for
from nothanks_tui.link import (
    Closed,
    Rejected,
    SeatInfo,
    TableSummary,
    TableUpdate,
    TableWaiting,
    errors,
)

from .errors import HostError
from .storage import RecordStore

log = logging.getLogger(__name__)

HostEvent = TableUpdate | TableWaiting | Rejected | Closed


class Member(Protocol):
    """Someone at a table (a player's connection or a spectator's). ``deliver`` must not block."""

    name: str

    def deliver(self, event: HostEvent) -> None: ...


@dataclass(frozen=True)
class TableSettings:
    """How a table is set up and paced. ``bot_delay``: seconds a bot waits before moving (0 in tests), give or
    take ``bot_delay_spread`` of it at random: bots that always answered in exactly the same time would keep
    tables that started together (a full house arriving at once) moving in step for the whole game, every table's
    screens redrawn in the same instant on the host; a little spread lets them drift apart.

    ``turn_timer``: seconds an away player's turn waits before a stand-in bot plays for them (until they
    come back); None waits forever.
    """

    players: int = 4
    open_chips: bool = False
    variant: str = "standard"
    bot_delay: float = BOT_PACE
    bot_delay_spread: float = BOT_PACE_SPREAD
    turn_timer: float | None = TURN_TIMER
    default_bot: str = DEFAULT_BOT
    chips_per_player: int | None = None  # None: the rules' count for the number of players (tests deal fewer)

    def config(self) -> GameConfig:
        return GameConfig(
            players=self.players,
            open_chips=self.open_chips,
            variant=self.variant,
            chips_per_player=self.chips_per_player,
        )


@dataclass
class Seat:
    """One chair: empty, a bot, or a human (present or away) holding a resume token."""

    name: str | None = None
    bot: Bot | None = None
    token: str | None = None
    member: Member | None = None
    stand_in: Bot | None = None  # plays for an away human once their turn timer ran out

    @property
    def empty(self) -> bool:
        return self.name is None

    @property
    def human(self) -> bool:
        return self.name is not None and self.bot is None

    @property
    def away(self) -> bool:
        return self.human and self.member is None

    def info(self) -> SeatInfo:
        if self.name is None:
            return SeatInfo(name="", empty=True)
        return SeatInfo(name=self.name, is_bot=self.bot is not None, away=self.away)


@dataclass
class _Game:
    state: GameState
    started_at: float = field(default_factory=time.time)


class Table:
    """Seats, members and one game. All methods run on the event loop; refusals raise ``HostError``/``IllegalMove``."""

    def __init__(
        self,
        table_id: str,
        settings: TableSettings,
        *,
        store: RecordStore | None = None,
        rng: random.Random | None = None,
        on_idle: Callable[[Table], None] | None = None,
        on_summary: Callable[[Table], None] | None = None,
    ) -> None:
        self.table_id = table_id
        self.settings = settings
        self.config = settings.config()  # validates players/variant (IllegalMove bad_config)
        self.seats = [Seat() for _ in range(self.config.players)]
        self.members: dict[Member, int | None] = {}  # member -> seat, None for a spectator
        self.creator: Member | None = None
        self.game: _Game | None = None
        self.games_played = 0
        self.closed = False
        self._store = store
        self._rng = rng
        self._on_idle = on_idle
        self._on_summary = on_summary  # told when the lobby's line for this table changes
        self._summary: TableSummary | None = None
        self.created_at = time.monotonic()
        self._driver: asyncio.Task[None] | None = None
        self._driver_key: tuple[int, int, bool] | None = None
        self._pace = random.Random()  # bots' thinking times only: nothing about the deal (see bot_wait)

    # ----------------------------------------------------------------- lobby-facing facts

    @property
    def started(self) -> bool:
        return self.game is not None

    @property
    def finished(self) -> bool:
        return self.game is not None and self.game.state.finished

    @property
    def state(self) -> GameState | None:
        return None if self.game is None else self.game.state

    def summary(self) -> TableSummary:
        return TableSummary(
            table_id=self.table_id,
            players=self.config.players,
            seats=tuple(seat.info() for seat in self.seats),
            started=self.started,
            finished=self.finished,
            open_chips=self.config.open_chips,
            variant=self.config.variant,
            spectators=sum(1 for seat in self.members.values() if seat is None),
        )

    def has_token(self, token: str) -> bool:
        return any(_same_token(seat.token, token) for seat in self.seats)

    # ----------------------------------------------------------------- joining and leaving

    def join(self, member: Member, seat: int | None = None) -> tuple[int, str]:
        """Seat ``member`` (at ``seat`` or the first free one); returns (seat, resume token)."""
        self._check_open()
        if member in self.members:
            raise HostError(errors.ALREADY_AT_TABLE, "you are already at this table")
        if self.started:
            raise HostError(errors.ALREADY_STARTED, "this game has started: watch it, or pick another table")
        if seat is None:
            free = [i for i, s in enumerate(self.seats) if s.empty]
            if not free:
                raise HostError(errors.TABLE_FULL, "every seat at this table is taken")
            seat = free[0]
        elif not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            raise HostError(errors.BAD_FIELD, f"seat must be 0..{len(self.seats) - 1}")
        elif not self.seats[seat].empty:
            raise HostError(errors.SEAT_TAKEN, f"seat {seat} is taken")
        token = secrets.token_urlsafe(18)
        self.seats[seat] = Seat(name=member.name, token=token, member=member)
        self.members[member] = seat
        if self.creator is None or self.creator not in self.members:
            self.creator = member
        self._broadcast()
        return seat, token

    def spectate(self, member: Member) -> None:
        self._check_open()
        if member in self.members:
            raise HostError(errors.ALREADY_AT_TABLE, "you are already at this table")
        self.members[member] = None
        # Nothing the others see changes when someone watches: only the newcomer hears, and the lobby's line.
        self._deliver(member, self.update_for(None, member))
        self._summary_changed()

    def resume(self, token: str, member: Member) -> int:
        """Give the seat holding ``token`` back to ``member`` (a reconnect); returns the seat."""
        self._check_open()
        index = next(
            (i for i, s in enumerate(self.seats) if _same_token(s.token, token)),
            None,
        )
        if index is None:
            raise HostError(errors.BAD_TOKEN, "no seat holds this token")
        seat = self.seats[index]
        old = seat.member
        if old is not None and old is not member:
            # A half-open connection still holds the seat: the newest one wins.
            self.members.pop(old, None)
            old.deliver(Closed("this seat was resumed from another connection"))
        if member in self.members and self.members[member] != index:
            raise HostError(errors.ALREADY_AT_TABLE, "leave your other place at this table first")
        seat.member = member
        seat.stand_in = None
        self.members[member] = index
        self._broadcast()
        self._drive()
        return index

    def leave(self, member: Member) -> None:
        """``member`` leaves (or dropped). Before the game its seat frees up; during it the seat waits, away."""
        if member not in self.members:
            return
        index = self.members.pop(member)
        if index is not None:
            seat = self.seats[index]
            if not self.started:
                self.seats[index] = Seat()
            elif seat.member is member:
                seat.member = None
        if self.creator is member:
            self.creator = next((m for m, s in self.members.items() if s is not None), None)
        if self.closed:
            return
        if index is None:
            self._summary_changed()  # a spectator left: nothing the others see changed
        else:
            self._broadcast()
        self._drive()
        self._check_idle()

    def add_bot(self, member: Member, bot_name: str | None = None, seat: int | None = None) -> int:
        """Fill an empty seat with a bot (the creator, before the game starts); returns the seat."""
        self._check_open()
        self._check_creator(member)
        if self.started:
            raise HostError(errors.ALREADY_STARTED, "bots join before the game starts")
        name = bot_name or self.settings.default_bot
        free = [i for i, s in enumerate(self.seats) if s.empty]
        if seat is None:
            if not free:
                raise HostError(errors.TABLE_FULL, "every seat at this table is taken")
            seat = free[0]
        elif seat not in free:
            raise HostError(errors.SEAT_TAKEN, f"seat {seat} is not free")
        self.seats[seat] = Seat(name=self._bot_label(name), bot=self._make_bot(name))
        self._broadcast()
        return seat

    def add_bots(self, count: int, bot_name: str | None = None, labels: Sequence[str] = ()) -> None:
        """Fill up to ``count`` empty seats with bots (host set-up, no creator check). ``labels`` names them in
        order (a local table's "ana", "bo"...); without one a bot is called by its kind ("rules", "rules 2")."""
        name = bot_name or self.settings.default_bot
        free = sum(1 for seat in self.seats if seat.empty)
        self.seat_bots([self._make_bot(name) for _ in range(min(count, free))], labels, kind=name)

    def seat_bots(self, bots: Sequence[Bot], labels: Sequence[str] = (), kind: str | None = None) -> None:
        """Put these bots in the empty seats, in order (host set-up: a local table, a test's scripted bot)."""
        free = [index for index, seat in enumerate(self.seats) if seat.empty]
        if len(bots) > len(free):
            raise HostError(errors.TABLE_FULL, f"{len(bots)} bots for {len(free)} free seats")
        for number, (index, bot) in enumerate(zip(free, bots)):
            label = labels[number] if number < len(labels) else self._bot_label(kind or bot.name)
            self.seats[index] = Seat(name=label, bot=bot)
        self._broadcast()

    # ----------------------------------------------------------------- the game

    def start(self, member: Member | None) -> None:
        """Deal and start (the creator; ``None`` for the host itself). Every seat must be filled."""
        self._check_open()
        if member is not None:
            self._check_creator(member)
        if self.started:
            raise HostError(errors.ALREADY_STARTED, "the game has already started")
        if any(seat.empty for seat in self.seats):
            raise HostError(errors.SEATS_EMPTY, "fill every seat (players or bots) before starting")
        self._deal()

    def play_again(self, member: Member) -> None:
        """A seated player starts a new game at the same seats once this one is over."""
        self._check_open()
        if self.members.get(member) is None:
            raise HostError(errors.NOT_SEATED, "only players at this table can start another game")
        if not self.finished:
            raise HostError(errors.NOT_FINISHED, "this game is not over yet")
        self._deal()

    def submit(self, member: Member, action: Action | str, state_id: int) -> None:
        """Play ``action`` for ``member``'s seat in state ``state_id``; refusals raise with a stable code."""
        self._check_open()
        seat = self.members.get(member)
        if seat is None:
            raise HostError(errors.NOT_SEATED, "spectators cannot play")
        if self.game is None:
            raise HostError(errors.NOT_STARTED, "the game has not started yet")
        state = self.game.state
        if state_id != state.state_id:
            raise HostError(
                errors.STALE_STATE,
                f"the table moved on before that key press arrived; nothing was played (state {state_id}, "
                f"now {state.state_id})",
            )
        self._apply(apply(state, action, seat))

    def close(self, reason: str) -> None:
        """Shut the table: every member is told why; no more changes."""
        if self.closed:
            return
        self.closed = True
        self._cancel_driver()
        for member in list(self.members):
            member.deliver(Closed(reason))
        self.members.clear()

    # ----------------------------------------------------------------- views

    def update_for(
        self, seat: int | None, member: Member | None = None, infos: tuple[SeatInfo, ...] | None = None
    ) -> HostEvent:
        """What a member at ``seat`` (None: spectator) sees right now."""
        if infos is None:
            infos = tuple(s.info() for s in self.seats)
        if self.game is None:
            return TableWaiting(
                table_id=self.table_id,
                seats=infos,
                my_seat=seat,
                can_start=(
                    seat is not None
                    and member is not None
                    and member is self.creator
                    and not any(s.empty for s in self.seats)
                ),
                open_chips=self.config.open_chips,
                variant=self.config.variant,
            )
        state = self.game.state
        view = engine_spectator_view(state) if seat is None else engine_view_for(state, seat)
        return TableUpdate(
            view=view,
            seats=infos,
            table_id=self.table_id,
            can_restart=seat is not None and state.finished,
        )

    def _broadcast(self) -> None:
        """Every member gets the view for its seat; one event per distinct view, shared by the members that see
        it (a transport encodes each event once), whatever the number of watchers."""
        cache: dict[tuple[int | None, bool], HostEvent] = {}
        infos = tuple(s.info() for s in self.seats)
        for member, seat in list(self.members.items()):
            key = (seat, self.game is None and member is self.creator)  # the waiting room differs for the creator
            if key not in cache:
                cache[key] = self.update_for(seat, member, infos)
            self._deliver(member, cache[key])
        self._summary_changed()

    def _deliver(self, member: Member, event: HostEvent) -> None:
        try:
            member.deliver(event)
        except Exception:  # one broken transport must not keep the others from hearing about the move
            log.exception("table %s: delivering to %s failed", self.table_id, getattr(member, "name", "?"))

    def _summary_changed(self) -> None:
        if self._on_summary is None:
            return
        summary = self.summary()
        if summary != self._summary:
            self._summary = summary
            self._on_summary(self)

    # ----------------------------------------------------------------- internals

    def _check_open(self) -> None:
        if self.closed:
            raise HostError(errors.NO_TABLE, "this table has closed")

    def _check_creator(self, member: Member) -> None:
        if self.members.get(member) is None:
            raise HostError(errors.NOT_SEATED, "take a seat first")
        if member is not self.creator:
            raise HostError(errors.NOT_CREATOR, "only the player who set up this table can do that")

    def _bot_label(self, bot_name: str) -> str:
        """``rules``, ``rules 2``...: the bot's name (the seat says it is a bot), unique at this table."""
        taken = {s.name for s in self.seats}
        for n in range(1, 10):
            label = bot_name[:16] if n == 1 else f"{bot_name[:16]} {n}"
            if label not in taken:
                return label
        return "bot"

    def _make_bot(self, name: str) -> Bot:
        seed = None if self._rng is None else self._rng.randrange(2**32)
        try:
            return make_bot(name, seed)
        except ValueError as error:
            raise HostError(errors.BAD_BOT, str(error)) from None

    def _deal(self) -> None:
        seed = self._rng.randrange(2**63) if self._rng is not None else secrets.randbits(63)
        self.game = _Game(new_game(self.config, seed))
        self.games_played += 1
        for seat in self.seats:
            seat.stand_in = None
        self._broadcast()
        self._drive()

    def _apply(self, state: GameState) -> None:
        assert self.game is not None
        self.game.state = state
        self._broadcast()
        if state.finished:
            self._save()
            self._check_idle()
        self._drive()

    def _save(self) -> None:
        if self._store is None or self.game is None:
            return
        names = [seat.name or "?" for seat in self.seats]
        record = to_record(
            self.game.state,
            names,
            table=self.table_id,
            bots=[seat.bot is not None for seat in self.seats],
            started_at=self.game.started_at,
            finished_at=time.time(),
        )
        self._store.save(record, self.table_id, self.games_played)

    def _check_idle(self) -> None:
        """Tell the lobby when nobody is left and no game waits for anyone."""
        if self._on_idle is None or self.members:
            return
        if self.game is None or self.finished or not any(seat.human for seat in self.seats):
            self._on_idle(self)

    # Who moves next when it is not a connected human: a bot, a stand-in, or a timer for an away player.

    def _drive(self) -> None:
        if self.closed or self.game is None or self.game.state.finished:
            self._cancel_driver()
            return
        state = self.game.state
        seat = self.seats[state.to_move]
        if seat.bot is not None or seat.stand_in is not None:
            key = (state.state_id, state.to_move, False)
        elif seat.away and self.settings.turn_timer is not None:
            key = (state.state_id, state.to_move, True)
        else:
            self._cancel_driver()
            return
        if self._driver is not None and not self._driver.done() and self._driver_key == key:
            return
        self._cancel_driver()
        self._driver_key = key
        # The table's own context, never the caller's: a player's move would otherwise hand its context (a
        # Textual app keeps itself in context variables) to this task and every turn's task after it, keeping a
        # departed SSH player's whole app in memory for as long as the bots play on.
        self._driver = asyncio.get_running_loop().create_task(self._drive_turn(*key), context=contextvars.Context())

    def bot_wait(self) -> float:
        """How long a bot thinks before this move: ``bot_delay``, give or take ``bot_delay_spread`` of it. The
        draw comes from a generator of its own, so a bot's timing says nothing about the deal or its seed."""
        delay = max(0.0, self.settings.bot_delay)
        spread = delay * min(1.0, max(0.0, self.settings.bot_delay_spread))
        return self._pace.uniform(delay - spread, delay + spread)

    def _cancel_driver(self) -> None:
        if self._driver is not None and not self._driver.done():
            self._driver.cancel()
        self._driver = None
        self._driver_key = None

    async def _drive_turn(self, state_id: int, seat_index: int, waiting_for_away: bool) -> None:
        try:
            if waiting_for_away:
                await asyncio.sleep(self.settings.turn_timer or 0)
                seat = self.seats[seat_index]
                if not self._current(state_id) or not seat.away:
                    return
                seat.stand_in = self._make_bot(self.settings.default_bot)
                log.info("table %s: a bot plays for away seat %d", self.table_id, seat_index)
            elif self.settings.bot_delay > 0:
                await asyncio.sleep(self.bot_wait())
            if not self._current(state_id):
                return
            seat = self.seats[seat_index]
            bot = seat.bot or seat.stand_in
            if bot is None or self.game is None:
                return
            view = engine_view_for(self.game.state, seat_index)
            try:
                action = await asyncio.to_thread(bot.choose, view)
            except Exception:  # a broken bot must not stall the table: it takes the card
                log.exception("table %s: bot %s failed; taking instead", self.table_id, bot.name)
                action = Action.TAKE
            if not self._current(state_id) or (seat.bot or seat.stand_in) is not bot:
                return
            self._driver = None
            self._driver_key = None
            try:
                self._apply(apply(self.game.state, action, seat_index))
            except IllegalMove as error:
                log.error("table %s: bot %s chose an illegal move (%s); taking instead", self.table_id, bot, error)
                self._apply(apply(self.game.state, Action.TAKE, seat_index))
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: the bot driver failed", self.table_id)

    def _current(self, state_id: int) -> bool:
        return not self.closed and self.game is not None and self.game.state.state_id == state_id


def _same_token(held: str | None, given: object) -> bool:
    """Constant-time token comparison that never raises on odd input (non-ASCII, not a string)."""
    if held is None or not isinstance(given, str):
        return False
    return secrets.compare_digest(held.encode(), given.encode("utf-8", "replace"))
