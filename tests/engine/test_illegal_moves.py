"""Every illegal move raises IllegalMove with a stable code and leaves the game exactly as it was."""

from __future__ import annotations

import pytest

from nothanks_tui.engine import ERROR_CODES, Action, GameConfig, IllegalMove, apply, check, new_game

from .helpers import dealt, play


def refusal(state, action, seat=None) -> str:
    before = state
    with pytest.raises(IllegalMove) as refused:
        apply(state, action, seat)
    assert state == before
    assert refused.value.code in ERROR_CODES
    assert refused.value.message
    return refused.value.code


def test_moving_out_of_turn_is_refused():
    state = dealt([20], players=3, first=1)
    assert refusal(state, "take", seat=0) == "not_your_turn"
    assert refusal(state, "pass", seat=2) == "not_your_turn"
    assert apply(state, "take", seat=1).hands[1] == (20,)


def test_a_seat_that_does_not_exist_is_refused():
    state = dealt([20], players=3)
    for seat in (-1, 3, 99, "0", 1.0):
        assert refusal(state, "take", seat=seat) == "bad_seat"


def test_passing_without_chips_is_refused():
    state = play(dealt([30], players=2, chips=1), "pp")
    assert refusal(state, "pass") == "no_chips"
    assert refusal(state, Action.PASS, seat=0) == "no_chips"


def test_any_move_after_the_end_is_refused():
    state = play(new_game(GameConfig(players=2), seed=4), "t" * 24)
    for action in ("take", "pass"):
        assert refusal(state, action) == "game_over"
        assert refusal(state, action, seat=0) == "game_over"


@pytest.mark.parametrize("action", ["", "TAKE", "fold", None, 1, b"take", ["take"]])
def test_an_unknown_action_is_refused(action):
    assert refusal(dealt([20]), action) == "unknown_action"


def test_check_accepts_exactly_the_legal_moves():
    state = dealt([20], players=3)
    assert check(state, "take", 0) is Action.TAKE
    assert check(state, "pass") is Action.PASS


def test_a_refused_move_has_a_readable_message():
    with pytest.raises(IllegalMove) as refused:
        apply(play(dealt([30], players=2, chips=0), ""), "pass")
    assert "must take" in str(refused.value)
