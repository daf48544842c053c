"""The search bot and its parts: the playout agrees with the rule bots, chips are read from the public history,
decisions never depend on hidden information, and are deterministic and thread-safe."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from nothanks_tui.bots import make_bot
from nothanks_tui.bots.knowledge import chips_from_history, info_from_view, make_info
from nothanks_tui.bots.opponents import fit_models
from nothanks_tui.bots.rollout import RULES, THRESHOLD, model_takes, playout
from nothanks_tui.bots.search import SearchBot, SearchSettings, evaluate
from nothanks_tui.bots.simple import RuleBot, ThresholdBot
from nothanks_tui.engine import Action, GameConfig, apply, deal, new_game, view_for
from nothanks_tui.engine.fast import mask_points, play_fast
from nothanks_tui.simulate import play_game

SMALL = SearchSettings(max_worlds=24, min_worlds=8, check_every=8)


def _midgame(seed: int, players: int = 3, moves: int = 25):
    state = new_game(GameConfig(players=players), seed)
    bots = [make_bot("rules")] * players
    for _ in range(moves):
        seat = state.to_move
        state = apply(state, bots[seat].choose(view_for(state, seat)), seat)
    return state


@pytest.mark.parametrize("players", [2, 3, 5, 7])
def test_playout_with_the_rules_model_plays_exactly_like_the_rules_bot(players):
    config = GameConfig(players=players)
    for seed in range(20):
        deck, _removed, first = deal(config, seed)
        bot = RuleBot()
        _moves, masks, chips = play_fast(deck, first, config.chips, [bot.decide] * players)
        expected = [mask_points(m) - c for m, c in zip(masks, chips)]
        scores = playout(deck[0], 0, first, [0] * players, [config.chips] * players, list(deck), 1, [RULES] * players)
        assert scores == expected


def test_models_decide_like_the_bots_they_are_named_after():
    rng = random.Random(5)
    rules, threshold = RuleBot(), ThresholdBot()
    for _ in range(3000):
        players = rng.randint(2, 7)
        cards = rng.sample(range(3, 36), rng.randint(1, 20))
        card, held = cards[0], cards[1:]
        masks = [0] * players
        for c in held:
            masks[rng.randrange(players)] |= 1 << c
        seat = rng.randrange(players)
        pot, mine, left = rng.randint(0, 15), rng.randint(1, 11), rng.randint(0, 23)
        others = 0
        for i, m in enumerate(masks):
            if i != seat:
                others |= m
        args = (card, pot, mine, masks[seat], others, players, left)
        assert model_takes(RULES, *args) == rules.decide(card, pot, mine, masks, seat, left)
        assert model_takes(THRESHOLD, *args) == threshold.decide(card, pot, mine, masks, seat, left)


def test_hidden_chips_are_recovered_exactly_from_the_public_history():
    for seed in range(10):
        state = new_game(GameConfig(players=4), seed)
        bots = [make_bot("random", seed)] * 4
        while not state.finished:
            view = view_for(state, state.to_move)
            assert None in view.chips
            assert chips_from_history(view) == state.chips
            state = apply(state, bots[0].choose(view), state.to_move)


def test_rivals_are_read_as_the_model_that_explains_their_moves():
    config = GameConfig(players=3)
    state = new_game(config, 11)
    bots = [make_bot("rules"), make_bot("threshold"), make_bot("rules")]
    while not state.finished and state.taken < 18:
        seat = state.to_move
        state = apply(state, bots[seat].choose(view_for(state, seat)), seat)
    models = fit_models(view_for(state, 0))
    assert models[0] == RULES  # its own seat
    assert models[1] == THRESHOLD
    assert models[2] == RULES


def _hidden_variant(state, rng: random.Random):
    """The same public game with different hidden parts: the face-down deck and the removed cards reshuffled."""
    hidden = list(state.deck[state.taken + 1 :]) + list(state.removed)
    rng.shuffle(hidden)
    rest = len(state.deck) - state.taken - 1
    deck = state.deck[: state.taken + 1] + tuple(hidden[:rest])
    return replace(state, deck=deck, removed=tuple(sorted(hidden[rest:])), seed=None)


def test_decisions_never_depend_on_hidden_cards_or_deck_order():
    rng = random.Random(3)
    for seed in range(4):
        state = _midgame(seed)
        seat = state.to_move
        baseline = evaluate(info_from_view(view_for(state, seat)), SMALL, seed=99)
        for _ in range(3):
            other = _hidden_variant(state, rng)
            assert other.deck != state.deck or other.removed != state.removed
            view = view_for(other, seat)
            assert view == view_for(state, seat)
            assert evaluate(info_from_view(view), SMALL, seed=99) == baseline
            assert SearchBot(7, SMALL).choose(view) == SearchBot(7, SMALL).choose(view_for(state, seat))


def test_decisions_never_depend_on_hidden_chip_counts():
    state = _midgame(8, players=4)
    seat = state.to_move
    view = view_for(state, seat)
    # A view whose hidden chips are blanked differently must still be read the same way (from the history).
    info = info_from_view(view)
    assert info.chips == state.chips
    tampered = replace(view, chips=tuple(c if i == seat else None for i, c in enumerate(view.chips)))
    assert info_from_view(tampered) == info


def test_the_bot_is_given_only_a_view():
    state = _midgame(2)
    view = view_for(state, state.to_move)
    text = repr(view)
    assert "deck=" not in text and "removed=" not in text
    assert make_bot("hard", 1).choose(view) in view.legal


def test_same_seed_same_decision_and_choose_is_thread_safe():
    states = [_midgame(seed) for seed in range(6)]
    views = [view_for(s, s.to_move) for s in states]
    bot = SearchBot(42, SMALL)
    expected = [bot.choose(v) for v in views]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(bot.choose, views * 4))
    assert results == expected * 4
    assert [SearchBot(42, SMALL).choose(v) for v in views] == expected


def test_a_search_bot_plays_a_legal_game_to_the_end():
    bots = [SearchBot(1, SMALL), make_bot("rules"), make_bot("threshold")]
    state = play_game(GameConfig(players=3), seed=4, bots=bots)
    assert state.finished


def _info(hand, card, pot, chips=(8, 8, 8), deck_left=15, rival_hands=((), ())):
    hands = [list(hand), *[list(h) for h in rival_hands]]
    return make_info(3, 0, card, pot, deck_left, hands, list(chips), 11)


def test_it_takes_a_card_that_bridges_two_runs_before_a_rival_must_take_it():
    # The next player has no chips and must take whatever reaches them: 25 is worth -26 points to us now.
    info = _info([10, 24, 26, 30, 31, 33, 8], card=25, pot=0, chips=(8, 0, 16), deck_left=16)
    assert evaluate(info, SearchSettings(), seed=1).action is Action.TAKE


def test_it_lets_a_card_only_it_wants_go_round_to_collect_chips():
    # Nobody else can use 25 and both rivals hoard chips: passing it round costs 1 chip and gains the pot.
    info = _info([10, 24, 26, 30, 31, 33, 8], card=25, pot=0, chips=(8, 8, 8), deck_left=16)
    assert evaluate(info, SearchSettings(), seed=1).action is Action.PASS


def test_it_refuses_a_dear_card_with_no_chips_on_it_early():
    info = _info([], card=35, pot=0, chips=(11, 11, 11), deck_left=23)
    result = evaluate(info, SearchSettings(), seed=1)
    assert result.action is Action.PASS
    assert result.pass_score is not None and result.pass_score < result.take_score


def test_with_no_chips_it_must_take():
    info = _info([], card=35, pot=0, chips=(0, 16, 16), deck_left=23)
    assert evaluate(info, SMALL, seed=1).pass_ is None
