"""An SSH client with a pty and a screen: what a player's terminal would show, for end-to-end tests and benchmarks.

Output is fed to a terminal emulator: pyte by default, or with ``screen="fast"`` the much cheaper
loadgen/fast_screen.py (characters only, for the benchmark visitors, many in one process). ``wait_for`` waits on an
event set whenever output arrives (never a sleep), up to a deadline.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import asyncssh

from .fast_screen import FastScreen


class _ScreenSession(asyncssh.SSHClientSession):
    def __init__(self, client: TerminalClient) -> None:
        self._client = client

    def data_received(self, data: bytes, datatype: Any) -> None:
        self._client._received(data, datatype)

    def connection_lost(self, exc: Exception | None) -> None:
        self._client._closed()


class TerminalClient:
    """One player's terminal connected over SSH."""

    def __init__(self, width: int = 80, height: int = 24, *, emulate: bool = True, screen: str = "pyte") -> None:
        """``emulate=False`` skips the terminal emulator (cheap, for benchmarks): ``wait_for`` then searches the
        raw output received since the last ``mark()`` instead of the screen. ``screen`` chooses the emulator:
        ``"pyte"`` (styles and all) or ``"fast"`` (a ``FastScreen``: the same characters for Textual's output, at
        a fraction of the cost)."""
        self.screen: Any
        if screen == "pyte":
            import pyte  # the test extra: only tests and benchmarks run these clients

            self.screen = pyte.Screen(width, height)
            self._feed: Callable[[bytes], None] = pyte.ByteStream(self.screen).feed
        elif screen == "fast":
            self.screen = FastScreen(width, height)
            self._feed = self.screen.feed
        else:
            raise ValueError(f"screen must be 'pyte' or 'fast', not {screen!r}")
        self._text: str | None = None  # the screen's text, joined once per change
        self.emulate = emulate
        self.raw = bytearray()
        self._mark = 0
        self.stderr = bytearray()
        self.conn: asyncssh.SSHClientConnection | None = None
        self.chan: asyncssh.SSHClientChannel | None = None
        self._changed = asyncio.Event()
        self.closed = asyncio.Event()
        self.last_output_at = 0.0

    async def connect(
        self,
        port: int,
        username: str = "play",
        *,
        term: str | None = "xterm-256color",
        size: tuple[int, int] | None = None,
        command: str | None = None,
        env: dict[str, str] | None = None,
        **options: Any,
    ) -> TerminalClient:
        options.setdefault("known_hosts", None)
        options.setdefault("client_keys", None)
        options.setdefault("agent_path", None)
        if options["client_keys"] is None:
            options.setdefault("password", "")  # asyncssh only does keyboard-interactive when it has a password
        self.conn = await asyncssh.connect("127.0.0.1", port, username=username, **options)
        width, height = size if size is not None else (self.screen.columns, self.screen.lines)
        session_options: dict[str, Any] = {"encoding": None, "env": env or {}}
        if term is not None:
            session_options.update(term_type=term, term_size=(width, height))
        self.chan, _ = await self.conn.create_session(lambda: _ScreenSession(self), command, **session_options)
        return self

    def _received(self, data: bytes, datatype: Any) -> None:
        self.last_output_at = time.perf_counter()
        if datatype == asyncssh.EXTENDED_DATA_STDERR:
            self.stderr.extend(data)
        else:
            self.raw.extend(data)
            if self.emulate:
                self._feed(data)
                self._text = None
        self._changed.set()

    def _closed(self) -> None:
        self.closed.set()
        self._changed.set()

    def text(self) -> str:
        """What the screen shows, its lines joined by newlines (built once per change); without emulation, the raw
        output received since the last ``mark()``."""
        if not self.emulate:
            return self.raw[self._mark :].decode("utf-8", "replace")
        if self._text is None:
            self._text = "\n".join(self.screen.display)
        return self._text

    def mark(self) -> None:
        """Without emulation: from now on ``wait_for`` looks only at output that arrives after this call."""
        self._mark = len(self.raw)

    @property
    def marked(self) -> int:
        """Bytes of output received before the last ``mark()``."""
        return self._mark

    async def wait_for(self, condition: str | Callable[[], bool], timeout: float = 10.0) -> None:
        """Wait until the screen shows ``condition`` (a string) or ``condition()`` is true."""
        check = (lambda: condition in self.text()) if isinstance(condition, str) else condition
        deadline = asyncio.get_running_loop().time() + timeout
        while not check():
            if self.closed.is_set() and not check():
                raise AssertionError(f"connection closed while waiting for {condition!r}; screen:\n{self.text()}")
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                raise AssertionError(f"timed out waiting for {condition!r}; screen:\n{self.text()}")
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), remaining)
            except TimeoutError:
                pass

    def send(self, data: str | bytes) -> None:
        assert self.chan is not None
        self.chan.write(data.encode() if isinstance(data, str) else data)

    def resize(self, width: int, height: int) -> None:
        assert self.chan is not None
        self.screen.resize(height, width)
        self._text = None
        self.chan.change_terminal_size(width, height)

    async def wait_closed(self, timeout: float = 10.0) -> int | None:
        """Wait for the session to end; its exit status."""
        await asyncio.wait_for(self.closed.wait(), timeout)
        assert self.chan is not None
        return self.chan.get_exit_status()

    async def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            await self.conn.wait_closed()
