"""The rules of No Thanks!: pure, deterministic, no I/O. Everything else in the project plays through this API."""

from .config import (
    ALL_CARDS,
    CARDS_PLAYED,
    CARDS_REMOVED,
    MAX_PLAYERS,
    MIN_PLAYERS,
    STANDARD,
    VARIANTS,
    GameConfig,
    variant_of,
)
from .errors import ERROR_CODES, IllegalMove
from .records import replay, replay_states, to_record, write_record
from .scoring import breakdown, card_points, runs_of, score, take_cost, winners
from .state import Action, GameState, Move, apply, check, deal, from_deal, legal_actions, new_game
from .views import PlayerView, choices, spectator_view, view_for
