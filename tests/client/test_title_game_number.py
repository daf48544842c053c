"""The title's "game N" is the table's own count (its match so far), not the deals this screen happened to see: a
player who came back, or a spectator who came in at the fifth game, read "game 2" or nothing."""

from __future__ import annotations

from nothanks_tui.client.screens.table import TitleBar, game_number_of
from nothanks_tui.engine import Action, GameConfig, apply, new_game, spectator_view
from nothanks_tui.link import SeatInfo, TableUpdate
from nothanks_tui.link.events import MatchTotals

SEATS = (SeatInfo("ana"), SeatInfo("bo"), SeatInfo("cy"))


def title(update: TableUpdate, seen: int) -> str:
    bar = TitleBar("this host over SSH")
    bar.set_reactive(TitleBar.table, update)
    bar.set_reactive(TitleBar.game_number, seen)
    return bar.draw_lines()[0].plain


def test_the_game_number_is_the_tables_count_for_a_newcomer():
    state = new_game(GameConfig(players=3), seed=2)
    playing = spectator_view(state)
    four_done = MatchTotals(games=4, wins=(2, 1, 1), scores=(200, 230, 260))
    assert "game 5" in title(TableUpdate(playing, SEATS, match=four_done), seen=1)  # the fifth game, its first seen
    while not state.finished:
        state = apply(state, Action.TAKE)
    five_done = MatchTotals(games=5, wins=(3, 1, 1), scores=(250, 290, 330))
    assert "game 5" in title(TableUpdate(spectator_view(state), SEATS, match=five_done), seen=1)  # over: still 5
    assert "game" not in title(TableUpdate(playing, SEATS), seen=1)  # the first game: no number
    assert "game 2" in title(TableUpdate(playing, SEATS), seen=2)  # no match from the host: the deals seen


def test_the_new_game_notice_and_the_title_count_alike():
    state = new_game(GameConfig(players=3), seed=2)
    four_done = MatchTotals(games=4, wins=(2, 1, 1), scores=(200, 230, 260))
    assert game_number_of(TableUpdate(spectator_view(state), SEATS, match=four_done), seen=2) == 5
    assert game_number_of(TableUpdate(spectator_view(state), SEATS), seen=2) == 2
