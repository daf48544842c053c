"""``nothanks server``'s options for a host among others (docs/scaling.md): ``--proxy-from``, the load balancers
whose PROXY v2 headers it believes (docs/load-balancer.md), and ``--redis`` and the rest, a member of a cluster (a
front, a table host, or both), composed here by ``member``.

A balancer listed by mistake could claim to be any client, so a wrong combination stops the server before anything
starts. Without ``--redis`` nothing of Redis is imported. Redis's password may come from ``NOTHANKS_REDIS_PASSWORD``
rather than the URL: a command line is anyone's to read (``ps``).
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote, urlsplit, urlunsplit

from nothanks_server.cluster.settings import ROLES, BadClusterSecret, ClusterSettings, read_secret
from nothanks_server.host import Host
from nothanks_server.limits import ClientLimits
from nothanks_server.lobby import LobbySettings
from nothanks_server.proxy_protocol import ProxySources
from nothanks_server.ssh.front import loopback_for

from ..i18n import _
from .argtypes import port
from .ssh_options import ssh_settings_from

if TYPE_CHECKING:
    from nothanks_server.cluster.gateway import FrontHost

REDIS_PASSWORD = "NOTHANKS_REDIS_PASSWORD"  # Redis's password, when the --redis URL names none


def add_cluster_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(_('more than one machine (README, "More than one machine")'))
    group.add_argument(
        "--redis",
        metavar="URL",
        help=_(
            "be a member of the cluster whose directory is on this Redis (redis://HOST:PORT/DB; its password from "
            "NOTHANKS_REDIS_PASSWORD, which `ps` does not show)"
        ),
    )
    group.add_argument(
        "--role",
        choices=ROLES,
        help=_(
            "with --redis: front (clients' TCP port and the SSH front, relaying to the table hosts), table (a "
            "table host: --port is its table port, for members only) or both (default; the table host on "
            "--table-port)"
        ),
    )
    group.add_argument(
        "--cluster-secret-file",
        type=Path,
        metavar="PATH",
        help=_(
            "with --redis, required: a file holding the members' shared secret (at least 16 characters), the "
            "same on every member"
        ),
    )
    group.add_argument(
        "--table-port",
        type=port,
        metavar="PORT",
        help=_("with --role both: the table host's port, where fronts reach its tables (default 0: any free port)"),
    )
    group.add_argument(
        "--host-id",
        default="",
        metavar="NAME",
        help=_("this host's name in the cluster, unique (default MACHINE:PORT)"),
    )
    group.add_argument(
        "--advertise",
        default="",
        metavar="HOST:PORT",
        help=_(
            "where the cluster's fronts reach this host's table port (default: --bind, or the machine's name, "
            "and the port)"
        ),
    )


def cluster_complaint(args: argparse.Namespace) -> str | None:
    """What is wrong with the cluster options, in one sentence; None if nothing (checked before anything starts)."""
    if args.redis is None:
        for option, value in (
            ("--role", args.role),
            ("--cluster-secret-file", args.cluster_secret_file),
            ("--table-port", args.table_port),
        ):
            if value is not None:
                return f"{option} is for a member of a cluster: give --redis URL too"
        return None
    role = args.role or "both"
    if args.cluster_secret_file is None:
        return "--redis needs --cluster-secret-file PATH (the members' shared secret, the same file on every member)"
    try:
        read_secret(args.cluster_secret_file)
    except BadClusterSecret as error:
        return str(error)
    if role == "table" and getattr(args, "ssh_port", None) is not None:
        return "--role table serves no players directly: the SSH front (--ssh-port) runs on a front"
    if args.table_port is not None and role != "both":
        return f"--table-port is for --role both (with --role {role}, --port is the one port)"
    return None


def cluster_settings_from(args: argparse.Namespace) -> ClusterSettings | None:
    """The settings of a member (``cluster_complaint`` found nothing wrong first); None without ``--redis``."""
    if args.redis is None:
        return None
    secret = read_secret(args.cluster_secret_file) if args.cluster_secret_file is not None else ""
    return ClusterSettings(
        redis_url=with_password(args.redis, os.environ.get(REDIS_PASSWORD)),
        host_id=args.host_id,
        address=args.advertise,
        role=args.role or "both",
        secret=secret,
        table_port=args.table_port or 0,
    )


def with_password(url: str, password: str | None) -> str:
    """``url`` with ``password`` in it (quoted, as redis-py unquotes it), unless it names a password already or there
    is none to add: ``redis://HOST/0`` -> ``redis://:PASSWORD@HOST/0``, ``unix:///PATH`` -> ``unix://:PASSWORD@/PATH``."""
    parts = urlsplit(url)
    if not password or parts.password is not None:
        return url
    user, _at, place = parts.netloc.rpartition("@")  # (a user name stays as written, quoted or not)
    return urlunsplit(parts._replace(netloc=f"{user}:{quote(password, safe='')}@{place}"))


def without_passwords(text: str) -> str:
    """``text`` (an error naming a Redis URL) with any password in a URL shown as ``***``."""
    return re.sub(r"(password=)[^&\s]*", r"\1***", re.sub(r"(://[^/\s:@]*:)[^@\s]*@", r"\1***@", text))


def sources(text: str) -> ProxySources:
    """``ADDR[,ADDR...]``, each an address or a network."""
    try:
        return ProxySources.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(_("not addresses or networks: {error}").format(error=error)) from None


def add_proxy_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(_('behind a TCP load balancer (README, "More than one machine")'))
    group.add_argument(
        "--proxy-from",
        type=sources,
        metavar="ADDR[,ADDR]",
        help=_(
            "connections from these load balancers (addresses or networks) open with a PROXY v2 header naming "
            "the client, on the TCP and SSH ports: limits and logs then see the client's address (HAProxy's "
            "send-proxy-v2)"
        ),
    )


def proxy_complaint(args: argparse.Namespace) -> str | None:
    """Why ``--proxy-from`` cannot be used as given, or None. This host's own SSH workers reach its TCP port
    from ``loopback_for(--bind)`` without a header: that address must not be taken for a balancer's."""
    proxy_from: ProxySources | None = args.proxy_from
    if proxy_from is not None and args.ssh_port is not None and proxy_from.trusts(loopback_for(args.bind)):
        return (
            f"--proxy-from {proxy_from} includes {loopback_for(args.bind)}, where this host's own SSH workers come "
            "from: give the load balancer an address of its own (HAProxy: `source 127.0.0.2` on the server line)"
        )
    return None


def member(
    args: argparse.Namespace, settings: LobbySettings, cluster: ClusterSettings, limits: ClientLimits, rate: float
) -> tuple[FrontHost | None, Host | None]:
    """(the front, the table host) of this member: either may be None, as its role says."""
    front: FrontHost | None = None
    table: Host | None = None
    if cluster.fronts:
        from nothanks_server.cluster.gateway import FrontHost  # (only a member of a cluster loads it)

        ssh, proxy_from = ssh_settings_from(args), args.proxy_from
        front = FrontHost(cluster, args.bind, args.port, ssh=ssh, rate=rate, limits=limits, proxy_from=proxy_from)
    if cluster.hosts_tables:
        port = args.port if cluster.role == "table" else cluster.table_port
        table = Host(settings, args.bind, port, rate=rate, limits=limits, cluster=cluster)
    return front, table
