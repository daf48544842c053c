"""A finished game's record as the table stood after each move, for the replay screen.

The record is untrusted (a file, the local history, a host): the engine replays and checks it, and anything wrong
becomes one ``ReplayError`` a player can read. Each step is a spectator's ``TableUpdate`` with every chip shown.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine import GameState, IllegalMove, Move, replay_states, spectator_view
from ..i18n import _
from ..link import SeatInfo, TableUpdate
from .error_sentences import os_reason

MAX_RECORD_BYTES = 1 << 20  # a record is a few kB; a bigger file is not one


class ReplayError(Exception):
    """A record that cannot be replayed; the message says why, for the player."""


@dataclass(frozen=True)
class Replay:
    """Every state of one finished game, first (the deal) to last, and what was hidden while it was played."""

    states: tuple[GameState, ...]
    seats: tuple[SeatInfo, ...]
    finished_at: float | None
    table_id: str

    @property
    def moves(self) -> int:
        return len(self.states) - 1

    @property
    def final(self) -> GameState:
        return self.states[-1]

    def update(self, step: int, you: int | None = None) -> TableUpdate:
        """The table after ``step`` moves (0: as dealt), every chip shown; ``you``: the seat marked "(you)"."""
        state = self.states[max(0, min(step, self.moves))]
        view = dataclasses.replace(spectator_view(state), chips=state.chips, seat=you)
        return TableUpdate(view=view, seats=self.seats, table_id=self.table_id)

    def move(self, step: int) -> Move | None:
        """The move that led to ``step`` (None for the deal)."""
        if step <= 0 or step > self.moves:
            return None
        return self.states[step].moves[-1]


def your_seat(replay: Replay, name: str | None = None) -> int | None:
    """The seat to mark "(you)": the one named ``name`` (at a host), else the only one not a bot; else None."""
    people = [index for index, seat in enumerate(replay.seats) if not seat.is_bot]
    if name is not None:
        named = [index for index in people if replay.seats[index].name == name]
        return named[0] if len(named) == 1 else None
    return people[0] if len(people) == 1 else None


def load_replay(record: object) -> Replay:
    """The replay of ``record``; ``ReplayError`` for anything that is not a finished game's valid record."""
    try:
        if not isinstance(record, dict):
            raise ReplayError(_("This is not a game record."))
        states = replay_states(record)  # every move and the stated result checked
        if not states[-1].finished:
            raise ReplayError(_("This game was not finished: only finished games can be replayed."))
        players, bots = record["players"], record.get("bots")
        flags = [bool(flag) for flag in bots] if isinstance(bots, list) and len(bots) == len(players) else []
        finished, table = record.get("finished_at"), record.get("table")
        return Replay(
            states=tuple(states),
            seats=tuple(SeatInfo(str(name)[:256], bool(flags and flags[i])) for i, name in enumerate(players)),
            finished_at=float(finished)
            if isinstance(finished, int | float) and not isinstance(finished, bool)
            else None,
            table_id=str(table)[:40] if isinstance(table, str) else "",
        )
    except ReplayError:
        raise
    except IllegalMove as error:
        raise ReplayError(_("This record does not replay: {reason}").format(reason=error.message[:200])) from None
    except Exception as error:  # a hand-edited record can be wrong in any way at all
        raise ReplayError(_("This record is damaged ({kind}).").format(kind=type(error).__name__)) from None


def read_record_file(path: Path | str) -> dict[str, Any]:
    """A record from a JSON file, or ``ReplayError`` saying what is wrong with the file."""
    target = Path(path)
    try:
        with target.open("rb") as handle:
            data = handle.read(MAX_RECORD_BYTES + 1)
    except OSError as error:
        raise ReplayError(_("Cannot read {path}: {reason}").format(path=target, reason=os_reason(error))) from None
    if len(data) > MAX_RECORD_BYTES:
        raise ReplayError(_("{path} is too big to be a game record.").format(path=target))
    try:
        record = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):  # (Python's words for where the JSON breaks are no help to a player)
        raise ReplayError(_("{path} is not a game record: it is not JSON.").format(path=target)) from None
    if not isinstance(record, dict):
        raise ReplayError(_("{path} is not a game record.").format(path=target))
    return record
