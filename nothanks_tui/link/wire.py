"""The wire protocol between a host and its clients: msgpack maps, one per frame, checked before use.

Both ends import it: the limits for decoding untrusted bytes, and the host's frames (encoded here from table
events; msgspec Structs the client decodes once). A client's messages: messages.py. For people: docs/protocol.md.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

import msgpack
import msgspec

from ..engine import Action, Move, PlayerView
from ..engine.errors import CodedError
from ..i18n import N_
from .daily import Ranked
from .events import (
    SEAT_EVENT_KINDS,
    ChatHistory,
    ChatLine,
    Closed,
    CoachAdvice,
    MatchTotals,
    Rejected,
    SeatEvent,
    SeatInfo,
    TableMoving,
    TableSummary,
    TableUpdate,
    TableWaiting,
)
from .history import GameListing, HistoryPage, PlayerStats, Rated

PROTOCOL_VERSION = 2  # 2: views carry `legal` and `refused` (docs/protocol.md, "Versions")
FEATURES = ("chat", "lobby_chat")  # what this side speaks beyond the version, in `hello` (protocol.md, "Features")
MOVING = "moving"  # a client that lists it hears `table_moving` while a cluster's front moves its table

# What a host accepts from a client (small: a client only ever sends short requests).
CLIENT_MAX_FRAME = 4096
CLIENT_MAX_STR = 512
CLIENT_MAX_ARRAY = 16
CLIENT_MAX_MAP = 16
# What a client accepts from a host (a view holds the whole public move list: at most 24 * 56 moves).
HOST_MAX_FRAME = 1 << 20
HOST_MAX_STR = 4096
HOST_MAX_ARRAY = 4096
HOST_MAX_MAP = 64
# The client's first decoding buffer (msgpack's default is the whole HOST_MAX_FRAME, 1 MiB per SSH player's
# connection); it grows as a larger frame needs (docs/benchmarks.md, "What an SSH player's memory is made of").
CLIENT_READ_SIZE = 16 * 1024


class ProtocolError(CodedError):
    """A message the receiver refuses; ``code`` is sent back in an ``error`` frame, ``fatal`` closes the link."""

    name = ""  # name_taken: a free name to offer instead (the error frame's ``name``)

    def __init__(self, code: str, message: str, fatal: bool = False) -> None:
        super().__init__(code, message)
        self.fatal = fatal


def encode(message: Any) -> bytes:
    """The msgpack encoding of one value (str keys, no bin or ext types): a whole frame is one map."""
    return msgpack.packb(message, use_bin_type=True)


CLIENT_MAX_DEPTH = 2  # a client message is a map of scalars (depth 1); one level more is refused by the schema


class FrameTooBig(Exception):
    """A frame longer than its limit: refused whether its bytes came at once or one by one."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"a frame of {size} bytes or more; at most {limit}")
        self.limit = limit


class FrameReader:
    """Frames decoded from a byte stream, each at most ``max_frame`` bytes however its bytes arrive (a streaming
    decoder's buffer limit bounds the bytes held, not a frame sent slowly: this counts ``Unpacker.tell`` offsets)."""

    def __init__(self, unpacker: msgpack.Unpacker, max_frame: int, max_depth: int | None = None) -> None:
        self._unpacker = unpacker
        self._max_frame = max_frame
        self._max_depth = max_depth
        self._fed = 0  # bytes fed so far
        self._frame_start = 0  # stream offset where the frame being read began

    def feed(self, data: bytes) -> None:
        """Take more bytes (``BufferFull``: more are waiting than any frame may have)."""
        self._unpacker.feed(data)
        self._fed += len(data)

    @property
    def partial(self) -> bool:
        """Bytes of a frame that has not fully arrived are waiting."""
        return self._fed > self._frame_start

    def next_frame(self) -> object | None:
        """The next whole frame, or None until more bytes arrive. Raises ``FrameTooBig``, ``ValueError`` (nested too
        deep) or the decoder's own errors."""
        try:
            message = next(self._unpacker)
        except StopIteration:
            if self._fed - self._frame_start > self._max_frame:
                raise FrameTooBig(self._fed - self._frame_start, self._max_frame) from None
            return None
        end = self._unpacker.tell()
        size, self._frame_start = end - self._frame_start, end
        if size > self._max_frame:
            raise FrameTooBig(size, self._max_frame)
        if self._max_depth is not None and nesting_depth(message, self._max_depth) > self._max_depth:
            raise ValueError(f"nested deeper than {self._max_depth}")
        return message


