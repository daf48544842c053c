"""Every stable error code of the game, in one registry: the engine's, the host's, the protocol's, the client's.

A refusal travels as a code and a readable message: the engine raises ``IllegalMove(code, ...)``, the host
answers a rejected message with an ``error`` frame carrying the code, and the client matches on it. Clients in
other languages match on the same strings, so a code is never renamed. docs/protocol.md lists every code a host
sends, with the same meaning and fatality (tests/test_error_codes.py checks the document against ``REGISTRY``).

The engine defines its own codes (it imports nothing of ours); they are registered here by name, not copied.
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


# The engine's move codes (nothanks_tui/engine/errors.py).
NOT_YOUR_TURN = engine_errors.NOT_YOUR_TURN
NO_CHIPS = engine_errors.NO_CHIPS
GAME_OVER = engine_errors.GAME_OVER
UNKNOWN_ACTION = engine_errors.UNKNOWN_ACTION
BAD_SEAT = engine_errors.BAD_SEAT
BAD_CONFIG = engine_errors.BAD_CONFIG
BAD_RECORD = engine_errors.BAD_RECORD
NOT_SEATED = engine_errors.NOT_SEATED  # also what a spectator's view gives as the reason for every action
# Lobby and seats
NO_TABLE = "no_table"
TABLE_FULL = "table_full"
SEAT_TAKEN = "seat_taken"
NOT_CREATOR = "not_creator"
NOT_AWAY = "not_away"
SEAT_AWAY = "seat_away"  # the seats that are not free are kept for players who are away (their token or key only)
SEATS_EMPTY = "seats_empty"
ALREADY_STARTED = "already_started"
NOT_STARTED = "not_started"
NOT_FINISHED = "not_finished"
BAD_TOKEN = "bad_token"
BAD_NAME = "bad_name"
BAD_BOT = "bad_bot"
STALE_STATE = "stale_state"
ALREADY_AT_TABLE = "already_at_table"
NOT_AT_TABLE = "not_at_table"
TOO_MANY_TABLES = "too_many_tables"
NOT_SAVED = "not_saved"
NO_GAME = "no_game"
COACH_OFF = "coach_off"
# Protocol
BAD_FRAME = "bad_frame"
TOO_BIG = "too_big"
UNKNOWN_TYPE = "unknown_type"
BAD_FIELD = "bad_field"
HELLO_FIRST = "hello_first"
BAD_VERSION = "bad_version"
FLOOD = "flood"
SERVER_CLOSING = "server_closing"
SLOW_READER = "slow_reader"
SLOW_DOWN = "slow_down"
TOO_MANY = "too_many"
IDLE = "idle"
NOT_MEMBER = "not_member"  # a cluster's table port: the hello did not prove the cluster secret
# Chat at a table
CHAT_EMPTY = "chat_empty"
CHAT_TOO_LONG = "chat_too_long"
CHAT_TOO_FAST = "chat_too_fast"
# Made by a client about its own connection
UNREACHABLE = "unreachable"
TIMEOUT = "timeout"
CLOSED = "closed"

_CODES = (
    ErrorCode(NOT_YOUR_TURN, "it is another seat's turn"),
    ErrorCode(NO_CHIPS, "pass with no chips: you must take"),
    ErrorCode(GAME_OVER, "the game is over"),
    ErrorCode(UNKNOWN_ACTION, "`action` is not `take` or `pass`"),
    ErrorCode(BAD_SEAT, "no such seat at this table", sent_by="engine"),
    ErrorCode(BAD_CONFIG, "`players` not 2..7, unknown variant…"),
    ErrorCode(BAD_RECORD, "a game record that does not replay", sent_by="engine"),
    ErrorCode(STALE_STATE, "your `state_id` is not the table's: look at the latest `update`"),
    ErrorCode(NOT_STARTED, "too early: the game has not started"),
    ErrorCode(NOT_FINISHED, "too early: the game is not over"),
    ErrorCode(NOT_SEATED, "spectators cannot do that"),
    ErrorCode(NOT_AT_TABLE, "join a table first"),
    ErrorCode(ALREADY_AT_TABLE, "leave your table first"),
    ErrorCode(NO_TABLE, "no such table"),
    ErrorCode(TABLE_FULL, "no free seat"),
    ErrorCode(SEAT_TAKEN, "that seat is taken"),
    ErrorCode(
        SEAT_AWAY,
        "no seat for you: a seat not free is kept for its player, who is away (their seat token or SSH key takes "
        "it back; watch instead)",
    ),
    ErrorCode(SEATS_EMPTY, "fill every seat before starting"),
    ErrorCode(ALREADY_STARTED, "the game has started (watch instead)"),
    ErrorCode(NOT_CREATOR, "only the table's creator may"),
    ErrorCode(NOT_AWAY, "that seat's player is here, or a bot plays for them already"),
    ErrorCode(BAD_TOKEN, "no seat holds that token"),
    ErrorCode(BAD_BOT, "unknown bot name"),
    ErrorCode(TOO_MANY_TABLES, "the host is at its table limit, a person has moved at every table"),
    ErrorCode(NO_GAME, "no such finished game in the history (or its record is damaged)"),
    ErrorCode(
        NOT_SAVED,
        "the host could not save the change to its store, so it did not happen there (an `action`'s: see `action`)",
    ),
    ErrorCode(COACH_OFF, "this table does not allow the coach"),
    ErrorCode(UNKNOWN_TYPE, "no such message type"),
    ErrorCode(
        BAD_FIELD,
        "a field is missing or of the wrong type (then fatal in a hello: `via` or `key` without the host's secret)",
    ),
    ErrorCode(BAD_NAME, "the name is empty after cleaning, or longer than 20", fatal=True),
    ErrorCode(BAD_VERSION, "another protocol version", fatal=True),
    ErrorCode(HELLO_FIRST, "the first message must be `hello` (within 10 s)", fatal=True),
    ErrorCode(BAD_FRAME, "undecodable bytes, over a string/array/map limit, or a frame not whole in 10 s", fatal=True),
    ErrorCode(TOO_BIG, "a frame over 4096 bytes", fatal=True),
    ErrorCode(FLOOD, "over the message rate, or too many refused messages", fatal=True),
    ErrorCode(SERVER_CLOSING, "the host is full (it closed this for a newcomer), or shutting down", fatal=True),
    ErrorCode(SLOW_READER, "the client left the host's frames unread for 30 s: dropped", fatal=True),
    ErrorCode(SLOW_DOWN, "`list_tables` more often than 2 a second (bursts of 6), or `coach` before its last answer"),
    ErrorCode(TOO_MANY, "over a per-address limit: connections (then fatal), watched tables, or tables created"),
    ErrorCode(IDLE, "15 minutes in the lobby without sitting at a table", fatal=True),
    ErrorCode(NOT_MEMBER, "a cluster's table port: the hello did not prove the cluster secret (`proof`)", fatal=True),
    ErrorCode(CHAT_EMPTY, "a chat line with nothing printable left once cleaned"),
    ErrorCode(CHAT_TOO_LONG, "a chat line over 200 characters once cleaned"),
    ErrorCode(CHAT_TOO_FAST, "more than 5 chat lines at once, or over 1 a second (a table: 10, then 5 a second)"),
    ErrorCode(UNREACHABLE, "the host could not be reached", sent_by="client"),
    ErrorCode(TIMEOUT, "the host did not answer in time", sent_by="client"),
    ErrorCode(CLOSED, "the connection is closed", sent_by="client"),
)

REGISTRY: dict[str, ErrorCode] = {entry.code: entry for entry in _CODES}
"""Every code by name."""

HOST_CODES = frozenset(code for code, entry in REGISTRY.items() if entry.sent_by == "host")
"""The codes a host may send in an ``error`` frame (docs/protocol.md lists exactly these)."""

assert engine_errors.ERROR_CODES <= REGISTRY.keys(), "every engine code is registered"
