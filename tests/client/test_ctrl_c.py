"""Ctrl-C, the key a terminal user presses to get out, quits as Ctrl-Q does: at once where nothing is lost, after
asking during a game. Textual's own answer to it was an English-only notice ("Do you want to quit? Press ctrl+q to
quit the app"), the same in a French or Spanish game."""

from __future__ import annotations

from nothanks_tui.client.screens.dialogs import ConfirmQuitScreen
from nothanks_tui.client.widgets.keybar import KeyBar

from .ui_helpers import local_app, my_turn, wait_until


async def test_ctrl_c_during_a_game_asks_first_and_a_second_ctrl_c_quits():
    app, _connection = local_app(players=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmQuitScreen), "the question")
        assert app.is_running
        footer = app.screen.query_one(KeyBar).render().plain
        assert "y/q Yes, leave" in footer and "n/Esc No, keep playing" in footer  # q says yes, and says so
        await pilot.press("escape")  # keep playing
        await wait_until(pilot, lambda: not isinstance(app.screen, ConfirmQuitScreen), "back at the table")
        assert app.is_running and my_turn(app)
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmQuitScreen), "the question again")
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not app.is_running, "the app to end")
    assert app.return_code == 0
