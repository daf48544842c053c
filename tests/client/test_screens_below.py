"""A screen under a full screen is not drawn, and never makes the screen above it repaint (see
``NoThanksApp._background_screens``); under a dialog it still shows through."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.screen import Screen

from nothanks_tui.client.app import NoThanksApp, first_screen
from nothanks_tui.client.screens.dialogs import HelpScreen
from nothanks_tui.client.screens.start import StartScreen

from .ui_helpers import local_app, my_turn, table_screen, wait_until


def test_textual_still_has_the_property_the_app_overrides():
    # If this fails, Textual renamed or removed it: review NoThanksApp._background_screens.
    assert isinstance(App.__dict__.get("_background_screens"), property)


def test_textual_still_gives_screens_result_callbacks_the_first_screen_needs():
    # If this fails, Textual changed how switch_screen treats result callbacks: review app.first_screen.
    screen = Screen()
    first_screen(screen)
    screen._pop_result_callback()  # what switch_screen does to the screen it replaces
    with pytest.raises(IndexError):
        screen._pop_result_callback()  # a screen that was never given one (Textual's default screen)


async def test_the_first_screen_is_the_bottom_of_the_stack_and_can_be_switched():
    app = NoThanksApp(start_forms=[])
    async with app.run_test(size=(80, 24)) as pilot:
        start = app.screen
        assert isinstance(start, StartScreen)
        assert app.screen_stack == [start]  # no blank default screen below it
        other = Screen()
        await app.switch_screen(other)
        await pilot.pause()
        assert app.screen_stack == [other]


async def test_only_a_dialog_lets_the_screen_below_show_through():
    app, _ = local_app(seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        table = table_screen(app)
        assert app.screen_stack == [table]  # the first screen is the bottom one (NoThanksApp.get_default_screen)
        assert app._background_screens == []
        top = Screen()
        await app.push_screen(top)
        assert app._background_screens == []
        assert not table.is_current
        app.push_screen(HelpScreen())
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the rules dialog")
        assert app._background_screens == [top]
        assert top.is_current
