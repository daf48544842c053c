"""Every default the game's parts share, in one place: the ports, the bots' pace, the turn timer, the default bot.
A leaf module, so every layer may read it; the command line's help, the host and the screens follow a change here
(the README's numbers are checked by tests/test_defaults.py)."""

from __future__ import annotations

DEFAULT_PORT = 7777  # the host's TCP port (nothanks host / server / join)
DEFAULT_SSH_PORT = 2222  # the SSH front's port when --ssh-port is given without a value elsewhere
DEFAULT_BOT = "medium"  # the bot that fills a seat when nobody names one (`rules` was too easy to beat)
BOT_PACE = 0.8  # seconds a bot waits before moving, so people can follow it...
BOT_PACE_SPREAD = 0.25  # ...give or take this share of it, at random
SOLO_BOTS_ROUND = 2.4  # at a local table, the bots between two of your turns take about this long in all...
MIN_BOT_PACE = 0.4  # ...but each still waits at least this, so every move can be read in the log
TURN_TIMER: float | None = 60.0  # seconds an away player's turn waits before a bot plays for them (None: forever)
TURN_CLOCK: float | None = None  # a new table's seconds per move of a connected player, then a bot plays it (None: off)
# ...at `nothanks server`, a public host: a stalled connection must not hold a table, and two minutes never hurry a move
SERVER_TURN_CLOCK: float | None = 120.0
TURN_CLOCK_RANGE = (5.0, 600.0)  # the turn clocks a table may have, in seconds (0 or none: off)
MAX_TABLES = 500  # tables one host holds at once
