"""The one exception type for every rejected move, so callers (host, UI, bots) handle refusals in one place.

Each refusal carries a stable machine-readable ``code`` (sent on the wire by the host) and a readable message.
"""

from __future__ import annotations

# Stable error codes. Never rename one: clients match on them.
NOT_YOUR_TURN = "not_your_turn"
NO_CHIPS = "no_chips"
GAME_OVER = "game_over"
UNKNOWN_ACTION = "unknown_action"
BAD_SEAT = "bad_seat"
BAD_CONFIG = "bad_config"
BAD_RECORD = "bad_record"
NOT_SEATED = "not_seated"  # a spectator's view: nothing is playable without a seat (the host refuses the same way)

ERROR_CODES = frozenset(
    {NOT_YOUR_TURN, NO_CHIPS, GAME_OVER, UNKNOWN_ACTION, BAD_SEAT, BAD_CONFIG, BAD_RECORD, NOT_SEATED}
)


class CodedError(Exception):
    """A refusal: a stable ``code`` that programs match on, and a readable ``message`` (every layer's refusals)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class IllegalMove(CodedError):
    """A move, config or record that the rules do not allow. ``code`` is one of ``ERROR_CODES``."""
