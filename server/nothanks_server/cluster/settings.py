"""How a host joins a cluster: the Redis URL and the name and address it is known by (``nothanks server --redis``).

Plain data, importing nothing of Redis, so the command line and the ``Host`` can hold it at no cost.
"""

from __future__ import annotations

import dataclasses
import socket
from dataclasses import dataclass


@dataclass(frozen=True)
class ClusterSettings:
    redis_url: str  # redis://HOST:PORT/DB or unix:///PATH
    host_id: str = ""  # this host's name in the directory, unique in the cluster ("": MACHINE:PORT)
    address: str = ""  # HOST:PORT where the cluster's fronts reach this host's TCP port ("": from --bind)
    prefix: str = "nothanks"  # every key in Redis starts with it: clusters (and tests) may share a server

    def resolved(self, bind: str, port: int) -> ClusterSettings:
        """With the name and address filled in for a host bound to ``bind``:``port`` (the port it got)."""
        machine = socket.gethostname()
        reachable = machine if bind in ("", "0.0.0.0", "::") else bind
        return dataclasses.replace(
            self, host_id=self.host_id or f"{machine}:{port}", address=self.address or f"{reachable}:{port}"
        )


class DirectoryUnavailable(OSError):
    """The cluster's Redis cannot be reached (or its URL is not one): the host does not start without it."""
