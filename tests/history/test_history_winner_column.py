"""The history list keeps every game's winner on an 80-column screen: the Winner column came last, after the
players and their scores, and a game of 6 or 7 players (about 100 cells of names and scores) pushed it off the
right edge for every row."""

from __future__ import annotations

from textual.widgets import DataTable

from nothanks_tui.client.app import NetApp as HistoryApp
from nothanks_tui.client.screens.history import HistoryScreen

from ..client.ui_helpers import wait_until
from .records import finished_record
from .test_history_screens import fill_history


async def test_the_winner_of_a_seven_player_game_is_on_screen_at_80_columns(tmp_path):
    names = ["annabelle", "bartholomew", "cyprian", "desdemona", "evangeline", "florentine", "gwendolyn"]
    games = [finished_record(names, number, bots=[False] * 7) for number in (1, 2)]
    source = fill_history(tmp_path, games)
    app = HistoryApp(lambda: HistoryScreen(source))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: len(getattr(app.screen, "games", ())) == 2, "the games")
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        left = 0
        for key, column in table.columns.items():
            if key.value == "winner":
                break
            left += column.get_render_width(table)
        assert left + 4 < table.size.width, "the Winner column starts off the screen"
