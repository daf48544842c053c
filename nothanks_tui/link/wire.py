"""The wire protocol between a host and its clients: msgpack maps, one per frame, checked before use.

Both ends import this module (the link layer): the limits for decoding untrusted bytes, and the conversions
between table events and wire maps (checked on the client); what a client sends is typed in messages.py.
docs/protocol.md describes the same thing for people writing other clients.
"""

from __future__ import annotations

from typing import Any

import msgpack

from ..engine import PlayerView
from .events import (
    SEAT_EVENT_KINDS,
    ChatHistory,
    ChatLine,
    CoachAdvice,
    MatchTotals,
    SeatEvent,
    SeatInfo,
    TableSummary,
    TableUpdate,
    TableWaiting,
)

PROTOCOL_VERSION = 2  # 2: views carry `legal` and `refused` (docs/protocol.md, "Versions")
FEATURES = ("chat",)  # what this side speaks beyond the version: listed in `hello` (docs/protocol.md, "Features")
# A cluster's front tells a client that lists it `table_moving` while its table changes host (a client lists it;
# a front's gateway does; a single host has nothing to say about it and does not).
MOVING = "moving"

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
# The client's decoding buffer to start with: msgpack allocates ``read_size`` at once, and its default is the whole
# ``max_buffer_size`` (1 MiB for each connection of each SSH player in a worker, most of it never used: a view is
# a few KiB). The buffer grows as a larger frame needs, up to HOST_MAX_FRAME (docs/benchmarks.md, "What an SSH
# player's memory is made of").
CLIENT_READ_SIZE = 16 * 1024


class ProtocolError(Exception):
    """A message the receiver refuses; ``code`` is sent back in an ``error`` frame, ``fatal`` closes the link."""

    def __init__(self, code: str, message: str, fatal: bool = False) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.fatal = fatal


def encode(message: Any) -> bytes:
    """The msgpack encoding of one value (str keys, no bin or ext types): a whole frame is one map."""
    return msgpack.packb(message, use_bin_type=True)


CLIENT_MAX_DEPTH = 2  # a client message is a map of scalars (depth 1); one level more is refused by the schema


class FrameTooBig(Exception):
    """A frame longer than its limit: refused whether its bytes came at once or one by one."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"a frame of {size} bytes or more; at most {limit}")
        self.size = size
        self.limit = limit


class FrameReader:
    """Frames decoded from a byte stream, each at most ``max_frame`` bytes however its bytes arrive.

    A streaming msgpack decoder keeps its progress through a frame that has not fully arrived and drops the bytes
    it has read, so its buffer limit bounds the bytes held, not the frame: a large frame sent slowly would be
    decoded. This counts each frame's bytes from the stream's offsets (``Unpacker.tell``) instead.
    """

    def __init__(self, unpacker: msgpack.Unpacker, max_frame: int, max_depth: int | None = None) -> None:
        self._unpacker = unpacker
        self._max_frame = max_frame
        self._max_depth = max_depth
        self._fed = 0  # bytes fed so far
        self._frame_start = 0  # stream offset where the frame being read began

    def feed(self, data: bytes) -> None:
        """Take more bytes (then read every whole frame with ``next_frame``). The decoder's ``BufferFull`` means
        more bytes are waiting than any frame may have."""
        self._unpacker.feed(data)
        self._fed += len(data)

    @property
    def partial(self) -> bool:
        """Bytes of a frame that has not fully arrived are waiting."""
        return self._fed > self._frame_start

    def next_frame(self) -> object | None:
        """The next whole frame, or None until more bytes arrive. Raises ``FrameTooBig``, ``ValueError`` (nesting
        deeper than allowed) or the decoder's own errors for bytes that are not a valid frame."""
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
    wire = {"name": seat.name, "bot": seat.is_bot, "away": seat.away, "empty": seat.empty}
    if seat.left:  # (absent means false: the usual seat costs no more bytes than before)
        wire["left"] = True
    if seat.stand_in:
        wire["stand_in"] = True
    if seat.level:
        wire["level"] = seat.level
    return wire


def seat_from_wire(data: Any) -> SeatInfo:
    return SeatInfo(
        name=_want(data["name"], str),
        is_bot=_want(data["bot"], bool),
        away=_want(data["away"], bool),
        empty=_want(data["empty"], bool),
        left=_want(data.get("left", False), bool),
        stand_in=_want(data.get("stand_in", False), bool),
        level=_want(data.get("level", ""), str),
    )


MAX_SEAT_EVENTS = 64  # the newest a host sends (the log shows far fewer); a client reads no more than this


