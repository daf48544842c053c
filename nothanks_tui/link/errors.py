"""Every stable error code of the game in one registry (the engine's, by name; the host's; the client's own).

A refusal travels as a code and a readable message, and clients in any language match on the code: never rename
one. docs/protocol.md lists every code a host sends (tests/test_error_codes.py checks it against ``REGISTRY``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import errors as engine_errors


@dataclass(frozen=True, slots=True)
class ErrorCode:
    """One code: what it means, whether the host closes the connection after it, and who sends it."""

    code: str
    meaning: str
    fatal: bool = False
    sent_by: str = "host"  # "host": in an ``error`` frame; "engine": raised but never reaches a client;
    # "client": made by the client about its own connection, never on the wire


REGISTRY: dict[str, ErrorCode] = {}
"""Every code by name."""


def _code(code: str, meaning: str, fatal: bool = False, sent_by: str = "host") -> str:
    REGISTRY[code] = ErrorCode(code, meaning, fatal, sent_by)
    return code


# The engine's move codes (nothanks_tui/engine/errors.py).
NOT_YOUR_TURN = _code(engine_errors.NOT_YOUR_TURN, "it is another seat's turn")
NO_CHIPS = _code(engine_errors.NO_CHIPS, "pass with no chips: you must take")
GAME_OVER = _code(engine_errors.GAME_OVER, "the game is over")
UNKNOWN_ACTION = _code(engine_errors.UNKNOWN_ACTION, "`action` is not `take` or `pass`")
BAD_SEAT = _code(engine_errors.BAD_SEAT, "no such seat at this table", sent_by="engine")
BAD_CONFIG = _code(engine_errors.BAD_CONFIG, "`players` not 2..7, unknown variant…")
BAD_RECORD = _code(engine_errors.BAD_RECORD, "a game record that does not replay", sent_by="engine")
# (not_seated is also what a spectator's view gives as the reason for every action)
NOT_SEATED = _code(engine_errors.NOT_SEATED, "spectators cannot do that")
# Lobby and seats
NO_TABLE = _code("no_table", "no such table")
TABLE_FULL = _code("table_full", "no free seat")
SEAT_TAKEN = _code("seat_taken", "that seat is taken")
NOT_CREATOR = _code("not_creator", "only the table's creator may")
NOT_AWAY = _code("not_away", "that seat's player is here, or a bot plays for them already")
SEAT_AWAY = _code(
    "seat_away",
    "no seat for you: a seat not free is kept for its player, who is away (their seat token or SSH key takes "
    "it back; watch instead)",
)
REMOVED = _code("removed", "the table's creator removed you from this table: you may not sit there before the deal")
PRIVATE_TABLE = _code("private_table", "a private table: its invite code (`code`) is missing or wrong")
SEATS_EMPTY = _code("seats_empty", "fill every seat before starting")
ALREADY_STARTED = _code("already_started", "the game has started (watch instead)")
NOT_STARTED = _code("not_started", "too early: the game has not started")
NOT_FINISHED = _code("not_finished", "too early: the game is not over")
BAD_TOKEN = _code("bad_token", "no seat holds that token")
BAD_NAME = _code("bad_name", "the name is empty after cleaning, or longer than 20", fatal=True)
NAME_TAKEN = _code(
    "name_taken", "another key owns that name here (the error's `name`: a free one to offer instead)", fatal=True
)
BAD_SIGNATURE = _code(
    "bad_signature", "the hello's `signature` does not sign the nonce with its `public_key`", fatal=True
)
BAD_BOT = _code("bad_bot", "unknown bot name")
STALE_STATE = _code("stale_state", "your `state_id` is not the table's: look at the latest `update`")
ALREADY_AT_TABLE = _code("already_at_table", "leave your table first")
NOT_AT_TABLE = _code("not_at_table", "join a table first")
TOO_MANY_TABLES = _code("too_many_tables", "the host is at its table limit, a person has moved at every table")
NOT_SAVED = _code(
    "not_saved",
    "the host could not save the change to its store, so it did not happen and never will (`action`: see there)",
)
NO_GAME = _code("no_game", "no such finished game in the history (or its record is damaged)")
COACH_OFF = _code("coach_off", "this table does not allow the coach")
DAILY_PLAYED = _code("daily_played", "you have played today's daily deal already (once a day, UTC)")
DAILY_NEEDS_KEY = _code("daily_needs_key", "a guest (no key) cannot play the daily deal: it counts once a player")
# Protocol
BAD_FRAME = _code(
    "bad_frame", "undecodable bytes, over a string/array/map limit, or a frame not whole in 10 s", fatal=True
)
TOO_BIG = _code("too_big", "a frame over 4096 bytes", fatal=True)
UNKNOWN_TYPE = _code("unknown_type", "no such message type")
BAD_FIELD = _code(
    "bad_field",
    "a field is missing or of the wrong type (then fatal in a hello: `via` or `key` without the host's secret)",
)
HELLO_FIRST = _code("hello_first", "the first message must be `hello` (within 10 s)", fatal=True)
BAD_VERSION = _code("bad_version", "another protocol version", fatal=True)
FLOOD = _code("flood", "over the message rate, or too many refused messages", fatal=True)
SERVER_CLOSING = _code(
    "server_closing", "the host is full (it closed this for a newcomer), or shutting down", fatal=True
)
SLOW_READER = _code("slow_reader", "the client left the host's frames unread for 30 s: dropped", fatal=True)
SLOW_DOWN = _code(
    "slow_down", "`list_tables` more often than 2 a second (bursts of 6), or `coach` before its last answer"
)
TOO_MANY = _code(
    "too_many",
    "over a per-address limit: connections (then fatal), watched tables, tables created, or invite codes tried",
)
IDLE = _code("idle", "15 minutes in the lobby without sitting at a table", fatal=True)
NOT_MEMBER = _code(
    "not_member", "a cluster's table port: the hello did not prove the cluster secret (`proof`)", fatal=True
)  # a cluster's table port: the hello did not prove the cluster secret
# Chat at a table
CHAT_EMPTY = _code("chat_empty", "a chat line with nothing printable left once cleaned")
CHAT_TOO_LONG = _code("chat_too_long", "a chat line over 200 characters once cleaned")
CHAT_TOO_FAST = _code(
    "chat_too_fast", "more than 5 chat lines at once, or over 1 a second (a table: 10, then 5 a second)"
)
# Made by a client about its own connection
UNREACHABLE = _code("unreachable", "the host could not be reached", sent_by="client")
TIMEOUT = _code("timeout", "the host did not answer in time", sent_by="client")
CLOSED = _code("closed", "the connection is closed", sent_by="client")

HOST_CODES = frozenset(code for code, entry in REGISTRY.items() if entry.sent_by == "host")
"""The codes a host may send in an ``error`` frame (docs/protocol.md lists exactly these)."""

assert engine_errors.ERROR_CODES <= REGISTRY.keys(), "every engine code is registered"
