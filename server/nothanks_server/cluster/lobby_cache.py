"""The shared lobby as a front shows it: read from Redis once per beat, whatever the number of clients asking.

Reading the whole lobby costs a few round trips and, at 500 tables, about 13 ms of Python decoding
(docs/scaling.md): too much per ``list_tables``, cheap once per beat. Every front reads the same keys, so every
front lists the same tables; a table created a moment ago appears at the next beat. Each page of the ``tables``
reply is encoded once per refresh (session.py's ``TablePages``), as a single host's is once per change.
"""

from __future__ import annotations

import asyncio
import logging

from nothanks_tui.link import TableSummary

from ..background import start_beating, stop_task
from .directory import HOST_TTL, Directory, ListedTable

log = logging.getLogger(__name__)


class LobbyCache:
    """The shared lobby, refreshed every ``interval`` seconds by one task."""

    def __init__(self, directory: Directory, interval: float = HOST_TTL / 3) -> None:
        self.directory = directory
        self.interval = interval
        self.listed: list[ListedTable] = []
        self.refreshes = 0
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Read the lobby now (a Redis that does not answer fails the start), then every ``interval``."""
        self._task = await start_beating(self.interval, self.refresh, self._failed, "lobby cache")  # (the hosts' pace)

    async def refresh(self) -> None:
        listed = await self.directory.lobby()
        self.listed = sorted(listed, key=_listing_order)
        self.refreshes += 1

    @staticmethod
    def _failed(error: Exception) -> None:  # Redis away: the last listing stays; the next beat tries again
        log.warning("could not read the shared lobby: %s", error)

    def summary(self, table_id: str) -> TableSummary | None:
        for line in self.listed:
            if line.summary.table_id == table_id:
                return line.summary
        return None

    async def close(self) -> None:
        await stop_task(self._task)
        self._task = None


def _listing_order(line: ListedTable) -> tuple[bool, bool, int, str]:
    """Joinable tables first, then games under way, then finished ones; by table number (the oldest first)."""
    summary = line.summary
    number = summary.table_id[1:]
    return (summary.started, summary.finished, int(number) if number.isdigit() else 0, summary.table_id)
