"""What an SSH player gets: the game's own app, opening on the welcome screen, then the host's lobby.

The session's app reaches the host's tables only through the lobby and table connection interfaces, over the
host's TCP port (``TcpLobby``), exactly as ``nothanks join`` does: the front could run on another machine than its
tables. A player who logged in with a public key is remembered by its fingerprint, in the host's store: the
session's hello carries it (``key``, with the ``via`` and ``proxy_key`` of the host's own fronts), the host binds
every seat that connection takes to it, and says in its welcome which seat it holds for the key. So when they come
back while their seat is still held (a dropped connection, a dead worker, a restarted host: the store keeps games
and bindings), they go straight back to it (``resume_key``), whichever worker serves them. No seat token is kept
on this side.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from typing import Any

from textual.screen import Screen

from nothanks_tui.client.netlaunch import NetApp
from nothanks_tui.client.screens.welcome import WelcomeScreen
from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.i18n import N_, catalog
from nothanks_tui.link import (
    ConnectionInfo,
    LobbyConnection,
    LobbyError,
    NewTable,
    TableConnection,
    TableSummary,
)
from nothanks_tui.link.history import HISTORY_PAGE, HistoryPage, PlayerStats

from .player import SSHPlayer
from .session import AppFactory
from .settings import WorkerPlan

log = logging.getLogger(__name__)

KEY_SEAT = "ssh-key"  # the "token" held_seat() gives for the seat bound to the player's key: resume_key takes it

# The host's restart, as the front tells the workers (host.RESTART_REASON, in English), and what a player with no
# seat (in the lobby, or watching) reads instead: nothing of theirs is kept but the way back.
RESTART_SEATED = N_("the host is restarting: your seat and your game are kept, come back in a moment")
RESTART_UNSEATED = N_("the host is restarting: come back in a moment")


class SessionLobby(LobbyConnection):
    """A session's lobby connection (over TCP to the host, on behalf of the SSH player).

    When the session ends, the connection to the host closes without a ``leave``: a seat in a running game waits
    for its player ("away"), so a player who dropped can come back to it.
    """

    def __init__(self, host: str, port: int, name: str, player: SSHPlayer, proxy_key: str | None = None) -> None:
        self.info = ConnectionInfo(description=N_("this host over SSH"), extras={"name": name, "via": "ssh"})
        self.inner = TcpLobby(host, port, name, via=player.address, proxy_key=proxy_key, key=player.key_fingerprint)
        self.inner.info = self.info  # the title bar says "this host over SSH", not the loopback address

    @property
    def name(self) -> str:
        return str(getattr(self.inner, "name", ""))

    @property
    def closed_reason(self) -> str | None:
        return getattr(self.inner, "closed_reason", None)

    async def start(self) -> None:
        await self.inner.start()

    async def list_tables(self) -> list[TableSummary]:
        return await self.inner.list_tables()

    async def create_table(self, settings: NewTable) -> TableConnection:
        return await self.inner.create_table(settings)  # (the host binds the seat to the key, if any)

    async def join(self, table_id: str, seat: int | None = None) -> TableConnection:
        return await self.inner.join(table_id, seat)

    async def spectate(self, table_id: str) -> TableConnection:
        return await self.inner.spectate(table_id)

    async def resume(self, token: str) -> TableConnection:
        if token == KEY_SEAT:
            return await self.inner.resume_key()
        return await self.inner.resume(token)

    # The host's history, through the same connection (finished games only: the host refuses any other).

    async def list_games(self, offset: int = 0, limit: int = HISTORY_PAGE) -> HistoryPage:
        return await self.inner.list_games(offset, limit)

    async def open_game(self, game_id: str) -> dict[str, Any]:
        return await self.inner.open_game(game_id)

    async def player_stats(self) -> list[PlayerStats]:
        return await self.inner.player_stats()

    async def close(self) -> None:
        """Hang up: the session ended (the player's connection is gone, or they quit). A seat in a running game
        then waits for them, away, as for any dropped connection: only a player who leaves a table on purpose
        (``q`` at the table) hands it to a bot at once, and that is the table connection's own ``close``."""
        try:
            await self.inner.close()
        except Exception:
            log.exception("closing the lobby connection of an SSH session")


class SSHDoorway:
    """The welcome screen's ``Doorway`` for one SSH session: the player's name and seat, lobbies over TCP."""

    def __init__(self, player: SSHPlayer, host: str, port: int, proxy_key: str | None = None) -> None:
        self.player = player
        self.host = host
        self.port = port
        self.proxy_key = proxy_key
        self.lobbies: list[SessionLobby] = []
        self._held: str | None = None  # the display name of the seat the host holds for the player's key

    async def look_for_seat(self) -> None:
        """Ask the host whether it holds a seat for the player's key (before the welcome screen asks us)."""
        if not (self.player.key_fingerprint and self.proxy_key):
            return
        probe = SessionLobby(self.host, self.port, "player", self.player, self.proxy_key)
        try:
            await probe.start()
            held = probe.inner.held
            if held is not None:
                self._held = str(held.get("name") or self.player.suggested_name or "player")
        except (LobbyError, OSError) as error:
            log.info("could not ask the host for %s's seat: %s", self.player.peer, error)
        finally:
            await probe.close()

    @property
    def suggested_name(self) -> str:
        return self.player.suggested_name

    def held_seat(self) -> tuple[str, str] | None:
        return (self._held, KEY_SEAT) if self._held is not None else None

    @property
    def keeps_seats(self) -> bool:
        return self.player.key_fingerprint is not None  # only a key finds a seat again (README)

    def forget_seat(self) -> None:
        self._held = None

    def lobby(self, name: str) -> LobbyConnection:
        lobby = SessionLobby(self.host, self.port, name, self.player, self.proxy_key)
        self.lobbies.append(lobby)
        return lobby

    @property
    def seated(self) -> bool:
        """Whether the player holds a seat now, through any of the session's lobby connections."""
        return any(getattr(getattr(lobby.inner, "table", None), "seat", None) is not None for lobby in self.lobbies)

    async def close(self) -> None:
        """Hang up every lobby connection (a seat in a running game then waits for us, away)."""
        lobbies, self.lobbies = self.lobbies, []
        for lobby in lobbies:
            await lobby.close()


class SSHGameApp(NetApp):
    """The game app for one SSH session; ``ssh_session_ended`` leaves its tables when the session is over."""

    def __init__(self, door: SSHDoorway, **kwargs: Any) -> None:
        def first_screen() -> Screen[Any]:
            return WelcomeScreen(door)

        super().__init__(first_screen, **kwargs)
        self.door = door

    async def ssh_session_starting(self) -> None:
        await self.door.look_for_seat()

    async def ssh_session_ended(self) -> None:
        await self.door.close()

    def farewell(self, reason: str) -> str:
        """``reason`` the host stops for (its English), as this player reads it: in their language, and a restart
        speaks of a kept seat only to a player who has one."""
        if reason == RESTART_SEATED and not self.door.seated:
            reason = RESTART_UNSEATED
        return catalog(self.language or "en").gettext(reason)


class GameAppFactory:
    """A worker's ``AppFactory``: each session gets the game, at the tables of the host on its TCP port.

    ``warm_up`` (awaited by ``SessionServer.prepare`` before the worker says it is ready) draws the first screen
    once, headless, in the worker itself. A worker is forked from the forkserver, which drew it too (preload.py),
    but the first app a worker runs still writes to thousands of the pages it shares with the forkserver (reference
    counts, caches filled on first use), and each write copies a page: measured (scripts/ssh_login_cost.py), a fresh
    worker's first login took about 2,000 page faults and 66 ms of CPU, a worker's later logins 110 and 42 ms. A
    fresh worker is started before anyone needs it (front.py), so that cost is now paid off the newcomer's path.
    """

    def __init__(self, plan: WorkerPlan) -> None:
        self.plan = plan

    def __call__(self, player: SSHPlayer) -> SSHGameApp:
        plan = self.plan
        return SSHGameApp(
            SSHDoorway(player, plan.lobby_host, plan.lobby_port, plan.proxy_key),
            bot_choices=plan.ssh.bot_choices,
            default_bot=plan.ssh.default_bot,
            language=player.language,
        )

    async def warm_up(self) -> str:
        """Draw the first screen once (in a context of its own, like a session's); the name of its class."""
        task = asyncio.get_running_loop().create_task(draw_first_screen(), context=contextvars.Context())
        return await task


async def draw_first_screen(size: tuple[int, int] = (80, 24)) -> str:
    """The game's first screen drawn headless (``App.run_test``, Textual's public way to run an app without a
    terminal), for a player who never connects (no name is entered, so no lobby is asked for); the name of the
    screen's class, once drawn."""
    player = SSHPlayer("warm-up", None, "-", "xterm-256color", "truecolor")
    app = SSHGameApp(SSHDoorway(player, "127.0.0.1", 9))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        return type(app.screen).__name__


def make_app_factory(plan: WorkerPlan) -> AppFactory:
    """The worker's ``AppFactory`` (``SSHSettings.app``): a ``GameAppFactory``."""
    return GameAppFactory(plan)
