"""``--proxy-from``: the load balancers whose PROXY v2 headers ``nothanks server`` believes (docs/load-balancer.md).

Kept apart from the other host options so that the one place that parses and checks it is small: an address
listed here can claim to be any client, so a mistake must stop the server at start, not open it to anyone.
"""

from __future__ import annotations

import argparse

from nothanks_server.proxy_protocol import ProxySources
from nothanks_server.ssh.front import loopback_for

from ..i18n import _


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