def nesting_depth(value: object, stop_after: int) -> int:
    """How deeply ``value`` nests arrays and maps (a scalar is 0), counted no further than ``stop_after`` + 1."""
    if not isinstance(value, list | dict) or stop_after < 0:
        return 0
    children = value.values() if isinstance(value, dict) else value
    return 1 + max((nesting_depth(child, stop_after - 1) for child in children), default=0)


def _unpacker(max_frame: int, max_str: int, max_array: int, max_map: int, **more: int) -> msgpack.Unpacker:
    """A streaming decoder of str-keyed maps within these limits, with no bin or ext value."""
    sizes = {"max_buffer_size": max_frame, "max_str_len": max_str, "max_array_len": max_array, "max_map_len": max_map}
    return msgpack.Unpacker(raw=False, strict_map_key=True, max_bin_len=0, max_ext_len=0, **sizes, **more)


def host_unpacker() -> msgpack.Unpacker:
    """The decoder a host uses on a client's bytes."""
    return _unpacker(CLIENT_MAX_FRAME, CLIENT_MAX_STR, CLIENT_MAX_ARRAY, CLIENT_MAX_MAP)


def client_unpacker() -> msgpack.Unpacker:
    """The decoder a client uses on a host's bytes."""
    return _unpacker(HOST_MAX_FRAME, HOST_MAX_STR, HOST_MAX_ARRAY, HOST_MAX_MAP, read_size=CLIENT_READ_SIZE)


# ---------------------------------------------------------------------------------------------- host -> client


def seat_to_wire(seat: SeatInfo) -> dict[str, Any]:
    """``to_wire(seat)`` (as ``Seat`` says: absent means false or nil), written out: a host's hottest path, six times
    faster than through the Struct."""
    wire = {"name": seat.name, "bot": seat.is_bot, "away": seat.away, "empty": seat.empty}
    if seat.left:
        wire["left"] = True
    if seat.stand_in:
        wire["stand_in"] = True
    if seat.level:
        wire["level"] = seat.level
    if seat.rating is not None:
        wire["rating"] = seat.rating
    if seat.change is not None:
        wire["change"] = seat.change
    if seat.guest:
        wire["guest"] = True
    return wire


MAX_SEAT_EVENTS = 64  # the newest a host sends (the log shows far fewer); a client reads no more than this


def _update_head(event: TableUpdate) -> dict[str, Any]:
    """An ``update`` frame without its view; its optional keys are absent when empty, false or nil."""
    head: dict[str, Any] = {
        "type": "update",
        "table": event.table_id,
        "seats": [seat_to_wire(seat) for seat in event.seats],
        "can_restart": event.can_restart,
        "coach": event.coach,
    }
    if event.seat_events:
        head["seat_events"] = [[e.at, e.seat, e.kind] for e in event.seat_events[-MAX_SEAT_EVENTS:]]
    if event.bot_in is not None:  # (in whole milliseconds: no float is ever sent)
        head["bot_in_ms"] = round(max(0.0, event.bot_in) * 1000)
    if event.creator:
        head["creator"] = True
    if event.again:
        head["again"] = list(event.again)
    if event.match is not None:
        head["match"] = msgspec.to_builtins(event.match)
    if event.timeline:
        head["timeline"] = [list(row) for row in event.timeline]
    if event.invite:
        head["invite"] = event.invite
    return head


_moves_cache: tuple[object, bytes] | None = None
_MOVES_KEY = encode("moves")
_VIEW_KEY = encode("view")


