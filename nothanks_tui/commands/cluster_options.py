"""``--redis``, ``--host-id``, ``--advertise``: ``nothanks server`` as one host of a cluster (docs/scaling.md).

Without ``--redis`` nothing changes and nothing of Redis is imported; with it, the host lists itself and its
tables in the cluster's directory (``nothanks_server.cluster``).
"""

from __future__ import annotations

import argparse

from nothanks_server.cluster.settings import ClusterSettings


def add_cluster_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group('more than one machine (README, "More than one machine")')
    group.add_argument(
        "--redis",
        default=None,
        metavar="URL",
        help="list this host and its tables in the cluster directory on this Redis (redis://HOST:PORT/DB)",
    )
    group.add_argument(
        "--host-id",
        default="",
        metavar="NAME",
        help="this host's name in the cluster, unique (default MACHINE:PORT)",
    )
    group.add_argument(
        "--advertise",
        default="",
        metavar="HOST:PORT",
        help="where the cluster reaches this host's TCP port (default: --bind, or the machine's name, and the port)",
    )


def cluster_settings_from(args: argparse.Namespace) -> ClusterSettings | None:
    if args.redis is None:
        return None
    return ClusterSettings(redis_url=args.redis, host_id=args.host_id, address=args.advertise)
