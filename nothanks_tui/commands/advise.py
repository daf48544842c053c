"""``nothanks advise``: wiring between argparse and ``nothanks_tui.advise``."""

from __future__ import annotations

import argparse
import sys

from ..bots import bot_names
from ..i18n import _
from .argtypes import bot_name
from .translated_parser import TranslatedParser


def add_parser(sub: argparse._SubParsersAction[TranslatedParser]) -> None:
    parser = sub.add_parser(
        "advise",
        help=_("read JSON positions on stdin, write the bot's move per line (docs/advise.md)"),
        description=_("One JSON position per line on stdin, one JSON answer per line on stdout. See docs/advise.md."),
    )
    parser.add_argument(
        "--bot",
        type=bot_name,
        default="hard",
        metavar="NAME",
        help=_("bot to ask (default hard): {bots}; ismcts:N for N iterations").format(bots=", ".join(bot_names())),
    )
    parser.add_argument("--seed", type=int, default=0, help=_("the bot's seed (same seed, same answers)"))


def run(args: argparse.Namespace) -> int:
    from ..advise import advise_lines

    advise_lines(sys.stdin, sys.stdout, bot_name=args.bot, seed=args.seed)
    return 0
