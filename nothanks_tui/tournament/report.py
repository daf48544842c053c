"""Turning tournament games into the numbers we judge bots by, as a table for people and JSON for programs.

Per bot: mean score with a 95% confidence interval, win share (ties shared) against parity (1/players) with its
interval, an Elo-style rating from every pairwise meeting at the table, and decision time p50/p99. Games of one
deal are correlated (same cards), so intervals treat the deal, not the game, as the independent sample.
"""

from __future__ import annotations

import itertools
import textwrap
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ..simulate import BotTally
from .runner import DealResult
from .stats import elo_ratings, mean_ci, percentile


@dataclass(frozen=True, slots=True)
class BotSummary:
    name: str
    seats: int  # copies of this bot in the line-up
    games: int  # seat-games played (games x copies)
    mean_score: float
    score_ci: float | None  # half-width of the 95% interval
    win_share: float
    win_ci: float | None
    elo: float
    decisions: int
    time_p50_ms: float | None
    time_p99_ms: float | None
    time_max_ms: float | None
    # The same decisions timed by the deciding thread's CPU clock: their cost on one core, whatever the load.
    cpu_p50_ms: float | None = None
    cpu_p99_ms: float | None = None
    cpu_max_ms: float | None = None


@dataclass(frozen=True, slots=True)
class TournamentReport:
    players: int
    lineup: tuple[str, ...]
    deals: int
    games: int
    seatings_per_deal: int
    seed: int
    jobs: int
    seconds: float
    bots: tuple[BotSummary, ...]
    open_chips: bool = False
    # Every meeting of two different bots at a table: (a, b, points of a, meetings), a < b; lower score wins.
    head_to_head: tuple[tuple[str, str, float, int], ...] = ()

    @property
    def parity(self) -> float:
        return 1 / self.players

    def bot(self, name: str) -> BotSummary:
        return next(bot for bot in self.bots if bot.name == name)

    def ahead_share(self, a: str, b: str) -> float | None:
        """How often ``a`` finished below (ahead of) ``b`` when they met at a table, ties counted half."""
        for first, second, points, meetings in self.head_to_head:
            if meetings and (first, second) == (a, b):
                return points / meetings
            if meetings and (first, second) == (b, a):
                return 1 - points / meetings
        return None

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON (its tuples are JSON arrays)."""
        return {**asdict(self), "parity": self.parity}

    def table(self) -> str:
        """The report for people, in lines of at most 80 columns: strength first, then decision times."""
        width = max(12, 2 + max((len(bot.name) for bot in self.bots), default=0))
        lines = [
            f"{self.games} games ({self.deals} deal{'s' if self.deals != 1 else ''} x {self.seatings_per_deal} "
            f"seating{'s' if self.seatings_per_deal != 1 else ''}), {self.players} players, "
            f"seed {self.seed}, {self.jobs} job(s)",
            f"{'open' if self.open_chips else 'hidden'} chips, parity {self.parity:.1%}, {self.seconds:.1f} s",
            *textwrap.wrap(f"line-up: {' '.join(self.lineup)}", 80, subsequent_indent="  "),
            "",
            f"{'bot':<{width}}{'seats':>6}{'mean score':>16}{'win share':>16}{'x parity':>10}{'elo':>7}",
        ]
        for bot in self.bots:
            lines.append(
                f"{bot.name:<{width}}{bot.seats:>6}{_num(bot.mean_score, bot.score_ci):>16}"
                f"{_pct(bot.win_share, bot.win_ci):>16}{bot.win_share / self.parity:>10.2f}{bot.elo:>7.0f}"
            )
        lines += ["", f"{'ms a decision':<{width}}{'moves':>8}{'wall p50':>10}{'p99':>8}{'max':>8}{'CPU p50':>10}"
                  f"{'p99':>8}{'max':>8}"]  # fmt: skip
        for bot in self.bots:
            times = (bot.time_p50_ms, bot.time_p99_ms, bot.time_max_ms, bot.cpu_p50_ms, bot.cpu_p99_ms, bot.cpu_max_ms)
            cells = "".join(f"{'-' if t is None else _ms(t):>{w}}" for t, w in zip(times, (10, 8, 8, 10, 8, 8)))
            lines.append(f"{bot.name:<{width}}{bot.decisions:>8}{cells}")
        if self.deals < FEW_DEALS:
            lines += ["", _few_deals(self.deals)]
        return "\n".join(lines)


def pairwise_results(deals: Sequence[DealResult]) -> dict[tuple[str, str], tuple[float, int]]:
    """Every meeting of two different bots at one table: (a, b) -> (points of a, meetings); lower score wins."""
    points: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0])
    for result in deals:
        for names, scores in result.games:
            for i, j in itertools.combinations(range(len(names)), 2):
                if names[i] != names[j]:
                    (a, mine), (b, theirs) = sorted([(names[i], scores[i]), (names[j], scores[j])])
                    entry = points[(a, b)]
                    entry[0] += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
                    entry[1] += 1
    return {pair: (value[0], int(value[1])) for pair, value in points.items()}


def summarize(
    lineup: Sequence[str],
    players: int,
    deals: Sequence[DealResult],
    times: Mapping[str, Sequence[float]],
    seed: int,
    jobs: int,
    seconds: float,
    open_chips: bool = False,
    cpu_times: Mapping[str, Sequence[float]] | None = None,
) -> TournamentReport:
    names = list(dict.fromkeys(lineup))
    per_deal: dict[str, list[BotTally]] = {name: [] for name in names}
    for result in deals:
        deal_totals = {name: BotTally() for name in names}
        for seat_names, scores in result.games:
            for seat, name in enumerate(seat_names):
                deal_totals[name].add(scores, seat)
        for name, tally in deal_totals.items():
            if tally.games:
                per_deal[name].append(tally)
    pairs = pairwise_results(deals)
    elo = elo_ratings(pairs, names) if len(names) > 1 else {names[0]: 1500.0}
    bots = []
    for name in names:
        parts = per_deal[name]
        total = BotTally(sum(t.games for t in parts), sum(t.score_sum for t in parts), sum(t.wins for t in parts))
        score_ci = mean_ci([t.mean_score for t in parts]).half_width if parts else None
        win_ci = mean_ci([t.win_share for t in parts]).half_width if parts else None
        samples = list(times.get(name, ()))
        bots.append(
            BotSummary(name, list(lineup).count(name), total.games, total.mean_score, score_ci, total.win_share,
                       win_ci, elo[name], len(samples), *_times_ms(samples),
                       *_times_ms(list((cpu_times or {}).get(name, ()))))
        )  # fmt: skip
    games = sum(len(result.games) for result in deals)
    seatings = len(deals[0].games) if deals else 0
    head_to_head = tuple((a, b, points, meetings) for (a, b), (points, meetings) in sorted(pairs.items()))
    return TournamentReport(players, tuple(lineup), len(deals), games, seatings, seed, jobs, seconds, tuple(bots),
                            open_chips, head_to_head)  # fmt: skip


def _times_ms(samples: list[float]) -> tuple[float | None, float | None, float | None]:
    """p50, p99 and the maximum of decision times in seconds, in ms (None without a sample)."""
    if not samples:
        return None, None, None
    return percentile(samples, 0.5) * 1e3, percentile(samples, 0.99) * 1e3, max(samples) * 1e3


@dataclass(frozen=True, slots=True)
class MixedReport:
    """Two bots in every mix at one table size: ``reports[k - 1]`` has ``k`` copies of ``a`` and the rest ``b``.

    A bot that beats another one-against-two can still lose two-against-one (or the other way round); this shows
    it. Each line of the table is one mix, with ``a``'s and ``b``'s win share per seat, mean scores and how often
    an ``a`` finished ahead of a ``b`` when they met.
    """

    a: str
    b: str
    reports: tuple[TournamentReport, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "mixes": [report.to_dict() for report in self.reports]}

    def table(self) -> str:
        if not self.reports:
            return ""
        first = self.reports[0]
        lines = [
            f"head to head: {self.a} (A) against {self.b} (B), {first.players} players",
            f"seed {first.seed}, {'open' if first.open_chips else 'hidden'} chips, parity {first.parity:.1%} a seat",
            "",
            f"{'mix':<5}{'games':>6}{'A win share':>15}{'B win share':>15}{'A mean':>15}{'B mean':>15}{'A ahead':>8}",
        ]
        for report in self.reports:
            a, b = report.bot(self.a), report.bot(self.b)
            ahead = report.ahead_share(self.a, self.b)
            lines.append(
                f"{f'{a.seats}A {b.seats}B':<5}{report.games:>6}{_pct(a.win_share, a.win_ci):>15}"
                f"{_pct(b.win_share, b.win_ci):>15}{_num(a.mean_score, a.score_ci):>15}"
                f"{_num(b.mean_score, b.score_ci):>15}{'-' if ahead is None else f'{ahead:.1%}':>8}"
            )
        deals = min(report.deals for report in self.reports)
        if deals < FEW_DEALS:
            lines += ["", _few_deals(deals)]
        return "\n".join(lines)


FEW_DEALS = 10  # below this many deals the intervals (Student's t over deals) are too wide to judge by


def _few_deals(deals: int) -> str:
    return f"(only {deals} deal{'s' if deals != 1 else ''}: the ± intervals are too wide to judge by; play more games)"


def _ms(value: float) -> str:
    """A decision time in at most 7 characters up to 10^7 ms: finer for the quick bots."""
    return f"{value:.2f}" if value < 100 else f"{value:.1f}" if value < 10_000 else f"{value:.0f}"


def _pct(value: float, half: float | None) -> str:
    return f"{value:.1%}" + ("" if half is None else f" ±{half:.1%}")


def _num(value: float, half: float | None) -> str:
    return f"{value:.2f}" + ("" if half is None else f" ±{half:.2f}")
