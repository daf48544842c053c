"""The move log: one line per card (its taker), plus the newest move; a pass rewrites one line, not the log."""

from __future__ import annotations

from nothanks_tui.client.presentation import logged_moves
from nothanks_tui.client.widgets.table import MoveLog
from nothanks_tui.engine import Action, Move

from .ui_helpers import local_app, my_turn, table_screen, wait_until

PASS, TAKE = Action.PASS, Action.TAKE


def test_the_log_keeps_each_take_and_only_the_newest_pass():
    moves = [
        Move(0, PASS, 27, 0),
        Move(1, PASS, 27, 1),
        Move(2, TAKE, 27, 2),
        Move(2, PASS, 9, 0),
        Move(0, TAKE, 9, 1),
        Move(0, TAKE, 30, 0),
        Move(0, PASS, 12, 0),
        Move(1, PASS, 12, 1),
    ]
    assert logged_moves(moves, 8) == [moves[2], moves[4], moves[5], moves[7]]
    assert logged_moves(moves[:3], 8) == [moves[2]]  # the newest move is a take: the card's passes are gone
    assert logged_moves(moves[:4], 8) == [moves[2], moves[3]]
    assert logged_moves(moves, 2) == [moves[5], moves[7]]  # the newest rows only
    assert logged_moves(moves, 1) == [moves[7]]
    assert logged_moves(moves, 0) == []
    assert logged_moves([], 8) == []


async def test_a_pass_on_the_card_in_play_rewrites_one_line_of_the_log():
    """Seed 3 with 5 players: the bots pass around on the first card, so each move after the first one changes
    only the newest line (the last "No thanks!") while the log's line count stays the same."""
    app, _ = local_app(players=5, seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: my_turn(app), "my turn")
        screen = table_screen(app)
        log = screen.query_one(MoveLog)
        repainted: list[list[int] | None] = []
        original = log.changed_lines

        def recording(lines):  # type: ignore[no-untyped-def]
            regions = original(lines)
            repainted.append(None if regions is None else [region.y for region in regions])
            return regions

        log.changed_lines = recording  # type: ignore[method-assign]
        before = screen.table.view
        assert before.moves and all(move.action is PASS for move in before.moves), "the first card went around"
        await pilot.press("n")
        await wait_until(pilot, lambda: my_turn(app) and screen.table.view.state_id > before.state_id, "my turn")
        after = screen.table.view
        assert all(move.action is PASS for move in after.moves), "nobody took the card"
        assert len(repainted) == after.state_id - before.state_id  # one update per move
        assert repainted == [[0]] * len(repainted)  # the one line, each time
        shown = log.render().plain
        assert shown.count("No thanks!") == 1
        assert f"({after.card}, {after.pot} on it)" in shown
