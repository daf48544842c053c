"""``nothanks simulate``, ``tournament`` and ``advise``: wiring between argparse and the bots' headless games
(``nothanks_tui.simulate``, ``nothanks_tui.tournament``) and ``nothanks_tui.advise``."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

from ..bots import bot_names
from ..defaults import DEFAULT_BOT
from ..i18n import _
from . import failed
from .argtypes import MOST_JOBS, add_variant_options, bot_name, jobs, players, positive
from .translated_parser import TranslatedParser


def _deals(parser: argparse.ArgumentParser, games: int, games_help: str, seed_help: str) -> None:
    """``--players``, ``--games``, ``--seed`` and ``--open-chips``: the tables a command plays, and their deals."""
    parser.add_argument("--players", type=players, default=3, help=_("seats at each table (2..7, default 3)"))
    parser.add_argument("--games", type=positive, default=games, help=games_help)
    parser.add_argument("--seed", type=int, default=0, help=seed_help)
    parser.add_argument("--open-chips", action="store_true", help=_("play with everyone's chips visible"))


def add_simulate(sub: argparse._SubParsersAction[TranslatedParser]) -> None:
    simulate = sub.add_parser("simulate", help=_("play many bot games headless and print a summary"))
    _deals(
        simulate,
        1000,
        _("how many games (default 1000)"),
        _("the first deal's seed; the same seed plays the same games"),
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
    add_variant_options(simulate)


def run_simulate(args: argparse.Namespace) -> int:
    from ..simulate import simulate

    if args.records is not None:
        try:
            args.records.mkdir(parents=True, exist_ok=True)  # (here, so a bad path is said before any game)
        except OSError as error:
            why = _("not a directory") if args.records.exists() else error.strerror
            return failed("simulate", f"--records {args.records}: {why}", 2)
    try:
        same = {key: getattr(args, key) for key in ("players", "games", "seed", "open_chips", "variant")}
        result = simulate(**same, bot_names=args.bot or [DEFAULT_BOT], records_dir=args.records)
    except ValueError as error:
        return failed("simulate", str(error), 2)
    try:
        print(result.table(), flush=True)
    except BrokenPipeError:  # e.g. piped into `head`
        sys.stderr.close()
    return 0


def add_tournament(sub: argparse._SubParsersAction[TranslatedParser]) -> None:
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
    _deals(
        parser,
        300,
        _("at least this many games (whole deals)"),
        _("the first deal's seed; the same seed plays the same deals"),
    )
    parser.add_argument(
        "--jobs",
        type=jobs,
        default=min(os.cpu_count() or 1, MOST_JOBS),
        help=_("worker processes (default: every core)"),
    )
    parser.add_argument(
        "--mixed",
        action="store_true",
        help=_("two bots A B: play every mix of A and B seats (--games each) and print a head-to-head table"),
    )
    parser.add_argument("--json", type=Path, default=None, metavar="FILE", help=_("also write the report as JSON"))
    parser.add_argument("--format", choices=("table", "json"), default="table", help=_("what to print on stdout"))
    parser.add_argument("-v", "--verbose", action="store_true", help=_("log progress to stderr"))


def run_tournament(args: argparse.Namespace) -> int:
    from ..tournament import MixedReport, TournamentReport, expand_lineup, mixed_tournament, tournament

    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    report: MixedReport | TournamentReport
    if args.json is not None and (problem := unwritable(args.json)) is not None:  # before hours of games, not after
        return failed("tournament", f"--json {args.json}: {problem}", 2)
    common = {key: getattr(args, key) for key in ("players", "games", "seed", "jobs", "open_chips")}
    try:
        if args.mixed:
            if len(args.bots) != 2:
                raise ValueError(_("--mixed takes exactly two bots"))
            expand_lineup(args.bots, args.players)  # unknown names fail before any game is played
            report = mixed_tournament(args.bots[0], args.bots[1], **common)
        else:
            report = tournament(args.bots, **common)
    except ValueError as error:
        return failed("tournament", str(error), 2)
    data = json.dumps(report.to_dict(), indent=2)
    print(data if args.format == "json" else report.table())
    if args.json is not None:
        try:
            args.json.write_text(data + "\n")
        except OSError as error:  # (it became unwritable while the games were played: the report is above)
            return failed("tournament", f"--json {args.json}: {error.strerror}")
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


def add_advise(sub: argparse._SubParsersAction[TranslatedParser]) -> None:
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


def run_advise(args: argparse.Namespace) -> int:
    from ..advise import advise_lines

    advise_lines(sys.stdin, sys.stdout, bot_name=args.bot, seed=args.seed)
    return 0
