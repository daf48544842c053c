"""One player against bots in this process: ``nothanks play`` and the start screen's first tab.

Local play is a host ``Table`` with one human seat, checked, paced and played exactly as at a network host. Only
the set-up differs: the table is nobody else's, a seed makes its deals reproducible, it closes when its player
leaves, and given a data dir (``records_dir``) its finished games are kept there (history.py ``LocalRecords``)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from nothanks_tui.bots import Bot, make_bot
from nothanks_tui.defaults import BOT_PACE, DEFAULT_BOT, MIN_BOT_PACE, SOLO_BOTS_ROUND
from nothanks_tui.i18n import N_
from nothanks_tui.link import ConnectionInfo, TableConnection
from nothanks_tui.link.names import clean_name

from .history import LocalRecords
from .inprocess import InProcessTable
from .table import Table, TableSettings

SOLO_TABLE_ID = "local"


@dataclass(frozen=True)
class SoloGame:
    """A local table: the human in seat 0, bots of one kind in the others. ``seed`` replays the same deals."""

    players: int = 4
    bot: str = DEFAULT_BOT
    name: str = "you"
    seed: int | None = None
    open_chips: bool = False
    variant: str = "standard"
    bot_pace: float = BOT_PACE
    chips_per_player: int | None = None  # None: the rules' count
    bot_names: Sequence[str] | None = None  # the bots' seat names; default: ana, bo, cy... (never the human's)
    records_dir: Path | None = None  # where finished games are kept (the data dir); None: not kept
    coach: bool = True  # the player may ask what the hard bot would play (nobody else is there to mind)
    turn_clock: float | None = None  # seconds per move, then a bot plays it for the player (None: off)
    daily: bool = False  # the daily deal (commands/daily.py): played once, so never "play again"


def solo_bot_pace(pace: float, bots: int) -> float:
    """Each bot's wait at a local table of ``bots`` bots: ``pace``, shortened at big tables so that the bots between
    two of your turns take about ``SOLO_BOTS_ROUND`` in all, never below ``MIN_BOT_PACE`` (a move you can read)
    unless ``pace`` itself is lower (``--bot-pace 0``: at once)."""
    pace = max(0.0, pace)
    if bots <= 0 or pace * bots <= SOLO_BOTS_ROUND + 1e-9:
        return pace
    return min(pace, max(MIN_BOT_PACE, SOLO_BOTS_ROUND / bots))


def solo_table(game: SoloGame, bots: Sequence[Bot] | None = None) -> TableConnection:
    """A new solo table with the player seated, dealt when the connection starts; ``bots``: tests' scripted ones.
    Raises ``ValueError`` (a bad name or bot, a wrong number of bots) or ``IllegalMove`` (``bad_config``)."""
    name = clean_name(game.name)  # BadName is a ValueError
    if bots is None:
        bot_seeds = random.Random(game.seed)
        bots = [
            make_bot(game.bot, None if game.seed is None else bot_seeds.randrange(2**32))
            for _ in range(game.players - 1)
        ]
    if len(bots) != game.players - 1:
        raise ValueError(f"a table of {game.players} needs {game.players - 1} bots, got {len(bots)}")
    settings = TableSettings(
        players=game.players,
        open_chips=game.open_chips,
        variant=game.variant,
        bot_delay=solo_bot_pace(game.bot_pace, len(bots)),
        turn_timer=None,  # the only human is the one who left: nobody to play for
        turn_clock=game.turn_clock,
        default_bot=game.bot,
        chips_per_player=game.chips_per_player,
        coach=game.coach,
    )
    rng = None if game.seed is None else random.Random(game.seed)
    records = None if game.records_dir is None else LocalRecords(game.records_dir)
    table = Table("daily" if game.daily else SOLO_TABLE_ID, settings, rng=rng, records=records)  # (lobby.is_daily)
    seat = InProcessTable(name, ConnectionInfo(N_("local"), {"players": str(game.players)}))
    seat.seated(table, table.join(seat)[0], None)  # no token: leaving closes the table, nothing to resume
    table.seat_bots(bots, game.bot_names or ())  # (by default the table names them: ana, bo...)
    return seat
