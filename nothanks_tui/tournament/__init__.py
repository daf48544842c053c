"""``nothanks tournament``: paired-deal bot tournaments with confidence intervals, win shares and ratings."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

from ..bots import make_bot
from ..engine import GameConfig
from .report import BotSummary, MixedReport, TournamentReport, summarize
from .runner import run_games, seatings_for


def expand_lineup(names: Sequence[str], players: int) -> list[str]:
    """One bot name per seat: names given for fewer seats than ``players`` repeat the last name."""
    if not names:
        raise ValueError("name at least one bot")
    if len(names) > players:
        raise ValueError(f"{len(names)} bots named for {players} seats")
    lineup = list(names) + [names[-1]] * (players - len(names))
    for name in set(lineup):
        make_bot(name, 0)  # raises ValueError for an unknown name
    return lineup


def tournament(
    names: Sequence[str], players: int, games: int, seed: int = 0, jobs: int = 1, open_chips: bool = False
) -> TournamentReport:
    """Play at least ``games`` games (whole deals, every seating each) and summarize them."""
    lineup = expand_lineup(names, players)
    config = GameConfig(players=players, open_chips=open_chips)
    per_deal = len(seatings_for(lineup)) or players
    deals = max(1, math.ceil(games / per_deal))
    started = time.perf_counter()
    deal_results, times, cpu = run_games(lineup, config, seed, deals, jobs)
    seconds = time.perf_counter() - started
    return summarize(lineup, players, deal_results, times, seed, jobs, seconds, open_chips, cpu)


def mixed_tournament(
    a: str, b: str, players: int, games: int, seed: int = 0, jobs: int = 1, open_chips: bool = False
) -> MixedReport:
    """``a`` against ``b`` in every mix: 1 ``a`` and ``players - 1`` ``b``, then 2 and ``players - 2``, and so on;
    at least ``games`` games per mix, every seating of every deal (see ``tournament``)."""
    if a == b:
        raise ValueError("a head-to-head needs two different bots")
    reports = tuple(
        tournament([a] * k + [b] * (players - k), players, games, seed, jobs, open_chips) for k in range(1, players)
    )
    return MixedReport(a, b, reports)


__all__ = ["BotSummary", "MixedReport", "TournamentReport", "expand_lineup", "mixed_tournament", "tournament"]
