"""The end-of-game chart: every player's score after each card taken, a line per player.

Drawn by plotext through Textual's own wrapper (``textual-plotext``), a maintained plotting widget, rather than by
hand: axes, ticks, scaling and line drawing at any terminal size come with it. Each player's line has its own marker
as well as its own colour (one of the 16 basic ones), so the chart reads in 16 colours, on a monochrome terminal and
with ``NO_COLOR``; the legend pairs each marker with the player's name.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.text import Text
from textual.app import RenderResult
from textual_plotext import PlotextPlot

from ...i18n import _

MARKERS = ("o", "x", "+", "*", "#", "@", "%")  # one per seat: lines stay apart without colour
COLOURS = ("cyan+", "orange+", "magenta+", "green+", "red+", "blue+", "white")  # the 16 basic colours only


class ScoreChart(PlotextPlot):
    """A line per player from a finished game's timeline (rows: one per card taken; columns: one per seat)."""

    def __init__(self, timeline: Sequence[Sequence[int]], labels: Sequence[str], **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.timeline = [tuple(row) for row in timeline]
        self.labels = list(labels)

    def on_mount(self) -> None:
        plot = self.plt
        plot.title(_("Score after each card taken (lower is better)"))
        plot.xlabel(_("cards taken"))
        cards = list(range(1, len(self.timeline) + 1))
        for seat, label in enumerate(self.labels):
            scores = [row[seat] for row in self.timeline]
            plot.plot(
                cards,
                scores,
                marker=MARKERS[seat % len(MARKERS)],
                color=COLOURS[seat % len(COLOURS)],
                label=label,  # the legend shows the line's marker before it
            )
        if cards:
            plot.xticks([card for card in cards if card == 1 or card % 4 == 0])
            plot.yticks([float(tick) for tick in score_ticks([score for row in self.timeline for score in row])])

    def render(self) -> RenderResult:
        drawn = super().render()
        return fit_wide_labels(drawn, self.labels) if isinstance(drawn, Text) else drawn


def score_ticks(scores: Sequence[int], most: int = 6) -> list[int]:
    """Whole-number marks for the score axis (scores are whole points: plotext's own marks read '89.8'), a round
    step apart, at most ``most`` of them, covering ``scores``."""
    if not scores:
        return []
    low, high = min(scores), max(scores)
    step = next((s for s in (1, 2, 5, 10, 20, 25, 50, 100) if (high - low) // s + 1 <= most), 100)
    first = -(-low // step) * step  # the first multiple of step at or above the lowest score
    ticks = list(range(first, high + 1, step))
    return ticks or [low]


def fit_wide_labels(drawn: Text, labels: Sequence[str]) -> Text:
    """The chart with each legend line cut back to the chart's width where a name holds wide characters.

    plotext gives every character one cell, but a CJK character or an emoji takes two on the terminal: a legend
    line with such a name came out wider than the chart and wrapped, breaking the frame. The cells the name
    overflows into are the ones right after it (the plot under the legend), so as many characters are dropped
    there: the name stays whole and the frame keeps its place.
    """
    for label in labels:
        extra = cell_len(label) - len(label)
        if extra <= 0:
            continue
        start = drawn.plain.find(label, drawn.plain.find("\n") + 1)  # past the title line
        if start < 0:
            continue
        end = start + len(label)
        line_end = drawn.plain.find("\n", end)
        cut_end = min(end + extra, line_end if line_end >= 0 else len(drawn.plain))
        before, _dropped, after = drawn.divide([end, cut_end])
        drawn = Text.assemble(before, after, end="")
    return drawn
