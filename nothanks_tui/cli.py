"""``nothanks`` and its subcommands: the one entry point for playing, simulating and (later) hosting."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from .bots import bot_names
from .commands import advise as advise_command
from .commands import net as net_command
from .commands import tournament as tournament_command
from .commands.argtypes import players, positive
from .defaults import DEFAULT_BOT


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nothanks",
        description="No Thanks! in the terminal. With no subcommand, opens the start screen.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser("play", help="play against bots at one table in this terminal")
    play.add_argument("--players", type=players, default=4, help="seats at the table, you included (2..7, default 4)")
    play.add_argument(
        "--bot", choices=bot_names(), default=DEFAULT_BOT, help=f"bot for the other seats ({DEFAULT_BOT})"
    )
    play.add_argument("--seed", type=int, default=None, help="deal from this seed (default: random)")
    play.add_argument("--open-chips", action="store_true", help="everyone's chip count is visible")
    play.add_argument(
        "--tactical", action="store_true", help="tactical variant: 10, 20, 30 always set aside, 1 chip fewer"
    )
    play.add_argument("--name", default="you", help="your display name")

    simulate = sub.add_parser("simulate", help="play many bot games headless and print a summary")
    simulate.add_argument("--players", type=players, default=3)
    simulate.add_argument("--games", type=positive, default=1000)
    simulate.add_argument("--seed", type=int, default=0)
    simulate.add_argument(
        "--bot",
        action="append",
        choices=bot_names(),
        default=None,
        help="bot for the seats: once for all seats, or once per seat (repeat the option)",
    )
    simulate.add_argument("--records", type=Path, default=None, metavar="DIR", help="write one record per game here")
    simulate.add_argument("--open-chips", action="store_true")
    simulate.add_argument("--tactical", action="store_true")

    tournament_command.add_parser(sub, players, positive)
    advise_command.add_parser(sub)
    net_command.add_parsers(sub, players)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "tournament":
        return tournament_command.run(args)
    if args.command == "advise":
        return advise_command.run(args)
    if args.command == "server":
        return net_command.run_server(args)
    if args.command == "host":
        return net_command.run_host(args)
    if args.command == "join":
        return net_command.run_join(args)
    if args.command == "simulate":
        from .simulate import simulate

        try:
            result = simulate(
                players=args.players,
                games=args.games,
                seed=args.seed,
                bot_names=args.bot or [DEFAULT_BOT],
                records_dir=args.records,
                open_chips=args.open_chips,
                variant="tactical" if args.tactical else "standard",
            )
        except ValueError as error:
            print(f"nothanks simulate: {error}", file=sys.stderr)
            return 2
        try:
            print(result.table(), flush=True)
        except BrokenPipeError:  # e.g. piped into `head`
            sys.stderr.close()
        return 0
    if args.command == "play":
        from .commands.play import run_local_game

        return run_local_game(
            players=args.players,
            bot=args.bot,
            seed=args.seed,
            open_chips=args.open_chips,
            tactical=args.tactical,
            name=args.name,
        )
    from .commands.play import run_start_screen

    return run_start_screen()


if __name__ == "__main__":
    raise SystemExit(main())
