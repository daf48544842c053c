"""``nothanks simulate``: wiring between argparse and ``nothanks_tui.simulate``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from ..bots import bot_names
from ..defaults import DEFAULT_BOT
from ..i18n import _
from .argtypes import add_variant_options, bot_name
from .translated_parser import TranslatedParser


def add_parser(
    sub: argparse._SubParsersAction[TranslatedParser],
    players_type: Callable[[str], int],
    positive_type: Callable[[str], int],
) -> None:
    simulate = sub.add_parser("simulate", help=_("play many bot games headless and print a summary"))
    simulate.add_argument("--players", type=players_type, default=3, help=_("seats at each table (2..7, default 3)"))
    simulate.add_argument("--games", type=positive_type, default=1000, help=_("how many games (default 1000)"))
    simulate.add_argument(
        "--seed", type=int, default=0, help=_("the first deal's seed; the same seed plays the same games")
    )
    simulate.add_argument(
        "--bot",
        action="append",
        type=bot_name,
        metavar="NAME",
        help=_(
            "bot for the seats: once for all seats, or once per seat (repeat the option; default {default}): "
            "{bots}; ismcts:N for N iterations"
        ).format(default=DEFAULT_BOT, bots=", ".join(bot_names())),
    )
    simulate.add_argument("--records", type=Path, metavar="DIR", help=_("write one record per game here"))
    simulate.add_argument("--open-chips", action="store_true", help=_("play with everyone's chips visible"))
    add_variant_options(simulate)


def run(args: argparse.Namespace) -> int:
    from ..simulate import simulate

    if args.records is not None:
        try:
            args.records.mkdir(parents=True, exist_ok=True)  # (here, so a bad path is said before any game)
        except OSError as error:
            why = _("not a directory") if args.records.exists() else error.strerror
            print(f"nothanks simulate: --records {args.records}: {why}", file=sys.stderr)
            return 2
    try:
        result = simulate(
            players=args.players,
            games=args.games,
            seed=args.seed,
            bot_names=args.bot or [DEFAULT_BOT],
            records_dir=args.records,
            open_chips=args.open_chips,
            variant=args.variant,
        )
    except ValueError as error:
        print(f"nothanks simulate: {error}", file=sys.stderr)
        return 2
    try:
        print(result.table(), flush=True)
    except BrokenPipeError:  # e.g. piped into `head`
        sys.stderr.close()
    return 0
