"""SVG snapshots at 80x24 of what issue 18 adds after a game: the score screen with the running match (five
players, two games: the breakdown not cut), and the score chart. Fixed seeds, bots at pace 0.

Update after an intended change with ``pytest tests/test_extras_snapshots.py --snapshot-update`` and look at the
new SVGs before committing them.
"""

from __future__ import annotations

from nothanks_tui.client.screens.score import ChartScreen, ScoreScreen

from .client.ui_helpers import local_app, my_turn, table_screen, wait_until


async def take_to_the_end(pilot, app) -> None:
    while not isinstance(app.screen, ScoreScreen):
        await wait_until(pilot, lambda: my_turn(app) or isinstance(app.screen, ScoreScreen), "turn or end")
        if my_turn(app):
            before = table_screen(app).table.view.state_id
            await pilot.press("t")
            await wait_until(pilot, lambda b=before: table_screen(app).table.view.state_id > b, "the take")


def scores_drawn(app) -> bool:
    """The score screen is laid out (it opens just after the game's last move is drawn)."""
    return any(note.region.area for note in app.screen.query("#score-note"))


def games(app) -> int:
    screen = app.screen
    match = screen.table.match if isinstance(screen, ScoreScreen) else None
    return 0 if match is None else match.games


async def two_games(pilot, app) -> None:
    await take_to_the_end(pilot, app)
    await pilot.press("a")
    await wait_until(pilot, lambda: not isinstance(app.screen, ScoreScreen) or games(app) == 2, "game 2")
    await take_to_the_end(pilot, app)
    await wait_until(pilot, lambda: games(app) == 2 and scores_drawn(app), "the scores")
    app.clear_notifications()  # "game 2 has started", said when it did: not what this picture is about
    await wait_until(pilot, lambda: not any(screen.query("Toast") for screen in app.screen_stack), "no toast")


def test_score_screen_with_the_match_after_two_games(snap_compare):
    app, _ = local_app(players=5, seed=2)
    assert snap_compare(app, terminal_size=(80, 24), run_before=lambda pilot: two_games(pilot, app))


def test_score_chart(snap_compare):
    app, _ = local_app(players=4, seed=3)

    async def chart(pilot):
        await take_to_the_end(pilot, app)
        await wait_until(pilot, lambda: bool(app.screen.query("#score-note")), "the scores")
        await pilot.press("g")
        await wait_until(pilot, lambda: isinstance(app.screen, ChartScreen), "the chart")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=chart)
