"""The SSH name screen (issue 17.12): a visible way to quit, and Ctrl-C (which the name field would take as
"copy") quits, as a newcomer expects of a terminal program."""

from __future__ import annotations

import pytest

from nothanks_tui.client.netlaunch import NetApp
from nothanks_tui.client.screens.welcome import NameInput, WelcomeScreen
from nothanks_tui.client.widgets.keybar import KeyBar

from .ui_helpers import wait_until


class Door:
    """A doorway with no seat held and no host behind it (the screen only asks for a name here)."""

    suggested_name = "bob"

    def held_seat(self) -> None:
        return None

    def forget_seat(self) -> None:
        return None

    def lobby(self, name: str):
        raise AssertionError("not asked for in this test")


@pytest.mark.parametrize("key", ["ctrl+c", "escape"])
async def test_the_name_screen_shows_how_to_quit_and_quits(key):
    app = NetApp(lambda: WelcomeScreen(Door()))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, WelcomeScreen), "the name screen")
        await wait_until(pilot, lambda: "^C/Esc Quit" in app.screen.query_one(KeyBar).render().plain, "the key")
        await pilot.press(key)
        await wait_until(pilot, lambda: not app.is_running, "the app to end")
    assert app.return_code == 0


async def test_the_name_field_does_not_blink():
    """Each blink would repaint the centred dialog: kilobytes a second to every idle SSH player."""
    app = NetApp(lambda: WelcomeScreen(Door()))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, WelcomeScreen), "the name screen")
        field = app.screen.query_one(NameInput)
        assert field.has_focus and not field.cursor_blink
