"""Headless bot games (``nothanks simulate``): many games fast, seats rotated, optional records, a summary.

Bots with a fast ``decide`` play through the fast playout core, others through the reference engine's views (the
tournament's games too); a written record always replays through the reference engine. A bot that sits twice is
labelled ``name#2``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .bots import Bot, make_bot
from .engine import Action, GameConfig, GameState, apply, deal, new_game, to_record, view_for, write_record
from .engine.fast import FastMove, mask_points, play_fast
from .engine.scoring import winners as winners_of


def play_game(config: GameConfig, seed: int, bots: Sequence[Bot]) -> GameState:
    """Play one full game through the reference engine; ``bots[seat]`` plays seat ``seat`` from its own view."""
    state = new_game(config, seed)
    while not state.finished:
        seat = state.to_move
        state = apply(state, bots[seat].choose(view_for(state, seat)), seat)
    return state


def play_scores(config: GameConfig, seed: int, bots: Sequence[Bot]) -> tuple[list[int], GameState | list[FastMove]]:
    """One game's final scores, and the game itself: the fast core's moves when every bot has a fast ``decide``
    (it plays through the fast core then), else the reference engine's final state."""
    if all(hasattr(bot, "decide") for bot in bots):
        deck, _removed, first = deal(config, seed)
        moves, masks, chips = play_fast(deck, first, config.chips, [bot.decide for bot in bots])  # type: ignore[attr-defined]
        return [mask_points(mask) - chip for mask, chip in zip(masks, chips)], moves
    state = play_game(config, seed, bots)
    return list(state.scores()), state


def replay_fast_moves(config: GameConfig, seed: int, moves: Sequence[FastMove]) -> GameState:
    """The reference-engine state for a game the fast core played (each move is checked again)."""
    state = new_game(config, seed)
    for seat, took in moves:
        state = apply(state, Action.TAKE if took else Action.PASS, seat)
    return state


def labels_for(names: Sequence[str]) -> list[str]:
    """Distinct labels: the bot name, then ``name#2``, ``name#3`` for repeats."""
    seen: dict[str, int] = {}
    labels = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        labels.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return labels


@dataclass
class BotTally:
    games: int = 0
    score_sum: int = 0
    wins: float = 0.0  # ties share the win: each of k tied winners gets 1/k

    def add(self, scores: Sequence[int], seat: int) -> None:
        """Count one game's ``scores`` for ``seat``."""
        best = winners_of(scores)
        self.games += 1
        self.score_sum += scores[seat]
        if seat in best:
            self.wins += 1 / len(best)

    @property
    def mean_score(self) -> float:
        return self.score_sum / self.games if self.games else 0.0

    @property
    def win_share(self) -> float:
        return self.wins / self.games if self.games else 0.0


@dataclass
class SimulationResult:
    players: int
    games: int
    seconds: float = 0.0
    tallies: dict[str, BotTally] = field(default_factory=dict)

    def table(self) -> str:
        """The summary printed by ``nothanks simulate``."""
        parity, per_second = 1 / self.players, self.games / self.seconds if self.seconds > 0 else float("inf")
        lines = [
            f"{self.games} games, {self.players} players, {self.seconds:.2f} s ({per_second:,.0f} games/s)",
            f"{'bot':<16}{'games':>8}{'mean score':>12}{'win share':>11}{'parity':>8}",
        ]
        for label, tally in self.tallies.items():
            lines.append(f"{label:<16}{tally.games:>8}{tally.mean_score:>12.2f}{tally.win_share:>10.1%}{parity:>9.1%}")
        return "\n".join(lines)


def simulate(
    players: int,
    games: int,
    seed: int,
    bot_names: Sequence[str],
    records_dir: Path | None = None,
    open_chips: bool = False,
    variant: str = "standard",
) -> SimulationResult:
    """Play ``games`` games; ``bot_names``: one (all seats) or one per seat. Game g is dealt from seed ``seed + g``
    with the seats rotated by g, so every bot sits everywhere."""
    if len(bot_names) == 1:
        bot_names = list(bot_names) * players
    if len(bot_names) != players:
        raise ValueError(f"give one bot name or {players} of them, not {len(bot_names)}")
    config = GameConfig(players=players, open_chips=open_chips, variant=variant)
    labels = labels_for(bot_names)
    bots = [make_bot(name, seed=seed * 7919 + index) for index, name in enumerate(bot_names)]
    result = SimulationResult(players=players, games=games, tallies={label: BotTally() for label in labels})
    if records_dir is not None:
        records_dir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    for game in range(games):
        game_seed = seed + game
        order = [(seat + game) % players for seat in range(players)]  # seat -> index into bots/labels
        scores, played = play_scores(config, game_seed, [bots[i] for i in order])
        for seat, index in enumerate(order):
            result.tallies[labels[index]].add(scores, seat)
        if records_dir is not None:
            state = played if isinstance(played, GameState) else replay_fast_moves(config, game_seed, played)
            record = to_record(state, [labels[i] for i in order], bots=[bot_names[i] for i in order])
            write_record(record, records_dir / f"game-{seed}-{game:06d}.json")
    result.seconds = time.perf_counter() - started
    return result
