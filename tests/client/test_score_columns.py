"""The score dialog's columns line up whatever the names: a name of 14 cells with "(you)" after it filled the name
column to its last cell and pushed that row's numbers one column right of everyone else's (seen at a 7-player
table as 'WWWWWWWWWWWWW… (you)     113' under '43')."""

from __future__ import annotations

from rich.cells import cell_len

from nothanks_tui.client.screens.score import score_lines
from nothanks_tui.engine import Action, GameConfig, apply, new_game, view_for
from nothanks_tui.link import SeatInfo, TableUpdate


def finished(players: int) -> object:
    state = new_game(GameConfig(players=players), seed=11)
    while not state.finished:
        state = apply(state, Action.PASS if state.chips[state.to_move] and len(state.moves) % 3 else Action.TAKE)
    return state


def score_column_ends(text: str) -> list[int]:
    """The cell where each player's row ends its Score column (rows start with the winner's mark or a space)."""
    ends = []
    for line in text.splitlines()[1:]:
        if line.startswith(("★ ", "  ")) and not line.startswith("    "):  # a player's row, not their cards
            cells = line.rstrip()
            for word in ("winner",):
                cells = cells.removesuffix(word).rstrip()
            ends.append(cell_len(cells))
    return ends


def test_the_numbers_line_up_with_a_long_name_and_you_after_it():
    state = finished(3)
    for you in ("WWWWWWWWWWWWWWWWWWWW", "爱丽丝爱丽丝爱丽丝爱丽丝", "bo"):
        seats = (SeatInfo(you), SeatInfo("ana"), SeatInfo("WWWWWWWWWWWWWWWWWW"))
        _, body = score_lines(TableUpdate(view_for(state, 0), seats, "t1"))
        ends = score_column_ends(body.plain)
        assert len(ends) == 3 and len(set(ends)) == 1, (you, body.plain)
        assert "(you)" in body.plain
