"""What a table remembers of its games: this game's comings and goings (the seat events every log shows between
the moves), a finished game's score timeline, the match across "play again", and each finished game's record and
JSON file. The timeline and the match are worked out only once a game is over: a score mid-game would reveal chip
counts a table may hide. The authority (authority.py) tells it what happened; it decides nothing."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from typing import Any

from nothanks_tui.engine import Action, GameState, replay, score, to_record, winners
from nothanks_tui.link import MatchTotals, SeatEvent
from nothanks_tui.link.events import SEAT_AWAY, SEAT_BACK

from ..history import RecordStore
from ..store import StoredTable, StoreError, TableStore
from .seats import Seat

log = logging.getLogger(__name__)

MAX_SEAT_EVENTS = 64  # a game's comings and goings kept for the log (the newest; a flapping connection adds many)
MATCH_RECORDS_READ = 200  # a restored table's match counts at most its last this many finished games


class Recorder:
    """One table's log of comings and goings, its match, and its finished games' records."""

    def __init__(self, table_id: str, players: int, store: TableStore | None, records: RecordStore | None) -> None:
        self.table_id = table_id
        self.match = MatchTally(players)  # the games finished at this table
        self.seat_events: list[SeatEvent] = []  # this game's comings and goings (for everyone's log)
        self.timeline: tuple[tuple[int, ...], ...] = ()  # every seat's score after each card, once the game is over
        self._store = store
        self._records = records

    def dealt(self) -> None:
        self.seat_events = []
        self.timeline = ()

    def note(self, at: int, index: int, kind: str) -> None:
        last = self.seat_events[-1] if self.seat_events else None
        if kind == SEAT_BACK and last is not None and (last.at, last.seat, last.kind) == (at, index, SEAT_AWAY):
            self.seat_events.pop()  # away and back between two moves: nothing to tell (a reconnect)
            return
        self.seat_events.append(SeatEvent(at=at, seat=index, kind=kind))
        del self.seat_events[:-MAX_SEAT_EVENTS]

    def events_at(self, at: int) -> int:
        """How many of this game's seat events came after ``at`` moves (a chat line said then comes after them)."""
        return sum(1 for event in self.seat_events if event.at == at)

    def record(self, state: GameState, seats: Sequence[Seat], started_at: float) -> dict[str, object]:
        """The finished game's ``nothanks-record/1`` record (stored with its last move)."""
        return to_record(
            state,
            [seat.name or "?" for seat in seats],
            table=self.table_id,
            bots=[seat.bot is not None for seat in seats],
            guests=[seat.guest for seat in seats],  # (unrated)
            levels=[seat.bot.name if seat.bot is not None else None for seat in seats],
            started_at=started_at,
            finished_at=time.time(),
        )

    def finished(self, state: GameState) -> None:
        """The game is over (told in the same broadcast as its end: never before it, chips may be hidden)."""
        self.timeline = score_timeline(state)
        self.match.add(state.scores())

    def export(self, record: dict[str, object], game_no: int) -> None:
        """The finished game's JSON file, after its record is committed and broadcast (a host killed before the
        file is written writes it on its next start, ``RecordStore.export_pending``)."""
        if self._records is not None and self._records.save(record, self.table_id, game_no) and self._store is not None:
            try:
                self._store.mark_exported(self.table_id, game_no)
            except StoreError:
                log.exception("table %s: could not mark game %d exported", self.table_id, game_no)

    def restored(self, stored: StoredTable) -> GameState | None:
        """A table brought back from its store: its match from the records of the games it finished before; and if
        its last game is over (its players may be voting for the next one), that game from its record, with its
        timeline (``ValueError`` if that record cannot be read)."""
        records: dict[int, dict[str, Any] | StoreError | None] = {}
        last = stored.game_no if stored.finished else stored.game_no - 1
        for game_no in range(max(1, last - MATCH_RECORDS_READ + 1), last + 1):
            try:
                records[game_no] = None if self._store is None else self._store.game_record(stored.table_id, game_no)
            except StoreError as error:
                records[game_no] = error
        self.match = MatchTally.from_records(self.match.players, [r for r in records.values() if isinstance(r, dict)])
        if not stored.finished or last < 1:
            return None
        record = records[last]
        if not isinstance(record, dict):
            raise ValueError(
                f"its finished game's record cannot be read: {record}" if record else f"no record of game {last}"
            )
        finished = replay(record)
        self.timeline = score_timeline(finished)
        return finished


def score_timeline(state: GameState) -> tuple[tuple[int, ...], ...]:
    """Every seat's score (cards as the rules count them, less chips) after each card taken, one row per card: from
    the host's record of the game; send it only once the game is over."""
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


class MatchTally:
    """A table's running totals across "play again", per seat (seats keep their numbers for the table's life):
    games won (a shared win counts for each winner) and the sum of final scores."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.games = 0
        self.wins = [0] * players
        self.scores = [0] * players

    def add(self, final_scores: tuple[int, ...]) -> None:
        self.games += 1
        for seat in winners(final_scores):
            self.wins[seat] += 1
        for seat, value in enumerate(final_scores):
            self.scores[seat] += value

    def totals(self) -> MatchTotals | None:
        """What the views carry (None before the first game is over)."""
        return MatchTotals(self.games, tuple(self.wins), tuple(self.scores)) if self.games else None

    @classmethod
    def from_records(cls, players: int, records: Iterable[dict[str, Any]]) -> MatchTally:
        """The totals of finished games' records (``nothanks-record/1``): a restart keeps the match. A record that
        does not fit (damaged, another size) is not counted."""
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
