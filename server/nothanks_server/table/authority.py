"""One table's authority: the only place a seat changes hands or a move is accepted. Every transport talks to it.

A member (a TCP or in-process connection, a test) joins a seat or watches. Every move goes through ``submit`` (a
bot's through ``bot_plays``), checked by the engine, a stale ``state_id`` refused. After every change each member
gets the view filtered for its seat then (``Member.deliver``: never the deck, the removed cards, the seed or hidden
chips). With a store (store.py), every change is committed before anyone hears of it (a game's last move with its
record); ``Table.restore`` replays a stored table's game from its seed after a restart."""

from __future__ import annotations

import logging
import random
import secrets
import time
from collections.abc import Callable, Sequence
from typing import TypedDict, Unpack

from nothanks_tui.bots import Bot, make_bot
from nothanks_tui.engine import Action, GameState, IllegalMove, apply, new_game
from nothanks_tui.engine import spectator_view as engine_spectator_view
from nothanks_tui.engine import view_for as engine_view_for
from nothanks_tui.i18n import N_
from nothanks_tui.link import ChatLine, Closed, CoachAdvice, Rejected, SeatInfo, TableWaiting, errors, events
from nothanks_tui.link.connections import LobbyError
from nothanks_tui.link.daily import is_daily
from nothanks_tui.link.events import SEAT_AWAY, SEAT_BACK, SEAT_LEFT, SEAT_STAND_IN, TableSummary, TableUpdate
from nothanks_tui.link.invites import invite_code
from nothanks_tui.link.names import name_key

from .. import thinking
from ..chat import ChatRoom
from ..errors import HostError
from ..history import RecordStore
from ..ratings import NEWCOMER
from ..store import GroupCommit, StoredMove, StoreDown, StoredTable, StoreError, TableStore, hash_token
from .driver import BotDriver
from .recorder import Recorder
from .seats import HostEvent, Member, Seat, TableSettings, bot_name, unique_name

log = logging.getLogger(__name__)

# A newcomer's ``join`` refused for an away player's seat (``seat_away``; the reference client words the code).
_AWAY_WAYS_BACK = "only their seat token or SSH key takes it back; watch the table instead"
_AWAY_IN_GAME = f"this game is under way and a seat is kept for a player who is away: {_AWAY_WAYS_BACK}"
_AWAY_NO_FREE_SEAT = f"no seat is free and a seat is kept for a player who is away: {_AWAY_WAYS_BACK}"


class TableParts(TypedDict, total=False):
    """Beside a table's settings: its ``store``, the group ``commits`` its moves go through (a host's tables share
    it), finished games' ``records``; ``on_idle``/``on_summary`` tell the lobby it is idle, or its line changed."""

    store: TableStore | None
    records: RecordStore | None
    commits: GroupCommit | None
    on_idle: Callable[[Table], None] | None
    on_summary: Callable[[Table], None] | None


