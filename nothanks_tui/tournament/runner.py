"""Paired-deal tournaments: the same deals played under every seating of the same line-up, over many processes.

A line-up names the bot in each seat (``hard threshold threshold``). Every deal is played once per distinct seating
of the line-up, so the luck of the deal and of the seat order cancels; past ``MAX_SEATINGS`` seatings (7 different
bots), under the ``players`` rotations of one shuffled seating. Bots are made fresh for every game, seeded from the
tournament seed, the deal and the seat, so results do not depend on ``jobs``.

Games play as ``nothanks simulate`` plays them (``simulate.play_scores``). Decision times are measured around every
call where the bot had a choice (it held chips), twice: wall-clock time, and the CPU time of the deciding thread
(what the decision costs one core, whatever else the machine is doing).
"""

from __future__ import annotations

import itertools
import logging
import random
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..bots import Bot, make_bot
from ..engine import GameConfig
from ..simulate import play_scores

log = logging.getLogger(__name__)

MAX_SEATINGS = 720


def seatings_for(lineup: Sequence[str]) -> list[tuple[int, ...]]:
    """Distinct seatings of the line-up, each as line-up indices per seat (one per distinct name pattern)."""
    names = list(lineup)
    distinct: dict[tuple[str, ...], tuple[int, ...]] = {}
    for order in itertools.permutations(range(len(names))):
        key = tuple(names[i] for i in order)
        distinct.setdefault(key, order)
    if len(distinct) > MAX_SEATINGS:
        return []
    return sorted(distinct.values(), key=lambda order: tuple(names[i] for i in order))


@dataclass
class DealResult:
    """All games of one deal: per game the bot name in each seat and the final scores."""

    deal: int
    games: list[tuple[tuple[str, ...], tuple[int, ...]]] = field(default_factory=list)


Clocks = dict[str, list[float]]  # decision times by bot name, in seconds


class _Timed:
    """A bot whose ``choose`` (and ``decide``, when it has one) records how long each real choice took."""

    def __init__(self, bot: Bot, times: list[float], cpu: list[float]) -> None:
        self.name = bot.name
        self.times = times
        self.cpu = cpu
        self.choose = lambda view: self._timed(bot.choose, len(view.legal) > 1, view)  # no chips: take is no choice
        if hasattr(bot, "decide"):
            self.decide = lambda *args: self._timed(bot.decide, True, *args)

    def _timed(self, call: Callable[..., Any], choice: bool, *args: Any) -> Any:
        started, cpu_started = time.perf_counter(), time.thread_time()
        answer = call(*args)
        if choice:
            self.times.append(time.perf_counter() - started)
            self.cpu.append(time.thread_time() - cpu_started)
        return answer


def play_deals(
    lineup: Sequence[str], config: GameConfig, seed: int, deal_indices: Sequence[int]
) -> tuple[list[DealResult], Clocks, Clocks]:
    """Play every seating of each deal in ``deal_indices`` (runs in a worker process): the results and every bot's
    decision times (wall clock, thread CPU)."""
    seatings = seatings_for(lineup)
    players = config.players
    times: Clocks = defaultdict(list)
    cpu: Clocks = defaultdict(list)
    results = []
    for deal_index in deal_indices:
        deal_seed = random.Random(f"deal:{seed}:{deal_index}").getrandbits(48)
        orders = seatings
        if not orders:
            shuffled = list(range(players))
            random.Random(f"seating:{seed}:{deal_index}").shuffle(shuffled)
            orders = [tuple(shuffled[(seat + shift) % players] for seat in range(players)) for shift in range(players)]
        result = DealResult(deal_index)
        for seating_index, order in enumerate(orders):
            names = tuple(lineup[i] for i in order)
            bots = []
            for seat, name in enumerate(names):
                bot_seed = random.Random(f"{seed}:{deal_index}:{seating_index}:{seat}").getrandbits(48)
                bots.append(_Timed(make_bot(name, bot_seed), times[name], cpu[name]))
            result.games.append((names, tuple(play_scores(config, deal_seed, bots)[0])))
        results.append(result)
    return results, dict(times), dict(cpu)


def run_games(
    lineup: Sequence[str], config: GameConfig, seed: int, deals: int, jobs: int = 1
) -> tuple[list[DealResult], Clocks, Clocks]:
    """``play_deals`` of ``deals`` deals over ``jobs`` processes, the results in deal order."""
    indices = list(range(deals))
    if jobs <= 1 or deals <= 1:
        chunks = [play_deals(lineup, config, seed, indices)]
    else:
        size = max(1, deals // (jobs * 8))
        parts = [indices[i : i + size] for i in range(0, deals, size)]
        chunks = []
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(play_deals, list(lineup), config, seed, part) for part in parts]
            for done, future in enumerate(futures, 1):
                chunks.append(future.result())
                log.info("tournament: %d/%d chunks done", done, len(parts))
    all_deals: list[DealResult] = []
    clocks: tuple[Clocks, Clocks] = (defaultdict(list), defaultdict(list))
    for chunk_deals, *chunk_clocks in chunks:
        all_deals.extend(chunk_deals)
        for merged, clock in zip(clocks, chunk_clocks):
            for name, values in clock.items():
                merged[name].extend(values)
    all_deals.sort(key=lambda d: d.deal)
    return all_deals, dict(clocks[0]), dict(clocks[1])
