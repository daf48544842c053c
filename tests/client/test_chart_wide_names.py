"""The score chart's legend with names in wide characters (CJK, emoji): each takes two terminal cells, which the
plotting library counts as one, so its lines came out one cell too long per wide character and the chart's
frame broke (the line wrapped under the legend, seen over SSH with a player named '爱丽丝😀'). The legend is now
drawn under the plot, by Rich, which counts cells right; inside the plot its lines crossed the legend (issue 29,
defect 14)."""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import App, ComposeResult

from nothanks_tui.client.widgets.score_chart import MARKERS, ScoreChart, legend, score_ticks

LABELS = ["爱丽丝😀[/]x (you)", "[bold red]b…", "carol"]
TIMELINE = [(-11 + n, -11 + 2 * n, -11 + 3 * n) for n in range(24)]


class ChartApp(App[None]):
    def compose(self) -> ComposeResult:
        yield ScoreChart(TIMELINE, LABELS)


async def test_every_line_of_the_chart_fits_its_width_with_wide_names_in_the_legend():
    app = ChartApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        chart = app.query_one(ScoreChart)
        drawn = chart.render()
        lines = drawn.plain.split("\n")
        widths = [cell_len(line) for line in lines]
        assert max(widths) <= chart.size.width, [line for line in lines if cell_len(line) > chart.size.width]
        shown = legend(LABELS).plain
        for label, marker in zip(LABELS, MARKERS):
            assert f"{marker} {label}" in shown  # the names whole, beside their marker, in the legend under the plot
            assert label not in drawn.plain  # and none inside the plot, where the lines cross


async def test_the_score_axis_is_marked_in_whole_points():
    app = ChartApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        lines = app.query_one(ScoreChart).render().plain.split("\n")
        marks = [line.split("┤")[0].strip() for line in lines if "┤" in line]  # the marked rows of the axis
        assert len(marks) >= 3 and all(mark.lstrip("-").isdigit() for mark in marks), marks


def test_score_ticks_are_round_and_cover_the_scores():
    assert score_ticks([-11, 118]) == [0, 25, 50, 75, 100]
    assert score_ticks([-11, -8]) == [-11, -10, -9, -8]
    assert score_ticks([5, 5]) == [5]
    assert score_ticks([]) == []
