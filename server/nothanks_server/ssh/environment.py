"""The ``env`` requests an SSH session keeps: the few variables the game reads, never whatever a client sends.

asyncssh (2.x) stores every ``env`` channel request in the channel's ``_env`` dict, with no callback to refuse
one: a client can send thousands of distinct names with values of up to a packet (~32 KiB) each, and the host
would keep them all for the life of the session. Nothing public bounds that, so ``limit_environment`` swaps the
channel's dict for a ``SessionEnvironment`` that keeps only ``KEPT_VARIABLES`` with short values and drops the
rest as they arrive (the client is still told "success": it cannot tell, and has nothing to gain from knowing).

TERM is not among them: it comes with the pty request. ``_env`` and ``_process_env_request`` are private
asyncssh names; ``check_environment_internals`` fails loudly at startup (and in a test) if a release changes them.
"""

from __future__ import annotations

import logging
from typing import Any

import asyncssh

log = logging.getLogger(__name__)

KEPT_VARIABLES = frozenset({b"COLORTERM", b"LANG", b"LC_ALL", b"LC_CTYPE"})  # what says how the terminal draws
MAX_VALUE = 64  # bytes; "truecolor" or "en_US.UTF-8" fit, a 32 KiB value does not
TOO_MANY_REQUESTS = 32  # after this many env requests on one channel, say so in the log (once)


class EnvironmentInternalsChanged(RuntimeError):
    """The installed asyncssh no longer stores env requests the way this module expects."""


def check_environment_internals() -> None:
    """Raise ``EnvironmentInternalsChanged`` unless asyncssh still keeps a channel's env requests in ``_env``."""
    if not callable(getattr(asyncssh.SSHServerChannel, "_process_env_request", None)):
        raise EnvironmentInternalsChanged(
            "asyncssh.SSHServerChannel._process_env_request is gone; review server/nothanks_server/ssh/environment.py"
        )


class SessionEnvironment(dict[bytes, bytes]):
    """A channel's environment that keeps at most ``KEPT_VARIABLES``, each value at most ``MAX_VALUE`` bytes."""

    def __init__(self, initial: Any = (), peer: str = "?") -> None:
        super().__init__(initial)  # e.g. an authorized_keys environment= option: set by the host's owner, kept
        self.peer = peer
        self.requests = 0  # env requests received on this channel
        self.ignored = 0  # ... of which not kept

    def __setitem__(self, key: bytes, value: bytes) -> None:
        self.requests += 1
        if key in KEPT_VARIABLES and len(value) <= MAX_VALUE:
            super().__setitem__(key, value)
            return
        self.ignored += 1
        if self.requests == TOO_MANY_REQUESTS + 1:
            log.info("ignoring env requests from %s: more than %d on one session", self.peer, TOO_MANY_REQUESTS)


def limit_environment(chan: asyncssh.SSHServerChannel, peer: str = "?") -> SessionEnvironment:  # type: ignore[type-arg]
    """Make ``chan`` keep only the variables the game reads; returns the environment it keeps from now on."""
    check_environment_internals()
    current = getattr(chan, "_env", None)
    if not isinstance(current, dict):
        raise EnvironmentInternalsChanged("asyncssh.SSHServerChannel has no _env dict any more")
    environment = SessionEnvironment(current, peer)
    chan._env = environment  # type: ignore[attr-defined]
    return environment
