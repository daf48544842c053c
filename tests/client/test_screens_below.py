"""The first screen is the bottom of the stack (``first_screen``), and a dialog lets the screen below show through.

(A lobby under a table asks the host nothing and so draws nothing: tests/test_net_screens.py. The app no longer
overrides Textual's ``_background_screens``: with the lobby's polling paused while covered, a table over a lobby
made the same frames, 42 in 8 s of play, with and without it.)"""

from __future__ import annotations

import pytest
from textual.screen import Screen

from nothanks_tui.client.app import NoThanksApp
from nothanks_tui.client.screens.dialogs import HelpScreen
from nothanks_tui.client.screens.start import StartScreen
from nothanks_tui.client.textual_private import first_screen

from .ui_helpers import local_app, my_turn, table_screen, wait_until


def test_textual_still_gives_screens_result_callbacks_the_first_screen_needs():
    # If this fails, Textual changed how switch_screen treats result callbacks: review client/textual_private.py.
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


async def test_a_dialog_lets_the_screen_below_show_through():
    app, _ = local_app(seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        table = table_screen(app)
        assert app.screen_stack == [table]  # the first screen is the bottom one (NoThanksApp.get_default_screen)
        app.push_screen(HelpScreen())
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the rules dialog")
        assert table.is_current  # drawn under the dialog
