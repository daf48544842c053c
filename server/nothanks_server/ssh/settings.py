"""How the SSH front listens, whom it lets in and when it recycles its workers: one frozen record, no imports of
Textual or asyncssh, so that the host process can hold it without loading what only the workers need."""

from __future__ import annotations

import asyncio
import ipaddress
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

K = TypeVar("K")
V = TypeVar("V")
H = TypeVar("H", bound=asyncio.Handle)

INBOUND_RATE = 16 * 1024  # bytes a second one connection may send, sustained (input_gate.py)
INBOUND_BURST = 32 * 1024  # ... and at once
HOST_KEY_NAME = "ssh_host_ed25519_key"  # in the data dir, unless --ssh-host-key says where
AUTH_DELAY_CAP = 8.0  # seconds: the longest pause after a failed password
STOPPED = "the host stopped"  # why every session ends when the host gives no reason


class Watched:
    """The front and a worker's server: ``_changed`` is set whenever a count or a worker's state changes."""

    _changed: asyncio.Event

    async def wait_until(self, condition: Callable[[], bool], timeout: float = 30.0) -> None:
        """Wait until ``condition()`` holds, looking again at each change (TimeoutError after ``timeout`` s)."""
        async with asyncio.timeout(timeout):
            while not condition():
                self._changed.clear()
                await self._changed.wait()


def shared_counts(context: Any, slots: int) -> Any:
    """What the workers count together, in shared memory under its lock: by worker slot, its sessions, then the
    places held for its newcomers while the front makes room (server.py ``take_place``), then the strikes of the
    network of its first password waiting (``password_turn``; inf: none); last, the passwords' bucket (tokens, when)."""
    return context.Array("d", [0.0] * 2 * slots + [math.inf] * slots + [0.0, -math.inf])


def failure_delay(failures: int, first: float, cap: float = AUTH_DELAY_CAP) -> float:
    """Seconds to pause after a connection's ``failures``-th failed password: ``first``, doubling, at most ``cap``."""
    if failures <= 0 or first <= 0:
        return 0.0
    return min(cap, first * 2 ** min(failures - 1, 32))


def cancel(handle: H | None) -> H | None:
    """Cancel ``handle`` if there is one; None, for ``self._handle = cancel(self._handle)``."""
    if handle is not None:
        handle.cancel()
    return None


def remember(table: dict[K, V], key: K, value: V, most: int) -> V:
    """``table[key] = value`` as the most recent entry; past ``most`` entries the oldest is forgotten."""
    table.pop(key, None)
    table[key] = value
    if len(table) > most:
        del table[next(iter(table))]
    return value


def printable(text: str, limit: int = 64) -> str:
    """``text`` fit for a log line: control characters (a forged user name's newlines, escapes) become ``?``."""
    cleaned = "".join(char if char.isprintable() else "?" for char in text[:limit])
    return cleaned + ("..." if len(text) > limit else "")


def network_of(address: str, v4_prefix: int = 32, v6_prefix: int = 64) -> str:
    """The network ``address`` counts in for the per-address shares: itself for IPv4 (or its /``v4_prefix``), its
    /64 for IPv6 (one customer's usual allocation: a host with a /64 has 2**64 addresses to rotate through)."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is not None:
        parsed = parsed.ipv4_mapped
    prefix = v4_prefix if parsed.version == 4 else v6_prefix
    if prefix >= parsed.max_prefixlen:
        return str(parsed)
    return str(ipaddress.ip_network(f"{parsed}/{prefix}", strict=False))


@dataclass(frozen=True)
class SSHSettings:
    """How the SSH front listens and whom it lets in."""

    host_key_path: Path
    bind: str = "127.0.0.1"
    port: int = 2222  # 0: any free port (tests)
    password: str | None = None  # a shared password for everyone
    authorized_keys: Path | None = None  # only these public keys get in
    max_sessions: int = 100
    max_logins: int = 64  # logins in progress at once (below max_sessions); one more: the biggest holder gives way
    max_connections: int = 1000  # connections at once at the front; one more: the biggest holder gives way
    login_timeout: float = 30.0  # seconds from TCP connect to finished authentication (OpenSSH's LoginGraceTime)
    session_timeout: float = 10.0  # seconds from authentication to the session's request, then disconnected
    session_settle: float = 30.0  # seconds a session at no table is not closed for a newcomer (server.py: idle)
    password_rate: float = 10.0  # passwords looked at per second over every address (a key login never waits)
    v4_prefix: int = 32  # addresses in the same IPv4 /v4_prefix share one per-address share
    v6_prefix: int = 64  # ... and in the same IPv6 /v6_prefix
    keepalive_interval: float = 30.0  # seconds between keepalives to an idle client
    keepalive_count_max: int = 3  # unanswered keepalives before the connection is dropped
    workers: int = 1  # worker processes taking new players at once (front.py)
    spare_after: int = 8  # connections not in a session, beside seated players, that start a spare (front.py)
    worker_sessions: int = 200  # logins a worker takes before it drains (gets no more, exits when empty)
    worker_mib: int = 768  # ... or once its resident memory passes this many MiB
    max_workers: int = 4  # worker processes alive at once (taking, or draining their last players)
    memory_mib: int = 1024  # the workers' resident memory in all: each recycles past its share, none starts past it
    inbound_rate: float = INBOUND_RATE  # 0: no budget (to compare)
    inbound_burst: int = INBOUND_BURST
    auth_tries: int = 6  # failed passwords on one connection, then it is disconnected (OpenSSH's MaxAuthTries)
    auth_delay: float = 0.5  # seconds paused after a connection's first failed password, doubling each time
    auth_failures: int = 30  # failed passwords from one address within AUTH_WINDOW (front.py), then it is shut out
    per_address: int = 16  # connections from one address at once (front.py)
    logins_per_address: int = 8  # ... of which logging in at once
    connect_rate: float = 2.0  # new connections a second from one address, sustained (front.py; 0: no limit)
    connect_burst: int = 16  # ... and at once
    app: str = "nothanks_server.ssh.game:make_app_factory"  # module:function making each worker's app factory
    bot_choices: tuple[tuple[str, str], ...] = ()  # (name, what it is like) offered in the new-table dialog
    default_bot: str = ""  # the one chosen there at first ("": the host's default bot)

    @property
    def login_limit(self) -> int:
        """Logins in progress allowed at once: below ``max_sessions``, so that logins held open by strangers give
        way before they fill the sessions (a login counts against ``max_sessions`` from its first auth request)."""
        return max(1, min(self.max_logins, self.max_sessions - 1))

    @property
    def worker_limit_mib(self) -> int:
        """A worker's memory past which it is recycled: ``worker_mib``, or its share of ``memory_mib``."""
        return min(self.worker_mib, self.memory_mib // max(1, self.max_workers))

    def network(self, address: str) -> str:
        """The share ``address`` counts in (``network_of`` with these prefixes)."""
        return network_of(address, self.v4_prefix, self.v6_prefix)


@dataclass(frozen=True)
class WorkerPlan:
    """What one worker process needs (sent to it when it is started)."""

    slot: int  # its entry in the shared session counts
    ssh: SSHSettings
    lobby_host: str  # the host's TCP port, on loopback
    lobby_port: int
    data_dir: Path  # the host key's directory (a probe app's scratch space in tests)
    log_level: int
    proxy_key: str | None = None  # the host's secret for its own fronts: each player's address counts (tcp.py)
    log_file: str | None = None  # the host's log file, if it logs to one (``nothanks host``: the terminal is the app's)
