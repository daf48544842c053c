"""SVG snapshots of the table at 80x24 (fixed seeds, bots at pace 0): what a player sees, pinned.

Update after an intended change with ``pytest tests/test_table_snapshots.py --snapshot-update`` and look at the
new SVGs before committing them.
"""

from __future__ import annotations

from nothanks_tui.client.screens.score import ScoreScreen

from .client.ui_helpers import local_app, my_turn, table_screen, wait_until


def test_table_at_the_first_decision(snap_compare):
    app, _ = local_app(players=4, seed=3)

    async def ready(pilot):
        await wait_until(pilot, lambda: my_turn(app), "my turn")

    assert snap_compare(app, terminal_size=(80, 24), run_before=ready)


def test_table_mid_game_with_runs(snap_compare):
    app, _ = local_app(players=4, seed=3)

    async def play(pilot):
        for key in "ttntttnt":
            await wait_until(pilot, lambda: my_turn(app), "my turn")
            before = table_screen(app).table.view.state_id
            await pilot.press(key)
            await wait_until(pilot, lambda b=before: table_screen(app).table.view.state_id > b, "the move")
        await wait_until(pilot, lambda: my_turn(app), "my turn")

    assert snap_compare(app, terminal_size=(80, 24), run_before=play)


def test_table_with_seven_players_and_open_chips(snap_compare):
    app, _ = local_app(players=7, seed=5, open_chips=True)

    async def ready(pilot):
        await wait_until(pilot, lambda: my_turn(app), "my turn")

    assert snap_compare(app, terminal_size=(80, 24), run_before=ready)


def test_score_screen(snap_compare):
    app, _ = local_app(players=3, seed=2)

    async def finish(pilot):
        while not isinstance(app.screen, ScoreScreen):
            await wait_until(pilot, lambda: my_turn(app) or isinstance(app.screen, ScoreScreen), "turn or end")
            if my_turn(app):
                before = table_screen(app).table.view.state_id
                await pilot.press("t")
                await wait_until(pilot, lambda b=before: table_screen(app).table.view.state_id > b, "the take")

    assert snap_compare(app, terminal_size=(80, 24), run_before=finish)


def test_table_when_you_must_take(snap_compare):
    # Nobody has chips, and with seed 0 the human moves first: "No thanks!" is greyed with the reason.
    app, _ = local_app(players=3, seed=0, chips=0)

    async def ready(pilot):
        await wait_until(pilot, lambda: my_turn(app), "my turn")

    assert snap_compare(app, terminal_size=(80, 24), run_before=ready)


def test_table_in_a_small_terminal(snap_compare):
    app, _ = local_app(players=5, seed=8)

    async def ready(pilot):
        await wait_until(pilot, lambda: my_turn(app), "my turn")

    assert snap_compare(app, terminal_size=(60, 18), run_before=ready)
