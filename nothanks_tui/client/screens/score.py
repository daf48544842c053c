"""The end of a game: each player's score explained (runs, card total, minus chips, final), the winners, the
score chart (the host's timeline, sent only at the end) and the review of the player's own decisions."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import ClassVar

from rich.cells import cell_len
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ...engine import PlayerView, breakdown, winners
from ...i18n import N_, _, ngettext
from ...link import MatchTotals, SeatInfo, TableUpdate
from .. import presentation
from ..reviewing import Reviewer, review_lines, review_of
from ..safe_text import display_name
from ..widgets.keybar import KeyBar
from ..widgets.score_chart import ScoreChart, legend
from .dialogs import TextDialog

WINNER_MARK = "★"
SCORE_LINE_CELLS = 66
LABEL_CELLS = 20
MATCH_CELLS = 7
RATING_CELLS = 7  # the rating, then its change in this game (four cells)


def score_lines(table: TableUpdate) -> tuple[Content, Content]:
    """(headline, table of breakdowns) for a finished game's update."""
    view = table.view
    results = [breakdown(view.hands[seat], view.chips[seat] or 0) for seat in range(view.players)]
    best = winners([result.score for result in results])
    names = [presentation.seat_name(table.seats, seat, 14) for seat in range(view.players)]
    best_score = results[best[0]].score
    if len(best) == 1:
        who = _("You win") if best[0] == view.seat else _("{name} wins").format(name=names[best[0]])
        headline = Content.assemble(
            (f"{WINNER_MARK} {who}", "bold"), _(" with {points}").format(points=presentation.points_text(best_score))
        )
    else:
        tied = ", ".join(_("you") if seat == view.seat else names[seat] for seat in best)
        headline = Content.assemble(
            (f"{WINNER_MARK} " + _("Shared win"), "bold"),
            _(": {names} tie with {points}").format(names=tied, points=presentation.points_text(best_score)),
        )
    match = table.match if table.match is not None and table.match.games > 1 else None  # one game: no match yet
    heads = _("Player"), _("Cards"), _("Chips"), _("Score")
    header = f"  {heads[0]:<{LABEL_CELLS}}{heads[1]:>7}{heads[2]:>7}{heads[3]:>7}"
    if match is not None:  # the running match across "play again", beside this game's columns
        won, total = _("Won"), _("Match")
        header += f"{won:>{MATCH_CELLS}}{total:>{MATCH_CELLS}}"
    rated = any(seat.rating is not None and not seat.is_bot for seat in table.seats)  # (a host's game)
    if rated:
        header += f"{_('Rating'):>{RATING_CELLS}}    "
    lines = [Content.styled(header, "dim")]
    order = sorted(range(view.players), key=lambda seat: (results[seat].score, seat))
    for seat in order:
        result = results[seat]
        mark = WINNER_MARK if seat in best else " "
        label = player_label(names[seat], seat == view.seat)
        lines.append(
            Content.assemble(
                (mark, "bold"),
                " ",
                (label + " " * max(1, LABEL_CELLS - cell_len(label)), "bold" if seat in best else ""),
                f"{result.card_total:>7}",
                f"{'−' + str(result.chips) if result.chips else '0':>7}",
                (f"{presentation.number(result.score):>7}", "bold"),
                match_cells(match, seat),
                rating_cells(table.seats[seat]) if rated and seat < len(table.seats) else "",
                ("  " + _("winner") if seat in best else "", "bold"),
            )
        )
        cards = presentation.hand_lines(view.hands[seat], SCORE_LINE_CELLS)
        if len(result.runs) > 1:  # how the card total is made: each run's lowest card, added up
            explained = f"{' + '.join(str(run[0]) for run in result.runs)} = {result.card_total}"
            if len(cards) == 1 and cards[0].cell_length + 5 + len(explained) <= SCORE_LINE_CELLS:
                cards[0] = Content.assemble(cards[0], (f"   ({explained})", "dim"))
            else:  # no room beside the cards: on lines of its own, never dropped
                cards.extend(Content.styled(line, "dim") for line in sum_lines(explained, SCORE_LINE_CELLS))
        lines.extend(presentation.indented_lines(Content("    "), cards))
    return headline, Content("\n").join(lines)


def player_label(name: str, you: bool) -> str:
    """The name, and "(you)" after your own, cut to leave a space before the numbers."""
    tag = presentation.you_tag(name) if you else ""
    room = LABEL_CELLS - 1 - cell_len(tag)
    return (name if cell_len(name) <= room else display_name(name, room)) + tag


def match_cells(match: MatchTotals | None, seat: int) -> str:
    """A seat's games won and total score over the match (empty without a match)."""
    if match is None or not 0 <= seat < len(match.wins):
        return ""
    return f"{match.wins[seat]:>{MATCH_CELLS}}{presentation.number(match.scores[seat]):>{MATCH_CELLS}}"


def rating_cells(seat: SeatInfo) -> str:
    """A seat's rating at the host and what this game changed it by: "   1042 +12"."""
    if seat.rating is None:
        return " " * (RATING_CELLS + 4)
    change = "" if seat.change is None else presentation.signed(seat.change)
    return f"{seat.rating:>{RATING_CELLS}} {change:<3}"


def sum_lines(text: str, width: int) -> list[str]:
    """``(3 + 5 + 7 = 15)`` cut into lines of at most ``width`` cells, only between terms."""
    lines: list[str] = []
    line = ""
    for term in f"({text})".replace(" + ", " +\0").replace(" = ", " =\0").split("\0"):
        if line and len(line) + 1 + len(term) > width:
            lines.append(line)
            line = ""
        line = f"{line} {term}" if line else term
    lines.append(line)
    return lines


