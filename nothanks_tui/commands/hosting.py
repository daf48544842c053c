"""What ``nothanks host``, ``nothanks server`` and the start screen's Host tab tell: how others reach the host
(the ``nothanks join`` and ``ssh`` lines), or why it could not start, in one sentence in the player's language (the
system's own words, "[Errno 98] error while attempting to bind...", are English and Python's)."""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

from nothanks_server.addresses import lan_addresses
from nothanks_server.host import CannotListen
from nothanks_server.store import DATABASE_NAME

from ..client.error_sentences import os_reason
from ..defaults import DEFAULT_PORT
from ..i18n import _


def reachable_addresses(bind: str) -> list[str]:
    """The addresses others can reach a host bound to ``bind`` at (every LAN address for a wildcard bind)."""
    if bind in ("0.0.0.0", "::", ""):
        return lan_addresses() or [_("<this machine's address>")]
    return [bind]


def join_lines(bind: str, port: int) -> list[str]:
    """One ``nothanks join`` line per address others can use."""
    suffix = "" if port == DEFAULT_PORT else f":{port}"
    return [f"  nothanks join {address}{suffix}" for address in reachable_addresses(bind)]


def ssh_lines(bind: str, ssh_port: int) -> list[str]:
    """One ``ssh`` line per address players can use (``-p`` left out for port 22)."""
    option = "" if ssh_port == 22 else f"-p {ssh_port} "
    return [f"  ssh {option}play@{address}" for address in reachable_addresses(bind)]


def hosting_lines(bind: str, port: int, ssh_port: int | None, fingerprint: str | None = None) -> list[str]:
    """What ``nothanks host`` prints before its app starts, given the ports actually bound (``--port 0`` picks one)
    and the SSH host key's fingerprint."""
    lines = [_("Hosting on {address}. Others join with:").format(address=f"{bind}:{port}"), *join_lines(bind, port)]
    if ssh_port is not None:
        lines.extend(ssh_lines(bind, ssh_port))
    if fingerprint is not None:
        lines.append(
            _("SSH host key fingerprint: {fingerprint} (what players' ssh shows on their first visit)").format(
                fingerprint=fingerprint
            )
        )
    return lines


def data_dir_problem(path: Path) -> str | None:
    """Why ``path`` cannot be a host's data dir (it is made if missing), in the player's words; None if it can be."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        if not os.access(path, os.W_OK | os.X_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        lock = path / (DATABASE_NAME + ".lock")  # (the store's: held by the host running there, if any)
        if lock.exists():
            with lock.open("rb") as held:
                try:
                    fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    return _(
                        "another nothanks host is running on the data dir {path}: stop it, or choose another --data-dir"
                    ).format(path=path)
    except OSError as error:
        return _("cannot use the data dir {path}: {reason}").format(path=path, reason=os_reason(error))
    return None


def cannot_listen(error: OSError, bind: str, port: int) -> str:
    """The port a host could not listen on (TCP's ``bind:port``, or the SSH port it names) and why, in a sentence."""
    if isinstance(error, CannotListen):
        bind, port, reason = error.bind, error.port, os_reason(error.cause)
        if error.ssh:
            return _("cannot listen for SSH on {address}: {error}").format(address=f"{bind}:{port}", error=reason)
        return _("cannot listen on {address}: {error}").format(address=f"{bind}:{port}", error=reason)
    return _("cannot listen on {address}: {error}").format(address=f"{bind}:{port}", error=os_reason(error))
