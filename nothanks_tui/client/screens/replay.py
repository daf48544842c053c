"""A finished game, move by move: the table screen's own widgets, read-only, stepped with the keys.

At each step the table is drawn as it stood (the face-up card and its chips, every hand, every chip count: the game
is over, so nothing is hidden any more), and a panel says the move just played and each player's score then. At the
end the panel shows what was hidden while the game was played: the nine cards set aside and every chip count.
"""

from __future__ import annotations

import time
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from ...engine import breakdown, winners
from ...i18n import N_, NC_, _
from ...link import TableUpdate
from ..presentation import move_line, number, seat_name
from ..replaying import Replay
from ..widgets.keybar import KeyBar
from ..widgets.table import FaceUpCard, LatestMove, MoveLog, PlayersPanel, TableStatus
from .steady import SteadyScreen
from .table import TitleBar

WINNER_MARK = "★"


def when_text(finished_at: float | None) -> str:
    """The local date and time a game ended, for titles and the history ("2026-12-01 17:42")."""
    if finished_at is None:
        return "?"
    try:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(finished_at))
    except (OverflowError, OSError, ValueError):
        return "?"


def scores_line(replay: Replay, step: int, label: str) -> Content:
    """ "Scores now: you 12 · ana −3 · bo 20" (cards minus chips, as they stood after ``step`` moves)."""
    state = replay.states[step]
    cells = 10 if state.players <= 4 else 7
    parts: list[Content] = []
    for seat in range(state.players):
        score = breakdown(state.hands[seat], state.chips[seat]).score
        parts.append(Content.assemble(seat_name(replay.seats, seat, cells), " ", (number(score), "bold")))
    return Content.assemble((label, "dim"), " ", Content(" · ").join(parts))


def panel_lines(replay: Replay, step: int) -> list[Content]:
    """The replay panel: where we are and the move just played, the scores; at the end, what was hidden."""
    total = replay.moves
    where = Content.styled(_("Move {step} of {total}").format(step=step, total=total), "bold")
    move = replay.move(step)
    if move is None:
        first = seat_name(replay.seats, replay.states[0].first_player)
        lines = [Content.assemble(where, "  ", _("The deal: {name} plays first.").format(name=first))]
    else:
        lines = [Content.assemble(where, "  ", move_line(move, replay.seats))]
    if step < total:
        lines.append(scores_line(replay, step, _("Scores now:")))
        lines.append(Content.styled(_("The end of the game shows what was hidden: the cards set aside."), "dim"))
        return lines
    final = replay.final
    best = winners(final.scores())
    names = ", ".join(seat_name(replay.seats, seat) for seat in best)
    lines[0] = Content.assemble(
        (_("Game over"), "bold"),
        "  ",
        (f"{WINNER_MARK} ", "bold"),
        (names, "bold"),
        "  ({})".format(_("lowest score wins")),
    )
    lines.append(scores_line(replay, step, _("Final scores:")))
    removed = "  ".join(str(card) for card in final.removed)
    lines.append(Content.assemble((_("Set aside, never played:"), "dim"), " ", (removed, "bold")))
    chips = " · ".join(f"{seat_name(replay.seats, seat, 10)} {count}" for seat, count in enumerate(final.chips))
    lines.append(Content.assemble((_("Chips at the end:"), "dim"), " ", chips))
    return lines


class ReplayScreen(SteadyScreen[None]):
    """One finished game, stepped through. Opened by ``nothanks replay``, the history and the score screen."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,n", "step(1)", N_("Next"), key_display="→/n"),
        Binding("left,p", "step(-1)", N_("Previous"), key_display="←/p"),
        Binding("home,s", "go_to('start')", NC_("replay", "Start"), key_display="Home/s"),  # (its first move)
        Binding("end,e", "go_to('end')", N_("End"), key_display="End/e"),
        Binding("q,escape", "close", N_("Close"), key_display="q/Esc"),
    ]

    table: reactive[TableUpdate | None] = reactive(None, repaint=False)
    step: reactive[int] = reactive(0, init=False)

    def __init__(self, replay: Replay, *, at_end: bool = False) -> None:
        super().__init__()
        self.replay = replay
        self._start_at = replay.moves if at_end else 0

    def compose(self) -> ComposeResult:
        title = _("Replay · {when}").format(when=when_text(self.replay.finished_at))
        yield TitleBar(title, id="title", every_chip_shown=True).data_bind(ReplayScreen.table)
        with Horizontal(id="top"):
            yield FaceUpCard(id="card").data_bind(ReplayScreen.table)
            yield TableStatus(id="status").data_bind(ReplayScreen.table)
            yield MoveLog(id="log").data_bind(ReplayScreen.table)
        yield LatestMove(id="log-line").data_bind(ReplayScreen.table)
        yield PlayersPanel(id="players").data_bind(ReplayScreen.table)
        yield Static(id="replay-panel")
        yield KeyBar()

    def on_mount(self) -> None:
        self.set_class(self.app.size.width < 80, "-narrow")
        self.step = self._start_at
        self._show()

    def watch_step(self) -> None:
        self._show()

    def _show(self) -> None:
        self.table = self.replay.update(self.step)
        self.query_one("#replay-panel", Static).update(Content("\n").join(panel_lines(self.replay, self.step)))
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "step" and parameters:
            forward = isinstance(parameters[0], int) and parameters[0] > 0
            return None if (forward and self.step >= self.replay.moves) or (not forward and self.step <= 0) else True
        if action == "go_to" and parameters:
            at = 0 if parameters[0] == "start" else self.replay.moves
            return None if self.step == at else True
        return True

    def action_step(self, delta: int) -> None:
        self.step = max(0, min(self.replay.moves, self.step + delta))

    def action_go_to(self, where: str) -> None:
        self.step = 0 if where == "start" else self.replay.moves

    def action_close(self) -> None:
        if len(self.app.screen_stack) > 1:
            self.dismiss(None)
        else:
            self.app.exit(0)
