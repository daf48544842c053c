"""The table screen's widgets. Each holds the latest ``TableUpdate`` (bound from the screen) and draws it.

No game logic lives here: the words and numbers come from ``presentation`` (which asks the engine's pure
scoring functions). Player names are drawn as literal text.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Digits, Label

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


class FaceUpCard(Vertical):
    """The face-up card, drawn large: a box with the value in big digits and in both corners."""

    table: reactive[TableUpdate | None] = reactive(None)
    _shown_pot = ""

    def compose(self) -> ComposeResult:
        yield Digits("", id="card-value")
        yield Label("", id="card-pot")

    def watch_table(self, table: TableUpdate | None) -> None:
        # Update a child only when what it shows changes: each update of a Digits or Label re-lays the screen out.
        view = table.view if table else None
        if view is None or view.card is None:
            value, corner, pot = "", "", "game over" if view else ""
        else:
            value = corner = str(view.card)
            pot = f"{'●' * min(view.pot, 8)}{'+' if view.pot > 8 else ''}" if view.pot else "no chips"
        self.set_class(not value, "-empty")
        digits = self.query_one("#card-value", Digits)
        if digits.value != value:
            digits.update(value)
        self.border_title = self.border_subtitle = corner
        if pot != self._shown_pot:
            self._shown_pot = pot
            self.query_one("#card-pot", Label).update(Content(pot))


class TableStatus(Widget):
    """Deck, chips on the card, whose turn."""

    table: reactive[TableUpdate | None] = reactive(None)

    def render(self) -> Content:
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


class MoveLog(Widget):
    """The last few moves, newest at the bottom and marked ``›`` (older ones dimmed)."""

    table: reactive[TableUpdate | None] = reactive(None)

    def render(self) -> Content:
        if self.table is None or not self.table.view.moves:
            return Content.styled("No moves yet", "dim")
        rows = max(1, self.content_region.height or 6)
        moves = self.table.view.moves[-rows:]
        lines = [Content.assemble("  ", move_line(move, self.table.seats)).stylize("dim") for move in moves[:-1]]
        lines.append(Content.assemble(("› ", "bold"), move_line(moves[-1], self.table.seats)))
        return Content("\n").join(lines)


class PlayersPanel(Widget):
    """Every seat: turn marker, name, chips (hidden as ? unless open), cards in runs, points from cards."""

    table: reactive[TableUpdate | None] = reactive(None)

    def render(self) -> Content:
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


class PrivatePanel(Widget):
    """Your own area: your chips, cards and score, and what each choice means for you now."""

    table: reactive[TableUpdate | None] = reactive(None)
    _shown_lines = 0

    def watch_table(self) -> None:
        # Its height follows its lines (height: auto): lay the screen out again only when their count changes.
        lines = len(self.render().split("\n"))
        if lines != self._shown_lines:
            self._shown_lines = lines
            self.refresh(layout=True)

    def render(self) -> Content:
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
