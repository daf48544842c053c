"""A table host's presence in the cluster's directory: its heartbeat, and its lines of the shared lobby.

Every ``interval`` (a third of the directory's ``HOST_TTL``, so two beats may be lost before the host is taken
for dead) the host announces itself with its table count and, if any table's lobby line changed since the last
beat (``Lobby.version``), publishes its tables' lines. A host that stops beating (killed, cut off) disappears
from the hosts and the lobby when its keys expire; one that stops on purpose withdraws at once.

A Redis that does not answer costs a log line per beat, never the host's games: the lobby in this process is
the authority for its tables, the directory only says where they are.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Protocol

from nothanks_tui.link import TableSummary

from ..background import start_beating, stop_task
from .directory import HOST_TTL, Directory, HostInfo

log = logging.getLogger(__name__)


class _TableLike(Protocol):
    def summary(self) -> TableSummary: ...


class LobbyLike(Protocol):
    """What presence reads of a lobby (``nothanks_server.lobby.Lobby``)."""

    version: int

    def all_tables(self, listed: bool = False) -> Sequence[_TableLike]: ...


class Presence:
    """Keeps ``host_id`` (reached at ``address``) and its lobby's tables listed in ``directory``."""

    def __init__(
        self, directory: Directory, lobby: LobbyLike, host_id: str, address: str, ttl: float = HOST_TTL
    ) -> None:
        self.directory = directory
        self.lobby = lobby
        self.host_id = host_id
        self.address = address
        self.ttl = ttl
        self.interval = ttl / 3
        self.beats = 0  # heartbeats that reached Redis
        self._published = -1  # the lobby version last published
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Announce now (a Redis that does not answer fails the start), then keep beating."""
        self._task = await start_beating(self.interval, self.beat, self._failed, "cluster presence")

    async def beat(self) -> None:
        """One heartbeat, with the lobby's lines if they changed."""
        tables = list(self.lobby.all_tables())  # (counted all; a daily deal's is never listed)
        version = self.lobby.version
        if version != self._published:
            listed = [table.summary() for table in self.lobby.all_tables(listed=True)]
            await self.directory.publish_tables(self.host_id, listed, self.ttl)
            self._published = version
        await self.directory.announce(HostInfo(self.host_id, self.address, len(tables)), self.ttl)
        self.beats += 1

    def _failed(self, error: Exception) -> None:  # Redis away: the games go on; the next beat tries again
        log.warning("cluster heartbeat of %s failed: %s", self.host_id, error)

    async def close(self, withdraw: bool = True) -> None:
        """Stop beating; ``withdraw``: leave the directory now rather than when the keys expire."""
        await stop_task(self._task)
        self._task = None
        if withdraw:
            try:
                await self.directory.withdraw(self.host_id)
            except Exception as error:
                log.warning("could not withdraw %s from the cluster directory: %s", self.host_id, error)
