"""Running a host process: bind, serve until SIGINT/SIGTERM, then tell every client and close cleanly.

Used by ``nothanks server`` (headless) and ``nothanks host`` (with the host's own player in this process).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .lobby import Lobby, LobbySettings
from .open_files import raise_open_file_limit
from .tcp import MAX_CONNECTIONS, TcpHost

if TYPE_CHECKING:
    from .ssh.server import SSHFront, SSHSettings
    from .ssh.workers import SSHWorkers

log = logging.getLogger(__name__)

SHUTDOWN_REASON = "the host is shutting down"


def default_data_dir() -> Path:
    """Where finished games are kept: $XDG_DATA_HOME/nothanks/records (~/.local/share/nothanks/records)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "nothanks" / "records"


def lan_addresses() -> list[str]:
    """This machine's non-loopback IPv4 addresses: each interface's (Linux), then the resolver's. No packets sent."""
    found: list[str] = []
    for address in _interface_addresses() + _resolver_addresses():
        if not address.startswith("127.") and address not in found:
            found.append(address)
    return found


def _interface_addresses() -> list[str]:
    addresses: list[str] = []
    try:
        import fcntl
        import struct

        names = [name for _, name in socket.if_nameindex()]
    except (ImportError, OSError, AttributeError):
        return addresses
    siocgifaddr = 0x8915  # Linux: read an interface's IPv4 address
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        for name in names:
            with contextlib.suppress(OSError):
                packed = fcntl.ioctl(probe.fileno(), siocgifaddr, struct.pack("256s", name.encode()[:15]))
                addresses.append(socket.inet_ntoa(packed[20:24]))
    return addresses


def _resolver_addresses() -> list[str]:
    with contextlib.suppress(OSError):
        return [str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
    return []


async def serve(
    settings: LobbySettings,
    bind: str,
    port: int,
    on_ready: Callable[[TcpHost], None] | None = None,
    main: Callable[[TcpHost], Awaitable[object]] | None = None,
    rate: float | None = None,
    stop_main: Callable[[], None] | None = None,
    ssh: SSHSettings | None = None,
    on_ssh_ready: Callable[[SSHFront | SSHWorkers], None] | None = None,
) -> None:
    """Serve until a signal arrives or ``main`` (e.g. the host player's app) returns; then close everything.

    On a signal, ``stop_main`` (e.g. ``app.exit``) asks ``main`` to finish before the host closes. With ``ssh``,
    an SSH front serves the same lobby (every SSH session runs the game's app in this process, or with
    ``ssh.workers`` in worker processes that reach the lobby over the TCP port).
    """
    raise_open_file_limit(MAX_CONNECTIONS + (ssh.max_sessions + ssh.login_limit if ssh is not None else 0))
    lobby = Lobby(settings)
    host = TcpHost(lobby, bind, port) if rate is None else TcpHost(lobby, bind, port, rate=rate)
    await host.start()
    front: SSHFront | SSHWorkers | None = None
    if ssh is not None:
        from .ssh.game import game_app_factory
        from .ssh.server import SSHFront
        from .ssh.workers import SSHWorkers

        if ssh.workers > 0:
            front = SSHWorkers(ssh, bind, host.port)  # each worker's players reach this lobby over TCP
        else:
            front = SSHFront(ssh, game_app_factory(lobby))
        try:
            await front.start()
        except BaseException:
            await host.close(SHUTDOWN_REASON)
            raise
        if on_ssh_ready is not None:
            on_ssh_ready(front)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop.set)
    if on_ready is not None:
        on_ready(host)
    waiters = [loop.create_task(stop.wait())]
    if main is not None:
        waiters.append(loop.create_task(_run_main(main, host)))
    try:
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        if main is not None and not waiters[1].done():
            # Tell clients first, so they hear it while the host's own app winds down.
            for session in list(host.sessions):
                session.send({"type": "closing", "reason": SHUTDOWN_REASON})
            if stop_main is not None:
                stop_main()
            await asyncio.wait([waiters[1]], timeout=5.0)
    finally:
        for waiter in waiters:
            waiter.cancel()
        log.info("shutting down")
        await host.close(SHUTDOWN_REASON)  # closes the lobby too: every table tells its players why
        if front is not None:
            await front.close(SHUTDOWN_REASON)
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signum)


async def _run_main(main: Callable[[TcpHost], Awaitable[object]], host: TcpHost) -> None:
    await main(host)
