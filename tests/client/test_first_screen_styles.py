"""An app's first screen is styled as it mounts, and not all over again when it is first shown
(``SteadyScreen.styled_at_mount``, set by ``textual_private.first_screen``): it must look exactly as if it had been."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest
from textual.app import App
from textual.dom import DOMNode
from textual.screen import Screen

from nothanks_tui.client.app import NoThanksApp
from nothanks_tui.client.netlaunch import NetApp
from nothanks_tui.client.screens.start import StartScreen
from nothanks_tui.client.screens.welcome import WelcomeScreen

from .test_welcome_quit import Door
from .ui_helpers import local_app, wait_until


def whole_screen_restyles(app: App[Any]) -> list[DOMNode]:
    """From now on, the root of every restyle Textual makes of a node with all it holds (a screen's resume does
    one from the screen itself)."""
    roots: list[DOMNode] = []
    update_nodes = app.stylesheet.update_nodes

    def recorded(nodes: Iterable[DOMNode], animate: bool = False) -> None:
        nodes = list(nodes)
        if nodes:
            roots.append(nodes[0])
        update_nodes(nodes, animate=animate)

    app.stylesheet.update_nodes = recorded  # type: ignore[method-assign]
    return roots


def the_look(screen: Screen[Any]) -> list[tuple[str, str, str, list[str]]]:
    """Every node's styles (from the stylesheet and inline), its pseudo-classes, and the screen as drawn."""
    nodes = [
        (repr(node), node.styles.base.css, node.styles.inline.css, sorted(node.get_pseudo_classes()))
        for node in screen.walk_children(with_self=True)
    ]
    return [*nodes, ("screen", screen.app.export_screenshot(), "", [])]


def welcome_app(language: str) -> NetApp:
    return NetApp(lambda: WelcomeScreen(Door()), language=language)


def start_app(language: str) -> NoThanksApp:
    return NoThanksApp(start_forms=[], language=language)


def table_app(language: str) -> NoThanksApp:
    return local_app(seed=5, language=language)[0]


@pytest.mark.parametrize("make_app", [welcome_app, start_app, table_app], ids=["welcome", "start", "table"])
@pytest.mark.parametrize("language", ["en", "fr"])
async def test_the_first_screen_is_styled_once_and_looks_as_if_styled_again(
    make_app: Callable[[str], App[Any]], language: str
) -> None:
    app = make_app(language)
    roots = whole_screen_restyles(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        first = app.screen
        assert app.screen_stack == [first]
        assert first not in roots  # Textual's resume would have restyled it all: not needed after its mount
        assert not getattr(first, "styled_at_mount", False)  # spent on the first showing
        looked = the_look(first)
        first.update_node_styles(animate=False)  # what the first showing used to do
        await pilot.pause()
        assert first in roots
        assert the_look(first) == looked


async def test_a_later_screen_is_styled_on_showing_as_textual_does() -> None:
    app = welcome_app("en")
    roots = whole_screen_restyles(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        later = StartScreen([])
        await app.push_screen(later)
        await wait_until(pilot, lambda: app.screen is later, "the pushed screen")
        await pilot.pause()
        assert later in roots  # only an app's first screen skips it
