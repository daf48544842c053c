"""The end-of-game chart: every player's score after each card taken, drawn by ``textual-plotext``. Each line has
its own marker as well as one of the 16 basic colours, so it reads without colour; the legend is drawn under it."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual_plotext import PlotextPlot

from ...i18n import _

MARKERS = ("o", "x", "+", "*", "#", "@", "%")  # one per seat: lines stay apart without colour
COLOURS = ("cyan+", "orange+", "magenta+", "green+", "red+", "blue+", "white")  # the 16 basic colours only
# The same colours as Rich names them, for the legend (plotext's orange is the terminal's yellow).
LEGEND_COLOURS = (
    "bright_cyan",
    "bright_yellow",
    "bright_magenta",
    "bright_green",
    "bright_red",
    "bright_blue",
    "white",
)


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
        for seat in range(len(self.labels)):
            scores = [row[seat] for row in self.timeline]
            plot.plot(cards, scores, marker=MARKERS[seat % len(MARKERS)], color=COLOURS[seat % len(COLOURS)])
        if cards:
            plot.xticks([card for card in cards if card == 1 or card % 4 == 0])
            plot.yticks([float(tick) for tick in score_ticks([score for row in self.timeline for score in row])])


def legend(labels: Sequence[str]) -> Text:
    """ "o alice (you)   x bob   + cy": each line's marker, in its colour, beside the player's name (plain text)."""
    text = Text(overflow="fold")
    for seat, label in enumerate(labels):
        if seat:
            text.append("   ")
        text.append(f"{MARKERS[seat % len(MARKERS)]} ", style=f"bold {LEGEND_COLOURS[seat % len(LEGEND_COLOURS)]}")
        text.append(label)
    return text


def score_ticks(scores: Sequence[int], most: int = 6) -> list[int]:
    """At most ``most`` whole-number marks a round step apart covering ``scores`` (plotext's own read '89.8')."""
    if not scores:
        return []
    low, high = min(scores), max(scores)
    step = next((s for s in (1, 2, 5, 10, 20, 25, 50, 100) if (high - low) // s + 1 <= most), 100)
    first = -(-low // step) * step  # the first multiple of step at or above the lowest score
    ticks = list(range(first, high + 1, step))
    return ticks or [low]
