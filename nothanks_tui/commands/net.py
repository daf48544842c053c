"""``nothanks server``, ``nothanks host`` and ``nothanks join``: wiring between argparse and the host and client.
The command line is the one place that composes both: ``nothanks host`` plays at a table of its own ``Host``."""

from __future__ import annotations

import argparse
import asyncio
import logging
import math
import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from nothanks_server.cluster.settings import DirectoryUnavailable
from nothanks_server.host import Host, HostPlugin, PlayerPorts, Servable, serve, start
from nothanks_server.limits import ClientLimits
from nothanks_server.lobby import LobbySettings
from nothanks_server.ssh.front import SSHFrontError
from nothanks_server.store import StoreError
from nothanks_server.tcp import RATE_PER_SECOND
from nothanks_server.thinking import DEFAULT_PROCESSES as DEFAULT_BOT_PROCESSES

from .. import paths
from ..bots import bot_names, bots_help, offered_bots
from ..bots.review import review_view
from ..client.error_sentences import error_sentence
from ..client.remembered import Remembered
from ..client.safe_text import clean_message
from ..client.seat_tokens import SeatTokens, resume_saved
from ..defaults import BOT_PACE, DEFAULT_BOT, DEFAULT_PORT, SERVER_TURN_CLOCK, TURN_CLOCK, TURN_TIMER
from ..i18n import N_, _
from ..link import LobbyError, NewTable, errors
from ..link.identity import Identity
from ..link.names import BadName, clean_name
from . import argtypes, cluster_options, failed, run_app
from .addresses import hosting_lines, join_lines, ssh_lines
from .argtypes import add_limit, add_variant_options, number, players, port, processes, whole_number, within
from .host_errors import cannot_listen, data_dir_problem
from .ssh_options import add_ssh_options, ssh_settings_from
from .translated_parser import TranslatedParser

if TYPE_CHECKING:
    from ..client.app import NoThanksApp
    from ..client.discovery import HostBrowser


_some_seconds = within(number, 0, math.inf, N_("must be >= 0 (or 'off')"))


def _seconds(text: str) -> float | None:
    return None if text.lower() in ("off", "none", "never") else _some_seconds(text)


def _host_options(parser: argparse.ArgumentParser, keeps: str | None = None, clock: float | None = None) -> None:
    """The options ``server`` and ``host`` share; ``keeps``: what else the data dir holds (``host``'s log); ``clock``:
    the default turn clock."""
    parser.add_argument("--bind", default="0.0.0.0", help=_("address to listen on (default 0.0.0.0: every interface)"))
    parser.add_argument(
        "--port", type=port, default=DEFAULT_PORT, help=_("TCP port (default {port})").format(port=DEFAULT_PORT)
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        help=_("where the host keeps its tables (nothanks.sqlite3) and finished games' records (*.json)")
        + (keeps or ""),
    )
    parser.add_argument(
        "--bot-processes",
        type=processes,
        default=DEFAULT_BOT_PROCESSES,
        metavar="N",
        help=_(
            "worker processes for the hard and expert bots' searches and the coach, at a lower priority than the "
            "host, so that no search holds up the players (default {default}: half this machine's cores; "
            "0: in the host's own threads)"
        ).format(default=DEFAULT_BOT_PROCESSES),
    )
    parser.add_argument(
        "--bot-pace",
        type=number,
        default=BOT_PACE,
        metavar="SECONDS",
        help=_("how long a bot waits before moving, give or take a quarter ({pace})").format(pace=BOT_PACE),
    )
    parser.add_argument(
        "--turn-timer",
        type=_seconds,
        default=TURN_TIMER,
        metavar="SECONDS",
        help=_("an away player's turn waits this long, then a bot plays for them until they return ({default})").format(
            default="off" if TURN_TIMER is None else _("{seconds:g}; 'off' waits forever").format(seconds=TURN_TIMER)
        ),
    )
    argtypes.add_turn_clock_option(parser, clock)
    parser.add_argument(
        "--bot",
        choices=bot_names(),
        default=DEFAULT_BOT,
        metavar="NAME",  # (the choices are in the help: listed in the usage line they ran past 80 columns)
        help=_("the bots' level (default {default}): {levels}").format(default=DEFAULT_BOT, levels=bots_help()),
    )
    parser.add_argument(
        "--no-advertise",
        action="store_true",
        help=_("do not announce this host on the local network (mDNS/DNS-SD); players then join by address"),
    )
    _limit_options(parser)
    add_ssh_options(parser)


