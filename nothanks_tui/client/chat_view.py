"""Chat lines in the table's log: who said what, set apart from the moves, in the order things happened.

A line arrives between two moves; the log keeps it there (``LoggedChat.after``: how many moves the game had then)
and shows moves and lines in one column, newest at the bottom. Lines are marked by the speaker's name in angle
brackets (``<bo> good luck``), so they read as chat in 16 colours and without colour too; app.tcss styles them
as well. Chat never pushes the moves out: it takes at most half the log's rows when moves want them, and a
long line wraps to at most ``CHAT_ROWS`` rows. The text is drawn as plain text (never markup), cleaned again
here whatever the host did.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual.content import Content
from textual.style import Style

from ..engine import Move
from ..i18n import _
from ..link import ChatLine, SeatEvent
from ..link.chat import MAX_CHAT
from .safe_text import clean_message, display_name
from .seat_log import LogEntry

CHAT_ROWS = 3  # rows one line may wrap to in the log
CONTINUED = "┊ "  # starts each row of a line after its first
CHAT_KEPT = 50  # lines the table screen keeps (the host sends at most as many as history)


@dataclass(frozen=True, slots=True)
class LoggedChat:
    """A line as the log places it: in game ``game`` (the screen's count), after ``after`` of its moves and
    ``events`` of the seat events told after those moves."""

    line: ChatLine
    game: int
    after: int
    events: int = 0


def speaker(line: ChatLine) -> str:
    """``bo``, or ``eve (watching)`` for a spectator (whose name may look like a player's)."""
    name = display_name(line.name, 14)
    return name if line.seat is not None else _("{name} (watching)").format(name=name)


def chat_content(line: ChatLine, name_style: Style | str = "bold", text_style: Style | str = "") -> Content:
    """``<bo> good luck``: the name in angle brackets, then the text as plain text."""
    return Content.assemble((f"<{speaker(line)}>", name_style), " ", (clean_message(line.text, MAX_CHAT), text_style))


def chat_rows(content: Content, width: int, max_rows: int = CHAT_ROWS) -> list[Content]:
    """``content`` wrapped to ``width`` cells, at most ``max_rows`` rows (the last ending in "…" when cut). Rows
    after the first start with ``CONTINUED``, so that no part of a line can pass for a move of the log."""
    wrapped = content.wrap(max(4, width - len(CONTINUED)))
    if not wrapped:
        return [Content("")]
    if len(wrapped) > max_rows:
        wrapped = wrapped[:max_rows]
        wrapped[-1] = wrapped[-1] + Content("…")
    return [wrapped[0], *(Content.styled(CONTINUED, "dim") + row for row in wrapped[1:])]


def log_items(
    entries: Sequence[LogEntry],
    moves: Sequence[Move],
    chat: Sequence[LoggedChat],
    game: int,
    rows: int,
    chat_heights: Sequence[int],
    events: Sequence[SeatEvent] = (),
) -> list[LogEntry | LoggedChat]:
    """What the log shows, oldest first, filling at most ``rows`` rows: the log ``entries`` (moves and seat events,
    from ``seat_log.log_entries``; ``moves``: all the game's moves) and the chat lines (``chat_heights[i]`` rows
    for ``chat[i]``), in the order they happened. Chat takes at most half the rows when there are entries to
    show, the newest lines first. ``events``: the game's seat events, to place a line among those told at the
    same move count."""
    if rows <= 0:
        return []
    index_of = {id(move): index for index, move in enumerate(moves)}
    rank_of: dict[int, int] = {}  # a seat event -> how many were told before it at the same move count
    told_at: dict[int, int] = {}
    for event in events:
        rank_of[id(event)] = told_at.get(event.at, 0)
        told_at[event.at] = rank_of[id(event)] + 1

    def position(entry: LogEntry) -> tuple[int, int, float]:
        """A move sorts at its index; a seat event that came after k moves sorts before move k."""
        if entry.move is not None:
            return (index_of[id(entry.move)], 1, 0)
        if entry.event is None:
            return (0, 0, 0)
        return (entry.event.at, 0, rank_of.get(id(entry.event), 0))

    # A line said after k moves sorts after move k-1 and before move k, among that move count's seat events where
    # it was said; lines of an earlier game before them all.
    keyed: list[tuple[tuple[int, int, float], int, LogEntry | LoggedChat, int]] = [
        (position(entry), order, entry, 1) for order, entry in enumerate(entries)
    ]
    for order, (said, height) in enumerate(zip(chat, chat_heights)):
        where = (said.after, 0, said.events - 0.5) if said.game == game else (-1, 0, 0.0)
        keyed.append((where, len(entries) + order, said, height))
    keyed.sort(key=lambda item: (item[0], item[1]))
    chat_cap = rows - min(rows // 2, len(entries))
    chosen: list[LogEntry | LoggedChat] = []
    used = chat_used = 0
    for _key, _order, item, height in reversed(keyed):
        if used >= rows:
            break
        if isinstance(item, LoggedChat):
            if chat_used + height > chat_cap or used + height > rows:
                continue
            chat_used += height
        used += height
        chosen.append(item)
    chosen.reverse()
    return chosen
