"""``nothanks server --redis URL``: one member of a cluster, in its role (front, table host, or both).

Kept apart from net.py so that a server without ``--redis`` runs exactly the code it ran before. The first line
printed is the same for every role (``nothanks server listening on BIND:PORT...``, ``PORT`` being ``--port`` as
bound: the clients' port of a front, the table port of a table host); a table host adds ``table port BIND:PORT``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from nothanks_server.cluster.front_host import FrontHost, serve
from nothanks_server.cluster.settings import ClusterSettings, DirectoryUnavailable
from nothanks_server.host import Host
from nothanks_server.limits import ClientLimits
from nothanks_server.lobby import LobbySettings
from nothanks_server.ssh.front import SSHFrontError

from .addresses import join_lines, ssh_lines
from .host_errors import cannot_listen
from .ssh_options import ssh_settings_from


def run_member(
    args: argparse.Namespace, settings: LobbySettings, cluster: ClusterSettings, limits: ClientLimits, rate: float
) -> int:
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

    def ready() -> None:
        port = front.port if front is not None else table.port if table is not None else args.port
        print(f"nothanks server listening on {args.bind}:{port}; data in {settings.data_dir}", flush=True)
        if table is not None:
            print(f"table port {args.bind}:{table.port}", flush=True)
            print(f"  in the cluster as {table.cluster.host_id if table.cluster else '?'} ({cluster.role})", flush=True)
        if front is not None:
            print("Players join with:", flush=True)
            for line in join_lines(args.bind, front.port):
                print(line, flush=True)
            if front.ssh_front is not None:
                print("Over SSH, with nothing to install:", flush=True)
                for line in ssh_lines(args.bind, front.ssh_front.port):
                    print(line, flush=True)
                print(f"SSH host key fingerprint: {front.ssh_front.host_key_fingerprint()}", flush=True)
        print("Ctrl-C (or SIGTERM, SIGHUP) stops it; clients are told to come back; every game is kept.", flush=True)

    async def run() -> None:
        if table is not None:
            await table.start()
        try:
            if front is not None:
                await front.start()
        except BaseException:
            if table is not None:
                await table.close()
            raise
        await serve(front, table, ready)

    try:
        asyncio.run(run())
    except (DirectoryUnavailable, SSHFrontError) as error:
        print(f"nothanks server: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print("nothanks server: " + cannot_listen(error, args.bind, args.port), file=sys.stderr)
        return 1
    print("nothanks server stopped.", flush=True)
    return 0
