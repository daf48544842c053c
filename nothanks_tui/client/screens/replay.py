"""A finished game, move by move, drawn by the table screen's own widgets; a panel says the move (graded, when it
is the reviewing player's), the scores, and at the end what was hidden (the cards set aside, every chip)."""

from __future__ import annotations

import time
from collections.abc import Awaitable
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Label, Static

from ...engine import breakdown, view_for, winners
from ...i18n import N_, NC_, _
from ...link import LobbyError, TableUpdate
from ..error_sentences import error_sentence
from ..presentation import move_line, number, seat_name, you_tag
from ..replaying import Replay, ReplayError, load_replay, your_seat
from ..reviewing import grade_text, review_of
from ..safe_text import clean_message
from ..widgets.keybar import KeyBar
from .score import WINNER_MARK
from .steady import SteadyScreen
from .table import TitleBar, table_widgets

GUESS = "\0guess"  # (no player is named so: names are cleaned of control characters)


def when_text(finished_at: float | None) -> str:
    """The local date and time a game ended, for titles and the history ("2026-12-01 17:42")."""
    if finished_at is None:
        return "?"
    try:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(finished_at))
    except (OverflowError, OSError, ValueError):
        return "?"


def scores_line(replay: Replay, step: int, label: str, you: int | None = None) -> Content:
    """ "Scores now: you 12 · ana −3 · bo 20" (cards minus chips, as they stood after ``step`` moves)."""
    state = replay.states[step]
    cells = 10 if state.players <= 4 else 7
    parts: list[Content] = []
    for seat in range(state.players):
        score = breakdown(state.hands[seat], state.chips[seat]).score
        name = seat_name(replay.seats, seat, cells)
        tag = you_tag(name) if seat == you else ""
        parts.append(Content.assemble(name, tag, " ", (number(score), "bold")))
    return Content.assemble((label, "dim"), " ", Content(" · ").join(parts))


def panel_lines(
    replay: Replay, step: int, you: int | None = None, grades: dict[int, dict[str, Any]] | None = None
) -> list[Content]:
    """The replay panel: where we are and the move just played (``grades``: the review's, by move), the scores;
    at the end, what was hidden."""
    total = replay.moves
    where = Content.styled(_("Move {step} of {total}").format(step=step, total=total), "bold")
    move = replay.move(step)
    if step >= total:
        names = ", ".join(seat_name(replay.seats, seat) for seat in winners(replay.final.scores()))
        over = ((_("Game over"), "bold"), "  ", (f"{WINNER_MARK} ", "bold"), (names, "bold"))
        lines = [Content.assemble(*over, "  ({})".format(_("lowest score wins")))]
    elif move is None:
        first = seat_name(replay.seats, replay.states[0].first_player)
        lines = [Content.assemble(where, "  ", _("The deal: {name} plays first.").format(name=first))]
    else:
        lines = [Content.assemble(where, "  ", move_line(move, replay.seats))]
    if grades is not None and step in grades:
        lines.append(Content.assemble((_("Review:"), "dim"), " ", grade_text(grades[step])))
    if step < total:
        lines.append(scores_line(replay, step, _("Scores now:"), you))
        lines.append(Content.styled(_("The end of the game shows what was hidden: the cards set aside."), "dim"))
        return lines
    final = replay.final
    lines.append(scores_line(replay, step, _("Final scores:"), you))
    removed = "  ".join(str(card) for card in final.removed)
    lines.append(Content.assemble((_("Set aside, never played:"), "dim"), " ", (removed, "bold")))
    chips = " · ".join(f"{seat_name(replay.seats, seat, 10)} {count}" for seat, count in enumerate(final.chips))
    lines.append(Content.assemble((_("Chips at the end:"), "dim"), " ", chips))
    return lines


async def open_replay(screen: Screen[Any], record: Awaitable[dict[str, Any]], you: int | str | None) -> None:
    """Replay the record ``record`` gives over ``screen``, or say why it cannot be replayed."""
    try:
        replay = load_replay(await record)
    except (LobbyError, ReplayError) as error:
        message = error_sentence(error.code, error.message) if isinstance(error, LobbyError) else str(error)
        screen.notify(clean_message(message), title=_("Cannot replay"), severity="error", markup=False)
        return
    screen.app.push_screen(ReplayScreen(replay, you=you))


