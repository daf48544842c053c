"""``pubmcts``, the sparring partner built like the published IS-MCTS bot (issue 33): deterministic for a seed and a
view, blind to what the seat cannot see, its chance nodes drawn from every unseen card (never a fixed set of removed
cards), and its C loop equal to its Python loop bit for bit."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from nothanks_tui.bots import make_bot, pubmcts
from nothanks_tui.bots.knowledge import info_from_view, make_info
from nothanks_tui.bots.pubmcts import PubMctsBot, _heuristic_playout, _python_search, search
from nothanks_tui.bots.rollout import GREEDY, MODELS, THRESHOLD
from nothanks_tui.engine import Action, GameConfig, apply, view_for
from nothanks_tui.engine.config import ALL_CARDS
from nothanks_tui.engine.fast import mask_take_cost
from nothanks_tui.simulate import play_game

from .test_ismcts import _hidden_variant, _midgame

built = pytest.mark.skipif(not pubmcts.ACCELERATED, reason="the C search loop was not built here (no compiler)")


def test_pubmcts_is_registered_and_takes_an_iteration_count():
    assert make_bot("pubmcts", 1).iterations == 400
    assert make_bot("pubmcts:4000", 1).iterations == 4000
    for bad in ("pubmcts:0", "pubmcts:many"):
        with pytest.raises(ValueError, match="pubmcts:N"):
            make_bot(bad)


def test_same_seed_and_view_give_the_same_statistics_and_every_iteration_after_the_first_counts():
    for seed in range(3):
        state = _midgame(seed)
        info = info_from_view(view_for(state, state.to_move))
        first = search(info, 120, seed=7)
        assert first == search(info, 120, seed=7)
        assert first.take_visits + first.pass_visits == 119  # the first iteration adds the root and records nothing
    assert search(info, 120, seed=8) != first  # the seed matters


def test_decisions_never_depend_on_hidden_cards_or_deck_order():
    rng = random.Random(3)
    for seed in range(4):
        state = _midgame(seed)
        seat = state.to_move
        baseline = search(info_from_view(view_for(state, seat)), 150, seed=99)
        for _ in range(3):
            other = _hidden_variant(state, rng)
            assert other.deck != state.deck or other.removed != state.removed
            view = view_for(other, seat)
            assert view == view_for(state, seat)
            assert search(info_from_view(view), 150, seed=99) == baseline


def test_decisions_never_depend_on_hidden_chip_counts():
    state = _midgame(8, players=4)
    seat = state.to_move
    view = view_for(state, seat)
    tampered = replace(view, chips=tuple(c if i == seat else None for i, c in enumerate(view.chips)))
    assert search(info_from_view(tampered), 150, 5) == search(info_from_view(view), 150, 5)
    bot = PubMctsBot(5, 150)
    assert bot.choose(tampered) == bot.choose(view)


def test_chance_nodes_turn_up_any_unseen_card_never_a_fixed_deck():
    """With two cards face down and ten unseen, a fixed determinization would only ever show two of them after a
    take; the belief game's chance node shows every unseen card, and the game ends after exactly two more takes."""
    unseen_cards = [4, 6, 9, 12, 15, 19, 22, 26, 29, 33]
    hands = [[c for c in ALL_CARDS if c not in unseen_cards and c != 35][i::3] for i in range(3)]
    info = make_info(3, 0, 35, 0, 2, hands, [5, 5, 5], 11)
    assert sorted(info.unseen) == unseen_cards
    tree: dict = {}
    _python_search(
        list(info.masks), [5, 5, 5], 35, 0, 0, list(info.unseen), 2, 400, pubmcts.EXPLORATION, random.random, tree
    )
    turned_up = {key[0] for key in tree} - {35}
    assert turned_up == set(unseen_cards)
    rng = random.Random(1)
    for _ in range(200):
        masks = list(info.masks)
        pool = list(info.unseen)
        _heuristic_playout(35, 0, 0, masks, [5, 5, 5], pool, len(pool), 2, rng.random)
        taken = sum(m.bit_count() for m in masks) - sum(m.bit_count() for m in info.masks)
        assert taken == 3  # the face-up card and the two still face down, whichever they are


