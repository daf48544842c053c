"""``nothanks play`` and ``nothanks`` alone: the client app at a solo table, or on the start screen."""

from __future__ import annotations

from nothanks_server.solo import solo_table
from nothanks_server.thinking import DEFAULT_PROCESSES as DEFAULT_BOT_PROCESSES

from .. import paths
from ..client.app import NoThanksApp
from ..client.error_sentences import error_sentence
from ..client.launchers import SoloChoice
from ..client.remembered import Remembered
from ..defaults import BOT_PACE, DEFAULT_BOT
from ..engine import STANDARD
from ..link import errors
from ..link.names import BadName
from . import run_app
from .launchers import LocalLaunchers


def run_local_game(
    players: int = 4,
    bot: str = DEFAULT_BOT,
    seed: int | None = None,
    open_chips: bool = False,
    variant: str = STANDARD,
    name: str = "you",
    bot_pace: float = BOT_PACE,
) -> int:
    """You against bots at one table in this terminal; returns the exit code."""
    # Kept as a host keeps its games: `nothanks history`, `nothanks replay`.
    launchers = LocalLaunchers(bot_pace, records_dir=paths.records_dir())
    choice = SoloChoice(name=name, players=players, bot=bot, open_chips=open_chips, variant=variant)
    try:
        connection = solo_table(launchers.solo_game(choice, seed))
    except BadName:
        print("nothanks play: --name: " + error_sentence(errors.BAD_NAME))  # (BadName's own words are English)
        return 2
    remembered = Remembered.of_this_user()  # the player's preferences (the bell, chat muted)
    app = NoThanksApp(connection, launchers=launchers, exit_on_signals=True, remembered=remembered)
    return run_app(app)


def run_start_screen(bot_pace: float = BOT_PACE) -> int:
    """The start screen: choose how to play; returns the exit code."""
    from ..client.discovery import ZeroconfBrowser

    remembered = Remembered.of_this_user()
    app = NoThanksApp(
        # A game hosted from here searches for its bots in worker processes, as `nothanks host`'s does: players
        # elsewhere on the LAN wait on this process's event loop, and a search in one of its threads holds it.
        launchers=LocalLaunchers(bot_pace, records_dir=paths.records_dir(), bot_processes=DEFAULT_BOT_PROCESSES),
        exit_on_signals=True,
        remembered=remembered,
        host_browser=ZeroconfBrowser,  # the Join tab lists the hosts on the LAN
    )
    return run_app(app)
