"""The table screen's widgets. Each holds the latest ``TableUpdate`` (bound from the screen) and draws it.

No game logic lives here: the words and numbers come from ``presentation`` (which asks the engine's pure
scoring functions). Player names are drawn as literal text.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.style import Style as RichStyle
from textual.content import Content
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.renderables.digits import Digits as DigitsGlyphs
from textual.strip import Strip
from textual.widget import Widget

from ..connection import TableUpdate
from ..presentation import (
    HIDDEN_CHIPS,
    TURN_MARKER,
    chips_text,
    hand_lines,
    indented,
    move_line,
    my_score_content,
    pass_choice,
    plural,
    public_points,
    seat_name,
    take_choice,
    turn_content,
    you_tag,
)


def big_digits(text: str) -> list[str]:
    """``text`` as three lines of box-drawing digits (Textual's ``Digits`` glyphs, bold)."""
    rows = "".join(segment.text for segment in DigitsGlyphs(text).render(RichStyle(bold=True)))
    return rows.split("\n")[:3]


class TableView(Widget):
    """A widget that draws the latest ``TableUpdate`` line by line, repainting only the lines that changed.

    Every update of the table reaches every widget, and most lines of most widgets show the same thing as before.
    On the host, where each SSH player's app runs, repainting costs real time per line and bytes on every player's
    connection. So ``draw`` gives the widget's lines (``Content``, player names as plain text), an update asks
    Textual to repaint only the lines whose text or style changed, and ``render_line`` (Textual's line API) turns
    just those lines into strips: no full re-render of the widget per update. A line wider than the widget ends
    in an ellipsis.
    """

    table: reactive[TableUpdate | None] = reactive(None, repaint=False)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._lines: list[Content] = []
        self._lines_size = Size(0, 0)  # the content size the lines were drawn for

    def draw(self) -> Content:
        """What the widget shows for ``self.table`` at its current size."""
        raise NotImplementedError

    def draw_lines(self) -> list[Content]:
        """``draw()`` as one ``Content`` per line."""
        return self.draw().split("\n")

    def watch_table(self) -> None:
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
        """One region per line (relative to the content) that differs from what is shown; ``None`` when the
        lines cannot be compared one to one (their count changed)."""
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
        style = self.visual_style
        line = self._lines[y] if y < len(self._lines) else Content("")
        if line.cell_length > size.width:
            line = line.truncate(size.width, ellipsis=True)
        return Strip(line.render_segments(style), line.cell_length).extend_cell_length(size.width, style.rich_style)

    def render(self) -> Content:
        """The whole drawing (Textual measures a widget of ``height: auto`` with it)."""
        return self.draw()


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

    def draw(self) -> Content:
        view = self.table.view if self.table else None
        if view is None or view.card is None:
            value, pot = "", "game over" if view else ""
        else:
            value = str(view.card)
            pot = f"{'●' * min(view.pot, 8)}{'+' if view.pot > 8 else ''}" if view.pot else "no chips"
        lines = [Content.styled(line, "bold") for line in big_digits(value)]
        width, height = self.content_region.size
        if height >= len(lines) + 2:  # room for the chips under the value
            lines += [Content(""), Content(pot)]
        top = [Content("")] * max(0, (height - len(lines)) // 2)
        return Content("\n").join(top + [centred(line, width) for line in lines])


class TableStatus(TableView):
    """Deck, chips on the card, whose turn."""

    def draw(self) -> Content:
        if self.table is None:
            return Content("Waiting for the table…")
        view = self.table.view
        lines = [
            Content.assemble(("Deck   ", "dim"), f"{plural(view.deck_left, 'card')} left"),
            Content.assemble(("       ", "dim"), (f"{view.removed_count} set aside", "dim")),
            Content.assemble(("Chips  ", "dim"), (str(view.pot), "bold"), " on the card"),
            Content(""),
            turn_content(view, self.table.seats),
        ]
        return Content("\n").join(lines)


class MoveLog(TableView):
    """The last few moves, newest at the bottom and marked ``›`` (older ones dimmed)."""

    def draw(self) -> Content:
        if self.table is None or not self.table.view.moves:
            return Content.styled("No moves yet", "dim")
        rows = max(1, self.content_region.height or 6)
        moves = self.table.view.moves[-rows:]
        lines = [Content.assemble("  ", move_line(move, self.table.seats)).stylize("dim") for move in moves[:-1]]
        lines.append(Content.assemble(("› ", "bold"), move_line(moves[-1], self.table.seats)))
        return Content("\n").join(lines)


class PlayersPanel(TableView):
    """Every seat: turn marker, name, chips (hidden as ? unless open), cards in runs, points from cards."""

    def draw(self) -> Content:
        if self.table is None:
            return Content("")
        view = self.table.view
        seats = self.table.seats
        name_cells = 14
        label_cells = name_cells + 6
        header = Content.styled(f"  {'Player':<{label_cells}}{'Chips':>5}  {'Pts':>3}  Cards", "dim")
        lines = [header]
        for seat in range(view.players):
            marker = TURN_MARKER if (not view.finished and view.to_move == seat) else " "
            name = seat_name(seats, seat, name_cells)
            tag = ""
            if seat == view.seat:
                tag = you_tag(name)
            elif seat < len(seats) and seats[seat].away:
                tag = " (away)"
            elif seat < len(seats) and seats[seat].is_bot:
                tag = " (bot)"
            label = f"{name}{tag}" if cell_len(name) + len(tag) < label_cells else name
            chips = chips_text(view, seat)
            prefix = Content.assemble(
                (marker, "bold"),
                " ",
                (label + " " * (label_cells - cell_len(label)), "bold" if seat == view.seat else ""),
                (f"{chips:>5}", "dim" if chips == HIDDEN_CHIPS else ""),
                "  ",
                f"{public_points(view, seat):>3}",
                "  ",
            )
            width = (self.content_region.width or 80) - prefix.cell_length
            lines.append(indented(prefix, hand_lines(view.hands[seat], width, "—")))
        return Content("\n").join(lines)


class PrivatePanel(TableView):
    """Your own area: your chips, cards and score, and what each choice means for you now."""

    def draw(self) -> Content:
        if self.table is None or self.table.view.seat is None:
            return Content("Watching")
        view = self.table.view
        chips = view.my_chips or 0
        summary = Content.assemble(("You: ", "bold"), (plural(chips, "chip"), "bold"), " · ", my_score_content(view))
        prefix = Content("Your cards: ")
        width = (self.content_region.width or 80) - prefix.cell_length
        cards = indented(prefix, hand_lines(view.my_hand, width))
        summary = Content("\n").join([summary, cards])
        if view.finished:
            after = Content.styled("Game over: s shows the scores, a deals a new game.", "dim")
            return Content("\n").join([summary, after])
        take = Content.assemble(("[t] ", "bold"), take_choice(view))
        pass_ = Content.assemble(("[n] ", "bold"), pass_choice(view))
        if not view.my_turn:
            take = take.stylize("dim")
            pass_ = pass_.stylize("dim")
        return Content("\n").join([summary, take, pass_])
