"""Patches 7-11 (ssh/patches.py): Textual's key parser cache no longer keeps a departed player's parser (and app);
an SSH player's screens mount no tooltip widget (the game shows none), and a notification rack only once they have a
notification to show, which they show; a restyled widget keeps its component-style nodes, styled as Textual would;
a select makes its drop-down list when it first opens, and chooses as Textual's."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest
from textual import events
from textual._xterm_parser import XTermParser
from textual.app import App, ComposeResult
from textual.css.stylesheet import Stylesheet
from textual.screen import Screen
from textual.widgets import Checkbox, DataTable, Select, Static, Tooltip
from textual.widgets._select import SelectOverlay
from textual.widgets._toast import Toast, ToastRack

from nothanks_server.ssh import patches
from tools.loadgen.terminal_client import TerminalClient

KEYS = "a\x1b[97;5u\x1b[13u\x1b[1;5A"  # a letter, then ctrl+a and enter (the kitty protocol's), then ctrl+up


def parsed(parser: XTermParser) -> list[tuple[str, str | None]]:
    return [(event.key, event.character) for event in parser.feed(KEYS) if isinstance(event, events.Key)]


def test_a_parser_gone_is_not_kept_by_the_cache_and_keys_parse_as_textuals(monkeypatch: pytest.MonkeyPatch) -> None:
    theirs = parsed(XTermParser())
    monkeypatch.setattr(XTermParser, "_parse_extended_key", patches._parse_extended_key)
    parser = XTermParser()
    assert parsed(parser) == theirs == [("a", "a"), ("ctrl+a", None), ("enter", "\r"), ("ctrl+up", None)]
    assert parsed(XTermParser()) == theirs  # (from the cache this time)
    gone = weakref.ref(parser)
    del parser
    gc.collect()
    assert gone() is None


def test_the_parser_cache_is_as_checked() -> None:
    assert patches._check_key_cache() == []


@pytest.fixture
def lazy_racks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Patch 9 installed for this test only."""
    monkeypatch.setattr(Screen, "_extend_compose", patches._extend_compose_without_rack)
    monkeypatch.setattr(App, "_refresh_notifications", patches._refresh_notifications)


async def test_an_ssh_players_screens_have_no_tooltip_and_no_idle_rack(game_sessions: Any, lazy_racks: None) -> None:
    client = await TerminalClient().connect(game_sessions.port, "alice")
    await client.wait_for("Your name at the table")
    client.send("\r")
    await client.wait_for("No tables yet")
    (app,) = list(game_sessions.apps)
    assert not app.screen.query(Tooltip) and not app.screen.query(ToastRack)
    await client.close()


async def test_a_screen_gets_a_notification_rack_when_it_first_shows_a_notification(lazy_racks: None) -> None:
    app: App[None] = App()
    async with app.run_test(notifications=True) as pilot:
        assert not app.screen.query(ToastRack)
        app.notify("No thanks!", title="Chat")
        await pilot.pause()
        await pilot.pause()
        (toast,) = app.screen.query(Toast)
        assert "No thanks!" in str(toast.render()) and app.screen.query_one(ToastRack).display
        app.push_screen(Screen())
        app.notify("Take it")
        await pilot.pause()
        await pilot.pause()
        assert len(app.screen.query(Toast)) == 2  # the new screen's own rack shows both


class Styled(App[None]):
    CSS = "Screen.-narrow DataTable > .datatable--cursor { background: red; }"

    def compose(self) -> ComposeResult:
        yield DataTable()
        yield Checkbox("Open chips")


def component_rules(app: App[None]) -> dict[tuple[str, str], Any]:
    return {
        (type(node).__name__, name): styles.base.get_rules()
        for node in app.screen.query("*")
        for name, styles in node._component_styles.items()
    }


async def test_a_restyled_widget_keeps_its_component_nodes_styled_as_textual_would(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(Stylesheet, "_process_component_classes", patches._process_component_classes)
    app = Styled()
    async with app.run_test() as pilot:
        table = app.query_one(DataTable)
        first = dict(table._component_styles)
        app.screen.add_class("-narrow")  # a restyle of every widget, and a component rule that matches now
        await pilot.press("tab", "tab")  # focus moves: restyles again
        await pilot.pause()
        assert all(table._component_styles[name] is styles for name, styles in first.items())  # no new node
        ours = component_rules(app)
        assert ours[("DataTable", "datatable--cursor")]["background"].rgb == (255, 0, 0)
        for node in app.screen.query("*"):
            patches._TEXTUAL_COMPONENTS(app.stylesheet, node)  # Textual's own, with new nodes
        assert component_rules(app) == ours


class Chooser(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.changes: list[object] = []

    def compose(self) -> ComposeResult:
        yield Select([("one", 1), ("two", 2), ("three", 3)], value=2, allow_blank=False, compact=True)
        yield Checkbox("Open chips")

    def on_select_changed(self, event: Select.Changed) -> None:
        self.changes.append(event.value)


async def test_a_select_makes_its_list_when_first_opened_and_chooses_as_textuals(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert patches._check_select() == []
    for name, method in patches._LAZY_SELECT.items():
        monkeypatch.setattr(Select, name, method)
    app = Chooser()
    async with app.run_test() as pilot:
        select = app.query_one(Select)
        select.value = 3
        await pilot.pause()
        label = select.query_one("SelectCurrent #label", Static)
        assert not select.query(SelectOverlay) and "three" in str(label.content)
        assert app.changes == [2, 3]
        await pilot.press("enter")  # (the select has the focus)
        overlay = select.query_one(SelectOverlay)
        assert select.expanded and overlay.highlighted == 2 and overlay.compact and overlay.option_count == 3
        await pilot.press("up", "enter")
        assert select.value == 2 and not select.expanded and app.changes == [2, 3, 2]
        select.set_options([("none", 0), ("one bot", 1)])
        await pilot.press("enter", "down", "enter")
        assert select.value == 1 and "one bot" in str(label.content)
        assert len(select.query(SelectOverlay)) == 1
