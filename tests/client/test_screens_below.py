"""A screen under a full screen is not drawn, and never makes the screen above it repaint (see
``NoThanksApp._background_screens``); under a dialog it still shows through."""

from __future__ import annotations

from textual.app import App
from textual.screen import Screen

from nothanks_tui.client.screens.dialogs import HelpScreen

from .ui_helpers import local_app, my_turn, table_screen, wait_until


def test_textual_still_has_the_property_the_app_overrides():
    # If this fails, Textual renamed or removed it: review NoThanksApp._background_screens.
    assert isinstance(App.__dict__.get("_background_screens"), property)


async def test_only_a_dialog_lets_the_screen_below_show_through():
    app, _ = local_app(seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        table = table_screen(app)
        assert app._background_screens == []  # the table is a full screen over Textual's default one
        assert not app.screen_stack[0].is_current
        top = Screen()
        await app.push_screen(top)
        assert app._background_screens == []
        assert not table.is_current
        app.push_screen(HelpScreen())
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the rules dialog")
        assert app._background_screens == [top]
        assert top.is_current
