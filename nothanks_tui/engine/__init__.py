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
    Variant,
    standard_chips,
    variant_of,
)
from .errors import ERROR_CODES, IllegalMove
from .records import RECORD_FORMAT, read_record, replay, replay_states, to_record, write_record
from .scoring import ScoreBreakdown, breakdown, card_points, runs_of, score, take_cost, winners
from .state import Action, GameState, Move, apply, check, deal, from_deal, legal_actions, new_game, refusal
from .views import PlayerView, choices, spectator_view, view_for

__all__ = [
    "ALL_CARDS",
    "CARDS_PLAYED",
    "CARDS_REMOVED",
    "ERROR_CODES",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "RECORD_FORMAT",
    "STANDARD",
    "VARIANTS",
    "Action",
    "GameConfig",
    "GameState",
    "IllegalMove",
    "Move",
    "PlayerView",
    "ScoreBreakdown",
    "Variant",
    "apply",
    "breakdown",
    "card_points",
    "check",
    "choices",
    "deal",
    "from_deal",
    "legal_actions",
    "new_game",
    "read_record",
    "refusal",
    "replay",
    "replay_states",
    "runs_of",
    "score",
    "spectator_view",
    "standard_chips",
    "take_cost",
    "to_record",
    "variant_of",
    "view_for",
    "winners",
    "write_record",
]
