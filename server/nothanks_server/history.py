"""Local games kept as a host keeps its own, and the history read back, in this process.

``LocalRecords`` is what a solo table writes its finished games with (``Table(records=...)``): the record goes into
the same SQLite store a host uses (store.py, filed by archive.py with ``place`` ``local``), then out as a
``nothanks-record/1`` JSON file beside it, like a host's. ``StoreHistory`` reads that store for the history and
statistics screens of ``nothanks history`` and the start screen; a host's own player reads the host's games
through the lobby (``InProcessLobby``), and everyone else through lobby requests (tcp.py).

Neither ever raises into a game: a store that cannot be opened or written is logged (recording) or a clear
``LobbyError`` (reading), never a traceback."""

from __future__ import annotations

import contextlib
import logging
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from nothanks_tui.i18n import N_
from nothanks_tui.link import LobbyError, errors
from nothanks_tui.link.history import HISTORY_PAGE, HistoryPage, HistorySource, PlayerStats, Rated, parse_game_id

from .archive import LOCAL
from .storage import RecordStore
from .store import DATABASE_NAME, SqliteStore, StoreError

log = logging.getLogger(__name__)


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
