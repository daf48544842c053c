"""The words for what a view allows: they follow the view's refusal codes, and every code a view gives has them."""

from __future__ import annotations

from nothanks_tui.client.presentation import REFUSAL_NOTICES, pass_choice, take_choice, turn_content
from nothanks_tui.engine import Action, GameConfig, apply, breakdown, new_game, spectator_view, view_for
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


def test_each_choice_gives_the_score_it_leads_to_then_the_change():
    """The choice lines used to give the change alone ("→ score +13"), which a quick reader took for the total."""
    state = new_game(GameConfig(players=3), seed=4)
    while not (state.taken > 6 and state.pot and state.hands[state.to_move] and state.chips[state.to_move] > 1):
        state = apply(state, Action.PASS if state.pot < 3 and state.chips[state.to_move] else Action.TAKE)
    view = view_for(state, state.to_move)
    now = breakdown(view.my_hand, view.my_chips).score
    after_take = apply(state, Action.TAKE)
    taken = breakdown(after_take.hands[view.seat], after_take.chips[view.seat]).score
    change = f"{taken - now:+}".replace("-", "−") if taken != now else "0"
    assert take_choice(view).plain.endswith(f"→ score {str(taken).replace('-', '−')} ({change})")
    left = view.my_chips - 1
    assert pass_choice(view).plain == f"No thanks!: −1 chip ({left} left) → score {now + 1} (+1)"
