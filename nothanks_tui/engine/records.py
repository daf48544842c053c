"""Game records (format ``nothanks-record/1``): one JSON document per finished game, replayable move by move.

A record holds the hidden deal too, so it is written by the host only, never sent to a player mid-game.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .config import GameConfig
from .errors import BAD_RECORD, IllegalMove
from .scoring import breakdown
from .state import GameState, apply, from_deal

RECORD_FORMAT = "nothanks-record/1"
TEMP_PREFIX = ".nothanks-"  # write_record's temp files: .nothanks-XXXXXXXX.tmp, beside the record
TEMP_SUFFIX = ".tmp"
RECORD_MODE = 0o644


def to_record(state: GameState, players: Sequence[str], **extra: Any) -> dict[str, Any]:
    """The record of ``state`` (normally finished) with seat names ``players``; ``extra`` adds fields."""
    if len(players) != state.config.players:
        raise ValueError("one name per seat")
    final = []
    for hand, chips in zip(state.hands, state.chips):
        parts = breakdown(hand, chips)
        final.append(
            {
                "cards": list(hand),
                "chips": chips,
                "score": parts.score,
                "runs": [list(run) for run in parts.runs],
                "card_total": parts.card_total,
            }
        )
    record: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "players": list(players),
        "chips_per_player": state.config.chips,
        "seed": state.seed,
        "deck": list(state.deck),
        "removed": list(state.removed),
        "first_player": state.first_player,
        "moves": [{"seat": m.seat, "action": m.action.value} for m in state.moves],
        "final": final,
        "winners": list(state.winners()) if state.finished else [],
        "open_chips": state.config.open_chips,
        "variant": state.config.variant,
        "finished": state.finished,
    }
    record.update(extra)
    return record


def replay(record: dict[str, Any]) -> GameState:
    """Rebuild the game a record describes, checking every move and the stated result (else ``IllegalMove``:
    ``bad_record``, or the move's own code)."""
    return replay_states(record)[-1]


def replay_states(record: dict[str, Any]) -> list[GameState]:
    """Every state of the game a record describes, from the deal to the last move (a replay steps through them),
    checked as ``replay`` checks them."""
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise IllegalMove(BAD_RECORD, f"not a {RECORD_FORMAT} record")
    try:
        players = record["players"]
        config = GameConfig(
            players=len(players),
            chips_per_player=record["chips_per_player"],
            open_chips=bool(record.get("open_chips", False)),
            variant=record.get("variant", "standard"),
        )
        states = [from_deal(config, record["deck"], record["removed"], record["first_player"], seed=record.get("seed"))]
        for move in record["moves"]:
            states.append(apply(states[-1], move["action"], seat=move["seat"]))
    except KeyError as error:
        raise IllegalMove(BAD_RECORD, f"malformed record: it has no {error.args[0]!r} field") from error
    except TypeError as error:
        raise IllegalMove(BAD_RECORD, f"malformed record: a field has the wrong type ({error})") from error
    _check_result(record, states[-1])
    return states


def _check_result(record: dict[str, Any], state: GameState) -> None:
    final = record.get("final")
    if final is not None:
        if len(final) != state.config.players:
            raise IllegalMove(BAD_RECORD, "final has one entry per seat")
        for seat, entry in enumerate(final):
            expected = (list(state.hands[seat]), state.chips[seat], state.scores()[seat])
            got = (sorted(entry.get("cards", [])), entry.get("chips"), entry.get("score"))
            if got != expected:
                raise IllegalMove(BAD_RECORD, f"seat {seat}: record says {got}, replay gives {expected}")
    if state.finished and "winners" in record and sorted(record["winners"]) != list(state.winners()):
        raise IllegalMove(BAD_RECORD, f"winners {record['winners']} but replay gives {list(state.winners())}")


def write_record(record: dict[str, Any], path: Path | str, *, durable: bool = False) -> Path:
    """Write one record as JSON, atomically: a new file of an unpredictable name (O_EXCL), renamed over ``path``
    (never written through a symlink there); ``durable``: file and directory fsynced. No temp file is left behind."""
    target = Path(path)
    data = (json.dumps(record, indent=1) + "\n").encode("utf-8")
    fd, temp = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX, dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), RECORD_MODE)  # (mkstemp makes 0600; a finished game's record is no secret)
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    if durable:
        directory = os.open(target.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
    return target
