"""The move that ends a game is drawn before the score screen opens: drawing both in one frame made that key the
slowest of a game for an SSH player (the score screen's 30 ms of CPU before the move showed)."""

from __future__ import annotations

from nothanks_tui.client.screens.score import ScoreScreen
from nothanks_tui.client.screens.table import TableScreen
from nothanks_tui.client.widgets.table import PrivatePanel

from .test_extras_flows import app_at
from .ui_helpers import my_turn, wait_until


async def test_the_last_move_is_drawn_before_the_scores_open(monkeypatch):
    painted_over: list[bool] = []  # the player's panel painted with the game over
    seen_when_scores_opened: list[bool] = []
    render_line, show_score = PrivatePanel.render_line, TableScreen.action_show_score

    def painting(panel, y):
        if panel.table is not None and panel.table.view.finished:
            painted_over.append(True)
        return render_line(panel, y)

    def showing(screen):
        seen_when_scores_opened.append(bool(painted_over))
        show_score(screen)

    monkeypatch.setattr(PrivatePanel, "render_line", painting)
    monkeypatch.setattr(TableScreen, "action_show_score", showing)
    app = app_at()  # against one bot: once this player takes, every card after is theirs to take, the last one too
    async with app.run_test(size=(80, 24)) as pilot:
        pressed = 0
        while not isinstance(app.screen, ScoreScreen):
            await wait_until(pilot, lambda: my_turn(app) or isinstance(app.screen, ScoreScreen), "my turn or the end")
            if my_turn(app):
                await pilot.press("t")
                pressed += 1
        assert pressed > 1  # the game ended on this player's own key
    assert seen_when_scores_opened == [True]
