"""What a table tells its players about games already over: the running match, and one game's score timeline.

Players who press "play again" want to know who is ahead over the evening, not only in the last game; and at the
end of a game, how the scores moved card by card. Both are the host's to work out from its own record of the game,
and both only once a game is over: a score mid-game would reveal chip counts a table may hide.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from nothanks_tui.engine import Action, GameState, score, winners
from nothanks_tui.link import MatchTotals


def score_timeline(state: GameState) -> tuple[tuple[int, ...], ...]:
    """Every seat's score (cards as the rules count them, less chips) after each card taken, in order: one row per
    card taken, one score per seat. From the host's record of the game; send it only once the game is over."""
    players = state.config.players
    chips = [state.config.chips] * players
    hands: list[list[int]] = [[] for _ in range(players)]
    rows: list[tuple[int, ...]] = []
    for move in state.moves:
        if move.action is Action.PASS:
            chips[move.seat] -= 1
            continue
        chips[move.seat] += move.pot
        hands[move.seat].append(move.card)
        rows.append(tuple(score(hand, chip) for hand, chip in zip(hands, chips)))
    return tuple(rows)


@dataclass
class MatchTally:
    """A table's running totals across "play again", per seat: games won (a shared win counts for each winner)
    and the sum of final scores. Seats keep their numbers for the table's life, so the totals are per seat."""

    players: int
    games: int = 0
    wins: list[int] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.wins = self.wins or [0] * self.players
        self.scores = self.scores or [0] * self.players

    def add(self, final_scores: tuple[int, ...]) -> None:
        """Count one finished game, given each seat's final score."""
        self.games += 1
        for seat in winners(final_scores):
            self.wins[seat] += 1
        for seat, value in enumerate(final_scores):
            self.scores[seat] += value

    def totals(self) -> MatchTotals | None:
        """What the views carry (None before the first game is over)."""
        if self.games == 0:
            return None
        return MatchTotals(games=self.games, wins=tuple(self.wins), scores=tuple(self.scores))

    @classmethod
    def from_records(cls, players: int, records: Iterable[dict[str, Any]]) -> MatchTally:
        """The totals of the finished games ``records`` (``nothanks-record/1`` dicts) of a table brought back from
        its store: a restart keeps the match. A record that does not fit (damaged, another size) is not counted."""
        tally = cls(players)
        for record in records:
            try:
                final = record["final"]
                scores = tuple(int(final[seat]["score"]) for seat in range(players))
            except (KeyError, IndexError, TypeError, ValueError):
                continue
            if len(final) == players:
                tally.add(scores)
        return tally
