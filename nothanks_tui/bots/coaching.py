"""The coach's question to a bot: from one seat's view, what would you play, and what final score do you expect for
this seat after taking and after passing?

A player asking for advice wants numbers they understand ("Take: expected final score 41; No thanks: 47"), not a
bot's internal reward: every search keeps the seat's mean final score after each action (``SearchResult``), and
this asks the named bot for them from the view alone, as the bot itself would decide.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import Action, PlayerView
from . import make_bot
from .base import SearchingBot

COACH_BOT = "hard"


@dataclass(frozen=True, slots=True)
class Coaching:
    """The bot's move for the seat to move, and the seat's expected final score after each action
    (``pass_score`` None when passing is impossible: no chips)."""

    action: Action
    take_score: float
    pass_score: float | None


def coach(view: PlayerView, bot_name: str = COACH_BOT, seed: int = 0) -> Coaching:
    """What bot ``bot_name`` would play in ``view`` (the deciding seat's own view; it must be that seat's turn),
    and why. Deterministic for one view and seed. Raises ValueError when it is not the view's seat's turn."""
    if view.seat is None or view.finished or view.card is None or view.to_move != view.seat:
        raise ValueError("the coach answers for the seat to move, during the game")
    bot = make_bot(bot_name, seed)
    if not isinstance(bot, SearchingBot):
        raise ValueError(f"bot {bot_name!r} has no search to explain its move with")
    result = bot.evaluate_view(view)
    can_pass = (view.my_chips or 0) > 0
    return Coaching(
        action=result.action if can_pass else Action.TAKE,
        take_score=float(result.take_score),
        pass_score=float(result.pass_score) if can_pass and result.pass_score is not None else None,
    )