def update_extras(event: TableUpdate) -> dict[str, Any]:
    """The optional keys of an ``update`` (absent when empty, false or nil): the game's comings and goings, the
    countdown to a bot playing for an away player, whether the recipient created the table, and who asked for
    another game."""
    extras: dict[str, Any] = {}
    if event.seat_events:
        extras["seat_events"] = [[e.at, e.seat, e.kind] for e in event.seat_events[-MAX_SEAT_EVENTS:]]
    if event.bot_in is not None:  # (in whole milliseconds: no float is ever sent)
        extras["bot_in_ms"] = round(max(0.0, event.bot_in) * 1000)
    if event.creator:
        extras["creator"] = True
    if event.again:
        extras["again"] = list(event.again)
    return extras


def _again_from_wire(data: Any, players: int) -> tuple[int, ...]:
    """``again``: the seats that asked for another game, each once, in order (a seat out of range is an error)."""
    seats = {_want(seat, int) for seat in _want(data, list)}
    if any(not 0 <= seat < players for seat in seats):
        raise ValueError("again names a seat the table does not have")
    return tuple(sorted(seats))


def _seat_events_from_wire(data: Any, players: int) -> tuple[SeatEvent, ...]:
    events = []
    for item in _want(data, list)[-MAX_SEAT_EVENTS:]:
        at, seat, kind = _want(item, list)
        event = SeatEvent(at=_want(at, int), seat=_want(seat, int), kind=_want(kind, str))
        if event.kind in SEAT_EVENT_KINDS and 0 <= event.seat < players and event.at >= 0:
            events.append(event)  # (a kind this client does not know is left out, not an error)
    return tuple(events)


def _bot_in_from_wire(data: Any) -> float | None:
    """``bot_in_ms`` as seconds (at most a day: a host's clock is not to be trusted blindly either)."""
    if data is None:
        return None
    return min(max(0, _want(data, int)), 86_400_000) / 1000


def event_to_wire(event: TableUpdate | TableWaiting) -> dict[str, Any]:
    """The ``update`` or ``waiting`` frame for one recipient's event."""
    seats = [seat_to_wire(seat) for seat in event.seats]
    if isinstance(event, TableWaiting):
        return {
            "type": "waiting",
            "table": event.table_id,
            "seats": seats,
            "your_seat": event.my_seat,
            "can_start": event.can_start,
            "open_chips": event.open_chips,
            "variant": event.variant,
            "coach": event.coach,
        }
    return {**_update_head(event), "view": event.view.to_dict()}


def _update_head(event: TableUpdate) -> dict[str, Any]:
    """An ``update`` frame without its view: the table, the seats, and what the table adds to every view (the
    coach option; the running match; once the game is over, the score timeline)."""
    head: dict[str, Any] = {
        "type": "update",
        "table": event.table_id,
        "seats": [seat_to_wire(seat) for seat in event.seats],
        "can_restart": event.can_restart,
        "coach": event.coach,
        **update_extras(event),
    }
    if event.match is not None:
        head["match"] = match_to_wire(event.match)
    if event.timeline:
        head["timeline"] = [list(row) for row in event.timeline]
    return head


def match_to_wire(match: MatchTotals) -> dict[str, Any]:
    return {"games": match.games, "wins": list(match.wins), "scores": list(match.scores)}


def match_from_wire(data: Any, players: int) -> MatchTotals:
    wins = tuple(_want(value, int) for value in _want(data["wins"], list))
    scores = tuple(_want(value, int) for value in _want(data["scores"], list))
    if len(wins) != players or len(scores) != players:
        raise ValueError("one match total per seat")
    return MatchTotals(games=_want(data["games"], int), wins=wins, scores=scores)


def timeline_from_wire(data: Any, players: int) -> tuple[tuple[int, ...], ...]:
    rows = tuple(tuple(_want(value, int) for value in _want(row, list)) for row in _want(data, list))
    if any(len(row) != players for row in rows):
        raise ValueError("one score per seat in each timeline row")
    return rows


ADVICE_TENTHS = 10  # expected scores travel as whole tenths of a point (msgpack frames carry no floats)


def advice_to_wire(advice: CoachAdvice) -> dict[str, Any]:
    """The ``advice`` reply to a ``coach`` request (the asking seat only)."""
    return {
        "type": "advice",
        "state_id": advice.state_id,
        "action": advice.action,
        "take": round(advice.take_score * ADVICE_TENTHS),
        "pass": None if advice.pass_score is None else round(advice.pass_score * ADVICE_TENTHS),
    }


def advice_from_wire(data: dict[str, Any]) -> CoachAdvice:
    action = _want(data["action"], str)
    if action not in ("take", "pass"):
        raise ValueError("advice is take or pass")
    pass_tenths = data.get("pass")
    return CoachAdvice(
        state_id=_want(data["state_id"], int),
        action=action,
        take_score=_want(data["take"], int) / ADVICE_TENTHS,
        pass_score=None if pass_tenths is None else _want(pass_tenths, int) / ADVICE_TENTHS,
    )