class ChartScreen(ModalScreen[None]):
    """The score chart over the whole terminal; any of its keys goes back to the scores."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("g,escape,q", "dismiss", N_("Back to the scores"), key_display="g/Esc")
    ]

    def __init__(self, table: TableUpdate) -> None:
        super().__init__()
        self.table = table

    def compose(self) -> ComposeResult:
        seat = self.table.view.seat
        labels = []
        for index in range(self.table.view.players):
            name = presentation.seat_name(self.table.seats, index, 12)
            labels.append(name + (presentation.you_tag(name) if index == seat else ""))
        yield ScoreChart(self.table.timeline, labels, id="score-chart")
        yield Static(legend(labels), id="chart-legend")
        yield KeyBar()


class ReviewScreen(TextDialog[None]):
    """The review of the player's own decisions (``v`` on the score screen), worked out in a thread as it opens."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("v,escape,q", "dismiss", N_("Back to the scores"), key_display="v/Esc")
    ]

    BOX, TEXT_ID = "review-box", "review-body"

    def __init__(self, view: PlayerView, reviewer: Reviewer) -> None:
        super().__init__(_("Review of your game"), _("Grading your decisions…"))
        self.view = view
        self.reviewer = reviewer

    def on_mount(self) -> None:
        self.run_worker(self._grade(), exclusive=True)

    async def _grade(self) -> None:
        review = await review_of(self.reviewer, self.view)
        text = "\n".join(review_lines(review)) if review else _("This game cannot be reviewed.")
        self.say(text)


class ScoreScreen(ModalScreen[str]):
    """Shown when a game ends; dismissed with "quit" or "table". ``a`` asks for another game and keeps it open until
    the next deal closes it (``TableScreen``); meanwhile its note says who waits for whom."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "play_again", N_("Play again")),
        Binding("t,escape", "dismiss('table')", N_("See the table"), key_display="t/Esc"),
        Binding("g", "chart", N_("Chart")),
        Binding("q", "dismiss('quit')", N_("Quit")),
        Binding("r", "replay", N_("Replay")),
        Binding("v", "review", N_("Review")),
    ]

    def __init__(self, table: TableUpdate, ask_again: Callable[[], Awaitable[None]] | None = None) -> None:
        """``ask_again`` sends the table's ``play_again`` (None: the dialog cannot start another game)."""
        super().__init__()
        self.table = table
        self._ask_again = ask_again
        self._asked = False  # sent, not yet reflected in an update

    def compose(self) -> ComposeResult:
        headline, body = score_lines(self.table)
        # The note is docked at the bottom: seven players' scores may not fit 80x24, and scroll under it.
        with VerticalScroll(id="score-box", classes="dialog"):
            yield Static(Content.styled(_("Game over"), "bold"), id="score-title")
            yield Static(headline, id="score-headline")
            yield Static(body, id="score-table")
            yield Static(self._note(), id="score-note")
        yield KeyBar()

    def _note(self) -> Content:
        """Who asked for another game, if someone has (in place of the reminder: seven players still fit 80x24)."""
        again = presentation.next_game_text(self.table)
        if again is not None:
            return Content.styled(again, "bold")
        reminder = _("Each run counts its lowest card; each chip is −1.")
        if (match := self.table.match) is not None and match.games > 1:  # how many games the match columns count
            reminder += " " + ngettext("Match: {count} game.", "Match: {count} games.", match.games).format(
                count=match.games
            )
        return Content.styled(reminder, "dim")

    def table_changed(self, table: TableUpdate) -> None:
        self.table = table
        # The host's word says whether we asked: an ask it never read (lost in a restart) must not hide the key.
        self._asked = False
        for note in self.query("#score-note").results(Static):
            note.update(self._note())
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "play_again":
            return (
                self.table.can_restart
                and self._ask_again is not None
                and not (self._asked or presentation.asked_by_me(self.table))
            )
        if action == "chart" and not self.table.timeline:
            return False  # a host too old to send the timeline
        if action == "review":
            return getattr(self.app, "reviewer", None) is not None and self.table.view.seat is not None
        return True

    async def action_play_again(self) -> None:
        """Ask for another game; the dialog stays until it is dealt (or the player looks at the table, or quits)."""
        if self._ask_again is None or self._asked or presentation.asked_by_me(self.table):
            return
        self._asked = True
        self.refresh_bindings()
        await self._ask_again()

    def action_chart(self) -> None:
        """Every player's score after each card, a line each (sent by the host once the game is over)."""
        if self.table.timeline:
            self.app.push_screen(ChartScreen(self.table))

    def action_review(self) -> None:
        """Grade this player's decisions from their own view of the game (its public moves)."""
        reviewer = getattr(self.app, "reviewer", None)
        if reviewer is not None and self.table.view.seat is not None:
            self.app.push_screen(ReviewScreen(self.table.view, reviewer))

    @work(exclusive=True, group="replay", exit_on_error=False)
    async def action_replay(self) -> None:
        """Replay this game, from its record (the table's, or its host's): the replay opens over this screen."""
        from .replay import open_replay  # (the replay draws the table screen's widgets)

        connection = getattr(getattr(self.app, "table_screen", None), "connection", None)
        if connection is not None:
            await open_replay(self, connection.game_record(), self.table.view.seat)