def encode_event(event: TableUpdate | TableWaiting) -> bytes:
    """``encode(to_wire(event))``, faster: the move list, the same for every seat, is packed once per move
    (a map packed without its last pair becomes the full map with one more entry counted and the pair appended)."""
    global _moves_cache
    if isinstance(event, TableWaiting):
        return encode(to_wire(event))
    view = event.view
    moves = view.moves
    cached = _moves_cache
    if cached is not None and cached[0] is moves:
        moves_bytes = cached[1]
    else:
        moves_bytes = encode([[m.seat, m.action.value, m.card, m.pot] for m in moves])
        _moves_cache = (moves, moves_bytes)
    view_map = encode(view.to_dict(include_moves=False))
    head_map = encode(_update_head(event))
    return _one_more_entry(head_map) + _VIEW_KEY + _one_more_entry(view_map) + _MOVES_KEY + moves_bytes


def with_entry(packed_map: bytes, key: str, value: Any) -> bytes:
    """A packed map with one more entry, without decoding it (a cached frame given a request's ``re``)."""
    return _one_more_entry(packed_map) + encode(key) + encode(value)


def _one_more_entry(packed: bytes) -> bytes:
    """A packed map's bytes with its header counting one more entry (15 entries and up need a map16 header)."""
    header = packed[0]
    if 0x80 <= header < 0x8F:
        return bytes((header + 1,)) + packed[1:]
    if header == 0x8F:
        return b"\xde\x00\x10" + packed[1:]
    if header == 0xDE and packed[1:3] != b"\xff\xff":
        return b"\xde" + (int.from_bytes(packed[1:3], "big") + 1).to_bytes(2, "big") + packed[3:]
    raise ValueError("not a map with room for one more entry")


# ------------------------------------------------------------------------- host -> client, as the client reads it
# Each frame a host sends is a msgspec Struct, decoded and checked once by ``decode_host`` (a wrong type, a missing
# key or a broken rule is a ``msgspec.ValidationError``; keys a newer host adds are skipped); ``event`` turns a
# pushed frame into the link's event. A Struct's fields are named as its event's (``rename``: their wire names), so
# one converts into the other by attributes, both ways (``to_wire`` encodes an event as its frame's map).

Count = Annotated[int, msgspec.Meta(ge=0, le=10_000)]  # moves or seat events, as a host counts them


class HostFrame(msgspec.Struct, tag_field="type", kw_only=True):
    """One frame from a host (a reply's ``re`` is read before it is typed). ``EVENT``: what ``event`` makes of it."""

    EVENT: ClassVar[type] = object

    def event(self) -> Any:
        return msgspec.convert(self, self.EVENT, from_attributes=True)


class Seat(msgspec.Struct, kw_only=True, omit_defaults=True, rename={"is_bot": "bot"}):
    name: str
    is_bot: bool
    away: bool
    empty: bool
    left: bool = False  # (absent means false: the usual seat costs no more bytes)
    stand_in: bool = False
    level: str = ""
    rating: int | None = None
    change: int | None = None
    guest: bool = False  # a player with no key (docs/protocol.md, "Names and keys")


class View(msgspec.Struct, kw_only=True):
    """``PlayerView`` on the wire: every action once, either legal or refused with a code."""

    players: int
    seat: int | None
    open_chips: bool
    chips_per_player: int
    variant: str
    card: int | None
    pot: int
    deck_left: int
    hands: tuple[tuple[int, ...], ...]
    chips: tuple[int | None, ...]
    to_move: int
    finished: bool
    state_id: int
    moves: tuple[tuple[int, Action, int, int], ...]
    legal: tuple[Action, ...]
    refused: dict[Action, Annotated[str, msgspec.Meta(min_length=1)]]

    def __post_init__(self) -> None:
        legal = set(self.legal)
        if len(legal) != len(self.legal) or legal & self.refused.keys() or {*legal, *self.refused} != set(Action):
            raise ValueError("every action is either legal or refused, once")

    def player_view(self) -> PlayerView:
        fields = msgspec.structs.asdict(self)
        fields["moves"] = tuple(Move(*move) for move in self.moves)
        fields["legal"] = tuple(action for action in Action if action in self.legal)
        fields["refused"] = tuple((action, self.refused[action]) for action in Action if action in self.refused)
        return PlayerView(**fields)