def _host(args: argparse.Namespace, name: str, **more: Any) -> Host:
    """The host the options describe, advertised on the LAN as ``name``."""
    ssh, limits = ssh_settings_from(args), _limits(args)
    return Host(_settings(args), args.bind, args.port, ssh=ssh, limits=limits, plugins=_plugins(args, name), **more)


def _plugins(args: argparse.Namespace, name: str) -> list[HostPlugin]:
    """What runs beside the host: its advertisement on the LAN, unless ``--no-advertise``."""
    if args.no_advertise:
        return []
    from nothanks_server.advertise import Advertiser

    return [Advertiser(name)]


def add_parsers(sub: argparse._SubParsersAction[TranslatedParser]) -> None:
    server = sub.add_parser("server", help=_("run a headless host with a lobby of tables (Ctrl-C stops it)"))
    _host_options(server, clock=SERVER_TURN_CLOCK)
    server.add_argument("-v", "--verbose", action="store_true", help=_("log every connection"))
    server.add_argument(
        "--rate-limit",
        type=number,
        metavar="N",
        help=_("messages per second one connection may send before it is closed as a flood (50; benchmarks raise it)"),
    )
    cluster_options.add_proxy_options(server)
    cluster_options.add_cluster_options(server)

    host = sub.add_parser("host", help=_("host a game on the LAN and play at it in this terminal"))
    _host_options(host, clock=TURN_CLOCK, keeps=_(", and its log (host.log)"))
    host.add_argument("--players", type=players, default=3, help=_("seats at your table (2..7, default 3)"))
    host.add_argument("--bots", type=whole_number, default=0, help=_("seats filled with bots right away (default 0)"))
    host.add_argument("--name", default="host", help=_("your display name"))
    host.add_argument("--open-chips", action="store_true", help=_("everyone's chip count is visible"))
    host.add_argument(
        "--coach", action="store_true", help=_("players at your table may ask what the hard bot would play (key i)")
    )
    add_variant_options(host)

    join = sub.add_parser("join", help=_("join a host's lobby: HOST or HOST:PORT, or one found on the LAN"))
    join.add_argument(
        "address",
        metavar="HOST[:PORT]",
        nargs="?",
        help=_(
            "the host's address, and its port if not {port}; without it, choose among the hosts found on the "
            "local network (or type an address there)"
        ).format(port=DEFAULT_PORT),
    )
    join.add_argument("--name", help=_("your display name (default: your login name)"))
    join.add_argument(
        "--code", metavar="CODE", help=_("a private table's invite code: sit there (watch it if no seat is free)")
    )
    argtypes.add_plain_option(join)


def _settings(args: argparse.Namespace) -> LobbySettings:
    return LobbySettings(
        data_dir=args.data_dir or paths.records_dir(),
        bot_delay=max(0.0, args.bot_pace),
        turn_timer=args.turn_timer,
        turn_clock=args.turn_clock,
        default_bot=args.bot,
        max_tables=args.max_tables,
        max_tables_per_address=args.per_address_tables,
        unstarted_table_timeout=args.unstarted_table_timeout,
        bot_processes=args.bot_processes,
    )


def _limits(args: argparse.Namespace) -> ClientLimits:
    """The limits ``_limit_options`` set (named as ``ClientLimits``'s fields), the others at their defaults."""
    return msgspec.convert(args, ClientLimits, from_attributes=True)


def _limit_options(parser: argparse.ArgumentParser) -> None:
    """What one address or one idle connection may hold (README, "Security model"; docs/protocol.md)."""
    limits, lobby = ClientLimits(), LobbySettings()
    group = parser.add_argument_group(_("limits per address (a LAN party never meets them)"))
    said = _("TCP connections from one address ({default})")
    add_limit(group, "--per-address-connections", limits.per_address_connections, said)
    said = _("new TCP connections one address may open a minute, as many at once ({default})")
    add_limit(group, "--connects-per-minute", limits.connects_per_minute, said)
    said = _("TCP connections in all; one more closes the least used of the address holding the most ({default})")
    add_limit(group, "--max-connections", limits.max_connections, said)
    said = _("tables in all; one more closes the oldest where no person moved ({default})")
    add_limit(group, "--max-tables", lobby.max_tables, said)
    for version, bits in ((4, 32), (6, 128)):
        default = getattr(limits, f"v{version}_prefix")
        group.add_argument(
            f"--ipv{version}-prefix",
            dest=f"v{version}_prefix",
            type=within(whole_number, 8, bits, N_("must be {least}..{most}")),
            default=default,
            metavar="PREFIX",
            help=_("IPv{version} addresses in one /PREFIX count as one address in the TCP limits ({default})").format(
                version=version, default=default
            ),
        )
    said = _("open tables created from one address ({default})")
    add_limit(group, "--per-address-tables", lobby.max_tables_per_address, said)
    said = _("tables watched at once from one address ({default})")
    add_limit(group, "--per-address-spectating", limits.per_address_spectating, said)
    said = _("a connection at no table is closed after this long ({seconds:g})")
    add_limit(group, "--lobby-idle", limits.lobby_idle, said, kind=number, metavar="SECONDS")
    said = _("a table whose game has not started closes after this long ({seconds:g})")
    add_limit(group, "--unstarted-table-timeout", lobby.unstarted_table_timeout, said, kind=number, metavar="SECONDS")


