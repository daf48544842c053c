"""The host's own refusal codes (lobby, seats, protocol), beside the engine's move codes.

``HostError`` subclasses the engine's ``IllegalMove`` so a transport answers every refusal in one place, with
one stable ``code`` and a readable message. Never rename a code: clients match on them (docs/protocol.md).
"""

from __future__ import annotations

from nothanks_tui.engine import IllegalMove

# Lobby and seats
NO_TABLE = "no_table"
TABLE_FULL = "table_full"
SEAT_TAKEN = "seat_taken"
NOT_SEATED = "not_seated"
NOT_CREATOR = "not_creator"
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
# Protocol
BAD_FRAME = "bad_frame"
TOO_BIG = "too_big"
UNKNOWN_TYPE = "unknown_type"
BAD_FIELD = "bad_field"
HELLO_FIRST = "hello_first"
BAD_VERSION = "bad_version"
FLOOD = "flood"
SLOW_READER = "slow_reader"
SERVER_CLOSING = "server_closing"
REPLACED = "replaced"

HOST_ERROR_CODES = frozenset(
    {
        NO_TABLE,
        TABLE_FULL,
        SEAT_TAKEN,
        NOT_SEATED,
        NOT_CREATOR,
        SEATS_EMPTY,
        ALREADY_STARTED,
        NOT_STARTED,
        NOT_FINISHED,
        BAD_TOKEN,
        BAD_NAME,
        BAD_BOT,
        STALE_STATE,
        ALREADY_AT_TABLE,
        NOT_AT_TABLE,
        TOO_MANY_TABLES,
        BAD_FRAME,
        TOO_BIG,
        UNKNOWN_TYPE,
        BAD_FIELD,
        HELLO_FIRST,
        BAD_VERSION,
        FLOOD,
        SLOW_READER,
        SERVER_CLOSING,
        REPLACED,
    }
)


class HostError(IllegalMove):
    """A lobby, seat or protocol request the host refuses; ``code`` is one of ``HOST_ERROR_CODES``."""
