"""Textual's rendered lines (``Strip``), made cheap to keep for a host that runs many session apps in one heap.

Two changes, both process-wide, both invisible to an ordinary app (every result equals Textual's own):

**No self-reference from ``divide``.** Textual's compositor cuts every line it paints with ``Strip.divide``. When
the only cut is the line's own end (the usual case: one widget across the width of a region), ``divide`` returns
``[self]`` and also stores that list in the strip's own cache, so the strip refers to itself. Such a strip, its
caches and its segments are then only freed by a garbage collection, never by reference counting: at 20 playing
sessions that was about 12,000 objects a second for the collector (measured with ``scripts/profile_ssh.py``). The
wrapped ``divide`` returns a fresh ``[self]`` in that one case and hands every other call to Textual's method.

**Caches made on first use.** Every ``Strip`` creates seven small caches (``FIFOCache``) when it is made. In a
host at play, 55 % of the live strips never use any of them and the rest use exactly one. Made eagerly they were
2,678 of a session's 11,074 tracked objects; made on first use, 217 (and a session's memory blocks 14 % fewer).
Each cache slot of the class is given a descriptor that makes the cache when it is first read;
``Strip.__init__`` no longer makes them.

Both rely on private details of ``textual.strip`` (the slot names, the caches' sizes, what ``__init__`` sets):
``check_strip_internals`` verifies them against the installed Textual (the SSH front calls it at startup, a test
calls it too) and raises ``StripInternalsChanged`` rather than guessing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from rich.segment import Segment
from textual.cache import FIFOCache
from textual.strip import Strip

_TEXTUAL_DIVIDE: Callable[[Strip, Iterable[int]], list[Strip]] = Strip.divide
_TEXTUAL_INIT: Callable[..., None] = Strip.__init__
CACHE_SLOTS = (
    "_divide_cache",
    "_crop_cache",
    "_style_cache",
    "_filter_cache",
    "_line_length_cache",
    "_crop_extend_cache",
    "_offsets_cache",
)
PLAIN_SLOTS = ("_segments", "_cell_length", "_render_cache", "_link_ids", "_cell_count")


class StripInternalsChanged(RuntimeError):
    """The installed Textual's ``Strip`` no longer looks the way this module expects."""


def _divide_without_cycle(self: Strip, cuts: Iterable[int]) -> list[Strip]:
    cell_length = self.cell_length
    kept = [cut for cut in cuts if cut <= cell_length]
    if kept == [cell_length]:
        return [self]  # what Textual returns here, minus the self-reference in the strip's cache
    return _TEXTUAL_DIVIDE(self, kept)


class LazyCache:
    """A data descriptor over one cache slot of ``Strip``: the ``FIFOCache`` is made when first read."""

    __slots__ = ("_maxsize", "_slot")

    def __init__(self, slot: Any, maxsize: int) -> None:
        self._slot = slot  # the slot's own member descriptor: reads and writes the instance's storage
        self._maxsize = maxsize

    def __get__(self, strip: Strip | None, owner: type | None = None) -> Any:
        if strip is None:
            return self
        try:
            return self._slot.__get__(strip, owner)
        except AttributeError:
            cache: FIFOCache[Any, Any] = FIFOCache(self._maxsize)
            self._slot.__set__(strip, cache)
            return cache

    def __set__(self, strip: Strip, value: Any) -> None:
        self._slot.__set__(strip, value)


def _init_without_caches(self: Strip, segments: Iterable[Segment], cell_length: int | None = None) -> None:
    self._segments = list(segments)
    self._cell_length = cell_length
    self._render_cache = None
    self._link_ids = None
    self._cell_count = None


def _textual_cache_sizes() -> dict[str, int]:
    probe = object.__new__(Strip)
    _TEXTUAL_INIT(probe, [])
    return {name: getattr(probe, name)._maxsize for name in CACHE_SLOTS}


def check_strip_internals() -> None:
    """Raise ``StripInternalsChanged`` unless ``Strip`` still has exactly the slots, caches and ``divide`` this
    module was written against."""
    slots = tuple(getattr(Strip, "__slots__", ()))
    if sorted(slots) != sorted(CACHE_SLOTS + PLAIN_SLOTS):
        raise StripInternalsChanged(f"textual's Strip slots changed to {slots}; review ssh/strips.py")
    probe = object.__new__(Strip)
    _TEXTUAL_INIT(probe, [Segment("x")], 1)
    for name in CACHE_SLOTS:
        cache = getattr(probe, name, None)
        if not isinstance(cache, FIFOCache) or not isinstance(getattr(cache, "_maxsize", None), int):
            raise StripInternalsChanged(f"textual's Strip.{name} is no longer a FIFOCache; review ssh/strips.py")
    plain = {name: getattr(probe, name, "missing") for name in PLAIN_SLOTS}
    if plain != {
        "_segments": [Segment("x")],
        "_cell_length": 1,
        "_render_cache": None,
        "_link_ids": None,
        "_cell_count": None,
    }:
        raise StripInternalsChanged(f"textual's Strip.__init__ sets {plain}; review ssh/strips.py")
    line = Strip([Segment("No "), Segment("thanks!")])
    length = line.cell_length
    for cuts in ([length], [length, length + 4], [3, length], [2, 5, length], [length + 1], []):
        ours = [strip.text for strip in _divide_without_cycle(line, cuts)]
        theirs = [strip.text for strip in _TEXTUAL_DIVIDE(Strip(list(line)), cuts)]
        if ours != theirs:
            raise StripInternalsChanged(
                f"textual's Strip.divide changed (cuts {cuts}: {theirs!r}, ours {ours!r}); review ssh/strips.py"
            )


def install_strip_fixes() -> None:
    """Install both changes (idempotent)."""
    if Strip.divide is _divide_without_cycle:
        return
    check_strip_internals()
    sizes = _textual_cache_sizes()
    for name in CACHE_SLOTS:
        setattr(Strip, name, LazyCache(Strip.__dict__[name], sizes[name]))
    Strip.__init__ = _init_without_caches  # type: ignore[method-assign]
    Strip.divide = _divide_without_cycle  # type: ignore[method-assign]
