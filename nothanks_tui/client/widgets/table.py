"""The table screen's widgets: each draws the latest ``TableUpdate`` bound from the screen, with the words of
``presentation`` (no game logic here). Player names are drawn as literal text."""

from __future__ import annotations

import textwrap
import time
from collections.abc import Callable, Hashable
from functools import lru_cache, partial
from typing import Any, ClassVar, TypeVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.content import Content
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.renderables.digits import Digits as DigitsGlyphs
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

from ...engine import Action, PlayerView, card_points
from ...i18n import _, ngettext
from ...link import CoachAdvice, TableUpdate
from .. import presentation, seat_log
from ..safe_text import clean_message
from .keybar import line_strip

HOST_AWAY_MARKER = "⏸"  # (the turn line's marker while nobody can play: says it without colour)
DRAWN_CACHE_SIZE = 64  # lines a widget keeps for reuse (a few moves' worth)
Drawn = TypeVar("Drawn")


@lru_cache(maxsize=64)
def big_digits(text: str) -> tuple[str, ...]:
    """``text`` as three lines of box-drawing digits (Textual's ``Digits`` glyphs, bold)."""
    glyphs = DigitsGlyphs(text).render(RichStyle(bold=True))
    rows = "".join(segment.text for segment in glyphs if isinstance(segment, Segment))
    return tuple(rows.split("\n")[:3])


