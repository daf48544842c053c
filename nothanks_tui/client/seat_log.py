"""The table's log in words: players' comings and goings ("alice left", "alice is back"), the moves a stand-in
bot played ("bot for bob took 17"), the countdowns to a bot playing a turn, and the chat lines said between moves
(``<bo> good luck``: plain text, cleaned again here whatever the host did). The host sends facts (``SeatEvent``,
``bot_in``); this words them in the player's language and merges them with the moves and the chat in order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from textual.content import Content
from textual.style import Style

from ..engine import Action, Move
from ..i18n import N_, _, ngettext
from ..link import ChatLine, SeatEvent, SeatInfo
from ..link.chat import MAX_CHAT
from ..link.events import SEAT_AWAY, SEAT_BACK, SEAT_CLOCK, SEAT_LEFT, SEAT_STAND_IN
from .presentation import logged_moves, move_line, seat_name
from .safe_text import clean_message, display_name

BOT_PLAYS = frozenset({SEAT_LEFT, SEAT_STAND_IN})  # after these, a bot plays the seat (until SEAT_BACK)
EVENT_WORDS = {
    SEAT_LEFT: N_("{name} left: a bot plays for them"),
    SEAT_AWAY: N_("{name} dropped out (away)"),
    SEAT_STAND_IN: N_("a bot plays for {name} now"),
    SEAT_BACK: N_("{name} is back"),
    SEAT_CLOCK: N_("{name}'s clock ran out: a bot played their move"),
}


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One line of the log: a move (``by_bot``: a stand-in bot played it for the seat's player), or a seat event."""

    move: Move | None = None
    event: SeatEvent | None = None
    by_bot: bool = False


def log_entries(moves: Sequence[Move], events: Sequence[SeatEvent], rows: int) -> list[LogEntry]:
    """What the log shows, oldest first, at most ``rows``: every seat event and the take of every card, in order,
    and the newest move whatever it is, even with seat events after it (``logged_moves``)."""
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
            return event.kind in BOT_PLAYS or (event.kind == SEAT_CLOCK and event.at == move_index)
    return False


def _with_name(template: str, name: str) -> Content:
    """A translated sentence whose ``{name}`` is the player's name in bold, as plain text (never markup)."""
    before, _sep, after = template.partition("{name}")
    return Content.assemble(before, (name, "bold"), after)


def entry_line(entry: LogEntry, seats: Sequence[SeatInfo]) -> Content:
    """A move, or a seat event in italics: "alice left: a bot plays for them", "alice is back"..."""
    move, event = entry.move, entry.event
    name = seat_name(seats, event.seat if event is not None else move.seat if move is not None else -1, 10)
    if event is not None:
        words = EVENT_WORDS.get(event.kind)
        if event.kind == SEAT_LEFT and 0 <= event.seat < len(seats) and seats[event.seat].empty:  # after the game
            words = N_("{name} left the table: their seat is free for the next game.")
        return (_with_name(_(words), name) if words is not None else Content("")).stylize("italic")
    assert move is not None
    if not entry.by_bot:
        return move_line(move, seats)
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


def away_turn_text(name: str, remaining: float | None, stand_in: bool = False) -> Content:
    """The turn of an away player: "bob is away: a bot plays for them in 42 s" (``remaining`` None: no timer), or
    "bot for bob to play…" once a stand-in bot plays the seat."""
    if stand_in:
        return _with_name(_("bot for {name} to play…"), name)
    if remaining is None:
        return _with_name(_("{name} is away: the game waits for them"), name)
    seconds = max(0, math.ceil(remaining - 1e-6))  # (42.3 s shows 43: never 0 while time is left)
    if seconds <= 0:
        return _with_name(_("{name} is away: a bot plays for them now"), name)
    template = ngettext(
        "{name} is away: a bot plays for them in {seconds} s",
        "{name} is away: a bot plays for them in {seconds} s",
        seconds,
    )
    text = template.format(name="{name}", seconds=seconds).replace(f"{seconds} s", f"{seconds}\u00a0s")
    return _with_name(text, name)  # (a no-break space: a narrow status never wraps "s" away from its number)


def clock_text(remaining: float) -> str:
    """What is left of the turn clock of the player to move: "12 s left" (a no-break space before "s")."""
    seconds = max(0, math.ceil(remaining - 1e-6))
    text = ngettext("{seconds} s left", "{seconds} s left", seconds).format(seconds=seconds)
    return text.replace(f"{seconds} s", f"{seconds}\u00a0s")


CHAT_ROWS = 3  # rows one chat line may wrap to in the log
CONTINUED = "┊ "  # starts each row of a chat line after its first
CHAT_KEPT = 50  # chat lines the table screen keeps (the host sends at most as many as history)


@dataclass(frozen=True, slots=True)
class LoggedChat:
    """A chat line as the log places it: in game ``game``, after ``after`` moves and ``events`` seat events."""

    line: ChatLine
    game: int
    after: int
    events: int = 0


def as_seated(line: ChatLine, seats: Sequence[SeatInfo]) -> ChatLine:
    """``line`` under its seat's name as shown: a guest's with its mark (``SeatInfo.label``)."""
    seat = seats[line.seat] if line.seat is not None and 0 <= line.seat < len(seats) else None
    return replace(line, name=seat.label) if seat is not None and seat.guest else line


def chat_content(line: ChatLine, name_style: Style | str = "bold", text_style: Style | str = "") -> Content:
    """``<bo> good luck``, or ``<eve (watching)> hi`` for a spectator (whose name may look like a player's): the name
    in angle brackets, then the text as plain text."""
    name = display_name(line.name, 14)
    if line.seat is None:
        name = _("{name} (watching)").format(name=name)
    return Content.assemble((f"<{name}>", name_style), " ", (clean_message(line.text, MAX_CHAT), text_style))


def chat_rows(content: Content, width: int, max_rows: int = CHAT_ROWS) -> list[Content]:
    """``content`` wrapped to ``width`` cells, at most ``max_rows`` rows; rows after the first start with
    ``CONTINUED``, so no part of a line can pass for a move."""
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
    """What the log shows, oldest first, in at most ``rows`` rows: ``entries`` (``log_entries``) and chat lines
    (``chat_heights[i]`` rows for ``chat[i]``) in the order they happened, chat in at most half the rows when there
    are entries. ``moves`` and ``events``: all the game's, to place each line."""
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

    # A line said after k moves sorts before move k, among that count's seat events; an earlier game's before all.
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
