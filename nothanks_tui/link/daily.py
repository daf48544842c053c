"""The daily deal, as host and client both read it: the day (UTC), its seed (an HMAC of the day under a secret
that never leaves the host or this install), the ranking of a day's scores and the one-line result to share."""

from __future__ import annotations

import datetime
import hashlib
import hmac
from collections.abc import Iterable

import msgspec

from ..i18n import _

DAILY_PLAYERS = 3  # the player in seat 0, then two bots of one level, seated and seeded the same for everyone
DAILY_BOT = "medium"
TOP = 50  # ranked lines a host sends (the asker's own line comes besides)


def today(now: datetime.datetime | None = None) -> str:
    """The deal's day, in UTC everywhere (a player's midnight is not the host's): ``2026-12-04``."""
    return (now or datetime.datetime.now(datetime.UTC)).astimezone(datetime.UTC).date().isoformat()


def is_daily(table_id: str) -> bool:
    """A daily deal's table (``d<N>``; a local one is ``daily``): its player's alone, never listed, joined, watched
    or replayed, and no second game there."""
    return table_id.startswith("d")


def daily_seed(secret: bytes, day: str) -> int:
    """The day's deal seed: the same for everyone given ``secret``, unguessable without it."""
    digest = hmac.new(secret, b"nothanks daily " + day.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


class Ranked(msgspec.Struct, array_like=True, frozen=True):
    """One line of a ranking: ``place`` is shared by equal scores (``tied``: ``=3rd``); lower scores rank first."""

    place: int
    tied: bool
    name: str
    score: int


def rank(results: Iterable[tuple[str, int]]) -> list[Ranked]:
    """``(name, score)`` pairs ranked: lowest score first, equal scores share the better place (1, 2, 2, 4)."""
    ordered = sorted(results, key=lambda result: (result[1], result[0]))
    scores = [score for _name, score in ordered]
    return [
        Ranked(scores.index(score) + 1, scores.count(score) > 1, name, score)
        for name, score in ordered  # (a day has a few thousand lines at most)
    ]


def place_text(line: Ranked) -> str:
    """``3rd``, ``=3rd`` (in the player's language)."""
    n = line.place
    last = 0 if n % 100 in (11, 12, 13) else n % 10
    word = _("1st") if n == 1 else {1: _("{n}st"), 2: _("{n}nd"), 3: _("{n}rd")}.get(last, _("{n}th")).format(n=n)
    return "=" + word if line.tied else word


def bar(place: int, count: int) -> str:
    """Three squares: how much of the field placed after you, in thirds rounded down (``▓▓▓`` first, ``░░░``
    last; alone, ``▓▓▓``)."""
    filled = 3 if count <= 1 else 3 * (count - place) // (count - 1)
    return "▓" * filled + "░" * (3 - filled)


def share_line(day: str, line: Ranked, count: int) -> str:
    """Your result only, nothing of the deal: ``No Thanks! daily 2026-12-04 · 31 points · 3rd of 57 · ▓▓░``."""
    return _("No Thanks! daily {day} · {score} points · {place} of {count} · {bar}").format(
        day=day, score=line.score, place=place_text(line), count=count, bar=bar(line.place, count)
    )