class Update(HostFrame, tag="update"):
    table: str
    seats: tuple[Seat, ...]
    can_restart: bool
    view: View
    coach: bool = False
    seat_events: tuple[tuple[int, int, str], ...] = ()
    bot_in_ms: int | None = None
    creator: bool = False
    again: tuple[int, ...] = ()
    match: MatchTotals | None = None
    timeline: tuple[tuple[int, ...], ...] = ()
    invite: str | None = None

    def __post_init__(self) -> None:
        n = self.view.players
        totals = () if self.match is None else (self.match.wins, self.match.scores)
        if len(self.seats) != n or any(len(row) != n for row in (*totals, *self.timeline)):
            raise ValueError("one seat, match total and timeline score per player")
        if any(not 0 <= seat < n for seat in self.again):
            raise ValueError("again names a seat the table does not have")

    def event(self) -> TableUpdate:
        n = self.view.players
        return TableUpdate(
            view=self.view.player_view(),
            seats=msgspec.convert(self.seats, tuple[SeatInfo, ...], from_attributes=True),
            table_id=self.table,
            can_restart=self.can_restart,
            seat_events=tuple(  # (a kind this client does not know is left out, not an error)
                SeatEvent(at, seat, kind)
                for at, seat, kind in self.seat_events[-MAX_SEAT_EVENTS:]
                if kind in SEAT_EVENT_KINDS and 0 <= seat < n and at >= 0
            ),
            # (at most a day: a host's clock is not to be trusted blindly either)
            bot_in=None if self.bot_in_ms is None else min(max(0, self.bot_in_ms), 86_400_000) / 1000,
            creator=self.creator,
            match=self.match,
            timeline=self.timeline,
            coach=self.coach,
            again=tuple(sorted(set(self.again))),
            invite=self.invite,
        )


class Waiting(HostFrame, tag="waiting", rename={"table_id": "table", "my_seat": "your_seat"}):
    EVENT = TableWaiting
    table_id: str
    seats: tuple[Seat, ...]
    my_seat: int | None
    can_start: bool
    open_chips: bool
    variant: str
    coach: bool = False
    invite: str | None = None
    removed_players: tuple[str, ...] = ()