_moves_cache: tuple[object, bytes] | None = None
_MOVES_KEY = encode("moves")
_VIEW_KEY = encode("view")


def encode_event(event: TableUpdate | TableWaiting) -> bytes:
    """``encode(event_to_wire(event))``, faster: the move list, the same for every seat, is packed once per move.

    A msgpack map is a header (a fixmap's one byte 0x80 | entries, or a map16's 0xde and two bytes of count)
    followed by its key/value pairs, so a map packed without its last pair becomes the full map by counting one
    more entry in its header and appending the pre-packed pair.
    """
    global _moves_cache
    if isinstance(event, TableWaiting):
        return encode(event_to_wire(event))
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


def event_from_wire(message: dict[str, Any]) -> TableUpdate | TableWaiting:
    """Inverse of ``event_to_wire``; raises ValueError/TypeError/KeyError on anything malformed."""
    seats = tuple(seat_from_wire(seat) for seat in _want(message["seats"], list))
    if message["type"] == "waiting":
        your_seat = message["your_seat"]
        return TableWaiting(
            table_id=_want(message["table"], str),
            seats=seats,
            my_seat=None if your_seat is None else _want(your_seat, int),
            can_start=_want(message["can_start"], bool),
            open_chips=_want(message["open_chips"], bool),
            variant=_want(message["variant"], str),
            coach=_want(message.get("coach", False), bool),
        )
    view = PlayerView.from_dict(_want(message["view"], dict))
    if len(seats) != view.players:
        raise ValueError("one seat per player")
    match = message.get("match")
    return TableUpdate(
        view=view,
        seats=seats,
        table_id=_want(message["table"], str),
        can_restart=_want(message["can_restart"], bool),
        seat_events=_seat_events_from_wire(message.get("seat_events", []), view.players),
        bot_in=_bot_in_from_wire(message.get("bot_in_ms")),
        creator=_want(message.get("creator", False), bool),
        match=None if match is None else match_from_wire(match, view.players),
        timeline=timeline_from_wire(message.get("timeline", []), view.players),
        coach=_want(message.get("coach", False), bool),
        again=_again_from_wire(message.get("again", []), view.players),
    )


def summary_to_wire(summary: TableSummary) -> dict[str, Any]:
    return {
        "table": summary.table_id,
        "players": summary.players,
        "seats": [seat_to_wire(seat) for seat in summary.seats],
        "started": summary.started,
        "finished": summary.finished,
        "open_chips": summary.open_chips,
        "variant": summary.variant,
        "spectators": summary.spectators,
        "coach": summary.coach,
    }


def summary_from_wire(data: Any) -> TableSummary:
    return TableSummary(
        table_id=_want(data["table"], str),
        players=_want(data["players"], int),
        seats=tuple(seat_from_wire(seat) for seat in _want(data["seats"], list)),
        started=_want(data["started"], bool),
        finished=_want(data["finished"], bool),
        open_chips=_want(data["open_chips"], bool),
        variant=_want(data["variant"], str),
        spectators=_want(data["spectators"], int),
        coach=_want(data.get("coach", False), bool),
    )


def chat_line_to_wire(line: ChatLine) -> dict[str, Any]:
    wire: dict[str, Any] = {"name": line.name, "seat": line.seat, "text": line.text}
    if line.at is not None:
        wire["at"] = line.at
        if line.events:
            wire["events"] = line.events
    return wire


def chat_to_wire(event: ChatLine | ChatHistory) -> dict[str, Any]:
    """The ``chat`` frame for one line, or the ``chat_history`` frame for a table's recent lines (of the table the
    recipient is at: a connection is at one table at a time)."""
    if isinstance(event, ChatHistory):
        return {"type": "chat_history", "lines": [chat_line_to_wire(line) for line in event.lines]}
    return {"type": "chat", **chat_line_to_wire(event)}


def chat_line_from_wire(data: Any) -> ChatLine:
    seat = data["seat"]
    at = data.get("at")
    return ChatLine(
        name=_want(data["name"], str),
        text=_want(data["text"], str),
        seat=None if seat is None else _want(seat, int),
        at=None if at is None else _count(at),
        events=0 if at is None else _count(data.get("events", 0)),
    )


def _count(value: Any) -> int:
    """A count of moves or events as a host sends it: a whole number, 0 or more, bounded."""
    number = _want(value, int)
    if not 0 <= number <= 10_000:
        raise ValueError(f"{number} is not a count")
    return number


def chat_from_wire(message: dict[str, Any]) -> ChatLine | ChatHistory:
    """Inverse of ``chat_to_wire``; raises ValueError/TypeError/KeyError on anything malformed."""
    if message["type"] == "chat_history":
        return ChatHistory(tuple(chat_line_from_wire(line) for line in _want(message["lines"], list)))
    return chat_line_from_wire(message)


def _want(value: Any, kind: type) -> Any:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
    return value