class ReplayScreen(SteadyScreen[None]):
    """One finished game, stepped through. Opened by ``nothanks replay``, the history and the score screen."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,n", "go(1)", N_("Next"), key_display="→/n"),
        Binding("left,p", "go(-1)", N_("Previous"), key_display="←/p"),
        Binding("home,s", "go('start')", NC_("replay", "Start"), key_display="Home/s"),  # (its first move)
        Binding("end,e", "go('end')", N_("End"), key_display="End/e"),
        Binding("g", "choose_move", N_("Go to move")),
        Binding("q,escape", "close", N_("Close"), key_display="q/Esc"),
    ]

    table: reactive[TableUpdate | None] = reactive(None, repaint=False)
    step: reactive[int] = reactive(0, init=False)

    def __init__(self, replay: Replay, *, at_end: bool = False, you: int | str | None = GUESS) -> None:
        """``you``: the seat marked "(you)": None, a seat, a name, or by default ``replaying.your_seat``'s guess."""
        super().__init__()
        self.replay = replay
        self.you = your_seat(replay, None if you == GUESS else you) if isinstance(you, str) else you
        self._start_at = replay.moves if at_end else 0
        self.grades: dict[int, dict[str, Any]] | None = None  # the review of ``you``'s moves, once graded

    def compose(self) -> ComposeResult:
        title = _("Replay · {when}").format(when=when_text(self.replay.finished_at))
        yield from table_widgets(ReplayScreen, TitleBar(title, id="title", every_chip_shown=True))
        yield Static(id="replay-panel")
        yield KeyBar()

    def on_mount(self) -> None:
        self.set_class(self.app.size.width < 80, "-narrow")
        self.step = self._start_at
        self._show()
        reviewer = getattr(self.app, "reviewer", None)
        if reviewer is not None and self.you is not None:
            self.run_worker(self._grade(reviewer, self.you), exclusive=True)

    async def _grade(self, reviewer: Any, you: int) -> None:
        """Grade ``you``'s moves (the whole record is theirs now: the game is over), then show each beside it."""
        review = await review_of(reviewer, view_for(self.replay.final, you))
        self.grades = {decision["move"]: decision for decision in review["decisions"]} if review else {}
        self._show()

    def watch_step(self) -> None:
        self._show()

    def _show(self) -> None:
        self.table = self.replay.update(self.step, self.you)
        lines = panel_lines(self.replay, self.step, self.you, self.grades)
        self.query_one("#replay-panel", Static).update(Content("\n").join(lines))
        self.refresh_bindings()

    def target(self, to: object) -> int:
        """The move ``go(to)`` shows: ``to`` moves on (1) or back (-1), or the 'start' or the 'end'."""
        if isinstance(to, int):
            return max(0, min(self.replay.moves, self.step + to))
        return 0 if to == "start" else self.replay.moves

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "go" and self.target(parameters[0]) == self.step else True  # (greyed: already there)

    def action_go(self, to: int | str) -> None:
        self.step = self.target(to)

    def action_choose_move(self) -> None:
        def chosen(step: int | None) -> None:
            if step is not None:
                self.step = max(0, min(self.replay.moves, step))

        self.app.push_screen(MoveNumberScreen(self.replay.moves, self.step), chosen)


class MoveNumberScreen(ModalScreen[int | None]):
    """The move to jump to (0: the deal), typed; Enter goes there, Esc does not."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss", N_("Back"), key_display="Esc")]

    def __init__(self, moves: int, step: int) -> None:
        super().__init__()
        self.moves = moves
        self.step = step

    def compose(self) -> ComposeResult:
        with Vertical(id="move-box", classes="dialog"):
            yield Label(_("Go to move (0 to {total}), then Enter:").format(total=self.moves))
            yield Input(placeholder=str(self.step), type="integer", id="move-number")
        yield KeyBar()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            self.dismiss(int(event.value))
        except ValueError:
            self.dismiss(None)
