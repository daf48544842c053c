"""What an SSH player gets: the game's own app, from the welcome screen to the host's lobby.

The app reaches the tables only over the host's TCP port (``TcpLobby``), as ``nothanks join`` does. A key's player
is remembered by its fingerprint in the host's store: the hello carries it (``key``, with the fronts' ``via`` and
``proxy_key``), the host binds the seats taken to it and names the one held, so a player back after a dropped
connection, a dead worker or a restart goes straight to it (``resume_key``). No seat token is kept here.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
from typing import Any

from nothanks_tui.bots.review import review_view
from nothanks_tui.client.netlaunch import NetApp
from nothanks_tui.client.plain import Hangup, PlainFront, plain_welcome
from nothanks_tui.client.screens.welcome import WelcomeScreen
from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.i18n import N_, catalog, current_language, use_language
from nothanks_tui.link import ConnectionInfo, LobbyConnection, LobbyError, TableConnection

from .session import ChannelLines, SSHPlayer
from .settings import WorkerPlan

log = logging.getLogger(__name__)

KEY_SEAT = "ssh-key"  # the "token" held_seat() gives for the seat bound to the player's key: resume_key takes it

# The host's restart, as the front tells the workers (host.RESTART_REASON, in English), and what a player with no
# seat (in the lobby, or watching) or with no key to find it again reads instead: nothing of theirs is kept but the
# way back.
RESTART_SEATED = N_("the host is restarting: your seat and your game are kept, come back in a moment")
RESTART_UNSEATED = N_("the host is restarting: come back in a moment")


class SessionLobby(TcpLobby):
    """A session's lobby connection to the host, for the SSH player. The session's end closes it without a
    ``leave``: a seat in a running game waits for its player (away), as for any dropped connection."""

    def __init__(self, door: SSHDoorway, name: str, probe: bool = False) -> None:
        """``probe``: only asks for the key's seat (its hello names no ``owner``: the name is not the player's)."""
        key = door.player.key_fingerprint
        super().__init__(door.host, door.port, name, via=door.player.address, proxy_key=door.proxy_key, key=key)
        if key and self._speaks_for and not probe:
            self._speaks_for["owner"] = key  # the key owns the name (else a guest's)
        self.info = ConnectionInfo(description=N_("this host over SSH"), extras={"name": name, "via": "ssh"})

    async def resume(self, token: str) -> TableConnection:
        return await (self.resume_key() if token == KEY_SEAT else super().resume(token))

    async def close(self) -> None:
        try:
            await super().close()
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
        self.suggested_name = player.suggested_name  # the name to prefill (may be empty)

    async def look_for_seat(self) -> None:
        """Ask the host whether it holds a seat for the player's key (before the welcome screen asks us)."""
        if not (self.player.key_fingerprint and self.proxy_key):
            return
        probe = SessionLobby(self, "player", probe=True)
        try:
            await probe.start()
            held = probe.held
            if held is not None:
                self._held = str(held.get("name") or self.player.suggested_name or "player")
        except (LobbyError, OSError) as error:
            log.info("could not ask the host for %s's seat: %s", self.player.peer, error)
        finally:
            await probe.close()

    @property
    def keeps_seats(self) -> bool:
        return self.player.key_fingerprint is not None  # only a key finds a seat again (README)

    def held_seat(self) -> tuple[str, str] | None:
        return (self._held, KEY_SEAT) if self._held is not None else None

    def forget_seat(self) -> None:
        self._held = None

    def lobby(self, name: str) -> LobbyConnection:
        lobby = SessionLobby(self, name)
        self.lobbies.append(lobby)
        return lobby

    @property
    def seated(self) -> bool:
        """Whether the player holds a seat now, through any of the session's lobby connections."""
        return any(getattr(lobby.table, "seat", None) is not None for lobby in self.lobbies)

    async def close(self) -> None:
        """Hang up every lobby connection (a seat in a running game then waits for us, away)."""
        lobbies, self.lobbies = self.lobbies, []
        for lobby in lobbies:
            await lobby.close()


class SSHGameApp(NetApp):
    """The game app for one SSH session; ``ssh_session_ended`` leaves its tables when the session is over."""

    def __init__(self, door: SSHDoorway, **kwargs: Any) -> None:
        super().__init__(lambda: WelcomeScreen(door), **kwargs)
        self.door = door
        self.go_plain: str | None = None  # the name typed when the player chose plain lines on the welcome screen

    async def ssh_session_starting(self) -> None:
        await self.door.look_for_seat()

    async def ssh_session_ended(self) -> None:
        await self.door.close()

    def ssh_session_seated(self) -> bool:
        """Whether the player sits at a table (not in the lobby, not watching): at the sessions cap, a session that
        does not may give way to a newcomer from a network holding fewer (server.py ``take_place``)."""
        return self.door.seated

    def farewell(self, reason: str) -> str:
        return farewell_for(self.door, self.language or "en", reason)


def farewell_for(door: SSHDoorway, language: str, reason: str) -> str:
    """``reason`` the host stops for (its English), as this player reads it: in their language, and a restart
    speaks of a kept seat only to a player who has one and will get it back (a key: ``keeps_seats``)."""
    if reason == RESTART_SEATED and not (door.seated and door.keeps_seats):
        reason = RESTART_UNSEATED
    return catalog(language).gettext(reason)


class GameAppFactory:
    """A worker's ``AppFactory``: each session gets the game, at the tables of the host on its TCP port.
    ``warm_up`` draws the first screen once in the worker before it says ready: its first app copies thousands of
    pages shared with the forkserver (a fresh worker's first login 2,000 page faults and 66 ms of CPU, later ones
    110 and 42 ms: scripts/ssh_login_cost.py), now off the newcomer's path."""

    def __init__(self, plan: WorkerPlan) -> None:
        self.plan = plan

    def _door(self, player: SSHPlayer) -> SSHDoorway:
        return SSHDoorway(player, self.plan.lobby_host, self.plan.lobby_port, self.plan.proxy_key)

    def __call__(self, player: SSHPlayer) -> SSHGameApp:
        return SSHGameApp(
            self._door(player),
            bot_choices=self.plan.ssh.bot_choices,
            default_bot=self.plan.ssh.default_bot,
            language=player.language,
            reviewer=review_view,  # a finished game's review, in this worker (a thread of the player's app)
        )

    async def plain(self, player: SSHPlayer, lines: ChannelLines, name: str | None = None, language: str = "") -> int:
        """The plain front instead of the app (``TERM=dumb``, no pty, or chosen on the welcome screen)."""
        use_language(language or player.language)
        door = self._door(player)
        lines.farewell = functools.partial(farewell_for, door, current_language())
        if name is not None:
            door.suggested_name = name
        try:
            await door.look_for_seat()
            return await plain_welcome(PlainFront(lines), door)
        except Hangup:
            return 0  # (the connection is gone: its seat waits, away)
        finally:
            await door.close()

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


make_app_factory = GameAppFactory  # the worker's ``AppFactory`` from its plan (``SSHSettings.app``)