def test_the_playout_is_the_published_heuristic():
    """Take when what the card adds less its pot is at most 0, else pass: seat 0 passes the 20 with 19 chips on it,
    seat 1 takes it with 20. A seat without chips takes."""
    info = make_info(2, 0, 20, 19, 0, [[30], [10]], [3, 3], 11)
    masks, chips = list(info.masks), [3, 3]
    assert _heuristic_playout(20, 19, 0, masks, chips, [], 0, 0, random.random) == [30 - 2, 10 + 20 - 23]
    masks, chips = list(info.masks), [0, 3]
    assert _heuristic_playout(20, 5, 0, masks, chips, [], 0, 0, random.random) == [30 + 20 - 5, 10 - 3]


def test_a_playout_model_other_than_the_threshold_rule_plays_every_seat_by_it():
    """``greedy`` (a playout model of issue 33's round 5) takes a dear card when short of chips: seat 0, with 2
    chips, takes the 20 with 10 chips on it (20 - 10 is within 14 - 2 x 2, plus 4 on the last card); by the
    threshold rule both pass until seat 0 has no chip left and must take it with 14 on it."""
    info = make_info(2, 0, 20, 10, 0, [[30], [10]], [2, 3], 11)
    masks, chips = list(info.masks), [2, 3]
    assert _heuristic_playout(20, 10, 0, masks, chips, [], 0, 0, random.random) == [30 + 20 - 14, 10 - 1]
    masks, chips = list(info.masks), [2, 3]
    greedy = [GREEDY, GREEDY]
    assert _heuristic_playout(20, 10, 0, masks, chips, [], 0, 0, random.random, greedy) == [30 + 20 - 12, 10 - 3]
    state = _midgame(5)
    info = info_from_view(view_for(state, state.to_move))
    assert search(info, 300, 3, playout_model=THRESHOLD) == search(info, 300, 3)
    assert search(info, 300, 3, playout_model=GREEDY) != search(info, 300, 3)


def test_a_win_bonus_changes_what_the_root_mover_minimises_but_not_the_scores_reported():
    """With a bonus the search weighs losing to the best rival (different visits), and still reports the root
    mover's own mean final score after each action."""
    state = _midgame(5)
    info = info_from_view(view_for(state, state.to_move))
    plain, relative = search(info, 400, 3), search(info, 400, 3, bonus=40.0)
    assert (plain.take_visits, plain.pass_visits) != (relative.take_visits, relative.pass_visits)
    assert 0 < relative.take_score < 200 and 0 < relative.pass_score < 200  # own scores, not score differences


def test_with_no_chips_the_only_answer_is_take():
    state = _midgame(2)
    view = view_for(state, state.to_move)
    assert PubMctsBot(1, 50).choose(replace(view, chips=tuple(0 for _ in view.chips))) is Action.TAKE


@pytest.mark.parametrize("players", [2, 4, 7])
def test_pubmcts_plays_legal_games(players):
    bots = [make_bot("pubmcts:40", 1), make_bot("rules")] + [make_bot("pubmcts:30", 2)] * (players - 2)
    assert play_game(GameConfig(players=players), seed=players, bots=bots).finished


@built
def test_c_and_python_loops_give_the_same_statistics(monkeypatch):
    rng = random.Random(33)
    for case in range(40):
        players = rng.choice([2, 3, 4, 5, 7])
        state = _midgame(case, players=players, moves=rng.randint(0, 60))
        if state.finished or not state.chips[state.to_move]:
            continue
        info = info_from_view(view_for(state, state.to_move))
        iterations = rng.choice([2, 50, 300])
        bonus = rng.choice([0.0, 0.0, 10.0, 40.0])  # 0: the published rule; else the root mover's loss costs more
        ruled = rng.randrange(1 << players) & ~(1 << state.to_move)  # rivals searched as threshold players
        odds = tuple(rng.choice([0.0, 0.25, 0.9, 1.0]) for _ in range(players))  # ... in a share of the iterations
        model = rng.choice(list(MODELS.values()))  # what every seat plays in the playouts (hard: greedy)
        kwargs = {"bonus": bonus, "ruled": ruled, "odds": odds, "playout_model": model}
        monkeypatch.setattr(pubmcts, "ACCELERATED", True)
        fast = search(info, iterations, case, **kwargs)
        monkeypatch.setattr(pubmcts, "ACCELERATED", False)
        assert search(info, iterations, case, **kwargs) == fast