class Line(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A line said at the table: a ``chat`` frame, or one of a ``chat_history``'s."""

    name: str
    seat: int | None
    text: str
    at: Count | None = None
    events: Count = 0
    lobby: bool = False  # said in the host's lobby, at no table

    def __post_init__(self) -> None:
        self.events = 0 if self.at is None else self.events  # (seat events are counted in this game only)


class Chat(Line, HostFrame, tag="chat"):
    EVENT = ChatLine


class ChatLines(HostFrame, tag="chat_history"):
    EVENT = ChatHistory
    lines: tuple[Line, ...]


class Error(HostFrame, tag="error"):
    EVENT = Rejected
    code: str = "error"
    message: str = ""
    fatal: bool = False
    name: str = ""  # name_taken: a free name to offer instead


class TableClosed(HostFrame, tag="table_closed"):
    EVENT = Closed
    reason: str = N_("table closed")


class Closing(HostFrame, tag="closing"):
    reason: str = N_("the host is shutting down")
    restart: bool = False  # the host starts again and keeps every game: reconnect and resume


class Moving(HostFrame, tag="table_moving"):
    """A cluster's front moves the table to another server, and resumes the seat by itself."""

    EVENT = TableMoving


class Hello(HostFrame, tag="hello"):
    protocol: int
    server: str = ""
    features: list[Any] = []  # (names this client does not know, or that are not text, are left out)
    nonce: str = ""  # what a hello's key proof signs


class Welcome(HostFrame, tag="welcome"):
    name: str = ""
    held: dict[str, Any] | None = None  # the seat the host holds for the hello's key: table, seat, name


class Joined(HostFrame, tag="joined"):
    table: str
    seat: int | None = None
    token: str | None = None


class Left(HostFrame, tag="left"):
    pass


class Summary(msgspec.Struct, kw_only=True, rename={"table_id": "table"}):
    table_id: str
    players: int
    seats: tuple[Seat, ...]
    started: bool
    finished: bool
    open_chips: bool
    variant: str
    spectators: int
    coach: bool = False
    turn_clock: int = 0


class Tables(HostFrame, tag="tables"):
    tables: tuple[Summary, ...]
    total: int = 0
    offset: int = 0


ADVICE_TENTHS = 10  # expected scores travel as whole tenths of a point (msgpack frames carry no floats)


class Advice(HostFrame, tag="advice", rename={"pass_": "pass"}):
    state_id: int
    action: Literal["take", "pass"]
    take: int
    pass_: int | None = None

    def event(self) -> CoachAdvice:
        pass_score = None if self.pass_ is None else self.pass_ / ADVICE_TENTHS
        return CoachAdvice(self.state_id, self.action, self.take / ADVICE_TENTHS, pass_score)


class Games(HostFrame, tag="history"):
    EVENT = HistoryPage
    games: tuple[GameListing, ...]
    total: int
    offset: int = 0


class Record(HostFrame, tag="record"):
    record: dict[str, Any]


class Stats(HostFrame, tag="stats"):
    players: list[PlayerStats]


class Board(HostFrame, tag="leaderboard"):
    players: list[Rated]


class DailyRanking(HostFrame, tag="daily_ranking"):
    """Today's ranking (``top`` lines of ``count``), the asker's line if they finished, and whether they started."""

    day: str
    count: int
    top: list[Ranked]
    you: Ranked | None = None
    played: bool = False


def kind_of(frame: msgspec.Struct | type[msgspec.Struct]) -> str:
    """A tagged Struct's ``type``."""
    return frame.__struct_config__.tag  # type: ignore[return-value]


HOST_FRAMES: dict[str, type[HostFrame]] = {kind_of(cls): cls for cls in HostFrame.__subclasses__()}


FRAME_OF: dict[type, type[msgspec.Struct]] = {  # an event's frame, named like it
    SeatInfo: Seat,
    TableWaiting: Waiting,
    TableSummary: Summary,
    ChatLine: Chat,
    ChatHistory: ChatLines,
    HistoryPage: Games,
}


def to_wire(event: object) -> dict[str, Any]:
    """``event``'s map on the wire: a frame Struct's as it is, an event's as its frame in ``FRAME_OF`` says (an
    ``update``'s as ``_update_head`` and its view's ``to_dict``; the coach's scores in whole tenths)."""
    if isinstance(event, TableUpdate):
        return {**_update_head(event), "view": event.view.to_dict()}
    if isinstance(event, CoachAdvice):
        tenths = None if event.pass_score is None else round(event.pass_score * ADVICE_TENTHS)
        take = round(event.take_score * ADVICE_TENTHS)
        event = Advice(state_id=event.state_id, action=event.action, take=take, pass_=tenths)  # type: ignore[arg-type]
    elif not isinstance(event, msgspec.Struct):
        event = msgspec.convert(event, FRAME_OF[type(event)], from_attributes=True)
    return msgspec.to_builtins(event)


def decode_host(message: object) -> HostFrame | None:
    """The typed frame of a decoded host frame, None for a type this client does not know (a newer host's).
    Raises ``msgspec.ValidationError`` for a malformed one, ValueError for one that is not a map."""
    if not isinstance(message, dict):
        raise ValueError("a frame is a map")
    kind = message.get("type")
    cls = HOST_FRAMES.get(kind) if isinstance(kind, str) else None
    return None if cls is None else msgspec.convert(message, cls, strict=True)


def summary_from_wire(data: object) -> TableSummary:
    return msgspec.convert(msgspec.convert(data, Summary, strict=True), TableSummary, from_attributes=True)