def run_join(args: argparse.Namespace) -> int:
    if args.name is not None:  # refused here, in a sentence: 10 kB sent to a host came back as "too long"
        try:
            clean_name(args.name)
        except BadName:
            return failed("join", "--name: " + error_sentence(errors.BAD_NAME), 2)
    if argtypes.plain_wanted(args):
        return _join_plain(args.address, args.name, args.code)
    if args.address is None:  # the start screen's Join tab alone, listing the hosts on the LAN
        from ..client.discovery import ZeroconfBrowser

        return run_app(join_found_app(args.name, ZeroconfBrowser))
    from ..client.netlaunch import run_join as join

    return join(args.address, args.name, args.code, **app_options(DEFAULT_BOT))


def app_options(default_bot: str) -> dict[str, Any]:
    """What the apps of ``join`` and ``host`` are given: this user's remembered choices, the bots a new table may
    have (``default_bot`` first), and the reviewer of a finished game (the client never imports the bots)."""
    bots, remembered = offered_bots(default_bot), Remembered.of_this_user()
    return dict(remembered=remembered, bot_choices=bots, default_bot=default_bot, reviewer=review_view)


def _join_plain(address: str | None, name: str | None, code: str | None) -> int:
    """``nothanks join --plain``: the host's lobby in plain lines (hosts on the LAN are found on the screens only),
    or the private table ``code`` invites to."""
    from ..client.plain import run_plain
    from ..client.remembered import login_name
    from ..client.tcp import parse_address

    try:
        parse_address(address or "")
    except ValueError as error:
        return failed("join", str(error), 2)
    return run_plain(join=(address or "", name or login_name(), code))


def join_found_app(name: str | None, host_browser: Callable[[], HostBrowser]) -> NoThanksApp:
    """The app ``nothanks join`` opens without an address: the Join tab alone, its list fed by ``host_browser``."""
    from ..client.app import NoThanksApp
    from ..client.screens.net_forms import JoinForm

    options = app_options(DEFAULT_BOT)
    if name:
        options["remembered"].name = name  # this run's name, in the field (kept only if the player joins)
    return NoThanksApp(start_forms=[JoinForm()], exit_on_signals=True, host_browser=host_browser, **options)


async def host_and_play(host: Host, name: str, table: NewTable, on_ready: Callable[[Host], None]) -> int:
    """Start ``host``, seat ``name`` at a new table of it (or the seat it held before a restart on the same data
    dir) and play there in this terminal; the host stops with the app (and a signal to the host closes the app)."""
    from ..client.netlaunch import NetApp, first_screen_for

    await host.start()
    try:
        owner: str | None = Identity.load().owner  # the hosting player's name is theirs here (their `join` key's)
    except (OSError, ValueError):
        owner = None  # (a key that cannot be read: the name is not claimed)
    player = host.player(name, owner)
    tokens = SeatTokens()
    own = f"host {(host.settings.data_dir or paths.records_dir()).resolve()}"
    try:
        await player.start()
        connection = await resume_saved(player, player.name, tokens, own) or await player.create_table(table)
        tokens.put(own, player.name, connection.seat_token)
    except LobbyError as error:
        await host.close()
        print("nothanks host: " + clean_message(error_sentence(error.code, error.message)))
        return 1
    on_ready(host)
    first = first_screen_for(player, connection, join_lines(host.bind, host.port))
    app = NetApp(first, is_host=True, **app_options(host.lobby.settings.default_bot))
    # (no farewell from the app: run_host says "nothanks host stopped." once the terminal is back)
    await serve([host], main=app.run_async, stop_main=lambda: app.exit(0))
    return app.return_code or 0


