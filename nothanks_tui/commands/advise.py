"""``nothanks advise``: wiring between argparse and ``nothanks_tui.advise``."""

from __future__ import annotations

import argparse
import sys

from ..bots import bot_names
from .argtypes import bot_name


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "advise",
        help="read JSON positions on stdin, write the bot's move per line (docs/advise.md)",
        description="One JSON position per line on stdin, one JSON answer per line on stdout. See docs/advise.md.",
    )
    parser.add_argument(
        "--bot",
        type=bot_name,
        default="hard",
        metavar="NAME",
        help=f"bot to ask (default hard): {', '.join(bot_names())}; ismcts:N for N iterations",
    )
    parser.add_argument("--seed", type=int, default=0, help="the bot's seed (same seed, same answers)")


def run(args: argparse.Namespace) -> int:
    from ..advise import advise_lines

    advise_lines(sys.stdin, sys.stdout, bot_name=args.bot, seed=args.seed)
    return 0
