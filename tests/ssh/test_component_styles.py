"""Component styles reuse their virtual nodes (server/nothanks_server/ssh/component_styles.py): same styles as
Textual's own, no garbage in cycles per restyle."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.dom import DOMNode
from textual.widget import Widget

from nothanks_server.ssh import component_styles
from nothanks_server.ssh.component_styles import check_component_style_internals


class Gauge(Widget):
    """A widget with two component classes whose styles depend on the widget's own class."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"gauge--needle", "gauge--dial"}
    DEFAULT_CSS = """
    Gauge > .gauge--needle { color: green; }
    Gauge.-hot > .gauge--needle { color: red; text-style: bold; }
    Gauge > .gauge--dial { background: blue; }
    """

    def render(self) -> str:
        return "gauge"


class GaugeApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Gauge()


@pytest.fixture(params=["textual", "reused"])
def styling(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "reused":
        component_styles.reuse_virtual_nodes()
    try:
        yield request.param
    finally:
        component_styles.restore_textual()


def test_the_private_details_relied_on_are_there():
    check_component_style_internals()  # raises ComponentStyleInternalsChanged otherwise


async def test_component_styles_follow_the_widget_as_textual_styles_them(styling):
    async with GaugeApp().run_test() as pilot:
        gauge = pilot.app.query_one(Gauge)
        seen = []
        for hot in (False, True, False, True):
            gauge.set_class(hot, "-hot")
            await pilot.pause()
            needle = gauge.get_component_styles("gauge--needle")
            seen.append(
                (
                    needle.color.hex,
                    bool(needle.text_style.bold),
                    gauge.get_component_styles("gauge--dial").background.hex,
                )
            )
    green, red, blue = "#008000", "#FF0000", "#0000FF"
    assert seen == [(green, False, blue), (red, True, blue), (green, False, blue), (red, True, blue)]


async def test_a_changed_component_style_repaints_the_widget(styling):
    async with GaugeApp().run_test() as pilot:
        gauge = pilot.app.query_one(Gauge)
        await pilot.pause()
        repaints = []
        original = gauge.refresh

        def counting_refresh(*args, **kwargs):
            repaints.append(args)
            return original(*args, **kwargs)

        gauge.refresh = counting_refresh  # type: ignore[method-assign]
        pilot.app.stylesheet.apply(gauge)  # nothing changed
        unchanged = len(repaints)
        gauge.add_class("-hot")
        pilot.app.stylesheet.apply(gauge)  # the needle's style changed
        assert len(repaints) > unchanged


async def test_restyling_leaves_no_virtual_nodes_to_collect(styling):
    async with GaugeApp().run_test() as pilot:
        gauge = pilot.app.query_one(Gauge)
        await pilot.pause()
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            for turn in range(20):
                gauge.set_class(turn % 2 == 0, "-hot")
                pilot.app.stylesheet.apply(gauge)
            gc.collect()
            virtual = sum(1 for item in gc.garbage if type(item) is DOMNode)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
    if styling == "textual":
        assert virtual >= 20 * 2  # two component classes, a new node each per restyle: what the module avoids
    else:
        assert virtual == 0