def log_file_handler(path: Path) -> logging.FileHandler:
    """A handler appending to ``path``, opened with O_NOFOLLOW: a symbolic link planted there is an error (ELOOP),
    never written through. (A FileHandler, so that the SSH workers find the file and log there too: ssh/front.py.)"""
    handler = logging.FileHandler(path, delay=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    handler.stream = os.fdopen(descriptor, "a", encoding="utf-8")
    return handler


def run_host(args: argparse.Namespace) -> int:
    settings = _settings(args)
    if not 0 <= args.bots < args.players:
        return failed("host", _("--bots must be 0..{most} (one seat is yours)").format(most=args.players - 1), 2)
    data_dir = settings.data_dir or paths.records_dir()
    if (problem := data_dir_problem(data_dir)) is not None:
        return failed("host", problem)
    log_file = data_dir / "host.log"  # (the terminal is the app's)
    try:
        handler = log_file_handler(log_file)
    except OSError as error:
        message = _("cannot write the log {path} (a symbolic link is never followed): {error}")
        return failed("host", message.format(path=log_file, error=error.strerror))
    logging.basicConfig(handlers=[handler], level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    table = msgspec.convert(args, NewTable, from_attributes=True)  # --players, --bots, --bot, --open-chips...
    try:
        host = _host(args, args.name)
    except StoreError as error:
        return failed("host", str(error))

    def ready(host: Host) -> None:
        # Called once both listen, before the app takes the terminal: the ports bound, never a requested 0.
        fingerprint = host.ssh_front.host_key_fingerprint() if host.ssh_front is not None else None
        print(*hosting_lines(args.bind, host.port, host.ssh_port, fingerprint), sep="\n", flush=True)
        print(_("The host's log: {path}").format(path=log_file), flush=True)

    try:
        code = asyncio.run(host_and_play(host, args.name, table, ready))
    except SSHFrontError as error:
        return failed("host", str(error))
    except OSError as error:
        return failed("host", cannot_listen(error, args.bind, args.port))
    if code != 1:  # (1: it said why it did not start)
        print(_("nothanks host stopped."))
    return code


def run_server(args: argparse.Namespace) -> int:
    """A single host, or a member of a cluster (``--redis``: a front, a table host, or both; docs/scaling.md)."""
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, format="%(asctime)s %(name)s: %(message)s"
    )
    settings = _settings(args)
    complaint = cluster_options.proxy_complaint(args) or cluster_options.cluster_complaint(args)
    if complaint is not None:
        return failed("server", complaint, 2)
    if settings.data_dir is not None and (problem := data_dir_problem(settings.data_dir)) is not None:
        return failed("server", problem)
    cluster = cluster_options.cluster_settings_from(args)
    rate = args.rate_limit if args.rate_limit is not None else RATE_PER_SECOND
    players: PlayerPorts | None
    tables: Host | None
    try:
        if cluster is not None:
            players, tables = cluster_options.member(args, settings, cluster, _limits(args), rate)
        else:
            name = socket.gethostname().split(".")[0] or "nothanks server"
            players = tables = _host(args, name, rate=rate, proxy_from=args.proxy_from)
    except StoreError as error:
        return failed("server", str(error))
    # Started in this order, closed in the other: a member's front stops before its table host.
    parts: list[Servable] = [part for part in dict.fromkeys([tables, players]) if part is not None]

    def ready() -> None:  # printed once SIGTERM is handled: whoever reads the first line may stop us cleanly
        port = players.port if players is not None else tables.port if tables is not None else args.port
        print(f"nothanks server listening on {args.bind}:{port}; data in {settings.data_dir}", flush=True)
        if tables is not None and tables.cluster is not None:
            print(f"table port {args.bind}:{tables.port}", flush=True)
            print(f"  in the cluster as {tables.cluster.host_id} ({tables.cluster.role})", flush=True)
        if players is not None:
            print("Players join with:", *join_lines(args.bind, players.port), sep="\n", flush=True)
        if players is not None and players.ssh_front is not None:  # scripts/bench_ssh.py reads `ssh -p PORT`
            ssh = ssh_lines(args.bind, players.ssh_front.port)
            print("Over SSH, with nothing to install:", *ssh, sep="\n", flush=True)
            print(f"SSH host key fingerprint: {players.ssh_front.host_key_fingerprint()}", flush=True)
            print("  (what players' ssh shows on their first visit: tell them, so they can check it)", flush=True)
        print("Ctrl-C (or SIGTERM, SIGHUP) stops it; clients are told to come back; every game is kept.", flush=True)

    async def run() -> None:
        await start(parts)
        await serve(parts, ready=ready)

    try:
        asyncio.run(run())
    except (DirectoryUnavailable, SSHFrontError) as error:
        return failed("server", cluster_options.without_passwords(str(error)))  # no password
    except OSError as error:
        return failed("server", cannot_listen(error, args.bind, args.port))
    print("nothanks server stopped.", flush=True)
    return 0
