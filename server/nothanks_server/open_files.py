"""The host's open-file limit: every connection is a file descriptor, and so is every game record being written.

Python starts with the soft limit it inherits, often 1,024 (systemd's default for a service, many shells'),
while the host's own caps allow far more connections than that (the TCP port's ``MAX_CONNECTIONS``, the SSH
front's sessions and logins in progress). Measured before this module: 1,100 idle TCP connections to the SSH port
left the host unable to open any file, game records included. ``raise_open_file_limit`` lifts the soft limit to what
the caps need (never above the hard limit, which only root may raise) and says so in the log when it cannot.
"""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)

SPARE_FILES = 256  # descriptors beyond the connection caps: game records, logs, the event loop, worker pipes


def raise_open_file_limit(connections: int) -> int | None:
    """Make room for ``connections`` open connections plus ``SPARE_FILES``; the soft limit after, None if this
    system has no such limit (not POSIX)."""
    try:
        import resource
    except ImportError:  # Windows: no per-process limit of this kind
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = connections + SPARE_FILES
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        if target > soft:
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
                soft = target
            except (ValueError, OSError) as error:
                log.warning("could not raise the open-file limit from %d to %d: %s", soft, target, error)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        log.warning(
            "the open-file limit is %d, below the %d the connection caps allow: raise it (ulimit -n, or "
            "LimitNOFILE= in a systemd unit), or a crowd of connections can leave the host unable to open files",
            soft,
            wanted,
        )
    return None if soft == resource.RLIM_INFINITY else int(soft)
