"""``--redis``, ``--host-id``, ``--advertise``, ``--role``, ``--cluster-secret-file``, ``--table-port``:
``nothanks server`` as one member of a cluster (docs/scaling.md): a front, a table host, or both.

Without ``--redis`` nothing of Redis is imported; a wrong combination is said before anything starts. Redis's
password may come from ``NOTHANKS_REDIS_PASSWORD`` rather than the URL: a command line is anyone's to read (``ps``).
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

from nothanks_server.cluster.settings import ROLES, BadClusterSecret, ClusterSettings, read_secret

from ..i18n import _
from .argtypes import port

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
