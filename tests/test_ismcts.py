"""The IS-MCTS bot and the ``expert`` level: registered with their settings, deterministic for a seed and a view,
blind to hidden cards, deck order and hidden chips, and sensible in positions with an obvious answer."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from nothanks_tui.bots import bot_names, describe, make_bot
from nothanks_tui.bots.ismcts import IsmctsBot, IsmctsSettings, search
from nothanks_tui.bots.knowledge import info_from_view, make_info
from nothanks_tui.engine import Action, GameConfig, apply, new_game, view_for
from nothanks_tui.simulate import play_game

SMALL = IsmctsSettings(iterations=60)
LIGHT = IsmctsSettings(iterations=60, playout="greedy", read_rivals=True, score_weight=0.5)
BUDGET = IsmctsSettings(playout="greedy", read_rivals=True, score_weight=0.5, work=20_000)  # hard's kind, smaller


def _midgame(seed: int, players: int = 3, moves: int = 25, open_chips: bool = False):
    state = new_game(GameConfig(players=players, open_chips=open_chips), seed)
    bots = [make_bot("rules")] * players
    for _ in range(moves):
        seat = state.to_move
        state = apply(state, bots[seat].choose(view_for(state, seat)), seat)
    return state


def _hidden_variant(state, rng: random.Random):
    """The same public game with the face-down deck and the removed cards reshuffled."""
    hidden = list(state.deck[state.taken + 1 :]) + list(state.removed)
    rng.shuffle(hidden)
    rest = len(state.deck) - state.taken - 1
    deck = state.deck[: state.taken + 1] + tuple(hidden[:rest])
    return replace(state, deck=deck, removed=tuple(sorted(hidden[rest:])), seed=None)


def test_ismcts_and_expert_are_registered_and_take_an_iteration_count():
    for name in ("ismcts", "expert"):
        assert name in bot_names() and describe(name)
    bot = make_bot("ismcts:123", 1)
    assert bot.name == "ismcts:123" and bot.settings.iterations == 123
    assert make_bot("ismcts", 1).settings.iterations == 400
    for bad in ("ismcts:x", "ismcts:0", "hard:5", "nobody:3"):
        with pytest.raises(ValueError):
            make_bot(bad, 1)


@pytest.mark.parametrize("settings", [SMALL, LIGHT, BUDGET], ids=["random-playouts", "light-playouts", "budget"])
def test_decisions_never_depend_on_hidden_cards_or_deck_order(settings):
    rng = random.Random(3)
    for seed in range(4):
        state = _midgame(seed)
        seat = state.to_move
        baseline = search(info_from_view(view_for(state, seat)), settings, seed=99)
        for _ in range(3):
            other = _hidden_variant(state, rng)
            assert other.deck != state.deck or other.removed != state.removed
            view = view_for(other, seat)
            assert view == view_for(state, seat)
            assert search(info_from_view(view), settings, seed=99) == baseline


def test_decisions_never_depend_on_hidden_chip_counts():
    state = _midgame(8, players=4)
    seat = state.to_move
    view = view_for(state, seat)
    tampered = replace(view, chips=tuple(c if i == seat else None for i, c in enumerate(view.chips)))
    assert search(info_from_view(tampered), SMALL, 5) == search(info_from_view(view), SMALL, 5)


def test_same_seed_same_statistics_and_the_iterations_are_all_counted():
    for seed in range(5):
        state = _midgame(seed, open_chips=True)
        view = view_for(state, state.to_move)
        first = search(info_from_view(view), SMALL, 7)
        assert first == search(info_from_view(view), SMALL, 7)
        assert first.take_visits + first.pass_visits == SMALL.iterations
        assert IsmctsBot(7, SMALL).choose(view) == IsmctsBot(7, SMALL).choose(view) == first.action


def test_a_work_budget_gives_more_iterations_late_in_the_deck_and_fewer_at_big_tables():
    assert BUDGET.iterations_for(2, 3) > BUDGET.iterations_for(12, 3) > BUDGET.iterations_for(23, 3)
    assert BUDGET.iterations_for(12, 7) < BUDGET.iterations_for(12, 3)
    state = _midgame(6, open_chips=True)
    view = view_for(state, state.to_move)
    result = search(info_from_view(view), BUDGET, 1)
    assert result.worlds == result.take_visits + result.pass_visits == BUDGET.iterations_for(view.deck_left, 3)


def test_hard_and_expert_are_the_belief_game_search_and_expert_searches_ten_times_deeper():
    from nothanks_tui.bots.pubmcts import PubMctsBot

    hard, expert = make_bot("hard", 1), make_bot("expert", 1)
    assert isinstance(hard, PubMctsBot) and isinstance(expert, PubMctsBot)
    assert expert.iterations == 10 * hard.iterations >= 10 * 20_000


def test_expert_is_deterministic_for_a_seed_and_a_view():
    state = _midgame(4, open_chips=True)
    view = view_for(state, state.to_move)
    assert make_bot("expert", 3).choose(view) == make_bot("expert", 3).choose(view)


def _info(hand, card, pot, chips=(8, 8, 8), deck_left=15, rival_hands=((), ())):
    hands = [list(hand), *[list(h) for h in rival_hands]]
    return make_info(3, 0, card, pot, deck_left, hands, list(chips), 11)


def test_it_refuses_a_dear_card_early_and_takes_a_bridging_card_a_chipless_rival_would_get():
    dear = search(_info([], card=35, pot=0, chips=(11, 11, 11), deck_left=23), IsmctsSettings(400), 1)
    assert dear.action is Action.PASS
    assert dear.pass_score is not None and dear.pass_score < dear.take_score
    bridge = _info([10, 24, 26, 30, 31, 33, 8], card=25, pot=0, chips=(8, 0, 16), deck_left=16)
    assert search(bridge, IsmctsSettings(400), 1).action is Action.TAKE


def test_with_no_chips_the_only_answer_is_take():
    result = search(_info([], card=35, pot=0, chips=(0, 16, 17), deck_left=23), SMALL, 1)
    assert result.pass_ is None and result.action is Action.TAKE


@pytest.mark.parametrize("players", [2, 4, 7])
def test_ismcts_plays_legal_games(players):
    bots = [make_bot("ismcts:30", 1), make_bot("rules")] + [make_bot("ismcts:20", 2)] * (players - 2)
    state = play_game(GameConfig(players=players), seed=players, bots=bots)
    assert state.finished


def test_the_playouts_table_score_agrees_with_the_engine():
    from nothanks_tui.bots.rollout import scores_of
    from nothanks_tui.engine.fast import mask_points

    rng = random.Random(2)
    for _ in range(2000):
        mask = sum(1 << c for c in rng.sample(range(3, 36), rng.randint(0, 24)))
        chips = rng.randint(0, 55)
        assert scores_of([mask], [chips]) == [mask_points(mask) - chips]


def test_open_chips_change_nothing_for_bots_that_read_chips_from_the_history():
    from nothanks_tui.tournament import tournament

    def outcome(open_chips: bool):
        report = tournament(["ismcts:30", "rules"], players=3, games=3, seed=2, jobs=1, open_chips=open_chips)
        return [(bot.name, bot.mean_score, bot.win_share) for bot in report.bots]

    assert outcome(True) == outcome(False)
