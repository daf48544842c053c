"""Key parsing for SSH sessions: Textual's xterm parser without its process-wide cache.

Textual's ``XTermParser._parse_extended_key`` is wrapped in a class-level ``functools.lru_cache`` whose keys hold
the parser instance and whose values are ``Key`` events carrying their sender (the app). In a long-running host
that runs one app per SSH session, that cache keeps up to 1024 finished parsers and apps alive. Each session gets
a ``SessionKeyParser`` that calls the undecorated function instead, so nothing of a session outlives it.

``_xterm_parser`` is a private Textual module: ``check_parser_internals`` fails loudly (and a test calls it) if a
Textual release changes the pieces relied on here. The supported Textual range is pinned in pyproject.toml.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import events
from textual._xterm_parser import XTermParser

_CACHED_PARSE_EXTENDED_KEY = XTermParser.__dict__.get("_parse_extended_key")
_UNCACHED_PARSE_EXTENDED_KEY: Callable[[Any, str], list[events.Key] | None] | None = getattr(
    _CACHED_PARSE_EXTENDED_KEY, "__wrapped__", None
)


class ParserInternalsChanged(RuntimeError):
    """The installed Textual's private key parser no longer looks the way this module expects."""


def check_parser_internals() -> None:
    """Raise ``ParserInternalsChanged`` unless the private parser API used by the SSH front is still there."""
    problems = []
    if _CACHED_PARSE_EXTENDED_KEY is None or not hasattr(_CACHED_PARSE_EXTENDED_KEY, "cache_clear"):
        problems.append("XTermParser._parse_extended_key is no longer an lru_cache-wrapped method")
    if _UNCACHED_PARSE_EXTENDED_KEY is None:
        problems.append("XTermParser._parse_extended_key has no __wrapped__ function")
    for name in ("feed", "tick", "_sequence_to_key_events"):
        if not callable(getattr(XTermParser, name, None)):
            problems.append(f"XTermParser.{name} is missing")
    probe = XTermParser()
    if not hasattr(probe, "_timeout_time"):
        problems.append("Parser._timeout_time (the pending escape-sequence deadline) is missing")
    if problems:
        raise ParserInternalsChanged(
            "textual's private key parser changed; review server/nothanks_server/ssh/keys.py: " + "; ".join(problems)
        )


class SessionKeyParser(XTermParser):
    """An ``XTermParser`` for one SSH session, holding no state outside the instance."""

    def __init__(self) -> None:
        check_parser_internals()
        super().__init__(debug=False)  # debug=True would open keys.log in the server's working directory

    def _parse_extended_key(self, sequence: str) -> list[events.Key] | None:  # type: ignore[override]
        assert _UNCACHED_PARSE_EXTENDED_KEY is not None
        return _UNCACHED_PARSE_EXTENDED_KEY(self, sequence)

    @property
    def has_pending_timeout(self) -> bool:
        """True while a lone ESC (or a partial escape sequence) waits for ``tick`` to decide what it was."""
        return getattr(self, "_timeout_time", None) is not None
