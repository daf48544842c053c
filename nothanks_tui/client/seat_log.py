"""Players' comings and goings at a table, in words: the log's "alice left" / "alice is back" lines, the moves a
stand-in bot played for someone ("bot for bob took 17"), and the countdown to a bot playing an away player's turn.

The host sends facts, not sentences: each update carries the game's seat events (``SeatEvent``: after how many
moves, which seat, what happened) and, while a turn waits for an away player, the seconds until a bot plays it.
This module words them in the player's language and merges them with the moves, for the log widgets.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from textual.content import Content

from ..engine import Action, Move
from ..i18n import _, ngettext
from ..link import SeatEvent, SeatInfo
from ..link.events import SEAT_AWAY, SEAT_BACK, SEAT_LEFT, SEAT_STAND_IN
from .presentation import logged_moves, move_line, seat_name

BOT_PLAYS = frozenset({SEAT_LEFT, SEAT_STAND_IN})  # after these, a bot plays the seat (until SEAT_BACK)


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One line of the log: a move (``by_bot``: a stand-in bot played it for the seat's player), or a seat event."""

    move: Move | None = None
    event: SeatEvent | None = None
    by_bot: bool = False


def log_entries(moves: Sequence[Move], events: Sequence[SeatEvent], rows: int) -> list[LogEntry]:
    """What the log shows, oldest first, at most ``rows``: every seat event and the take of every card, in the
    order they happened, and the newest move whatever it is (a "No thanks!" too, even with seat events after it:
    a stand-in's pass followed at once by its player's return was in no line at all; see ``logged_moves``)."""
    if rows <= 0:
        return []
    if not events:
        return [LogEntry(move=move) for move in logged_moves(moves, rows)]
    shown: list[LogEntry] = []
    index, event_index = len(moves) - 1, len(events) - 1
    while len(shown) < rows and (index >= 0 or event_index >= 0):
        if event_index >= 0 and events[event_index].at > index:  # it happened after moves[index]
            shown.append(LogEntry(event=events[event_index]))
            event_index -= 1
        else:
            move = moves[index]
            if index == len(moves) - 1 or move.action is Action.TAKE:
                shown.append(LogEntry(move=move, by_bot=played_by_bot(events, index, move.seat)))
            index -= 1
    shown.reverse()
    return shown


def played_by_bot(events: Sequence[SeatEvent], move_index: int, seat: int) -> bool:
    """Whether a stand-in bot played move ``move_index`` of ``seat``: the seat's last event before it says so."""
    for event in reversed(events):
        if event.seat == seat and event.at <= move_index:
            return event.kind in BOT_PLAYS
    return False


def _with_name(template: str, name: str) -> Content:
    """A translated sentence whose ``{name}`` is the player's name in bold, as plain text (never markup)."""
    before, _sep, after = template.partition("{name}")
    return Content.assemble(before, (name, "bold"), after)


def seat_event_line(event: SeatEvent, seats: Sequence[SeatInfo]) -> Content:
    """ "alice left: a bot plays for them", "alice is back"..."""
    name = seat_name(seats, event.seat, 10)
    if event.kind == SEAT_LEFT and 0 <= event.seat < len(seats) and seats[event.seat].empty:  # after the game
        return _with_name(_("{name} left the table: their seat is free for the next game."), name)
    if event.kind == SEAT_LEFT:
        return _with_name(_("{name} left: a bot plays for them"), name)
    if event.kind == SEAT_AWAY:
        return _with_name(_("{name} dropped out (away)"), name)
    if event.kind == SEAT_STAND_IN:
        return _with_name(_("a bot plays for {name} now"), name)
    if event.kind == SEAT_BACK:
        return _with_name(_("{name} is back"), name)
    return Content("")


def entry_line(entry: LogEntry, seats: Sequence[SeatInfo]) -> Content:
    """One log line for ``entry`` (without the newest-line marker)."""
    if entry.event is not None:
        return seat_event_line(entry.event, seats).stylize("italic")
    assert entry.move is not None
    if not entry.by_bot:
        return move_line(entry.move, seats)
    name = seat_name(seats, entry.move.seat, 10)
    move = entry.move
    if move.action is Action.PASS:
        text = _("bot for {name}: No thanks! ({card})").format(name="{name}", card=move.card)
    else:
        text = ngettext(
            "bot for {name} took {card} with {chips} chip", "bot for {name} took {card} with {chips} chips", move.pot
        ).format(name="{name}", card=move.card, chips=move.pot)
    return _with_name(text, name)


def entry_key(entry: LogEntry, seats: Sequence[SeatInfo]) -> tuple[object, ...]:
    """Everything ``entry_line`` shows (the widgets cache drawn lines by it)."""
    seat = entry.event.seat if entry.event is not None else entry.move.seat if entry.move is not None else -1
    return (entry, seat_name(seats, seat, 10))


def seconds_left(remaining: float) -> int:
    """Whole seconds to show for ``remaining`` (42.3 s shows 43: it never says 0 while time is left)."""
    return max(0, math.ceil(remaining - 1e-6))


def away_turn_text(name: str, remaining: float | None) -> Content:
    """The turn of an away player: "bob is away: a bot plays for them in 42 s" (``remaining`` None: no timer)."""
    if remaining is None:
        return _with_name(_("{name} is away: the game waits for them"), name)
    seconds = seconds_left(remaining)
    if seconds <= 0:
        return _with_name(_("{name} is away: a bot plays for them now"), name)
    template = ngettext(
        "{name} is away: a bot plays for them in {seconds} s",
        "{name} is away: a bot plays for them in {seconds} s",
        seconds,
    )
    text = template.format(name="{name}", seconds=seconds).replace(f"{seconds} s", f"{seconds}\u00a0s")
    return _with_name(text, name)  # (a no-break space: a narrow status never wraps "s" away from its number)


def stand_in_turn_text(name: str) -> Content:
    """The turn of a seat a bot plays for its player: "bot for bob to play…"."""
    return _with_name(_("bot for {name} to play…"), name)
