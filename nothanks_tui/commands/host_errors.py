"""Why a host could not start, in one sentence in the player's language: a port it cannot listen on, a data dir
it cannot use. The system's own words ("[Errno 98] error while attempting to bind on address ...") are English
and Python's; ``nothanks host``, ``nothanks server`` and the start screen's Host tab say these instead.
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

from nothanks_server.host import CannotListen
from nothanks_server.store import DATABASE_NAME

from ..client.error_sentences import os_reason
from ..i18n import _


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
