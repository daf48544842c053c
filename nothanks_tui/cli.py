"""``nothanks`` and its subcommands: the one entry point for playing, simulating and hosting. The commands' modules
are imported when used: a spawned bot worker imports this module again and needs none of the host or the client."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from . import __version__
from .bots import bots_help
from .commands import argtypes
from .commands.argtypes import add_turn_clock_option, add_variant_options, bot_name, non_negative, players
from .commands.translated_parser import TranslatedParser
from .defaults import BOT_PACE, DEFAULT_BOT, MIN_BOT_PACE, SOLO_BOTS_ROUND
from .i18n import LANGUAGES, _, choose_language, known_language, use_language

if TYPE_CHECKING:
    from .client.remembered import Remembered

LANG_OPTION = "--lang"
SHORTEST_LANG = "--lan"  # argparse takes an option's unambiguous prefix: "--la" could also be replay's --last


def add_lang_option(parser: argparse.ArgumentParser, *, top: bool = False) -> None:
    """``--lang`` on ``nothanks`` and each subcommand: the language of the screens and of these messages."""
    parser.add_argument(
        LANG_OPTION,
        choices=LANGUAGES,
        default=None if top else argparse.SUPPRESS,
        metavar="LANG",
        help=_(
            "the language of the game and of these messages: {languages} (default: the one last chosen on the "
            "start screen, else LC_ALL, LC_MESSAGES or LANG, else English)"
        ).format(languages=", ".join(LANGUAGES)),
    )


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``nothanks``, in the current language (``main`` chooses it first)."""
    from .commands import bot_games, history, net

    parser = TranslatedParser(
        prog="nothanks",
        description=_("No Thanks! in the terminal. With no subcommand, opens the start screen."),
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"nothanks {__version__}",
        help=_("show program's version number and exit"),
    )
    add_lang_option(parser, top=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser("play", help=_("play against bots at one table in this terminal"))
    play.add_argument(
        "--players", type=players, default=4, help=_("seats at the table, you included (2..7, default 4)")
    )
    play.add_argument(
        "--bot",
        type=bot_name,
        default=DEFAULT_BOT,
        metavar="NAME",
        help=_("bot for the other seats (default {default}): {bots}").format(default=DEFAULT_BOT, bots=bots_help()),
    )
    play.add_argument("--seed", type=int, help=_("deal from this seed (default: random)"))
    play.add_argument("--open-chips", action="store_true", help=_("everyone's chip count is visible"))
    add_variant_options(play)
    add_turn_clock_option(play, None)
    play.add_argument(
        "--name",
        help=_("your display name (default: the one saved on the start screen, else you, in your language)"),
    )
    argtypes.add_plain_option(play)
    play.add_argument(
        "--bot-pace",
        type=non_negative,
        default=BOT_PACE,
        metavar="SECONDS",
        help=_(
            "how long a bot waits before moving, give or take a quarter (default {pace}; at big tables the bots "
            "between your turns take about {round:g} s in all, each at least {least:g} s)"
        ).format(pace=BOT_PACE, round=SOLO_BOTS_ROUND, least=MIN_BOT_PACE),
    )

    daily = sub.add_parser(
        "daily", help=_("play today's daily deal (once a day, UTC), ranked against your own past days")
    )
    daily.add_argument("--name", help=_("your display name (default: the one saved on the start screen)"))
    daily.add_argument(
        "--bot-pace",
        type=non_negative,
        default=BOT_PACE,
        metavar="SECONDS",
        help=_("how long a bot waits before moving, in seconds (default {pace})").format(pace=BOT_PACE),
    )

    bot_games.add_simulate(sub)
    bot_games.add_tournament(sub)
    bot_games.add_advise(sub)
    net.add_parsers(sub)
    history.add_parsers(sub)
    for command in sub.choices.values():
        add_lang_option(command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    explicit = lang_in(arguments)
    remembered = None if known_language(explicit) else _remembered().language  # as last chosen on the start screen
    use_language(choose_language(explicit, remembered, os.environ))  # the parser's words and everything after
    args = build_parser().parse_args(arguments)
    if args.command == "play" or (args.command is None and os.environ.get("TERM") == "dumb"):
        return _play(args if args.command else build_parser().parse_args(["play"]))  # (no screen for TERM=dumb)
    if args.command in COMMANDS:
        module, function = COMMANDS[args.command]
        command: Callable[[argparse.Namespace], int] = getattr(importlib.import_module(module, __package__), function)
        return command(args)
    from .commands.launchers import run_start_screen

    return run_start_screen()


def lang_in(arguments: Sequence[str]) -> str | None:
    """The value of the last ``--lang X`` or ``--lang=X`` (or ``--lan``) before any ``--``, as given (argparse
    refuses an unknown one, in the language chosen without it)."""
    found = None
    for index, word in enumerate(arguments):
        if word == "--":
            break
        option, equals, value = word.partition("=")
        if not (len(option) >= len(SHORTEST_LANG) and LANG_OPTION.startswith(option)):
            continue
        if equals:
            found = value
        elif index + 1 < len(arguments):
            found = arguments[index + 1]
    return found


def _play(args: argparse.Namespace) -> int:
    from .commands.launchers import run_local_game

    keys = ("players", "bot", "seed", "open_chips", "variant", "bot_pace", "turn_clock")
    options = {key: getattr(args, key) for key in keys}
    name = args.name or _remembered().name or _("you")  # the start screen's name: its games count under it
    return run_local_game(**options, name=name, plain=argtypes.plain_wanted(args))


def _remembered() -> Remembered:
    from .client.remembered import Remembered

    return Remembered.of_this_user()


COMMANDS: dict[str, tuple[str, str]] = {  # a subcommand's (module, function), imported when it runs
    "daily": (".commands.daily", "run_daily"),
    "simulate": (".commands.bot_games", "run_simulate"),
    "tournament": (".commands.bot_games", "run_tournament"),
    "advise": (".commands.bot_games", "run_advise"),
    "server": (".commands.net", "run_server"),
    "host": (".commands.net", "run_host"),
    "join": (".commands.net", "run_join"),
    "history": (".commands.history", "run_history"),
    "replay": (".commands.history", "run_replay"),
    "review": (".commands.history", "run_review"),
}


if __name__ == "__main__":
    raise SystemExit(main())
