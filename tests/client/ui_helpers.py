"""Shared helpers for the client tests: small tables, and waiting on app state instead of sleeping."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot

from nothanks_server import Lobby, LobbySettings
from nothanks_server.inprocess import InProcessLobby, SoloGame, solo_table
from nothanks_tui.bots import make_bot
from nothanks_tui.client.app import NoThanksApp
from nothanks_tui.client.netlaunch import NetApp, first_screen_for
from nothanks_tui.client.screens.lobby import LobbyScreen, NewTableScreen
from nothanks_tui.client.screens.table import TableScreen
from nothanks_tui.commands.launchers import LocalLaunchers
from nothanks_tui.link import TableConnection

MAX_PAUSES = 20_000  # bound every wait (about 20 s at least); a wait that runs out fails the test


async def wait_until(pilot: Pilot, condition: Callable[[], bool], what: str = "condition") -> None:
    """Let the app process messages until ``condition()`` holds (bots run in threads, so this may take a few turns)."""
    for _ in range(MAX_PAUSES):
        if condition():
            return
        await pilot.pause(0.001)
    raise AssertionError(f"timed out waiting for {what}")


def table_screen(app: NoThanksApp) -> TableScreen:
    screen = app.table_screen
    assert screen is not None, "no table screen"
    return screen


def my_turn(app: NoThanksApp) -> bool:
    screen = app.table_screen
    return bool(screen and screen.table and screen.table.view.my_turn)


def local_app(
    players: int = 4,
    seed: int = 3,
    *,
    chips: int | None = None,
    open_chips: bool = False,
    human_name: str = "you",
    bot: str = "rules",
    bot_names: list[str] | None = None,
    bot_pace: float = 0,
    language: str | None = None,
    variant: str = "standard",
) -> tuple[NoThanksApp, TableConnection]:
    """An app at a solo table (the host's Table, in-process) with bots that move at once (pace 0, unless given),
    dealt from ``seed`` when the app starts reading it."""
    game = SoloGame(
        players=players,
        bot=bot,
        name=human_name,
        seed=seed,
        open_chips=open_chips,
        bot_pace=bot_pace,
        chips_per_player=chips,
        bot_names=bot_names,
        variant=variant,
    )
    bots = [make_bot(bot, seed + index) for index in range(players - 1)]
    connection = solo_table(game, bots)
    return NoThanksApp(connection, launchers=LocalLaunchers(bot_pace=0), language=language), connection


async def lobby_app(name: str = "alice") -> tuple[Lobby, NetApp]:
    """A host's lobby in this process (bots move at once, the ``rules`` bot by default) and an app entering it as
    ``name``, as a player over the network would (its lobby screen first)."""
    lobby = Lobby(LobbySettings(bot_delay=0, turn_timer=None, seed=1, default_bot="rules"))
    player = InProcessLobby(lobby, name)
    await player.start()
    return lobby, NetApp(first_screen_for(player, None))


async def open_new_table_dialog(pilot: Pilot, app: NetApp) -> None:
    """From the lobby screen: ``c``, and wait for the new-table dialog."""
    await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
    await pilot.press("c")
    await wait_until(pilot, lambda: isinstance(app.screen, NewTableScreen), "the dialog")
