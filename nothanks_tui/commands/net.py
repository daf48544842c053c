"""``nothanks server``, ``nothanks host`` and ``nothanks join``: wiring between argparse and the host and client."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path

from ..bots import bot_names
from ..defaults import DEFAULT_BOT, DEFAULT_PORT
from .argtypes import port


def _seconds(text: str) -> float | None:
    if text.lower() in ("off", "none", "never"):
        return None
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be >= 0 (or 'off')")
    return value


def _host_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bind", default="0.0.0.0", help="address to listen on (default 0.0.0.0: every interface)")
    parser.add_argument("--port", type=port, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT})")
    parser.add_argument("--data-dir", type=Path, default=None, help="where records of finished games are written")
    parser.add_argument(
        "--bot-pace",
        type=float,
        default=0.8,
        metavar="SECONDS",
        help="how long a bot waits before moving, give or take a quarter (0.8)",
    )
    parser.add_argument(
        "--turn-timer",
        type=_seconds,
        default=60.0,
        metavar="SECONDS",
        help="an away player's turn waits this long, then a bot plays for them until they return (60; 'off')",
    )
    parser.add_argument("--bot", choices=bot_names(), default=DEFAULT_BOT, help=f"default bot ({DEFAULT_BOT})")
    from nothanks_server.ssh.options import add_ssh_options

    add_ssh_options(parser)


def add_parsers(sub: argparse._SubParsersAction, players_type) -> None:  # type: ignore[no-untyped-def]
    server = sub.add_parser("server", help="run a headless host with a lobby of tables (Ctrl-C stops it)")
    _host_options(server)
    server.add_argument("-v", "--verbose", action="store_true", help="log every connection")
    server.add_argument(
        "--rate-limit",
        type=float,
        default=None,
        metavar="N",
        help="messages per second one connection may send before it is closed as a flood (50; benchmarks raise it)",
    )

    host = sub.add_parser("host", help="host a game on the LAN and play at it in this terminal")
    _host_options(host)
    host.add_argument("--players", type=players_type, default=3, help="seats at your table (2..7, default 3)")
    host.add_argument("--bots", type=int, default=0, help="seats filled with bots right away (default 0)")
    host.add_argument("--name", default="host", help="your display name")
    host.add_argument("--open-chips", action="store_true", help="everyone's chip count is visible")
    host.add_argument("--tactical", action="store_true", help="tactical variant")

    join = sub.add_parser("join", help="join a host's lobby: HOST or HOST:PORT")
    join.add_argument("address", metavar="HOST[:PORT]")
    join.add_argument("--name", default=None, help="your display name (default: your login name)")


def _settings(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from nothanks_server import LobbySettings
    from nothanks_server.run import default_data_dir

    return LobbySettings(
        data_dir=args.data_dir or default_data_dir(),
        bot_delay=max(0.0, args.bot_pace),
        turn_timer=args.turn_timer,
        default_bot=args.bot,
    )


def join_lines(bind: str, port: int) -> list[str]:
    """How others reach this host, one ``nothanks join`` line per address."""
    from nothanks_server.run import lan_addresses

    if bind in ("0.0.0.0", "::", ""):
        addresses = lan_addresses() or ["<this machine's address>"]
    else:
        addresses = [bind]
    suffix = "" if port == DEFAULT_PORT else f":{port}"
    return [f"  nothanks join {address}{suffix}" for address in addresses]


def hosting_lines(bind: str, port: int, ssh_port: int | None) -> list[str]:
    """What ``nothanks host`` prints before its app starts, given the ports actually bound (``--port 0`` picks one)."""
    lines = [f"Hosting on {bind}:{port}. Others join with:", *join_lines(bind, port)]
    if ssh_port is not None:
        lines.append(f"  ssh -p {ssh_port} play@<this machine>")
    return lines


def run_join(args: argparse.Namespace) -> int:
    from ..client.netlaunch import run_join as join

    return join(args.address, args.name)


def run_host(args: argparse.Namespace) -> int:
    from nothanks_server.ssh.options import ssh_settings_from

    from ..client.netlaunch import host_async
    from ..link import NewTable

    settings = _settings(args)
    if not 0 <= args.bots < args.players:
        print(f"nothanks host: --bots must be 0..{args.players - 1} (one seat is yours)", file=sys.stderr)
        return 2
    log_file = settings.data_dir.parent / "host.log" if settings.data_dir else None
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        logging.basicConfig(filename=log_file, level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    table = NewTable(
        players=args.players,
        bots=args.bots,
        bot=args.bot,
        open_chips=args.open_chips,
        variant="tactical" if args.tactical else "standard",
    )
    ssh = ssh_settings_from(args)
    ssh_port: list[int] = []

    def ssh_ready(front) -> None:  # type: ignore[no-untyped-def]
        ssh_port.append(front.port)

    def ready(host) -> None:  # type: ignore[no-untyped-def]
        # Called once both listen, before the app takes the terminal: the ports bound, never a requested 0.
        for line in hosting_lines(args.bind, host.port, ssh_port[0] if ssh_port else None):
            print(line, flush=True)

    try:
        code = asyncio.run(
            host_async(
                settings,
                args.bind,
                args.port,
                args.name,
                table,
                lambda port: join_lines(args.bind, port),
                ssh=ssh,
                on_ready=ready,
                on_ssh_ready=ssh_ready,
            )
        )
    except OSError as error:
        print(f"nothanks host: cannot listen on {args.bind}:{args.port}: {error}", file=sys.stderr)
        return 1
    print("nothanks host stopped.")
    return code


def run_server(args: argparse.Namespace) -> int:
    from nothanks_server.run import serve
    from nothanks_server.ssh.options import ssh_settings_from

    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, format="%(asctime)s %(name)s: %(message)s"
    )
    settings = _settings(args)

    ssh_port: list[int] = []

    def ssh_ready(front) -> None:  # type: ignore[no-untyped-def]
        ssh_port.append(front.port)  # printed by ready(), after the TCP line: the first line always names that port

    def ready(host) -> None:  # type: ignore[no-untyped-def]
        print(f"nothanks server listening on {args.bind}:{host.port}; records in {settings.data_dir}", flush=True)
        print("Players join with:", flush=True)
        for line in join_lines(args.bind, host.port):
            print(line, flush=True)
        if ssh_port:  # scripts/bench_ssh.py reads the port from this line: keep `ssh -p PORT`
            print(f"SSH: players connect with `ssh -p {ssh_port[0]} play@<this host>`", flush=True)
        print("Ctrl-C (or SIGTERM) stops the server and tells every client.", flush=True)

    ssh = ssh_settings_from(args)
    try:
        asyncio.run(
            serve(
                settings, args.bind, args.port, on_ready=ready, rate=args.rate_limit, ssh=ssh, on_ssh_ready=ssh_ready
            )
        )
    except OSError as error:
        print(f"nothanks server: cannot listen on {args.bind}:{args.port}: {error}", file=sys.stderr)
        return 1
    print("nothanks server stopped.", flush=True)
    return 0
