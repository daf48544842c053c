"""``nothanks tournament``: wiring between argparse and ``nothanks_tui.tournament``."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path

from ..bots import bot_names
from ..i18n import _
from .argtypes import MOST_JOBS, bot_name, jobs
from .translated_parser import TranslatedParser


def add_parser(
    sub: argparse._SubParsersAction[TranslatedParser],
    players_type: Callable[[str], int],
    positive_type: Callable[[str], int],
) -> None:
    parser = sub.add_parser(
        "tournament",
        help=_("paired-deal bot tournament: mean score with 95%% CI, win share, Elo, decision times"),
        description=_(
            "Plays the same deals under every seating of the line-up and reports, per bot, the mean score with a "
            "95% confidence interval, the win share (ties shared) against parity, an Elo-style rating and "
            "decision-time percentiles. Bots named for fewer seats than --players repeat the last name: "
            "'hard threshold' at 3 players is hard against two threshold bots. With --mixed and two bots A B, "
            "plays every mix (1 A against the rest B, 2 A, ...) and prints a head-to-head table."
        ),
    )
    parser.add_argument(
        "bots",
        nargs="+",
        type=bot_name,  # (an unknown name is refused as simulate's and advise's are, in the player's language)
        metavar="BOT",
        help=_("one of: {bots} (ismcts:N for N iterations)").format(bots=", ".join(bot_names())),
    )
    parser.add_argument("--players", type=players_type, default=3, help=_("seats at each table (2..7, default 3)"))
    parser.add_argument("--games", type=positive_type, default=300, help=_("at least this many games (whole deals)"))
    parser.add_argument(
        "--seed", type=int, default=0, help=_("the first deal's seed; the same seed plays the same deals")
    )
    parser.add_argument(
        "--jobs",
        type=jobs,
        default=min(os.cpu_count() or 1, MOST_JOBS),
        help=_("worker processes (default: every core)"),
    )
    parser.add_argument("--open-chips", action="store_true", help=_("play with everyone's chips visible"))
    parser.add_argument(
        "--mixed",
        action="store_true",
        help=_("two bots A B: play every mix of A and B seats (--games each) and print a head-to-head table"),
    )
    parser.add_argument("--json", type=Path, default=None, metavar="FILE", help=_("also write the report as JSON"))
    parser.add_argument("--format", choices=("table", "json"), default="table", help=_("what to print on stdout"))
    parser.add_argument("-v", "--verbose", action="store_true", help=_("log progress to stderr"))


def run(args: argparse.Namespace) -> int:
    from ..tournament import MixedReport, TournamentReport, expand_lineup, mixed_tournament, tournament

    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    report: MixedReport | TournamentReport
    if args.json is not None and (problem := unwritable(args.json)) is not None:  # before hours of games, not after
        print(f"nothanks tournament: --json {args.json}: {problem}", file=sys.stderr)
        return 2
    common = {
        "players": args.players,
        "games": args.games,
        "seed": args.seed,
        "jobs": args.jobs,
        "open_chips": args.open_chips,
    }
    try:
        if args.mixed:
            if len(args.bots) != 2:
                raise ValueError(_("--mixed takes exactly two bots"))
            expand_lineup(args.bots, args.players)  # unknown names fail before any game is played
            report = mixed_tournament(args.bots[0], args.bots[1], **common)
        else:
            report = tournament(args.bots, **common)
    except ValueError as error:
        print(f"nothanks tournament: {error}", file=sys.stderr)
        return 2
    data = json.dumps(report.to_dict(), indent=2)
    print(data if args.format == "json" else report.table())
    if args.json is not None:
        try:
            args.json.write_text(data + "\n")
        except OSError as error:  # (it became unwritable while the games were played: the report is above)
            print(f"nothanks tournament: --json {args.json}: {error.strerror}", file=sys.stderr)
            return 1
    return 0


def unwritable(path: Path) -> str | None:
    """Why the report could not be written to ``path``, or None if it can (nothing is created yet)."""
    if path.is_dir():
        return _("is a directory")
    if path.exists():
        return None if os.access(path, os.W_OK) else _("not writable")
    folder = path.parent
    if not folder.is_dir():
        return _("no such directory")
    return None if os.access(folder, os.W_OK | os.X_OK) else _("cannot create a file in its directory")
