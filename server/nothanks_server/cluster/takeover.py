"""A table host's part in keeping every table of the cluster playing: it renews its leases, stops the tables whose
lease it lost, and takes over the tables whose lease ran out (their host died) or was given up (their host stopped).

A loop of its own, not the heartbeat's: a lease lasts 3 s, so it is renewed every second and due leases are looked
for four times a second (a killed host's tables play again elsewhere within about 3.5 s). A table whose lease is
lost stops here at once: it leaves the lobby (not the store), and its connections hear ``closing`` with ``restart``
so that their front reconnects to the table's new host.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from ..background import stop_task
from ..host import RESTART_REASON
from ..lobby import Lobby
from ..table import Table
from .redis_store import RedisTableStore

log = logging.getLogger(__name__)

LOOK_INTERVAL = 0.25  # seconds between looks for due leases
MOVED_REASON = RESTART_REASON  # (for the player, a restart: a front, or the client, comes back at the new host)


class Takeover:
    """Keeps ``store``'s leases for ``lobby``'s tables, and brings due tables into ``lobby``. ``moving(table)``
    tells the table's connections, before it stops here, that it moves (the host closes them with ``restart``)."""

    def __init__(self, lobby: Lobby, store: RedisTableStore, moving: Callable[[Table], None] | None = None) -> None:
        self.lobby = lobby
        self.store = store
        self.leases = store.leases
        self.moving = moving
        self._renewed = time.monotonic()  # the last renewal that reached Redis
        self._task: asyncio.Task[None] | None = None
        store.on_fenced = self._fenced

    def start(self) -> None:
        """On the event loop: look for due tables now, then keep renewing and looking."""
        self._renewed = time.monotonic()
        self._task = asyncio.get_running_loop().create_task(self._run(), name="cluster takeover")

    async def close(self) -> None:
        """Stop renewing and looking (the leases themselves are given up by the store as it closes)."""
        await stop_task(self._task)
        self._task = None

    async def _run(self) -> None:
        next_renewal = time.monotonic() + self.leases.ttl / 3
        while True:
            if time.monotonic() >= next_renewal:
                next_renewal = time.monotonic() + self.leases.ttl / 3
                await self.renew()
            try:
                await self.adopt_due()
            except Exception as error:  # Redis away: the tables here play on while their leases last
                log.warning("looking for tables to take over failed: %s", error)
            await asyncio.sleep(LOOK_INTERVAL)  # a clock: nothing else to wait on

    async def renew(self) -> list[str]:
        """Renew every lease; stop the tables whose lease was lost (all of them, if Redis has not answered for a
        lease's length: another host may hold them by now). The tables stopped."""
        try:
            lost = await self.leases.renew()
            self._renewed = time.monotonic()
        except Exception as error:
            log.warning("renewing the tables' leases failed: %s", error)
            if time.monotonic() - self._renewed < self.leases.ttl:
                return []
            lost = list(self.leases.held)
            self.leases.held.clear()
        for table_id in lost:
            self.stop(table_id)
        return lost

    async def adopt_due(self) -> None:
        """Take over the tables whose lease is due and bring each into the lobby at its last accepted move. A table
        that cannot be brought in now (Redis failing midway) has its lease given up again, for the next look here or
        elsewhere: a lease is never held for a table that does not play."""
        for lease in await self.leases.claim_due():
            table_id = lease.table_id
            try:
                stored = self.store.load_table(table_id)
                if stored is None:  # dropped meanwhile: only its lease was left
                    self.store.drop_table(table_id)
                elif self.lobby.adopt(stored) is not None:
                    log.info("took table %s over (epoch %d)", table_id, lease.epoch)
                elif table_id in self.leases.held:  # (else not worth restoring: dropped, lease and all)
                    log.error("table %s: taken over but cannot be played here; its lease is kept", table_id)
            except Exception:
                log.exception("table %s: taken over but not brought in; its lease is given up", table_id)
                with contextlib.suppress(Exception):
                    self.leases.release([table_id])

    def stop(self, table_id: str) -> None:
        """``table_id``'s lease is not this host's any more: the table stops here, its connections told it moves."""
        table = next((t for t in self.lobby.all_tables() if t.table_id == table_id), None)
        if table is None:
            return
        if self.moving is not None:
            self.moving(table)
        self.lobby.release(table_id, MOVED_REASON)
        log.warning("table %s: its lease is lost; it stopped here", table_id)

    def _fenced(self, table_id: str) -> None:
        """The store refused a write for ``table_id`` (fenced): stop it, once the store's call has returned."""
        try:
            asyncio.get_running_loop().call_soon(self.stop, table_id)
        except RuntimeError:  # no loop (a script driving the lobby by hand)
            self.stop(table_id)
