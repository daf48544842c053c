"""Quick end-to-end checks that the package imports and a game plays to the end."""

from nothanks_tui.bots import make_bot
from nothanks_tui.engine import CARDS_PLAYED, GameConfig
from nothanks_tui.simulate import play_game


def test_a_game_between_rule_bots_ends_after_24_takes():
    state = play_game(GameConfig(players=3), seed=1, bots=[make_bot("rules")] * 3)
    assert state.finished
    assert sum(1 for move in state.moves if move.action.value == "take") == CARDS_PLAYED
    assert sum(len(hand) for hand in state.hands) == CARDS_PLAYED
