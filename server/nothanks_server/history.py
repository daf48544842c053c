"""Finished games outside the host's store: their JSON files, local games kept as a host keeps its own, and the
history read back in this process.

The store (store.py) keeps a finished game first, in the same transaction as its last move; ``RecordStore`` writes
the ``nothanks-record/1`` JSON file people and tools read. Its name follows from the record alone (end time, table,
game number), so a host killed between the commit and the file writes the same file on its next start
(``export_pending``); files are written atomically and fsynced, and temp files a killed host left are removed at
start. ``LocalRecords`` is what a solo table files its games with: into the same SQLite store (``place`` ``local``),
then as JSON beside it. ``StoreHistory`` reads that store for ``nothanks history`` and the start screen; a host's
own player reads the host's games through the lobby (``InProcessLobby``), everyone else through lobby requests.

None of them ever raises into a game: a store or disk that refuses is logged (recording) or a clear ``LobbyError``
(reading), never a traceback."""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from nothanks_tui.engine import write_record
from nothanks_tui.engine.records import TEMP_PREFIX, TEMP_SUFFIX
from nothanks_tui.i18n import N_
from nothanks_tui.link import LobbyError, errors
from nothanks_tui.link.history import HISTORY_PAGE, HistoryPage, HistorySource, PlayerStats, Rated, parse_game_id

from .archive import LOCAL
from .store import DATABASE_NAME, SqliteStore, StoreError, TableStore

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


def history_database(directory: Path | str) -> Path:
    """The store of the data dir ``directory``: the one file a host and local play keep finished games in."""
    return Path(directory) / DATABASE_NAME


class LocalRecords(RecordStore):
    """A solo table's finished games: into the store at ``directory``, then as JSON files there; each solo table has its
    own id (``local-`` and six hex digits), so its games never collide with another's."""

    def __init__(self, directory: Path | str) -> None:
        super().__init__(directory)
        self.table_id = "local-" + secrets.token_hex(3)

    def save(self, record: dict[str, Any], table_id: str, game_no: int) -> Path | None:
        """The JSON file first, then the store (marked exported when the file was written, so a host later started
        on this data dir does not write it again); each failure is logged, never raised into the game."""
        written = super().save(record, self.table_id, game_no)
        try:
            store = SqliteStore(history_database(self.directory), host=False)
        except StoreError:
            log.exception("could not open the history to keep a local game")
            return written
        try:
            store.add_record(self.table_id, game_no, record, LOCAL, exported=written is not None)
        except (StoreError, KeyError, TypeError, ValueError):
            log.exception("could not keep local game %d in the history", game_no)
        finally:
            store.close()
        return written

    def ratings(self, names: list[str]) -> dict[str, int] | None:
        """From the store each game is rated in as it is filed (``save``); ``LobbyError`` if it cannot be read."""
        with StoreHistory(self.directory)._reading() as store:
            return store.ratings(names)


class StoreHistory(HistorySource):
    """Every finished game in one data dir's store (local and hosted), for this process's own screens."""

    def __init__(self, directory: Path | str, place: str | None = None) -> None:
        self.database = history_database(directory)
        self.place = place

    @contextlib.contextmanager
    def _reading(self) -> Iterator[SqliteStore]:
        """The store, open for one read and closed after it; one that cannot be opened or read is ``no_game``."""
        if not self.database.exists():
            store = SqliteStore(":memory:")  # nothing played yet: an empty history, and no file made for it
        else:
            try:
                store = SqliteStore(self.database, host=False)
            except (StoreError, RuntimeError) as error:
                raise LobbyError(errors.NO_GAME, f"the history cannot be read: {error}") from None
        try:
            yield store
        except StoreError as error:
            raise LobbyError(errors.NO_GAME, f"the history cannot be read: {error}") from None
        finally:
            store.close()

    async def list_games(self, offset: int = 0, limit: int = HISTORY_PAGE) -> HistoryPage:
        with self._reading() as store:
            games, total = store.list_games(offset, min(limit, HISTORY_PAGE), self.place)
        return HistoryPage(tuple(games), total, offset)

    async def open_game(self, game_id: str) -> dict[str, Any]:
        try:
            table_id, game_no = parse_game_id(game_id)
        except ValueError as error:
            raise LobbyError(errors.NO_GAME, str(error)) from None
        with self._reading() as store:
            record = store.game_record(table_id, game_no, self.place)
        if record is None:
            raise LobbyError(errors.NO_GAME, f"no finished game {game_id[:40]!r} in the history")
        return record

    async def latest_game(self) -> dict[str, Any]:
        """The newest finished game's record (``nothanks replay --last``)."""
        page = await self.list_games(0, 1)
        if not page.games:
            raise LobbyError(errors.NO_GAME, N_("no finished game yet: play one first (nothanks play)"))
        return await self.open_game(page.games[0].game_id)

    async def player_stats(self) -> list[PlayerStats]:
        with self._reading() as store:
            return store.player_stats(self.place)

    async def leaderboard(self) -> list[Rated]:
        with self._reading() as store:
            return store.leaderboard()
