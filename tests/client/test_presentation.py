"""The words for what a view allows: they follow the view's refusal codes, and every code a view gives has them."""

from __future__ import annotations

from nothanks_tui.client.presentation import REFUSAL_NOTICES, pass_choice, turn_content
from nothanks_tui.engine import Action, GameConfig, apply, new_game, spectator_view, view_for
from nothanks_tui.link import SeatInfo, errors

SEATS = (SeatInfo("ana"), SeatInfo("bo"), SeatInfo("cy"))


def test_with_no_chips_the_mover_is_told_to_take_and_the_others_see_a_preview():
    state = new_game(GameConfig(players=3, chips_per_player=0), seed=1)
    mover = view_for(state, state.to_move)
    other = view_for(state, (state.to_move + 1) % 3)
    assert mover.refusal(Action.PASS) == errors.NO_CHIPS
    assert "no chips, you must take" in turn_content(mover, SEATS).plain
    assert "impossible with no chips" in pass_choice(mover).plain
    assert other.refusal(Action.PASS) == errors.NOT_YOUR_TURN
    assert "to play" in turn_content(other, SEATS).plain
    assert pass_choice(other).plain == "No thanks!: no chip to pay with"


def test_every_code_a_view_refuses_a_play_key_with_has_words_except_the_end():
    state = new_game(GameConfig(players=3, chips_per_player=1), seed=2)
    codes: set[str] = set()
    while True:
        for view in [spectator_view(state), *(view_for(state, seat) for seat in range(3))]:
            codes |= {code for _, code in view.refused}
        if state.finished:
            break
        state = apply(state, Action.PASS if state.chips[state.to_move] and state.pot < 2 else Action.TAKE)
    assert codes == {errors.NOT_SEATED, errors.NOT_YOUR_TURN, errors.NO_CHIPS, errors.GAME_OVER}
    assert set(REFUSAL_NOTICES) == codes - {errors.GAME_OVER}
