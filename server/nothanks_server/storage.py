"""Where finished games go: one ``nothanks-record/1`` JSON file per game in the host's data dir.

Kept apart from the table so the table never does file I/O itself and tests can run with no data dir at all.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from nothanks_tui.engine import write_record

log = logging.getLogger(__name__)


class RecordStore:
    """Writes records into ``directory`` (created on first use); never raises into the game."""

    def __init__(self, directory: Path | str) -> None:
        self.directory = Path(directory)

    def save(self, record: dict[str, Any], table_id: str, game_no: int) -> Path | None:
        """Write ``record``; returns its path, or None if the disk refused (logged, the game goes on)."""
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        path = self.directory / f"{stamp}-{table_id}-g{game_no}.json"
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            return write_record(record, path)
        except OSError:
            log.exception("could not write the record of table %s game %d", table_id, game_no)
            return None
