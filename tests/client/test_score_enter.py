"""Enter on the score dialog does nothing: it used to deal the next game, a key not shown in the footer, and at a
host a new deal is everyone's (it closes the others' score dialogs while they read them). The keys shown do it:
a plays again, t or Esc shows the table."""

from __future__ import annotations

from nothanks_tui.client.screens.score import ScoreScreen

from .test_extras_flows import app_at, play_out, state_id
from .ui_helpers import table_screen


async def test_enter_on_the_score_dialog_neither_deals_nor_closes_it():
    app = app_at(players=3, chips=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await play_out(pilot, app)
        dealt = state_id(app)
        games = table_screen(app).game_number
        await pilot.press("enter")
        for _ in range(20):
            await pilot.pause()
        assert isinstance(app.screen, ScoreScreen)
        screen = table_screen(app)
        assert screen.game_number == games and state_id(app) == dealt and screen.table.view.finished