class TableView(Widget):
    """A widget that draws the latest ``TableUpdate`` line by line (``draw_lines``) and repaints only the lines that
    changed: on an SSH host each repainted line costs time and bytes per player. Lines that depend on a few values
    are cached (``cached``), so an unchanged line is the same object and costs neither building nor comparing."""

    table: reactive[TableUpdate | None] = reactive(None, repaint=False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._lines: list[Content] = []
        self._lines_size = Size(0, 0)  # the content size the lines were drawn for
        self._drawn: dict[Hashable, Any] = {}  # see ``cached``

    def draw_lines(self) -> list[Content]:
        """What the widget shows for ``self.table`` at its current size, one ``Content`` per line."""
        raise NotImplementedError

    def cached(self, key: Hashable, build: Callable[[], Drawn]) -> Drawn:
        """What was drawn for ``key`` last time (``key`` must hold everything it shows), else ``build()``."""
        drawn = self._drawn.get(key)
        if drawn is None:
            if len(self._drawn) >= DRAWN_CACHE_SIZE:
                self._drawn.clear()
            drawn = self._drawn[key] = build()
        return drawn

    def watch_table(self) -> None:
        if not self.display:  # hidden at this size (the one-line log): drawn when it shows again
            self._lines_size = Size(0, 0)
            return
        size = self.content_region.size
        new_lines = self.draw_lines()
        regions = self.changed_lines(new_lines) if size == self._lines_size else None
        self._lines, self._lines_size = new_lines, size
        if regions is None:
            # A widget of ``height: auto`` follows its line count: only then is the screen laid out again.
            self.refresh(layout=bool(self.styles.height and self.styles.height.is_auto))
        elif regions:  # (refresh() with no region would repaint everything)
            self.refresh(*regions)

    def changed_lines(self, new_lines: list[Content]) -> list[Region] | None:
        """A region per line that differs from what is shown; None when the line count changed."""
        if len(new_lines) != len(self._lines):
            return None
        width = self._lines_size.width
        return [
            Region(0, y, width, 1) for y, (old, new) in enumerate(zip(self._lines, new_lines)) if not old.is_same(new)
        ]

    def render_line(self, y: int) -> Strip:
        size = self.content_region.size
        if size != self._lines_size:  # resized (or first paint): draw again for this size
            self._lines, self._lines_size = self.draw_lines(), size
        return line_strip(self._lines[y] if y < len(self._lines) else Content(""), size.width, self.visual_style)

    def render(self) -> Content:
        """The whole drawing (Textual measures a widget of ``height: auto`` with it)."""
        return Content("\n").join(self.draw_lines())


def label_cell(label: str, cells: int = 7) -> str:
    """A status label padded to ``cells`` (one space at least), so the values after it line up in any language."""
    return label + " " * max(1, cells - cell_len(label))


def fitted(line: Content, width: int) -> list[Content]:
    """``line`` if it fits ``width`` cells, else its text wrapped to at least 8 cells a row."""
    return [line] if line.cell_length <= width else [Content(row) for row in textwrap.wrap(line.plain, max(8, width))]


def centred(line: Content, width: int) -> Content:
    """``line`` with spaces on the left so that it sits in the middle of ``width`` cells."""
    return Content(" " * max(0, (width - line.cell_length) // 2)) + line


class FaceUpCard(TableView):
    """The face-up card, drawn large: a box with the value in big digits and in both corners, the chips below."""

    _shown_corner = ""

    def watch_table(self) -> None:
        view = self.table.view if self.table else None
        self.set_class(view is None or view.card is None, "-empty")
        corner = str(view.card) if view is not None and view.card is not None else ""
        if corner != self._shown_corner:
            self._shown_corner = corner
            self.border_title = self.border_subtitle = corner
        super().watch_table()

    def draw_lines(self) -> list[Content]:
        view = self.table.view if self.table else None
        if view is None or view.card is None:
            value, pot = "", _("game over") if view else ""
        else:
            value = str(view.card)
            pot = f"{'●' * min(view.pot, 8)}{'+' if view.pot > 8 else ''}" if view.pot else _("no chips")
        width, height = self.content_region.size
        lines = [
            self.cached(("digits", row, width), partial(centred, Content.styled(row, "bold"), width))
            for row in big_digits(value)
        ]
        if height >= len(lines) + 2:  # room for the chips under the value
            lines += [Content(""), self.cached(("pot", pot, width), lambda: centred(Content(pot), width))]
        top = [Content("")] * max(0, (height - len(lines)) // 2)
        return top + lines


class TableStatus(TableView):
    """Deck, chips on the card, whose turn, and the countdown (from the host's ``bot_in``) to a bot playing it (an
    away player's, or a present one's once the turn clock runs out), redrawn once a second."""

    clock: Callable[[], float] = staticmethod(time.monotonic)  # tests drive the countdown with their own
    host_away: reactive[bool] = reactive(False, repaint=False)  # the connection to the host is down: no turn now

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._deadline: float | None = None  # ``clock()`` time a bot plays this turn
        self._ticking: Timer | None = None

    def watch_table(self) -> None:
        bot_in = self.table.bot_in if self.table is not None else None
        self._deadline = None if bot_in is None else self.clock() + bot_in
        if self._deadline is not None and self._ticking is None:
            self._ticking = self.set_interval(1.0, self.tick, name="turn countdown")
        elif self._deadline is None and self._ticking is not None:
            self._ticking.stop()
            self._ticking = None
        super().watch_table()

    watch_host_away = TableView.watch_table  # (not this class's: the countdown's deadline stays)

    def tick(self) -> None:
        if self._deadline is not None:
            super().watch_table()

    def _turn_lines(self, width: int) -> list[Content]:
        assert self.table is not None
        view, seats = self.table.view, self.table.seats
        if self.host_away and not view.finished:  # nobody's turn is played until the host is back
            return fitted(Content.styled(HOST_AWAY_MARKER + " " + _("Host away: reconnecting…"), "bold reverse"), width)
        mover = seats[view.to_move] if 0 <= view.to_move < len(seats) else None
        name = presentation.seat_name(seats, view.to_move)
        if view.finished or mover is None or not mover.away:
            key = ("turn", view.finished, view.legal, view.refusal(Action.PASS), name)
            turn = self.cached(key, lambda: presentation.turn_content(view, seats))
            if self._deadline is None or view.finished:
                return [turn]
            left = Content.styled(seat_log.clock_text(self._deadline - self.clock()), "bold")
            both = Content.assemble(turn, " ", left)  # (on a line of its own if the status is narrow)
            return [both] if both.cell_length <= width else [turn, left]
        remaining = None if self._deadline is None else self._deadline - self.clock()
        text = seat_log.away_turn_text(name, remaining, mover.stand_in)
        return fitted(Content.assemble((f"{presentation.TURN_MARKER} ", "bold"), text), width)

    def draw_lines(self) -> list[Content]:
        if self.table is None:
            return [Content(_("Waiting for the table…"))]
        view = self.table.view
        width, height = self.content_region.size
        again = presentation.next_game_text(self.table)
        if again is not None:  # the game is over and someone wants another: who waits for whom, in place of the deck
            return [Content.styled(_("Game over"), "bold"), Content(""), *fitted(Content(again), width or 24)]
        turn = self._turn_lines(width or 24)
        lines = [
            self.cached(
                ("deck", view.deck_left),
                lambda: Content.assemble(
                    (label_cell(_("Deck")), "dim"),
                    _("{cards} left").format(cards=presentation.cards_count(view.deck_left)),
                ),
            ),
            self.cached(
                ("removed", view.removed_count),
                lambda: Content.assemble(
                    (label_cell(""), "dim"), (_("{count} set aside").format(count=view.removed_count), "dim")
                ),
            ),
            self.cached(
                ("pot", view.pot),
                lambda: Content.assemble((label_cell(_("Chips")), "dim"), (str(view.pot), "bold"), _(" on the card")),
            ),
        ]
        if not height or len(lines) + 1 + len(turn) <= height:
            lines.append(Content(""))
        if (invite := self.table.invite) and (not height or len(lines) + len(turn) + 2 <= height):
            # A private table's invite code, to its players: someone may still be asked to watch (or to sit next game).
            turn += [Content(""), Content.assemble((label_cell(_("Code")), "dim"), (clean_message(invite, 16), "bold"))]
        return lines + turn


class LogView(TableView):
    """The log's lines: a move or seat event (``seat_log.entry_line``), the newest marked ``›``, the rest dimmed."""

    def no_moves(self) -> list[Content] | None:
        if self.table is None or not (self.table.view.moves or self.table.seat_events):
            return [self.cached("no moves", lambda: Content.styled(_("No moves yet"), "dim"))]
        return None

    def entry(self, entry: seat_log.LogEntry, newest: bool) -> Content:
        seats = self.table.seats if self.table else ()
        return self.cached((*seat_log.entry_key(entry, seats), newest), partial(self._draw_entry, entry, newest))

    def _draw_entry(self, entry: seat_log.LogEntry, newest: bool) -> Content:
        line = seat_log.entry_line(entry, self.table.seats if self.table else ())
        return Content.assemble(("› ", "bold"), line) if newest else Content.assemble("  ", line).stylize("dim")


class MoveLog(LogView):
    """One line per card, newest at the bottom, the players' comings and goings and the chat lines between them,
    in the order things happened (``seat_log.log_entries``, ``seat_log.log_items``)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"movelog--chat-name", "movelog--chat"}

    chat: reactive[tuple[seat_log.LoggedChat, ...]] = reactive((), repaint=False)
    chat_muted: reactive[bool] = reactive(False, repaint=False)
    game_number: reactive[int] = reactive(0, repaint=False)  # the game the chat lines are placed in

    watch_chat = watch_chat_muted = TableView.watch_table

    def draw_lines(self) -> list[Content]:
        chat = () if self.chat_muted else self.chat
        if not chat and (empty := self.no_moves()):
            return empty
        width, height = self.content_region.size
        rows, width = max(1, height or 6), width or 40
        moves = self.table.view.moves if self.table is not None else ()
        events = self.table.seat_events if self.table is not None else ()
        entries = seat_log.log_entries(moves, events, rows)
        drawn: list[list[Content]] = []
        theme = self.app.current_theme.name if chat else ""
        for said in reversed(chat):  # only the newest lines that could fit are drawn
            drawn.append(self._chat_rows(said, width, theme))
            if sum(map(len, drawn)) >= rows:
                break
        drawn.reverse()
        chat = chat[len(chat) - len(drawn) :]
        by_line = {id(said): lines for said, lines in zip(chat, drawn)}
        heights = [len(lines) for lines in drawn]
        items = seat_log.log_items(entries, moves, chat, self.game_number, rows, heights, events) if chat else entries
        lines: list[Content] = []
        for item in items:
            if isinstance(item, seat_log.LoggedChat):
                lines.extend(by_line[id(item)])
            else:
                lines.append(self.entry(item, item is entries[-1]))
        return lines

    def _chat_rows(self, said: seat_log.LoggedChat, width: int, theme: str) -> list[Content]:
        def build() -> list[Content]:
            name_style = self.get_visual_style("movelog--chat-name")
            text_style = self.get_visual_style("movelog--chat")
            return seat_log.chat_rows(seat_log.chat_content(said.line, name_style, text_style), width)

        return self.cached(("chat", said, width, theme), build)


class LatestMove(LogView):
    """The log's newest line alone, for terminals too narrow for the log beside the card (shown by app.tcss)."""

    def draw_lines(self) -> list[Content]:
        if empty := self.no_moves():
            return empty
        assert self.table is not None
        return [
            self.entry(entry, True) for entry in seat_log.log_entries(self.table.view.moves, self.table.seat_events, 1)
        ]


class PlayersPanel(TableView):
    """Every seat: turn marker, name, chips (hidden as ? unless open), cards in runs, points from cards."""

    NAME_CELLS = 14
    LABEL_CELLS = NAME_CELLS + 6

    def draw_lines(self) -> list[Content]:
        if self.table is None:
            return [Content("")]
        view = self.table.view
        seats = self.table.seats
        width = self.content_region.width or 80
        player, chips, points, cards = _("Player"), _("Chips"), _("Pts"), _("Cards")
        chips_cells = max(5, cell_len(chips))  # the column as wide as its heading, in any language
        header = f"  {player:<{self.LABEL_CELLS}}{chips:>{chips_cells}}  {points:>3}  {cards}"
        rows: list[list[Content]] = []
        for seat in range(view.players):
            marker = presentation.TURN_MARKER if (not view.finished and view.to_move == seat) else " "
            name = presentation.seat_name(seats, seat, self.NAME_CELLS)
            tag = ""
            if seat == view.seat:
                tag = presentation.you_tag(name)
            elif seat < len(seats) and (seats[seat].away or seats[seat].empty):  # a long name gives way to this tag
                info = seats[seat]
                tag = _(" (left)") if info.empty else _(" (bot playing)") if info.stand_in else _(" (away)")
                if cell_len(name) + cell_len(tag) >= self.LABEL_CELLS:
                    name = presentation.seat_name(seats, seat, max(4, self.LABEL_CELLS - cell_len(tag) - 1))
            elif seat < len(seats) and seats[seat].is_bot:
                tag = " ({})".format(_("bot"))
            mine, hand = seat == view.seat, view.hands[seat]
            chips = presentation.HIDDEN_CHIPS if view.chips[seat] is None else str(view.chips[seat])
            row = (marker, name, tag, mine, chips, card_points(hand), hand, width, chips_cells)  # (points: cards alone)
            rows.append(self.cached(row, partial(self._draw_seat, row)))
        return self._fit(self.cached("header", lambda: Content.styled(header, "dim")), rows, view)

    def _fit(self, header: Content, rows: list[list[Content]], view: PlayerView) -> list[Content]:
        """Every seat's lines if they fit; else one line a seat, then without the header, then the seats that fit
        (yours and the mover's first) and how many are not shown."""
        height = self.content_region.height
        if not height or 1 + sum(len(row) for row in rows) <= height:
            return [header, *(line for row in rows for line in row)]
        firsts = [row[0] for row in rows]
        if 1 + len(firsts) <= height:
            return [header, *firsts]
        if len(firsts) <= height:
            return firsts
        room = max(1, height - 1)
        first = [seat for seat in (view.seat, view.to_move) if seat is not None and 0 <= seat < len(firsts)]
        shown = list(dict.fromkeys([*first, *range(len(firsts))]))[:room]
        hidden = len(firsts) - len(shown)
        more = ngettext(
            "+{count} more player: make the terminal taller", "+{count} more players: make the terminal taller", hidden
        ).format(count=hidden)
        return [*(firsts[seat] for seat in sorted(shown)), Content.styled(more, "dim")][-height:]

    def _draw_seat(self, row: tuple[str, str, str, bool, str, int, tuple[int, ...], int, int]) -> list[Content]:
        marker, name, tag, mine, chips, points, hand, width, chips_cells = row
        label_cells = self.LABEL_CELLS
        label = f"{name}{tag}" if cell_len(name) + len(tag) < label_cells else name
        prefix = Content.assemble(
            (marker, "bold"),
            " ",
            (label + " " * (label_cells - cell_len(label)), "bold" if mine else ""),
            (f"{chips:>{chips_cells}}", "dim" if chips == presentation.HIDDEN_CHIPS else ""),
            "  ",
            f"{points:>3}",
            "  ",
        )
        return presentation.indented_lines(prefix, presentation.hand_lines(hand, width - prefix.cell_length, "—"))


class PrivatePanel(TableView):
    """Your chips, cards and score, and what each choice means for you now (with the coach's answer, if asked)."""

    advice: reactive[CoachAdvice | None] = reactive(None, repaint=False)
    compact: reactive[bool] = reactive(False, repaint=False)  # a very short terminal: the two choices alone
    host_away: reactive[bool] = reactive(False, repaint=False)  # the connection to the host is down

    def draw_lines(self) -> list[Content]:
        if self.table is None or self.table.view.seat is None:
            return [Content(_("Watching"))]
        view = self.table.view
        chips = view.my_chips or 0
        summary = Content.assemble(
            (_("You: "), "bold"), (presentation.chips_count(chips), "bold"), " · ", presentation.my_score_content(view)
        )
        prefix = Content(_("Your cards: "))
        width = self.content_region.width or 80
        hand = presentation.hand_lines(view.my_hand, width - prefix.cell_length)
        lines = [summary, *presentation.indented_lines(prefix, hand)]
        if view.finished:
            done = presentation.asked_by_me(self.table) or not self.table.can_restart
            over = _("Game over: s shows the scores.") if done else _("Game over: s shows the scores, a to play again.")
            return [*lines, Content.styled(over, "dim")]
        if self.host_away:  # a choice could not reach the host: none is offered until it is back
            waits = [Content.styled(_("Your choices come back with the host: nothing can be played meanwhile."), "dim")]
            return waits if self.compact else [*lines, *waits]
        advice = self.advice
        if advice is None or advice.state_id != view.state_id or not view.legal:
            advice = None  # the coach's answer stands only for the position it was given for
        choices = []
        for key, action, line in (("t", "take", presentation.take_choice), ("n", "pass", presentation.pass_choice)):
            mark = presentation.choice_mark(advice, action) if advice else Content("")
            choice = Content.assemble((f"[{key}] ", "bold"), line(view), mark)
            if choice.cell_length > width:  # keep the score and the coach's mark in sight
                choice = Content.assemble((f"[{key}] ", "bold"), line(view, short=True), mark)
            choices.append(choice if view.legal else choice.stylize("dim"))  # nothing yours to play now: a preview
        # (compact: your chips, score and cards are in your row of the players' panel)
        return choices if self.compact else [*lines, *choices]

    watch_advice = watch_compact = watch_host_away = TableView.watch_table
