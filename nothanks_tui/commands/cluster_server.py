"""``nothanks server --redis URL``: the parts of one member of a cluster in its role (front, table host, or both),
which net.py's ``run_server`` serves as it does a single host (apart: a server without ``--redis`` imports none)."""

from __future__ import annotations

import argparse

from nothanks_server.cluster.front_host import FrontHost
from nothanks_server.cluster.settings import ClusterSettings
from nothanks_server.host import Host
from nothanks_server.limits import ClientLimits
from nothanks_server.lobby import LobbySettings

from .ssh_options import ssh_settings_from


def member(
    args: argparse.Namespace, settings: LobbySettings, cluster: ClusterSettings, limits: ClientLimits, rate: float
) -> tuple[FrontHost | None, Host | None]:
    """(the front, the table host) of this member: either may be None, as its role says."""
    front = (
        FrontHost(
            cluster, args.bind, args.port, ssh=ssh_settings_from(args), rate=rate, limits=limits,
            proxy_from=args.proxy_from,
        )
        if cluster.fronts
        else None
    )  # fmt: skip
    table = (
        Host(
            settings,
            args.bind,
            args.port if cluster.role == "table" else cluster.table_port,
            rate=rate,
            limits=limits,
            cluster=cluster,
        )
        if cluster.hosts_tables
        else None
    )
    return front, table
