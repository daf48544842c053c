"""``nothanks play`` and ``nothanks`` alone (the client app at a solo table, or on the start screen), and the
command line's ``Launchers``: the solo tables and hosts the start screen opens (the client app may not import the
host; this layer may)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import KW_ONLY, asdict, dataclass, field
from pathlib import Path

from nothanks_server.advertise import Advertiser
from nothanks_server.history import StoreHistory
from nothanks_server.host import SHUTDOWN_REASON, Host
from nothanks_server.inprocess import SoloGame, solo_table
from nothanks_server.lobby import LobbySettings
from nothanks_server.thinking import DEFAULT_PROCESSES as DEFAULT_BOT_PROCESSES

from .. import paths
from ..bots import offered_bots
from ..bots.review import review_view
from ..client.app import NoThanksApp
from ..client.error_sentences import error_sentence
from ..client.launchers import HostChoice, Hosting, SoloChoice
from ..client.remembered import Remembered
from ..defaults import BOT_PACE, DEFAULT_BOT
from ..engine import STANDARD
from ..link import LobbyError, TableConnection, errors
from ..link.history import HistorySource
from ..link.names import BadName
from . import run_app
from .addresses import join_lines
from .host_errors import cannot_listen


@dataclass
class LocalLaunchers:
    """Solo tables and hosts in this process, with the command line's settings (bot pace, data dir)."""

    bot_pace: float = BOT_PACE
    seed: int | None = None
    records_dir: Path | None = None  # where local games are kept and the history is read (None: none kept)
    _: KW_ONLY
    advertise: bool = True  # a game hosted from the start screen is announced on the LAN
    bot_processes: int = 0  # for a hosted game (thinking.py); 0: in threads
    bot_choices: Sequence[tuple[str, str]] = field(default_factory=lambda: offered_bots(DEFAULT_BOT))
    default_bot: str = DEFAULT_BOT

    def history(self) -> HistorySource | None:
        """This machine's finished games (the start screen's history and statistics), if any are kept."""
        return None if self.records_dir is None else StoreHistory(self.records_dir)

    def solo_game(self, choice: SoloChoice, seed: int | None = None) -> SoloGame:
        """The solo table ``choice`` asks for, at this pace, kept in the data dir, dealt from ``seed`` (None: this
        launcher's own seed, if it has one)."""
        seed = self.seed if seed is None else seed
        return SoloGame(**asdict(choice), seed=seed, bot_pace=self.bot_pace, records_dir=self.records_dir)

    async def open_solo_table(self, choice: SoloChoice) -> TableConnection:
        try:
            return solo_table(self.solo_game(choice))
        except BadName as error:
            raise ValueError(f"your name: {error}") from None

    async def host_game(self, choice: HostChoice) -> Hosting:
        host = Host(
            LobbySettings(data_dir=paths.records_dir(), bot_delay=self.bot_pace, bot_processes=self.bot_processes),
            choice.bind,
            choice.port,
            plugins=[Advertiser(choice.name)] if self.advertise else [],  # others find it on the LAN
        )
        try:
            await host.start()
        except OSError as error:
            raise ValueError(cannot_listen(error, choice.bind, choice.port)) from None
        player = host.player(choice.name)
        try:
            await player.start()
            table = await player.create_table(choice.table)
        except LobbyError as error:
            await host.close()
            raise ValueError(error.message) from None

        async def stop(reason: str = SHUTDOWN_REASON) -> None:
            await host.close(reason, forget=True)  # its games end, as the dialog says (and as `nothanks host` does)

        return Hosting(
            lobby=player, table=table, join_lines=join_lines(choice.bind, host.port), port=host.port, close=stop
        )


def run_local_game(
    players: int = 4,
    bot: str = DEFAULT_BOT,
    seed: int | None = None,
    open_chips: bool = False,
    variant: str = STANDARD,
    name: str = "you",
    bot_pace: float = BOT_PACE,
    turn_clock: float | None = None,
    plain: bool = False,
) -> int:
    """You against bots at one table in this terminal (``plain``: in plain lines); returns the exit code."""
    # Kept as a host keeps its games: `nothanks history`, `nothanks replay`.
    launchers = LocalLaunchers(bot_pace, records_dir=paths.records_dir())
    choice = SoloChoice(name, players, bot, open_chips, variant, turn_clock)
    try:
        connection = solo_table(launchers.solo_game(choice, seed))
    except BadName:
        print("nothanks play: --name: " + error_sentence(errors.BAD_NAME))  # (BadName's own words are English)
        return 2
    if plain:
        from ..client.plain import run_plain

        return run_plain(connection)
    remembered = Remembered.of_this_user()  # the player's preferences (the bell, chat muted)
    app = NoThanksApp(
        connection, launchers=launchers, exit_on_signals=True, remembered=remembered, reviewer=review_view
    )
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
        reviewer=review_view,
    )
    return run_app(app)