def test_open_chips_change_nothing_since_every_count_is_read_from_the_history():
    """Why docs/bots.md's hidden-chip lines play the very games of the open-chip ones (the default, hidden chips,
    is the game's)."""
    from nothanks_tui.tournament import tournament

    def outcome(open_chips: bool):
        report = tournament(["pubmcts:30", "rules"], players=3, games=3, seed=2, jobs=1, open_chips=open_chips)
        return [(bot.name, bot.mean_score, bot.win_share) for bot in report.bots]

    assert outcome(True) == outcome(False)


def test_hard_sees_the_same_position_with_open_and_hidden_chips():
    """So the hidden-chip lines of docs/bots.md play the open-chip games for ``hard`` (win bonus included): at every
    turn of a game its search starts from the same InfoSet, and ``hard``'s search is a function of it and the seed."""
    from nothanks_tui.bots.opponents import threshold_odds, threshold_rivals

    for players in (3, 4, 5):
        open_game, hidden_game = _midgame(players, players, 0, True), _midgame(players, players, 0, False)
        assert open_game.chips == hidden_game.chips
        bot = make_bot("rules")
        for _ in range(60 * players):
            if open_game.finished:
                break
            seat = open_game.to_move
            seen, unseen = view_for(open_game, seat), view_for(hidden_game, seat)
            assert any(c is None for c in unseen.chips) and info_from_view(seen) == info_from_view(unseen)
            assert threshold_rivals(seen) == threshold_rivals(unseen)  # (the rivals it reads as threshold players)
            assert threshold_odds(seen, 0.2) == threshold_odds(unseen, 0.2)  # (and how likely each is one)
            action = bot.choose(seen)
            open_game, hidden_game = apply(open_game, action, seat), apply(hidden_game, action, seat)


def _watched(rivals: str, seed: int) -> list[tuple[PubMctsBot, object, int]]:
    """Every decision of a seat 0 in a 3-player game against two ``rivals``: (``hard`` reading rivals, the view, the
    rivals read)."""
    from nothanks_tui.bots.levels import hard_bot
    from nothanks_tui.bots.opponents import threshold_rivals

    seen = []

    class Watch:
        name = "hard"

        def __init__(self) -> None:
            self.bot = hard_bot(seed, rival_prior=1.0)

        def choose(self, view):
            seen.append((self.bot, view, threshold_rivals(view)))
            return Action.PASS if view.my_chips > 2 and view.card > 8 else Action.TAKE  # (cheap: a long game)

    play_game(GameConfig(players=3, open_chips=True), seed, [Watch(), make_bot(rivals, 1), make_bot(rivals, 2)])
    return seen


def test_hard_reading_rivals_reads_them_as_threshold_players_until_they_depart_from_the_rule():
    """``threshold`` rivals are read as threshold players all game (and searched so); ``pubmcts`` rivals, who depart
    from the rule within a few choices, from then on no more. (A design of issue 33, round 3; ``hard`` itself does
    not read rivals: it cost 5 points of win share against ``pubmcts:400``, docs/bots.md.)"""
    against_threshold = _watched("threshold", 4)
    assert {ruled for _, _, ruled in against_threshold} == {0b110}
    bot, view, _ = against_threshold[-1]
    assert bot.rival_prior == 1.0 and not make_bot("pubmcts", 1).rival_prior
    info = info_from_view(view)
    assert bot.evaluate_view(view) == bot.evaluate(info, (0.0, 1.0, 1.0)) != bot.evaluate(info)
    against_pubmcts = [ruled for _, _, ruled in _watched("pubmcts:40", 5)]
    assert against_pubmcts[0] == 0b110 and against_pubmcts[-1] == 0


def test_one_choice_against_the_threshold_rule_ends_the_reading():
    from nothanks_tui.bots.opponents import threshold_rivals

    *_, (_, view, ruled) = _watched("threshold", 6)
    assert ruled == 0b110
    first = next(i for i, move in enumerate(view.moves) if move.seat == 1 and move.action is Action.PASS)
    flipped = replace(view.moves[first], action=Action.TAKE)  # seat 1 took a card the rule passes on
    assert threshold_rivals(replace(view, moves=(*view.moves[:first], flipped, *view.moves[first + 1 :]))) == 0b100


