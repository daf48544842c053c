"""Finished games as files: one ``nothanks-record/1`` JSON file per game in the host's data dir.

The store (store.py) is where a finished game is kept first, in the same transaction as its last move; this file
is the export people and tools read. Each game's file name follows from the record alone (its end time, table and
game number), so a host that was killed between the commit and the file writes the same file on its next start
(``export_pending``) and a game never has two. Files are written atomically and fsynced (``write_record``), and the
temp files a killed host left behind are removed at start."""

from __future__ import annotations

import logging
import os
import stat
import time
from pathlib import Path
from typing import Any

from nothanks_tui.engine import write_record
from nothanks_tui.engine.records import TEMP_PREFIX, TEMP_SUFFIX

from .store import TableStore

log = logging.getLogger(__name__)


class RecordStore:
    """Writes records into ``directory`` (created on first use); never raises into the game."""

    def __init__(self, directory: Path | str) -> None:
        self.directory = Path(directory)

    def path_for(self, record: dict[str, Any], table_id: str, game_no: int) -> Path:
        finished = record.get("finished_at")
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(finished if isinstance(finished, int | float) else None))
        return self.directory / f"{stamp}-{table_id}-g{game_no}.json"

    def save(self, record: dict[str, Any], table_id: str, game_no: int) -> Path | None:
        """Write ``record``; returns its path, or None if the disk refused (logged, the game goes on)."""
        path = self.path_for(record, table_id, game_no)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            return write_record(record, path, durable=True)
        except OSError:
            log.exception("could not write the record of table %s game %d", table_id, game_no)
            return None

    def ratings(self, names: list[str]) -> dict[str, int] | None:
        """The ratings of ``names`` where these games are rated (None: not here, a host's tables ask its store)."""
        return None

    def exists(self, record: dict[str, Any], table_id: str, game_no: int) -> bool:
        """A regular file (not a symlink, not anything else) holds this game's record already."""
        try:
            return stat.S_ISREG(os.lstat(self.path_for(record, table_id, game_no)).st_mode)
        except OSError:
            return False

    def clean_temps(self) -> int:
        """Remove what a killed writer left (``.nothanks-*.tmp``, and the ``*.json.tmp`` of versions before the
        store; a symlink is removed, never followed)."""
        removed = 0
        try:
            entries = list(os.scandir(self.directory))
        except OSError:
            return 0
        for entry in entries:
            ours = entry.name.startswith(TEMP_PREFIX) and entry.name.endswith(TEMP_SUFFIX)
            if ours or entry.name.endswith(".json" + TEMP_SUFFIX):
                try:
                    os.unlink(entry.path)
                    removed += 1
                except OSError:
                    log.warning("could not remove the stale temp file %s", entry.path)
        return removed

    def export_pending(self, store: TableStore) -> int:
        """Write the JSON of every record the store has and this directory lacks; returns how many were written."""
        written = 0
        for stored in store.records(pending_only=True):
            if not self.exists(stored.record, stored.table_id, stored.game_no):
                if self.save(stored.record, stored.table_id, stored.game_no) is None:
                    continue
                written += 1
            store.mark_exported(stored.table_id, stored.game_no)
        return written
