"""Rendered lines that free themselves: Textual's ``Strip.divide`` without the reference cycle it makes.

Textual's compositor cuts every line it paints with ``Strip.divide``. When the only cut is the line's own end (the
usual case: one widget across the width of a region), ``divide`` returns ``[self]`` and also stores that list in the
strip's own cache, so the strip refers to itself. Such a strip, its seven caches and its segments are then only
freed by a garbage collection, never by reference counting. In a host running dozens of session apps that was
most of the garbage the collector had to find: about 12,000 objects a second at 20 playing sessions (measured with
``scripts/profile_ssh.py``), and with it the full collections that stop every session at once.

``prevent_strip_cycles`` wraps ``Strip.divide`` so that this one case returns a fresh ``[self]`` without caching
it; every other call goes to Textual's own method unchanged. The result is the same list either way, which
``check_strip_divide`` verifies (and a test calls) against the installed Textual at startup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from rich.segment import Segment
from textual.strip import Strip

_TEXTUAL_DIVIDE: Callable[[Strip, Iterable[int]], list[Strip]] = Strip.divide


class StripDivideChanged(RuntimeError):
    """The installed Textual's ``Strip.divide`` no longer behaves as this module assumes."""


def _divide_without_cycle(self: Strip, cuts: Iterable[int]) -> list[Strip]:
    cell_length = self.cell_length
    kept = [cut for cut in cuts if cut <= cell_length]
    if kept == [cell_length]:
        return [self]  # what Textual returns here, minus the self-reference in the strip's cache
    return _TEXTUAL_DIVIDE(self, kept)


def prevent_strip_cycles() -> None:
    """Install the cycle-free ``divide`` (idempotent; process-wide, harmless for an ordinary app)."""
    check_strip_divide()
    Strip.divide = _divide_without_cycle  # type: ignore[method-assign]


def check_strip_divide() -> None:
    """Raise ``StripDivideChanged`` if Textual's ``divide`` and the wrapped one would ever answer differently."""
    line = Strip([Segment("No "), Segment("thanks!")])
    length = line.cell_length
    for cuts in ([length], [length, length + 4], [3, length], [2, 5, length], [length + 1], []):
        ours = [strip.text for strip in _divide_without_cycle(line, cuts)]
        theirs = [strip.text for strip in _TEXTUAL_DIVIDE(Strip(list(line)), cuts)]
        if ours != theirs:
            raise StripDivideChanged(
                f"textual's Strip.divide changed (cuts {cuts}: {theirs!r}, ours {ours!r}); "
                "review server/nothanks_server/ssh/strip_cycles.py"
            )