def test_odds_of_zero_and_one_are_the_bit_set_and_a_share_between_draws_per_iteration():
    """Searching a rival as a threshold player in a share of the iterations (issue 33, round 4): odds of 0 draw
    nothing (the published search exactly), odds of 1 are the ``ruled`` bit set, odds between change the search."""
    state = _midgame(7, players=3, moves=9)
    info = info_from_view(view_for(state, state.to_move))
    rivals = [seat for seat in range(3) if seat != state.to_move]
    plain = search(info, 300, 1, bonus=40.0)
    assert search(info, 300, 1, bonus=40.0, odds=(0.0, 0.0, 0.0)) == plain
    certain = tuple(1.0 if seat in rivals else 0.0 for seat in range(3))
    bits = sum(1 << seat for seat in rivals)
    assert search(info, 300, 1, bonus=40.0, odds=certain) == search(info, 300, 1, bonus=40.0, ruled=bits) != plain
    own = tuple(1.0 if seat == state.to_move else 0.0 for seat in range(3))
    assert search(info, 300, 1, bonus=40.0, odds=own) == plain  # (the root mover always searches)
    share = tuple(0.5 if seat in rivals else 0.0 for seat in range(3))
    assert search(info, 300, 1, bonus=40.0, odds=share) not in (plain, search(info, 300, 1, bonus=40.0, ruled=bits))


def test_threshold_odds_rise_with_choices_by_the_rule_and_fall_to_zero_on_a_departure():
    from nothanks_tui.bots.opponents import strong_departure, threshold_odds, threshold_rivals

    views = [view for _, view, _ in _watched("threshold", 4)]
    first = views[0]
    assert threshold_odds(first, 0.3)[0] == 0.0  # (the viewer's own seat)
    for view in views:
        assert threshold_odds(view, 1.0) == tuple(1.0 if seat else 0.0 for seat in range(3))
        assert threshold_rivals(view) == 0b110
    for seat in (1, 2):  # each choice by the rule multiplies the odds ratio by 1 / (1 - a strong player's rate)
        trail = [threshold_odds(view, 0.3)[seat] for view in views]
        assert trail == sorted(trail) and trail[0] >= 0.3 and trail[-1] > 0.9
    view = next(view for view in views if [m.seat for m in view.moves].count(1) == 1)
    (move,) = [m for m in view.moves if m.seat == 1]  # seat 1's one choice so far, with all its chips
    margin = mask_take_cost(0, move.card) - move.pot  # (it held no cards yet)
    assert threshold_odds(view, 0.3)[1] == pytest.approx(0.3 / (0.3 + 0.7 * (1 - strong_departure(margin))))
    assert 0.0 < strong_departure(0) < 1.0 and strong_departure(40) < strong_departure(0)
    pubmcts_views = [view for _, view, _ in _watched("pubmcts:40", 5)]
    assert threshold_odds(pubmcts_views[-1], 0.3) == (0.0, 0.0, 0.0)  # (both departed: ruled out)


def test_hard_and_expert_read_rivals_by_likelihood():
    """``hard`` searches each rival as a threshold player in the share of iterations its public choices make likely
    (issue 33, round 4); ``expert`` too since round 7 (its ``pubmcts:4000`` line played again so)."""
    from nothanks_tui.bots.levels import RIVAL_PRIOR
    from nothanks_tui.bots.opponents import threshold_odds

    hard, expert = make_bot("hard", 1), make_bot("expert", 1)
    assert 0.0 < hard.rival_prior == expert.rival_prior == RIVAL_PRIOR < 1.0
    # every level's playouts are the published threshold rule (greedy ones cost against pubmcts: round 5)
    assert hard.playout_model == expert.playout_model == THRESHOLD == make_bot("pubmcts:9").playout_model
    *_, (_, view, _) = _watched("threshold", 4)
    odds = threshold_odds(view, RIVAL_PRIOR)
    assert odds[0] == 0.0 and all(0.9 < p < 1.0 for p in odds[1:])
    info = info_from_view(view)
    assert hard.evaluate_view(view) == hard.evaluate(info, odds) != hard.evaluate(info)
