"""``nothanks history``, ``nothanks replay`` and ``nothanks review``: the finished games kept in this machine's data
dir (local games and a host's with the same data dir), on the client's screens or graded as text or JSON; a damaged
record or store is said in one sentence."""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nothanks_server.history import StoreHistory

from .. import paths
from ..engine import view_for
from ..i18n import _
from ..link import LobbyError
from . import run_app
from .translated_parser import TranslatedParser

if TYPE_CHECKING:
    from ..client.replaying import Replay

# The screens are imported where they are opened: `nothanks server` reads this module for its parser and should not
# load Textual screens it never shows (they cost the host about 18 MiB and 0.2 s at start).


def add_parsers(sub: argparse._SubParsersAction[TranslatedParser]) -> None:
    where = _("the data dir holding the games (default {path})").format(path=paths.records_dir())
    history = sub.add_parser("history", help=_("list finished games, newest first, and replay any of them"))
    history.add_argument("--stats", action="store_true", help=_("open on the players' statistics"))
    history.add_argument("--leaderboard", action="store_true", help=_("open on the players' ratings, best first"))
    history.add_argument("--data-dir", type=Path, help=where)
    replay = sub.add_parser("replay", help=_("step through a finished game, move by move"))
    review = sub.add_parser("review", help=_("grade a player's decisions in a finished game, costliest first"))
    for command in (replay, review):
        command.add_argument("file", nargs="?", type=Path, help=_("a game record (nothanks-record/1 JSON)"))
        command.add_argument("--last", action="store_true", help=_("the last game finished here"))
        command.add_argument("--data-dir", type=Path, help=where)
    review.add_argument("--player", help=_("whose decisions (default: the only player who is not a bot)"))
    review.add_argument("--json", action="store_true", help=_("the review as JSON (docs/review.md)"))


def missing_data_dir(args: argparse.Namespace, command: str) -> bool:
    """Say so if ``--data-dir`` names no directory (a mistyped path is not "no finished game yet")."""
    given: Path | None = args.data_dir
    if given is None or given.is_dir():
        return False
    print(f"nothanks {command}: " + _("--data-dir {path}: no such directory").format(path=given))
    return True


def _show(screen: Callable[[], Any]) -> int:
    """Run the app on ``screen`` alone (``history`` and ``replay``), reviews at hand."""
    from ..bots.review import review_view
    from ..client.app import NetApp

    return run_app(NetApp(screen, exit_on_signals=True, reviewer=review_view))


def run_history(args: argparse.Namespace) -> int:
    from ..client.screens.history import HistoryScreen, LeaderboardScreen, StatsScreen

    if missing_data_dir(args, "history"):
        return 2
    source = StoreHistory(args.data_dir or paths.records_dir())
    screen = LeaderboardScreen if args.leaderboard else StatsScreen if args.stats else HistoryScreen
    return _show(lambda: screen(source))


def chosen_game(args: argparse.Namespace, command: str) -> Replay | int:
    """The game ``nothanks replay`` or ``review`` was asked for, or the exit status once it said why there is none."""
    from ..client.replaying import ReplayError, load_replay, read_record_file
    from ..client.safe_text import clean_message

    if args.file is not None and args.last:
        print(f"nothanks {command}: " + _("give a FILE or --last, not both"))
        return 2
    if args.file is None and not args.last:
        print(f"nothanks {command}: " + _("give a record FILE, or --last for the last game finished here"))
        return 2
    if args.file is None and missing_data_dir(args, command):
        return 2
    try:
        if args.file is not None:
            return load_replay(read_record_file(args.file))
        return load_replay(asyncio.run(StoreHistory(args.data_dir or paths.records_dir()).latest_game()))
    except ReplayError as error:
        print(f"nothanks {command}: {error}")
    except LobbyError as error:
        print(f"nothanks {command}: " + clean_message(_(error.message)))  # (this machine's own store says why)
    return 1


def run_replay(args: argparse.Namespace) -> int:
    from ..client.screens.replay import ReplayScreen

    replay = chosen_game(args, "replay")
    return replay if isinstance(replay, int) else _show(lambda: ReplayScreen(replay))


def run_review(args: argparse.Namespace) -> int:
    """``nothanks review``: one player's decisions graded (``bots/review.py``), as text or JSON."""
    from ..bots.review import review_view
    from ..client.replaying import your_seat
    from ..client.reviewing import review_lines
    from ..client.safe_text import display_name

    replay = chosen_game(args, "review")
    if isinstance(replay, int):
        return replay
    names = [seat.name for seat in replay.seats]
    seat = your_seat(replay) if args.player is None else names.index(args.player) if args.player in names else None
    if seat is None:
        listed = ", ".join(display_name(name, 24) for name in names)
        print("nothanks review: " + _("give --player NAME, one of: {names}").format(names=listed))
        return 2
    review = review_view(view_for(replay.final, seat))
    if args.json:
        print(json.dumps({**review, "player": names[seat]}, indent=1, ensure_ascii=False))
        return 0
    print(_("Review of {name}'s game").format(name=display_name(names[seat], 40)))
    print("\n".join(review_lines(review)))
    return 0
