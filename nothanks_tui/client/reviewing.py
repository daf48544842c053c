"""The review of a finished game in words, for the score screen, the replay and ``nothanks review``.

The grading is the bots' (``bots/review.py``, its plain-data form documented in docs/review.md): the command line
gives the app a ``reviewer``, as the client never imports the bots. It grades the seat's own finished view (the
public moves), in a thread, so the screen never waits for it.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any

from ..engine import PlayerView
from ..i18n import _, ngettext

Reviewer = Callable[[PlayerView], dict[str, Any]]


@functools.lru_cache(maxsize=8)  # the score screen's review, then the same game's replay: graded once
def _grading(reviewer: Reviewer, view: PlayerView, loop: object) -> asyncio.Task[dict[str, Any]]:
    return asyncio.ensure_future(asyncio.to_thread(reviewer, view))


async def review_of(reviewer: Reviewer, view: PlayerView) -> dict[str, Any] | None:
    """The review of ``view``'s seat (a finished game), worked out in a thread; None if its moves do not grade. One
    grading a game, however often it is asked meanwhile (``v``, Esc, ``v``... would fill an SSH worker's threads)."""
    try:
        return await asyncio.shield(_grading(reviewer, view, asyncio.get_running_loop()))
    except ValueError:
        return None


def _score(value: float) -> str:
    return f"{value:.1f}".replace("-", "−")


def grade_text(decision: dict[str, Any]) -> str:
    """ "take ≈41.2 · No thanks! ≈43.0 · lost 1.8" (expected final scores; "exact" where solved)."""
    parts = [
        _("take ≈{score}").format(score=_score(decision["take"])),
        _("No thanks! ≈{score}").format(score=_score(decision["pass"])),
    ]
    lost = decision["lost"]
    parts.append(_("lost {points}").format(points=f"{lost:.1f}") if lost >= 0.05 else _("the better choice"))
    if decision["exact"]:
        parts.append(_("exact"))
    return " · ".join(parts)


def decision_line(decision: dict[str, Any]) -> str:
    """ "Move 31 · 27, 3 chips on it · you said No thanks! · take ≈41.2 · No thanks! ≈43.0 · lost 1.8"."""
    played = _("you took it") if decision["played"] == "take" else _("you said No thanks!")
    card = ngettext("{card}, {count} chip on it", "{card}, {count} chips on it", decision["pot"]).format(
        card=decision["card"], count=decision["pot"]
    )
    where = _("Move {move}").format(move=decision["move"])
    return f"{where} · {card} · {played} · {grade_text(decision)}"


def review_lines(review: dict[str, Any]) -> list[str]:
    """The whole review: a summary, the costliest decisions, then every decision in order."""
    decisions = review["decisions"]
    summary = ngettext("{count} decision graded", "{count} decisions graded", len(decisions)).format(
        count=len(decisions)
    )
    exact = _("{count} exact").format(count=sum(decision["exact"] for decision in decisions))
    lost = _("points lost in all: {points}").format(points=f"{review['lost']:.1f}")
    lines = [
        _(
            "Each choice's expected final score (lower is better), by the search of the hard and expert bots; "
            "exact near the end."
        ),
        f"{summary} ({exact}) · {lost}",
        "",
    ]
    by_move = {decision["move"]: decision for decision in decisions}
    if review["costliest"]:
        lines.append(_("The costliest decisions:"))
        lines.extend(decision_line(by_move[move]) for move in review["costliest"])
    else:
        lines.append(_("No decision lost a point."))
    lines += ["", _("Every decision:")]
    lines.extend(decision_line(decision) for decision in decisions)
    return lines
