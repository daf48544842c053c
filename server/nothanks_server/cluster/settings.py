"""How a host joins a cluster: the Redis URL, the name and address it is known by, its role and the members'
shared secret (``nothanks server --redis``, ``--role``, ``--cluster-secret-file``, ``--table-port``).

Plain data, importing nothing of Redis, so the command line and the ``Host`` can hold it at no cost.
"""

from __future__ import annotations

import dataclasses
import socket
from dataclasses import dataclass
from pathlib import Path

ROLES = ("both", "front", "table")
MIN_SECRET = 16  # characters of the cluster secret, at least


@dataclass(frozen=True)
class ClusterSettings:
    redis_url: str  # redis://HOST:PORT/DB or unix:///PATH
    host_id: str = ""  # this host's name in the directory, unique in the cluster ("": MACHINE:PORT)
    address: str = ""  # HOST:PORT where the cluster's fronts reach this host's table port ("": from --bind)
    prefix: str = "nothanks"  # every key in Redis starts with it: clusters (and tests) may share a server
    role: str = "both"  # front (the gateway and SSH front), table (the table host), or both in one process
    # The members' shared secret: a table host refuses a hello without its proof (cluster/membership.py).
    # "" (tests of the directory alone) turns the check off; the command line always sets one.
    secret: str = ""
    table_port: int = 0  # role both: the table host's port (0: any free one); role table uses --port

    def resolved(self, bind: str, port: int) -> ClusterSettings:
        """With the name and address filled in for a host bound to ``bind``:``port`` (the port it got)."""
        machine = socket.gethostname()
        reachable = machine if bind in ("", "0.0.0.0", "::") else bind
        return dataclasses.replace(
            self, host_id=self.host_id or f"{machine}:{port}", address=self.address or f"{reachable}:{port}"
        )

    @property
    def hosts_tables(self) -> bool:
        """This process holds tables (role table or both)."""
        return self.role in ("table", "both")

    @property
    def fronts(self) -> bool:
        """This process runs the gateway for clients (role front or both)."""
        return self.role in ("front", "both")


class DirectoryUnavailable(OSError):
    """The cluster's Redis cannot be reached (or its URL is not one): the host does not start without it."""


class BadClusterSecret(ValueError):
    """The cluster secret file cannot be read, or holds too short a secret: nothing starts."""


def read_secret(path: Path) -> str:
    """The cluster secret in ``path``: its content, stripped, at least ``MIN_SECRET`` characters."""
    try:
        secret = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as error:
        raise BadClusterSecret(f"cannot read the cluster secret file {path}: {error}") from None
    if len(secret) < MIN_SECRET:
        raise BadClusterSecret(
            f"the cluster secret in {path} is {len(secret)} characters long; it needs at least {MIN_SECRET} "
            "(the same file on every member)"
        )
    return secret
