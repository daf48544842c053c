"""Textual's class-wide caches that remember instances: cleared whenever a session app ends.

A few Textual methods are wrapped in ``functools.lru_cache`` although they take ``self``: the cache is shared by the
whole process and its keys hold the instances. In a normal one-app process that is harmless. In a host running an app
per SSH session, each finished session leaves its objects in these caches (the app's colour filter; every widget's
styles cache, with its rendered lines), up to 1024 entries each, so memory climbs with every visitor. The entries
only save recomputation, so dropping them when a session ends costs the live sessions little.

These are private Textual details: ``check_instance_caches`` fails loudly if a Textual release renames them.
"""

from __future__ import annotations

from typing import Any

from textual._styles_cache import StylesCache
from textual._xterm_parser import XTermParser
from textual.filter import ANSIToTruecolor

INSTANCE_CACHES: tuple[tuple[str, Any], ...] = (
    ("XTermParser._parse_extended_key", XTermParser.__dict__.get("_parse_extended_key")),
    ("ANSIToTruecolor.truecolor_style", ANSIToTruecolor.__dict__.get("truecolor_style")),
    ("StylesCache.get_inner_outer", StylesCache.__dict__.get("get_inner_outer")),
)


class InstanceCachesChanged(RuntimeError):
    """A Textual release moved one of the instance-keyed caches this module clears."""


def check_instance_caches() -> None:
    """Raise ``InstanceCachesChanged`` if any known instance-keyed cache is no longer an lru_cache."""
    missing = [name for name, cache in INSTANCE_CACHES if not callable(getattr(cache, "cache_clear", None))]
    if missing:
        raise InstanceCachesChanged(
            "textual's instance-keyed caches changed; review server/nothanks_server/ssh/caches.py: "
            + ", ".join(missing)
        )


def clear_instance_caches() -> None:
    """Forget every cached entry that holds an instance (a finished session's objects among them)."""
    for _name, cache in INSTANCE_CACHES:
        clear = getattr(cache, "cache_clear", None)
        if clear is not None:
            clear()


def instance_cache_entries() -> int:
    """Entries in those caches now (for tests and the benchmark)."""
    return sum(cache.cache_info().currsize for _name, cache in INSTANCE_CACHES if hasattr(cache, "cache_info"))
