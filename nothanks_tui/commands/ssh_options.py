"""The SSH options of ``nothanks server`` and ``nothanks host``, and the ``SSHSettings`` they make (the command line
composes the host's SSH front; the host package imports no command-line code)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from nothanks_server.ssh.settings import HOST_KEY_NAME, SSHSettings

from .. import paths
from ..bots import offered_bots
from ..defaults import DEFAULT_BOT, DEFAULT_SSH_PORT
from ..i18n import N_, _
from .argtypes import add_limit, non_negative, port, positive, readable_file

# The SSH front's limits: each option, the ``SSHSettings`` field it sets (whose default it shows) and its help.
# An option's last word names its metavar (N unless ``METAVARS`` says otherwise); times and rates take any number >= 0.
METAVARS = {"prefix": "PREFIX", "mib": "MIB", "grace": "SECONDS", "rate": "PER_SECOND"}
SSH_LIMITS = (
    ("--max-sessions", "max_sessions", N_("SSH players at once; more are turned away ({default})")),
    (
        "--max-logins",
        "max_logins",
        N_(
            "SSH connections logging in at once (below --max-sessions); one more closes the biggest holder's oldest"
            " ({default})"
        ),
    ),
    (
        "--ssh-per-address",
        "per_address",
        N_("SSH connections from one address at once; more are closed at once ({default})"),
    ),
    ("--ssh-logins-per-address", "logins_per_address", N_("... of which logging in at once ({default})")),
    (
        "--ssh-max-connections",
        "max_connections",
        N_("SSH connections at once in all; one more closes the biggest holder's least in use ({default})"),
    ),
    (
        "--ssh-ipv4-prefix",
        "v4_prefix",
        N_("IPv4 addresses in one /PREFIX count as one address in the SSH limits ({default})"),
    ),
    ("--ssh-ipv6-prefix", "v6_prefix", N_("... and IPv6 addresses in one /PREFIX ({default})")),
    (
        "--ssh-auth-tries",
        "auth_tries",
        N_("failed passwords (or refused keys) before a connection is dropped ({default})"),
    ),
    (
        "--ssh-auth-failures",
        "auth_failures",
        N_("failed passwords from one address within 10 minutes, then it is shut out until they age ({default})"),
    ),
    ("--ssh-workers", "workers", N_("worker processes taking new SSH players at once, e.g. one per core ({default})")),
    (
        "--ssh-worker-sessions",
        "worker_sessions",
        N_("a worker takes this many logins, then gets no more and exits when its last player leaves ({default})"),
    ),
    ("--ssh-worker-mib", "worker_mib", N_("... or once its memory passes this many MiB ({default})")),
    ("--ssh-max-workers", "max_workers", N_("SSH worker processes alive at once, draining ones included ({default})")),
    (
        "--ssh-memory-mib",
        "memory_mib",
        N_("the SSH workers' memory in all (MiB): past it no worker starts and newcomers are turned away ({default})"),
    ),
    (
        "--ssh-login-grace",
        "login_timeout",
        N_("seconds an SSH connection has to log in, as OpenSSH's LoginGraceTime ({seconds:g})"),
    ),
    ("--ssh-session-grace", "session_timeout", N_("... and, once logged in, to open its session ({seconds:g})")),
    (
        "--ssh-password-rate",
        "password_rate",
        N_("SSH passwords checked per second over every address; key logins never wait ({seconds:g})"),
    ),
    (
        "--ssh-connect-rate",
        "connect_rate",
        N_("new SSH connections a second from one address, in bursts of 16; more are closed at once ({seconds:g})"),
    ),
)


def add_ssh_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(_("SSH (players join with `ssh -p PORT play@HOST`, nothing to install)"))
    group.add_argument(
        "--ssh-port",
        type=port,
        metavar="PORT",
        help=_("also serve over SSH on PORT (e.g. {port})").format(port=DEFAULT_SSH_PORT),
    )
    group.add_argument(
        "--ssh-password",
        default=os.environ.get("NOTHANKS_SSH_PASSWORD"),
        metavar="TEXT",
        help=_("SSH players need this shared password (or set NOTHANKS_SSH_PASSWORD, which `ps` does not show)"),
    )
    group.add_argument(
        "--ssh-authorized-keys",
        type=readable_file,
        metavar="FILE",
        help=_("only the public keys in this authorized_keys file get in over SSH"),
    )
    group.add_argument(
        "--ssh-host-key",
        type=Path,
        metavar="FILE",
        help=_("the host's SSH key, made on first start (default: DATA_DIR/ssh_host_ed25519_key)"),
    )
    for flag, field, help in SSH_LIMITS:
        metavar = METAVARS.get(flag.rpartition("-")[2], "N")
        kind = non_negative if metavar in ("SECONDS", "PER_SECOND") else positive
        add_limit(group, flag, getattr(SSHSettings, field), _(help), kind=kind, metavar=metavar)


def ssh_settings_from(args: argparse.Namespace) -> SSHSettings | None:
    """The SSH front's settings from parsed options, or None when --ssh-port was not given."""
    if args.ssh_port is None:
        return None
    data_dir = paths.data_dir() if args.data_dir is None else Path(args.data_dir)  # (~/.local/share/nothanks)
    return SSHSettings(
        host_key_path=args.ssh_host_key or data_dir / HOST_KEY_NAME,
        bind=args.bind,
        port=args.ssh_port,
        password=args.ssh_password,
        authorized_keys=args.ssh_authorized_keys,
        **{field: getattr(args, flag[2:].replace("-", "_")) for flag, field, _help in SSH_LIMITS},  # (argparse's dest)
        bot_choices=tuple(offered_bots(getattr(args, "bot", None) or DEFAULT_BOT)),
        default_bot=getattr(args, "bot", None) or DEFAULT_BOT,
    )
