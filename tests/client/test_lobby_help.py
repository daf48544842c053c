"""The lobby has a help key (?), in its key bar: the rules, the lobby's own keys, and where chat is (t in the
lobby, c at a table) (issue 29, defect 19)."""

from __future__ import annotations

from nothanks_tui.client.screens.dialogs import HelpScreen
from nothanks_tui.client.screens.lobby import LobbyScreen
from nothanks_tui.client.widgets.keybar import KeyBar

from .ui_helpers import lobby_app, wait_until


async def test_question_mark_in_the_lobby_opens_its_help_and_q_closes_it():
    lobby, app = await lobby_app("alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        lobby_screen = app.screen
        await pilot.pause()
        assert "? Help" in lobby_screen.query_one(KeyBar).render().plain
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        text = str(app.screen.query_one("#help-text").render())
        assert "Keys in the lobby" in text and "set up a new table" in text
        assert "say a line to everyone in this lobby" in text and "c talks to that table only" in text
        assert "take the card (and its chips)" not in text  # (the table's keys are the table's help)
        await pilot.press("q")
        await wait_until(pilot, lambda: app.screen is lobby_screen, "back in the lobby")
        assert app.is_running
    lobby.close()
