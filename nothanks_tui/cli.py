"""``nothanks`` and its subcommands: the one entry point for playing, simulating and hosting.

The commands' modules are imported when the parser is built or a command runs, not when this module is: a bot
worker process (``nothanks_server.thinking``, started by ``spawn``) runs the ``nothanks`` script again as
``__mp_main__``, which imports this module, and needs none of the host, the SSH front or the client
(``scripts/bench_bot_worker.py`` reports a worker's size).
"""

from __future__ import annotations

import argparse
import importlib
import os
from collections.abc import Callable, Sequence

from . import __version__
from .bots import bot_names, describe
from .commands.argtypes import bot_name, players, positive
from .defaults import BOT_PACE, DEFAULT_BOT, MIN_BOT_PACE, SOLO_BOTS_ROUND
from .i18n import LANGUAGES, _, choose_language, use_language


def non_negative(text: str) -> float:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be >= 0")
    return value


LANG_HELP = (
    "the game's language: " + ", ".join(LANGUAGES) + " (default: the one last chosen on the start screen, else "
    "LC_ALL, LC_MESSAGES or LANG, else English)"
)


def add_lang_option(parser: argparse.ArgumentParser, *, top: bool = False) -> None:
    """``--lang`` on ``nothanks`` itself and on each command that opens the game's screens."""
    parser.add_argument(
        "--lang", choices=LANGUAGES, default=None if top else argparse.SUPPRESS, metavar="LANG", help=LANG_HELP
    )


def build_parser() -> argparse.ArgumentParser:
    from .commands import advise as advise_command
    from .commands import history as history_command
    from .commands import net as net_command
    from .commands import simulate as simulate_command
    from .commands import tournament as tournament_command

    parser = argparse.ArgumentParser(
        prog="nothanks",
        description="No Thanks! in the terminal. With no subcommand, opens the start screen.",
    )
    parser.add_argument("--version", action="version", version=f"nothanks {__version__}")
    add_lang_option(parser, top=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser("play", help="play against bots at one table in this terminal")
    play.add_argument("--players", type=players, default=4, help="seats at the table, you included (2..7, default 4)")
    play.add_argument(
        "--bot",
        type=bot_name,
        default=DEFAULT_BOT,
        metavar="NAME",
        help=f"bot for the other seats (default {DEFAULT_BOT}): "
        + "; ".join(f"{name}: {describe(name)}" for name in bot_names())
        + "; ismcts:N: ismcts with N iterations",
    )
    play.add_argument("--seed", type=int, default=None, help="deal from this seed (default: random)")
    play.add_argument("--open-chips", action="store_true", help="everyone's chip count is visible")
    play.add_argument(
        "--tactical", action="store_true", help="tactical variant: 10, 20, 30 always set aside, 1 chip fewer"
    )
    play.add_argument("--name", default=None, help="your display name (default: you, in your language)")
    add_lang_option(play)
    play.add_argument(
        "--bot-pace",
        type=non_negative,
        default=BOT_PACE,
        metavar="SECONDS",
        help=f"how long a bot waits before moving, give or take a quarter (default {BOT_PACE}; at big tables the "
        f"bots between your turns take about {SOLO_BOTS_ROUND:g} s in all, each at least {MIN_BOT_PACE:g} s)",
    )

    simulate_command.add_parser(sub, players, positive)
    tournament_command.add_parser(sub, players, positive)
    advise_command.add_parser(sub)
    net_command.add_parsers(sub, players)
    history_command.add_parsers(sub)
    for name in ("host", "join", "history", "replay"):
        add_lang_option(sub.choices[name])
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    use_language(choose_language(args.lang, remembered_language(), os.environ))  # every app and message after this
    if args.command == "play":
        return _play(args)
    if args.command in COMMANDS:
        module, function = COMMANDS[args.command]
        command: Callable[[argparse.Namespace], int] = getattr(importlib.import_module(module, __package__), function)
        return command(args)
    from .commands.play import run_start_screen

    return run_start_screen()


def remembered_language() -> str | None:
    """The language last chosen on the start screen (kept with the player's other choices), if any."""
    from .client.remembered import Remembered

    return Remembered.of_this_user().language


def _play(args: argparse.Namespace) -> int:
    from .commands.play import run_local_game

    return run_local_game(
        players=args.players,
        bot=args.bot,
        seed=args.seed,
        open_chips=args.open_chips,
        tactical=args.tactical,
        name=args.name or _("you"),
        bot_pace=args.bot_pace,
    )


COMMANDS: dict[str, tuple[str, str]] = {  # a subcommand's (module, function), imported when it runs
    "simulate": (".commands.simulate", "run"),
    "tournament": (".commands.tournament", "run"),
    "advise": (".commands.advise", "run"),
    "server": (".commands.net", "run_server"),
    "host": (".commands.net", "run_host"),
    "join": (".commands.net", "run_join"),
    "history": (".commands.history", "run_history"),
    "replay": (".commands.history", "run_replay"),
}


if __name__ == "__main__":
    raise SystemExit(main())