class Table:
    """Seats, members and one game. All methods run on the event loop; refusals raise ``HostError``/``IllegalMove``."""

    def __init__(
        self, table_id: str, settings: TableSettings, *, rng: random.Random | None = None, **parts: Unpack[TableParts]
    ) -> None:
        self.table_id = table_id
        self.settings = settings
        self.config = settings.config()  # validates players/variant (IllegalMove bad_config)
        self.seats = [Seat() for _ in range(self.config.players)]
        self.members: dict[Member, int | None] = {}  # member -> seat, None for a spectator
        self.creator_seat: int | None = None  # the seat of who set the table up (adds bots, starts)
        self.state: GameState | None = None  # the game (None before the first deal)
        self.started_at = 0.0  # when it was dealt (time.time)
        self.games_played = 0
        self._store = parts.get("store")
        self._commits = parts.get("commits")
        self._records = parts.get("records")
        self.recorder = Recorder(table_id, self.config.players, self._store, self._records)
        self.driver = BotDriver(self)
        self._advice: CoachAdvice | None = None  # the coach's answer in this state (only its mover may ask)
        self._asking: set[int] = set()  # seats whose coach request is being answered
        self.closed = False
        self.hush = False  # being set up (Lobby.create_table): nobody hears of it before it is kept
        # A move is being committed: views show the last durable state, moves are refused as stale, bots wait.
        self.saving = False
        self._rng = rng
        self._on_idle = parts.get("on_idle")
        self._on_summary = parts.get("on_summary")
        self._summary: TableSummary | None = None
        self.created_at = time.monotonic()
        self.person_moved = False  # a person played here (any game since it was made or restored): kept at a total
        self._movers: tuple[int, set[int]] = (0, set())  # the seats that moved in this game, as of its first N moves
        self.chat = ChatRoom()  # recent lines, in memory only (chat.py)
        self._quiet_returns: set[int] = set()  # seats of a restored table: their first return is no news
        self._again: set[int] = set()  # seats whose players asked for another game once this one ended
        self.invite: str | None = None  # a private table's secret (link/invites.py): only its code lets players in
        self.removed: list[str] = []  # the players the creator removed before this deal (shown in the waiting room)
        self._barred: set[str] = set()  # ...who may not sit here again until it: their names (name_key), keys

    @property
    def started(self) -> bool:
        return self.state is not None

    @property
    def finished(self) -> bool:
        return self.state is not None and self.state.finished

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
            coach=self.settings.coach,
            turn_clock=round(self.settings.turn_clock or 0),
        )

    def movers(self) -> set[int]:
        """The seats that moved in this game (a bot's move for a player's seat too): each move looked at once, as
        the lobby asks at its table total for every table (``Lobby._make_room``)."""
        moves = () if self.state is None else self.state.moves
        seen, seats = self._movers
        seats.update(move.seat for move in moves[seen:])
        self._movers = (len(moves), seats)
        return seats

    def seat_of_digest(self, digest: bytes) -> int | None:
        """The seat whose token has this SHA-256 digest (``store.hash_token``), if any."""
        found = None
        for index, seat in enumerate(self.seats):  # every seat compared, in constant time each
            if seat.token_hash is not None and secrets.compare_digest(seat.token_hash, digest):
                found = index
        return found

    def stored(self) -> StoredTable:
        """This table as the store keeps it (its seats; the game is kept move by move)."""
        return StoredTable(
            table_id=self.table_id,
            players=self.config.players,
            open_chips=self.config.open_chips,
            variant=self.config.variant,
            default_bot=self.settings.default_bot,
            chips_per_player=self.settings.chips_per_player,
            seats=tuple(seat.stored() for seat in self.seats),
            creator_seat=self.creator_seat,
            coach=self.settings.coach,
            invite=self.invite,
            turn_clock=self.settings.turn_clock or 0,
        )

    @classmethod
    def restore(cls, stored: StoredTable, settings: TableSettings, **parts: Unpack[TableParts]) -> Table:
        """The table ``stored`` describes, at its last accepted move: its game replayed from the seed, its humans
        away until they resume, its bots made again (same kind, reseeded). ``driver.drive()`` then, on the loop."""
        table = cls(stored.table_id, settings, **parts)
        table.invite = stored.invite
        for index, seat in enumerate(stored.seats[: len(table.seats)]):
            if seat is None:
                continue
            if seat.bot_kind is not None:  # reseeded: the same for the same table, game and move, in any process
                seed = random.Random(f"{seat.bot_seed}/{stored.game_no}/{len(stored.moves)}").randrange(2**32)
                try:
                    bot = make_bot(seat.bot_kind, seed)
                except ValueError:  # a bot this version no longer has: the table's default plays the seat
                    bot = make_bot(settings.default_bot, seed)
                table.seats[index] = Seat(name=seat.name, bot=bot, bot_kind=seat.bot_kind, bot_seed=seat.bot_seed)
            else:
                table.seats[index] = Seat(name=seat.name, token_hash=seat.token_hash, guest=seat.guest)
                table._quiet_returns.add(index)
                if seat.stand_in and stored.game_no > 0 and not stored.finished:  # a bot played it: it plays on
                    table.seats[index].stand_in = table.stand_in_bot()
                    table.seats[index].left = seat.left
        if stored.creator_seat is not None and 0 <= stored.creator_seat < len(table.seats):
            table.creator_seat = stored.creator_seat
        table.games_played, table.started_at = stored.game_no, stored.started_at or time.time()
        table.read_ratings()
        table.state = table.recorder.restored(stored)  # a finished game, from its record
        if stored.game_no > 0 and stored.seed is not None and not stored.finished:
            state = new_game(table.config, stored.seed)
            for seat_index, action in stored.moves:
                state = apply(state, action, seat_index)
            table.state = state
        return table

    def release_away_seats(self) -> None:
        """A restored table's grace is over: before the game, the seats of players not back free up as if they had
        left; a game nobody came back to is finished by stand-in bots (its record kept, even without a turn timer);
        a table whose game is over (before the restart, or since) and nobody came back to closes."""
        if self.closed:
            return
        self._quiet_returns.clear()  # (the grace is over: idle, it closes as any table)
        if self.finished:
            self._check_idle()
            return
        if self.started:
            for index in [] if self._where("present") else self._where("away"):
                if self.seats[index].stand_in is None:
                    self.stand_in(index, note=True)
            self._broadcast()
            self.driver.drive()
            return
        away = self._where("away")
        for index in away:
            self._put_seat(index, Seat())
        if not away:
            return
        self._reassign_creator()
        self._broadcast()
        self._check_idle()

    def join(self, member: Member, seat: int | None = None) -> tuple[int, str]:
        """Seat ``member`` (at ``seat`` or the first free one); returns (seat, resume token)."""
        self._check_newcomer(member)
        if _who(member) & self._barred - {""}:
            raise HostError(errors.REMOVED, "the table's creator removed you: sit at another table, or watch")
        if self.started and not self.finished:  # (a finished game's freed seat is free for the next one)
            if self._where("away"):
                raise HostError(errors.SEAT_AWAY, _AWAY_IN_GAME)
            raise HostError(errors.ALREADY_STARTED, "this game has started: watch it, or pick another table")
        if seat is None:
            free = self._where("empty")
            if not free:
                if self._where("away"):
                    raise HostError(errors.SEAT_AWAY, _AWAY_NO_FREE_SEAT)
                raise HostError(errors.TABLE_FULL, "every seat at this table is taken")
            seat = free[0]
        elif self.seats[self._check_index(seat)].away:
            raise HostError(errors.SEAT_AWAY, f"seat {seat} is kept for its player, who is away: {_AWAY_WAYS_BACK}")
        elif not self.seats[seat].empty:
            raise HostError(errors.SEAT_TAKEN, f"seat {seat} is taken")
        token = secrets.token_urlsafe(18)
        name = unique_name(self.seats, member.name)
        self._put_seat(seat, Seat(name=name, token_hash=hash_token(token), guest=getattr(member, "guest", False)))
        self.seats[seat].member = member
        self.members[member] = seat
        self.read_ratings()
        if self.creator_seat is None or self.seats[self.creator_seat].empty:
            self._set_creator(seat)
        self._broadcast()
        self._tell_chat_history(member)
        return seat, token

    def read_ratings(self, changed: bool = False) -> None:
        """The people's ratings from the store (ratings.py; a game's filing rated them); ``changed``: after the game
        just over, each with what it changed by. A store that cannot say leaves them as they were."""
        names = [seat.name for seat in self.seats if seat.human and seat.name and not seat.guest]  # (guests: unrated)
        rated = self._store if self._store is not None else self._records  # (a local table's: its data dir's store)
        try:
            found = rated.ratings(names) if rated is not None and names else None
        except (StoreError, LobbyError) as error:
            log.warning("table %s: the ratings cannot be read (%s)", self.table_id, error)
            return
        for seat in self.seats:
            if found is not None and seat.name in names:
                before, seat.rating = seat.rating, found.get(seat.name, NEWCOMER)
                seat.change = seat.rating - before if changed and before is not None else seat.change

    def _where(self, kind: str) -> list[int]:
        """The seats whose ``Seat`` property ``kind`` holds ("away": only a token or SSH key takes it back)."""
        return [index for index, seat in enumerate(self.seats) if getattr(seat, kind)]

    def spectate(self, member: Member) -> None:
        self._check_newcomer(member)
        self.members[member] = None
        # Nothing the others see changes when someone watches: only the newcomer hears, and the lobby's line.
        self._deliver(member, self.update_for(None))
        self._tell_chat_history(member)
        self._summary_changed()

    def resume_seat(self, index: int, member: Member) -> int:
        """Give seat ``index`` (a human's) back to ``member``, whose token or SSH key the caller checked."""
        self._check_open()
        if not 0 <= index < len(self.seats) or not self.seats[index].human:
            raise HostError(errors.BAD_TOKEN, "no player's seat there")
        seat = self.seats[index]
        old = seat.member
        if old is not None and old is not member:
            # A half-open connection still holds the seat: the newest one wins.
            self.members.pop(old, None)
            self._deliver(old, Closed(N_("this seat was resumed from another connection")))
        if member in self.members and self.members[member] != index:
            raise HostError(errors.ALREADY_AT_TABLE, "leave your other place at this table first")
        quiet = index in self._quiet_returns  # back after the host restarted or the table moved: as everyone is
        self._quiet_returns.discard(index)  # (only the first return: one before the start must not hush a later one)
        if seat.member is None and self.started and not self.finished and not quiet:
            self._note(index, SEAT_BACK)
        seat.member = member
        self._no_stand_in(index)
        self.driver.restart_timer()  # (should they drop again on this turn, their timer starts afresh)
        self.members[member] = index
        self._broadcast()
        self._tell_chat_history(member)
        self.driver.drive()
        return index

    def part(self, member: Member, *, on_purpose: bool) -> None:
        """``member`` leaves (``on_purpose``) or its connection ended. Before the game the seat frees up; once it is
        over, a leaver's seat frees up too; else the seat waits for them, a leaver's played by a bot at once, an
        away player's on their turn once the turn timer runs out."""
        if member not in self.members:
            return
        index = self.members.pop(member)
        if self.closed:
            return
        if index is not None:
            seat = self.seats[index]
            if not self.started or (self.finished and on_purpose):
                if self.started:  # (their name stays on the seat until the next deal; the log says they left)
                    self._note(index, SEAT_LEFT)
                self._put_seat(index, Seat(former=seat.name if self.started else None))  # (and its key binding)
                if index == self.creator_seat:
                    self._reassign_creator()
            elif seat.member is member:
                seat.member = None
                if not self.finished:
                    self._note(index, SEAT_LEFT if on_purpose else SEAT_AWAY)
                    if on_purpose:
                        seat.left = True
                        self.stand_in(index)  # (after a restart, still theirs and still a bot's)
        if index is None:
            self._summary_changed()  # a spectator left: nothing the others see changed
        else:
            self._again.discard(index)  # (whoever sits there next asks for themselves)
            if not self._deal_again_if_everyone_asked():  # the others were waiting only for this player
                self._broadcast()
        self.driver.drive()
        self._check_idle()

    def stand_in_for(self, member: Member, asked: object) -> None:
        """The (acting) creator lets a bot play for the away player in seat ``asked`` now, until they come back."""
        self._check_seated_as(member, self.acting_creator())
        self._game_on()
        seat = self.seats[index := self._check_index(asked)]
        if not seat.away or seat.stand_in is not None:
            raise HostError(errors.NOT_AWAY, f"seat {index} has its player, or a bot plays for them already")
        self.stand_in(index, note=True)
        log.info("table %s: the creator lets a bot play for away seat %d", self.table_id, index)
        self._broadcast()
        self.driver.drive()

    def stand_in(self, index: int, *, note: bool = False) -> None:
        """A bot plays for seat ``index``'s away player until they come back (stored); ``note``: the log says so."""
        seat = self.seats[index]
        seat.stand_in = self.stand_in_bot()
        self._put_seat(index, seat)
        if note:
            self._note(index, SEAT_STAND_IN)

    def acting_creator(self) -> int | None:
        """Who may let a bot play for an away player: the creator while at the table, else the first player who
        is (a game never waits on an absent creator)."""
        creator = self.creator_seat
        if creator is not None and self.seats[creator].member is not None:
            return creator
        return next(iter(self._where("present")), None)

    def stand_in_bot(self) -> Bot:
        return self._make_bot(self.settings.default_bot)[0]

    def _note(self, index: int, kind: str) -> None:
        """A seat's coming or going, in this game's log (everyone's, between the moves)."""
        if self.state is not None:
            self.recorder.note(len(self.state.moves), index, kind)

    def add_bot(self, member: Member, bot_name: str | None = None) -> int:
        """Fill the first empty seat with a bot (the creator, before the game starts); returns the seat."""
        self._before_deal(member, "bots join before the game starts")
        if not self._where("empty"):
            raise HostError(errors.TABLE_FULL, "every seat at this table is taken")
        return self.add_bots(1, bot_name)[0]

    def add_bots(self, count: int, bot_name: str | None = None) -> list[int]:
        """Fill up to ``count`` empty seats with bots (host set-up, no creator check); returns the seats."""
        kind = bot_name or self.settings.default_bot
        return self.seat_bots([self._make_bot(kind) for _ in self._where("empty")[: max(0, count)]])

    def seat_bots(self, bots: Sequence[Bot | tuple[Bot, str, int]], labels: Sequence[str] = ()) -> list[int]:
        """Put these bots in the empty seats, in order: made here (with the kind and seed a restored table makes it
        again from) or given (a local table's, a test's); named by ``labels`` then ``bot_name``; one commit."""
        free = self._where("empty")
        if len(bots) > len(free):
            raise HostError(errors.TABLE_FULL, f"{len(bots)} bots for {len(free)} free seats")
        placed = list(self.seats)
        for number, (index, made) in enumerate(zip(free, bots)):
            bot, kind, seed = made if isinstance(made, tuple) else (made, made.name, None)
            label = labels[number] if number < len(labels) else bot_name(placed)
            placed[index] = Seat(name=label, bot=bot, bot_kind=kind, bot_seed=seed)
        new = {index: placed[index] for index in free[: len(bots)]}
        self._persist(lambda store: store.set_seats(self.table_id, {i: seat.stored() for i, seat in new.items()}))
        for index, seat in new.items():
            self.seats[index] = seat
        self._broadcast()
        return list(new)

    def remove(self, member: Member, asked: object) -> None:
        """The creator frees seat ``asked`` before the deal: a bot's, or a player's, who is told and goes back to
        the lobby, and may not sit here again before the deal (by name or SSH key)."""
        self._before_deal(member, "players are removed before the game starts")
        seat = self.seats[index := self._check_index(asked)]
        if seat.empty or index == self.creator_seat:
            raise HostError(errors.BAD_FIELD, f"seat {index} is empty, or yours")
        self._put_seat(index, Seat())
        if seat.human:
            self.removed.append(seat.name or "")
            gone = seat.member
            self._barred |= _who(gone) if gone else {name_key(seat.name or "")}
            if gone is not None:
                self.members.pop(gone, None)
                self._deliver(gone, Closed(N_("the table's creator removed you from the table")))
        log.info("table %s: the creator removed seat %d", self.table_id, index)
        self._broadcast()

    def start(self, member: Member | None) -> None:
        """Deal and start (the creator; ``None`` for the host itself). Every seat must be filled."""
        self._before_deal(member, "the game has already started")
        if self._where("empty"):
            raise HostError(errors.SEATS_EMPTY, "fill every seat (players or bots) before starting")
        self._deal()

    def play_again(self, member: Member) -> None:
        """A seated player asks for a new game at the same seats once this one is over: dealt when every player
        present has asked (nobody's score screen is taken by someone quicker); until then updates say who asked."""
        seat = self._seat_of(member, "only players at this table can start another game")
        if not self.finished:
            raise HostError(errors.NOT_FINISHED, "this game is not over yet")
        if seat in self._again:
            return  # asked already (a key pressed twice)
        self._again.add(seat)
        if not self._deal_again_if_everyone_asked():
            self._broadcast()

    def _deal_again_if_everyone_asked(self) -> bool:
        """Deal the next game if it is over, someone asked and every player still here has; True if dealt."""
        if self.closed or not self.finished or not self._again:
            return False
        present = self._where("present")
        if not present or any(index not in self._again for index in present):
            return False
        if freed := len(self._where("empty")):  # players who left after the game: bots take their seats
            self.add_bots(freed)
        self._deal()
        return True

    def submit(self, member: Member, action: Action | str, state_id: int) -> None:
        """Play ``action`` for ``member``'s seat in state ``state_id``; refusals raise with a stable code."""
        seat = self._seat_of(member, "spectators cannot play")
        if self.state is None:
            raise HostError(errors.NOT_STARTED, "the game has not started yet")
        state = self._fresh(
            self.state, state_id, "the table moved on before that key press arrived; nothing was played"
        )
        self._apply(apply(state, action, seat), member)
        self.person_moved = True

    def bot_plays(self, state_id: int, index: int, bot: Bot, action: Action) -> None:
        """``bot`` (the seat's, its stand-in, or one for a present player whose turn clock ran out) chose ``action`` in
        ``state_id``: played if it still plays the seat there; an illegal choice takes the card instead."""
        state, player = self.state, self.seats[index].player
        if not self.current(state_id) or (player is not None and player is not bot) or state is None:
            return
        if player is None:  # the log says the clock ran out before the bot's move
            self._note(index, events.SEAT_CLOCK)
        try:
            state = apply(state, action, index)
        except IllegalMove as error:
            log.error("table %s: bot %s chose an illegal move (%s); taking instead", self.table_id, bot, error)
            state = apply(state, Action.TAKE, index)
        self._apply(state)

    def current(self, state_id: int) -> bool:
        return not self.closed and not self.saving and self.state is not None and self.state.state_id == state_id

    def say(self, member: Member, text: object) -> ChatLine:
        """``member`` (a player or a spectator) says ``text`` to everyone at the table, the sender too."""
        self._check_open()
        if member not in self.members:
            raise HostError(errors.NOT_AT_TABLE, "only players and spectators at this table can chat here")
        seat = self.members[member]
        name = self.seats[seat].name if seat is not None else None
        at = len(self.state.moves) if self.state is not None else 0
        told = self.recorder.events_at(at)  # the seat events this line comes after
        line = self.chat.say(name or member.name, seat, text, self.games_played, at, told)
        for listener in list(self.members):
            self._deliver(listener, line)
        return line

    def _tell_chat_history(self, member: Member) -> None:
        history = self.chat.history(self.games_played)
        if history is not None and member in self.members:
            self._deliver(member, history)

    async def ask_coach(self, member: Member, state_id: int) -> CoachAdvice:
        """What the coach would play for ``member``'s seat in state ``state_id``, on its turn, from its view alone;
        worked out off the event loop, once per state and seat."""
        self._check_open()
        if not self.settings.coach:
            raise HostError(errors.COACH_OFF, "this table does not allow the coach")
        seat = self._seat_of(member, "only players at this table can ask the coach")
        state = self._fresh(self._game_on(), state_id, "the table moved on: ask again")
        if state.to_move != seat:
            raise HostError(errors.NOT_YOUR_TURN, "the coach advises on your own turn")
        if self._advice is not None and self._advice.state_id == state_id:
            return self._advice
        if seat in self._asking:
            raise HostError(errors.SLOW_DOWN, "the coach is still thinking about your last question")
        self._asking.add(seat)
        try:
            advice = await thinking.advise(engine_view_for(state, seat))
        finally:
            self._asking.discard(seat)
        if self.state is state:  # still the table's state: kept for a second ask
            self._advice = advice
        return advice

    def close(self, reason: str) -> None:
        if self.closed:
            return
        self.closed = True
        self.driver.cancel()
        for member in list(self.members):
            self._deliver(member, Closed(reason))
        self.members.clear()

    def update_for(self, seat: int | None, infos: tuple[SeatInfo, ...] | None = None) -> HostEvent:
        """What the member at ``seat`` (None: a spectator) sees right now."""
        infos = tuple(s.info() for s in self.seats) if infos is None else infos
        state = self.state
        invite = invite_code(self.table_id, self.invite) if self.invite and seat is not None else None  # (players')
        if state is None:
            return TableWaiting(
                table_id=self.table_id,
                seats=infos,
                my_seat=seat,
                can_start=seat is not None and seat == self.creator_seat and not self._where("empty"),
                open_chips=self.config.open_chips,
                variant=self.config.variant,
                coach=self.settings.coach,
                invite=invite,
                removed_players=tuple(self.removed),
            )
        view = engine_spectator_view(state) if seat is None else engine_view_for(state, seat)
        deadline = self.driver.deadline()
        return TableUpdate(
            view=view,
            seats=infos,
            table_id=self.table_id,
            can_restart=seat is not None and state.finished and not is_daily(self.table_id),
            again=tuple(sorted(self._again)) if state.finished else (),
            seat_events=tuple(self.recorder.seat_events),
            bot_in=None if deadline is None else max(0.0, deadline - time.monotonic()),
            creator=seat is not None and seat == self.acting_creator(),
            match=self.recorder.match.totals(),
            timeline=self.recorder.timeline,
            coach=self.settings.coach,
            invite=invite,
        )

    def _broadcast(self) -> None:
        """Every member gets the view for its seat, one event per seat (the spectators share theirs: encoded once)."""
        if self.hush:
            return
        views: dict[int | None, HostEvent] = {}
        infos = tuple(s.info() for s in self.seats)
        for member, seat in list(self.members.items()):
            if seat not in views:
                views[seat] = self.update_for(seat, infos)
            self._deliver(member, views[seat])
        self._summary_changed()

    def _deliver(self, member: Member, event: HostEvent) -> None:
        try:
            member.deliver(event)
        except Exception:  # one broken transport must not keep the others from hearing
            log.exception("table %s: delivering to %s failed", self.table_id, getattr(member, "name", "?"))

    def _summary_changed(self) -> None:
        if self._on_summary is not None and (summary := self.summary()) != self._summary:
            self._summary = summary
            self._on_summary(self)

    def _check_open(self) -> None:
        if self.closed:
            raise HostError(errors.NO_TABLE, "this table has closed")

    def _check_newcomer(self, member: Member) -> None:
        self._check_open()
        if member in self.members:
            raise HostError(errors.ALREADY_AT_TABLE, "you are already at this table")

    def _game_on(self) -> GameState:
        """The game being played (``not_started`` before the deal, ``game_over`` once it is over)."""
        if self.state is None:
            raise HostError(errors.NOT_STARTED, "the game has not started yet")
        if self.state.finished:
            raise HostError(errors.GAME_OVER, "the game is over")
        return self.state

    def _check_index(self, index: object) -> int:
        if not isinstance(index, int) or not 0 <= index < len(self.seats):
            raise HostError(errors.BAD_FIELD, f"seat must be 0..{len(self.seats) - 1}")
        return index

    def _seat_of(self, member: Member, refusal: str) -> int:
        """``member``'s seat at this open table (``not_seated``, with ``refusal``, for a spectator or a stranger)."""
        self._check_open()
        if (seat := self.members.get(member)) is None:
            raise HostError(errors.NOT_SEATED, refusal)
        return seat

    def _fresh(self, state: GameState, state_id: int, refusal: str) -> GameState:
        """``state``, if ``state_id`` is still the table's (no move being saved), else ``stale_state``."""
        if state_id != state.state_id or self.saving:
            raise HostError(errors.STALE_STATE, f"{refusal} (state {state_id}, now {state.state_id})")
        return state

    def _check_seated_as(self, member: Member, seat: int | None) -> None:
        if self._seat_of(member, "take a seat first") != seat:
            raise HostError(errors.NOT_CREATOR, "only the player who set up this table can do that")

    def _before_deal(self, member: Member | None, refusal: str) -> None:
        """The creator (``member``; None: the host itself) changes the table before the deal, else ``refusal``."""
        self._check_open()
        if member is not None:
            self._check_seated_as(member, self.creator_seat)
        if self.started:
            raise HostError(errors.ALREADY_STARTED, refusal)

    def _make_bot(self, name: str) -> tuple[Bot, str, int]:
        """A new bot of kind ``name``, its kind, and its seed (a restored table makes it again)."""
        seed = self._rng.randrange(2**32) if self._rng is not None else secrets.randbits(32)
        try:
            return make_bot(name, seed), name, seed
        except ValueError as error:
            raise HostError(errors.BAD_BOT, str(error)) from None

    def _deal(self) -> None:
        seed = self._rng.randrange(2**63) if self._rng is not None else secrets.randbits(63)
        state, started_at = new_game(self.config, seed), time.time()
        self._persist(lambda store: store.start_game(self.table_id, self.games_played + 1, seed, started_at))
        self.state, self.started_at = state, started_at
        self.games_played += 1
        self._movers = (0, set())
        self._again.clear()
        self.removed, self._barred = [], set()
        self.recorder.dealt()
        self.driver.restart_timer()
        for index, seat in enumerate(self.seats):
            self._no_stand_in(index)
            seat.change = None
        self._broadcast()
        self.driver.drive()

    def _apply(self, state: GameState, member: Member | None = None) -> None:
        """Accept ``state`` (one move on): stored first, then shown. With a group commit the table is ``saving``
        meanwhile; ``member``, who played it, hears if the store refused it."""
        assert self.state is not None
        move = state.moves[-1]
        record = self.recorder.record(state, self.seats, self.started_at) if state.finished else None
        played_in = self.state.state_id
        stored = StoredMove(self.table_id, self.games_played, played_in, move.seat, move.action.value, record)
        if self._commits is None:
            self._persist(lambda store: store.add_moves([stored]))
            self._accept(state, record)
            return
        self.saving = True
        self._commits.add(stored, lambda error: self._saved(state, record, member, error))

    def _saved(
        self, state: GameState, record: dict[str, object] | None, member: Member | None, error: StoreError | None
    ) -> None:
        self.saving = False
        if self.closed:
            return
        if error is None:
            self._accept(state, record)
            return
        down = isinstance(error, StoreDown)  # (the lobby said so once, and drives the table again when it is back)
        if not down:
            log.error("table %s: the store refused a move (%s); it was not played here", self.table_id, error)
        if member is not None and member in self.members and not error.unsure:  # (unsure: the table moves)
            message = f"the host could not save this move, so it was not played ({error})"
            self._deliver(member, Rejected(errors.NOT_SAVED, message))
        if not down:
            self.driver.drive()  # a bot tries again after its pause

    def _accept(self, state: GameState, record: dict[str, object] | None) -> None:
        """The move is durable: it happens, and everyone sees it."""
        self.state = state
        self._advice = None  # the coach's answer was for the state before
        if record is not None and self._store is None:  # a local game is rated as it is filed (LocalRecords)...
            self.recorder.export(record, self.games_played)  # ...so filed first, to show its ratings with its end
            record = None
        if state.finished:  # told in the same broadcast as the end: never before it (chips may be hidden)
            self.recorder.finished(state)
            self.read_ratings(changed=True)
        self._broadcast()
        if record is not None:
            self.recorder.export(record, self.games_played)
            self._check_idle()
        self.driver.drive()

    def _persist(self, write: Callable[[TableStore], None]) -> None:
        """Commit ``write`` before the change it describes happens, or refuse the change (``not_saved``)."""
        if self._store is None:
            return
        try:
            write(self._store)
        except (StoreError, OSError) as error:
            log.error("table %s: the store refused a change (%s)", self.table_id, error)
            raise HostError(errors.NOT_SAVED, f"the host could not save this, so it did not happen ({error})") from None

    def _put_seat(self, index: int, seat: Seat) -> None:
        """Seat ``index`` is ``seat`` now: stored first (an empty seat frees it in the store)."""
        stored = seat.stored()
        self._persist(lambda store: store.set_seats(self.table_id, {index: stored}))
        self.seats[index] = seat

    def _no_stand_in(self, index: int) -> None:
        """Seat ``index``'s player plays it again: no stand-in, not left (stored: no bot is back after a restart)."""
        seat = self.seats[index]
        if seat.stand_in is not None or seat.left:
            seat.stand_in, seat.left = None, False
            self._put_seat(index, seat)

    def _set_creator(self, index: int | None) -> None:
        if index != self.creator_seat:
            self._persist(lambda store: store.set_creator(self.table_id, index))
            self.creator_seat = index

    def _reassign_creator(self) -> None:
        """The creator's seat freed up: the next present player (or, failing one, an away one) takes the role."""
        candidates = self._where("present") or self._where("human")
        self._set_creator(candidates[0] if candidates else None)

    def _check_idle(self) -> None:
        """Tell the lobby when nobody is left and no game waits for anyone (an away player's seat waits for them,
        before the game as after a restart, and during it; and a restored table's players not back yet)."""
        if self._on_idle is None or self.members or self._quiet_returns:
            return
        if self.finished or not any(seat.human for seat in self.seats):
            self._on_idle(self)


def _who(member: Member) -> set[str]:
    """Who ``member`` is, for keeping a removed player out: their name (``name_key``), and any key vouching for them."""
    return {name_key(member.name), getattr(member, "key", None) or "", getattr(member, "owner", None) or ""}
