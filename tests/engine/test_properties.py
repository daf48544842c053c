"""Property tests over random playouts at every player count: conservation, termination, replay, no leaks."""

from __future__ import annotations

import itertools
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from nothanks_tui.engine import (
    ALL_CARDS,
    CARDS_PLAYED,
    Action,
    GameConfig,
    IllegalMove,
    apply,
    from_deal,
    legal_actions,
    new_game,
    replay,
    spectator_view,
    to_record,
    view_for,
)
from nothanks_tui.engine.fast import mask_points, play_fast

games = st.builds(
    lambda players, seed, open_chips, tactical, choices: (players, seed, open_chips, tactical, choices),
    st.integers(2, 7),
    st.integers(0, 2**63),
    st.booleans(),
    st.booleans(),
    st.lists(st.booleans(), min_size=1, max_size=64),
)


def random_playout(players, seed, open_chips, tactical, choices, chips=None):
    variant = "tactical" if tactical else "standard"
    config = GameConfig(players=players, chips_per_player=chips, open_chips=open_chips, variant=variant)
    state = new_game(config, seed)
    states = [state]
    step = 0
    while not state.finished:
        actions = legal_actions(state)
        want_take = choices[step % len(choices)] or step % 7 == 0
        action = Action.TAKE if want_take or Action.PASS not in actions else Action.PASS
        state = apply(state, action, state.to_move)
        states.append(state)
        step += 1
    return config, states


@settings(max_examples=60, deadline=None)
@given(games)
def test_cards_and_chips_are_conserved_and_the_game_ends_after_24_takes(game):
    config, states = random_playout(*game)
    total_chips = config.players * config.chips
    for state in states:
        held = [card for hand in state.hands for card in hand]
        assert len(held) == len(set(held)) == state.taken
        remaining = state.deck[state.taken :]
        assert sorted(held + list(remaining) + list(state.removed)) == list(ALL_CARDS)
        assert sum(state.chips) + state.pot == total_chips
        assert all(chips >= 0 for chips in state.chips)
        assert all(list(hand) == sorted(hand) for hand in state.hands)
    final = states[-1]
    assert final.finished and final.taken == CARDS_PLAYED
    assert sum(1 for move in final.moves if move.action is Action.TAKE) == CARDS_PLAYED
    assert final.pot == 0


@settings(max_examples=40, deadline=None)
@given(games)
def test_every_record_replays_to_the_same_result(game):
    _config, states = random_playout(*game)
    final = states[-1]
    names = [f"p{seat}" for seat in range(final.players)]
    record = json.loads(json.dumps(to_record(final, names)))
    assert replay(record) == final
    assert record["winners"] == list(final.winners())


@settings(max_examples=60, deadline=None)
@given(games, st.sampled_from([None, 0, 1, 2]))
def test_every_view_says_exactly_what_apply_accepts_and_the_code_it_refuses_with(game, chips):
    """For every seat of every state, ``legal`` and ``refused`` in its view are what ``apply`` does: an action in
    ``legal`` plays, any other raises ``IllegalMove`` with the very code the view gave (few chips reach no_chips)."""
    config, states = random_playout(*game, chips=chips)
    for state in states:
        for seat in range(config.players):
            view = view_for(state, seat)
            assert set(view.legal) | {action for action, _ in view.refused} == set(Action)
            for action in Action:
                try:
                    apply(state, action, seat)
                except IllegalMove as refused:
                    assert action not in view.legal
                    assert view.refusal(action) == refused.code
                else:
                    assert action in view.legal
                    assert view.refusal(action) is None
        mover = view_for(state, state.to_move)
        assert mover.legal == legal_actions(state)
        watcher = spectator_view(state)
        assert watcher.legal == ()
        assert {watcher.refusal(action) for action in Action} == {"not_seated"}


HIDDEN_KEYS = {"deck", "removed", "seed", "first_player"}


def leak_free(view_dict, state, seat):
    assert not HIDDEN_KEYS & set(view_dict)
    if not state.config.open_chips and not state.finished:
        for other, chips in enumerate(view_dict["chips"]):
            assert chips is None if other != seat else chips == state.chips[seat]


@settings(max_examples=40, deadline=None)
@given(games, st.randoms(use_true_random=False))
def test_no_view_leaks_hidden_information(game, rnd):
    config, states = random_playout(*game)
    for state in states[:: max(1, len(states) // 12)]:
        for seat in [*range(config.players), None]:
            view = spectator_view(state) if seat is None else view_for(state, seat)
            leak_free(view.to_dict(), state, seat)
            # Re-deal everything the recipient cannot see (the cards still face down, the removed cards, the seed)
            # and the chips of others if hidden: the view must not change.
            seen = state.deck[: state.taken + 1]
            unseen = list(state.deck[len(seen) :]) + list(state.removed)
            if config.rules.set_aside:
                continue  # its removed set is constrained; the shuffle below could break the variant's deal
            rnd.shuffle(unseen)
            future = len(state.deck) - len(seen)
            deck = seen + tuple(unseen[:future])
            other = from_deal(config, deck, unseen[future:], state.first_player, seed=rnd.randrange(2**32))
            for move in state.moves:
                other = apply(other, move.action, move.seat)
            twin = spectator_view(other) if seat is None else view_for(other, seat)
            assert twin == view


@settings(max_examples=60, deadline=None)
@given(games)
def test_the_fast_playout_core_agrees_with_the_reference_engine(game):
    config, states = random_playout(*game)
    final = states[-1]
    # The fast core asks a decider only when the mover has chips; feed it the reference game's choices.
    decisions = iter(
        [after.moves[-1] for before, after in itertools.pairwise(states) if before.chips[before.to_move] > 0]
    )

    def decider(card, pot, my_chips, masks, seat, deck_left):
        move = next(decisions)
        assert (move.seat, move.card, move.pot) == (seat, card, pot)
        return move.action is Action.TAKE

    fast_moves, masks, chips = play_fast(final.deck, final.first_player, config.chips, [decider] * config.players)
    assert next(decisions, None) is None
    assert [(m.seat, m.action is Action.TAKE) for m in final.moves] == fast_moves
    assert [tuple(card for card in range(mask.bit_length()) if mask >> card & 1) for mask in masks] == list(final.hands)
    assert tuple(chips) == final.chips
    assert tuple(mask_points(m) - c for m, c in zip(masks, chips)) == final.scores()
