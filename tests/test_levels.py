"""The difficulty levels: registered by name, legal at every table size, and easy behaves like a casual player."""

from __future__ import annotations

import json

import pytest

from nothanks_tui.bots import bot_names, describe, make_bot
from nothanks_tui.cli import main
from nothanks_tui.engine import GameConfig
from nothanks_tui.engine.fast import cards_to_mask
from nothanks_tui.simulate import play_game


def test_levels_are_registered_with_descriptions():
    for name in ("random", "threshold", "rules", "easy", "medium", "hard", "expert", "flat", "ismcts"):
        assert name in bot_names()
        assert describe(name)


@pytest.mark.parametrize("players", [2, 4, 7])
def test_easy_and_medium_play_legal_games(players):
    bots = [make_bot("easy", 1), make_bot("medium", 2)] + [make_bot("rules")] * (players - 2)
    state = play_game(GameConfig(players=players), seed=players, bots=bots)
    assert state.finished


def test_easy_takes_run_extending_cards_and_never_a_card_dearer_than_its_whim():
    bot = make_bot("easy", 3)
    masks = [cards_to_mask([20, 22]), 0, 0]
    for _ in range(50):
        assert bot.decide(21, 0, 5, masks, 0, 10)  # bridges 20 and 22
        assert bot.decide(23, 0, 5, masks, 0, 10)  # extends a run
        assert not bot.decide(35, 16, 5, masks, 0, 10)  # net cost 19 is above any whim (0..18)
    assert any(not bot.decide(30, 15, 5, masks, 0, 10) for _ in range(50))  # net 15: sometimes too dear


def test_tournament_prints_json_when_asked(capsys):
    assert (
        main(["tournament", "easy", "random", "--players", "3", "--games", "3", "--jobs", "1", "--format", "json"]) == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["lineup"] == ["easy", "random", "random"]
    assert data["games"] == 3


def test_without_the_c_loop_hard_and_expert_search_fewer_iterations_the_same_way_every_time(monkeypatch):
    """A machine with only Python keeps hard within its time budget (docs/bots.md): fewer iterations, still a pure
    function of (seed, view) there; with the C loop the full count."""
    from nothanks_tui.bots import pubmcts
    from nothanks_tui.bots.knowledge import info_from_view
    from nothanks_tui.bots.levels import HARD_ITERATIONS, HARD_PYTHON_ITERATIONS
    from nothanks_tui.engine import Action, apply, new_game, view_for

    state = new_game(GameConfig(players=3, open_chips=True), 5)
    for _ in range(30):
        state = apply(state, Action.PASS if state.chips[state.to_move] and state.pot < 3 else Action.TAKE)
    info = info_from_view(view_for(state, state.to_move))
    monkeypatch.setattr(pubmcts, "ACCELERATED", False)
    slow = make_bot("hard", 4).evaluate(info)
    # the first iteration only adds the root
    assert slow.worlds == slow.take_visits + slow.pass_visits + 1 == HARD_PYTHON_ITERATIONS < HARD_ITERATIONS
    assert make_bot("hard", 4).evaluate(info) == slow
    assert make_bot("expert", 4).python_iterations > HARD_PYTHON_ITERATIONS
    if pubmcts.search_in_c is not None:
        monkeypatch.setattr(pubmcts, "ACCELERATED", True)
        assert make_bot("hard", 4).evaluate(info).worlds == HARD_ITERATIONS
