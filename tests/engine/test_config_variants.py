"""Table options: chip overrides, open chips, and the tactical variant known from online play."""

from __future__ import annotations

import pytest

from nothanks_tui.engine import GameConfig, IllegalMove, from_deal, new_game

TACTICAL = "tactical"


@pytest.mark.parametrize(("players", "chips"), [(2, 10), (3, 10), (5, 10), (6, 8), (7, 6)])
def test_tactical_variant_gives_one_chip_fewer(players, chips):
    assert GameConfig(players=players, variant=TACTICAL).chips == chips


@pytest.mark.parametrize("seed", range(20))
def test_tactical_variant_always_sets_aside_10_20_and_30(seed):
    state = new_game(GameConfig(players=4, variant=TACTICAL), seed)
    assert {10, 20, 30} <= set(state.removed)
    assert len(state.removed) == 9 and len(state.deck) == 24
    assert not {10, 20, 30} & set(state.deck)


def test_tactical_variant_sets_aside_six_more_at_random():
    extras = {frozenset(set(new_game(GameConfig(variant=TACTICAL), s).removed) - {10, 20, 30}) for s in range(30)}
    assert len(extras) == 30
    assert all(len(extra) == 6 for extra in extras)


def test_a_tactical_deal_without_10_20_30_set_aside_is_refused():
    standard = new_game(GameConfig(players=3), seed=1)
    if {10, 20, 30} <= set(standard.removed):
        pytest.skip("this deal happens to qualify")
    with pytest.raises(IllegalMove) as refused:
        from_deal(GameConfig(players=3, variant=TACTICAL), standard.deck, standard.removed, 0)
    assert refused.value.code == "bad_config"


def test_chip_override_and_defaults_compare_equal():
    assert GameConfig(players=3) == GameConfig(players=3, chips_per_player=11)
    assert GameConfig(players=3, chips_per_player=5).chips == 5
    assert new_game(GameConfig(players=3, chips_per_player=5), 1).chips == (5, 5, 5)


@pytest.mark.parametrize(
    "kwargs",
    [{"players": "3"}, {"players": True}, {"chips_per_player": -1}, {"chips_per_player": 2.5}, {"variant": "x"}],
)
def test_bad_configs_are_refused_with_a_clear_code(kwargs):
    with pytest.raises(IllegalMove) as refused:
        GameConfig(**kwargs)
    assert refused.value.code == "bad_config"


def test_open_chips_is_off_by_default():
    assert GameConfig().open_chips is False


def test_a_seed_deals_the_tactical_game_it_always_dealt():
    """A host restores a game in progress from its seed and moves: the registry must not change a seed's deal."""
    state = new_game(GameConfig(players=4, variant=TACTICAL), seed=0)
    assert state.deck[:6] == (11, 32, 35, 18, 25, 31) and state.deck[-3:] == (29, 16, 33)
    assert state.removed == (3, 6, 8, 10, 14, 20, 22, 23, 30)
    assert state.first_player == 2
