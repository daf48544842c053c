"""The score chart of a finished game (the host's timeline, sent only at the end), opened from the score screen."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import Static

from ...i18n import N_
from ...link import TableUpdate
from ..presentation import seat_name, you_tag
from ..widgets.keybar import KeyBar
from ..widgets.score_chart import ScoreChart, legend


class ChartScreen(ModalScreen[None]):
    """The score chart over the whole terminal; any of its keys goes back to the scores."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("g,escape,q", "close", N_("Back to the scores"), key_display="g/Esc"),
    ]

    def __init__(self, table: TableUpdate) -> None:
        super().__init__()
        self.table = table

    def compose(self) -> ComposeResult:
        seat = self.table.view.seat
        labels = []
        for index in range(self.table.view.players):
            name = seat_name(self.table.seats, index, 12)
            labels.append(name + (you_tag(name) if index == seat else ""))
        yield ScoreChart(self.table.timeline, labels, id="score-chart")
        yield Static(legend(labels), id="chart-legend")
        yield KeyBar()

    def action_close(self) -> None:
        self.dismiss(None)
