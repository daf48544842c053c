"""The coach's question to a bot: from one seat's view, what would you play, and what final score do you expect for
this seat after taking and after passing?

A player asking for advice wants numbers they understand ("Take: expected final score 41; No thanks: 47"), not a
bot's internal reward: every search keeps the seat's mean final score after each action (``SearchResult``), and
this asks the named bot for them from the view alone, as the bot itself would decide.
"""

from __future__ import annotations

from dataclasses import replace

from ..engine import PlayerView
from . import make_bot
from .base import SearchingBot, SearchResult

COACH_BOT = "hard"


def coach(view: PlayerView, bot_name: str = COACH_BOT, seed: int = 0) -> SearchResult:
    """What bot ``bot_name`` would play in ``view`` (the deciding seat's own view; it must be that seat's turn),
    and why: its search's ``action`` and the seat's expected final score after each (``pass_score`` None when
    passing is impossible: no chips). Deterministic for one view and seed. Raises ValueError when it is not the
    view's seat's turn."""
    if view.seat is None or view.finished or view.card is None or view.to_move != view.seat:
        raise ValueError("the coach answers for the seat to move, during the game")
    bot = make_bot(bot_name, seed)
    if not isinstance(bot, SearchingBot):
        raise ValueError(f"bot {bot_name!r} has no search to explain its move with")
    result = bot.evaluate_view(view)
    if (view.my_chips or 0) <= 0:  # the seat must take, whatever its search makes of passing
        result = replace(result, pass_=None, pass_score=None)
    return result
