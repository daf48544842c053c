"""One parse of the game's stylesheets for every SSH session, instead of one per session.

Each Textual app parses all of its CSS (the app's .tcss files and every widget's DEFAULT_CSS) when it starts: about
a hundred milliseconds of CPU per session on a small machine, the largest part of a session's start. The result
depends only on the CSS text and the theme's variables, which every session shares, and Textual already reuses it
within one app through the stylesheet's private ``_parse_cache``. ``share_parsed_css`` gives an app's stylesheet a
cache that is shared by all session apps, keyed by the variables too; clearing it (Textual does when variables
change) only forgets this app's view, never another session's entries.

Private Textual details: ``check_stylesheet_internals`` fails loudly if a release changes them.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from textual.app import App
from textual.css.stylesheet import Stylesheet

MAX_ENTRIES = 512  # parsed CSS sources kept (the game has a few dozen per theme)

_shared: OrderedDict[tuple[Any, ...], Any] = OrderedDict()


class StylesheetInternalsChanged(RuntimeError):
    """A Textual release changed the stylesheet internals this module relies on."""


def check_stylesheet_internals() -> None:
    probe = Stylesheet(variables={"a": "1"})
    missing = [name for name in ("_parse_cache", "_variables") if not hasattr(probe, name)]
    if missing:
        raise StylesheetInternalsChanged(
            "textual's Stylesheet changed; review server/nothanks_server/ssh/css_cache.py: missing "
            + ", ".join(missing)
        )


class SharedParseCache:
    """Stands in for one stylesheet's ``_parse_cache`` (Textual uses ``[key]``, ``[key] = rules`` and ``clear()``)."""

    def __init__(self, stylesheet: Stylesheet) -> None:
        self._stylesheet = stylesheet
        self._variables: dict[str, str] | None = None
        self._variables_key: tuple[tuple[str, str], ...] = ()

    def _key(self, key: tuple[Any, ...]) -> tuple[Any, ...]:
        variables = self._stylesheet._variables
        if variables is not self._variables:
            self._variables = variables
            self._variables_key = tuple(sorted(variables.items()))
        return (self._variables_key, key)

    def __getitem__(self, key: tuple[Any, ...]) -> Any:
        full = self._key(key)
        value = _shared[full]
        _shared.move_to_end(full)
        return value

    def __setitem__(self, key: tuple[Any, ...], value: Any) -> None:
        _shared[self._key(key)] = value
        while len(_shared) > MAX_ENTRIES:
            _shared.popitem(last=False)

    def __contains__(self, key: tuple[Any, ...]) -> bool:
        return self._key(key) in _shared

    def clear(self) -> None:
        self._variables = None  # entries stay: they belong to every session with these variables


def share_parsed_css(app: App[Any]) -> None:
    """Let ``app`` reuse the CSS other session apps parsed already (and share what it parses)."""
    app.stylesheet._parse_cache = SharedParseCache(app.stylesheet)  # type: ignore[assignment]


def shared_entries() -> int:
    return len(_shared)
