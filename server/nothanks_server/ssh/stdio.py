"""Keep the process's sys.stdout/sys.stderr sane while many Textual apps run in it at once.

While an app runs, Textual points sys.stdout/sys.stderr at that app (``contextlib.redirect_stdout``) and puts back
whatever it found when the app ends. With overlapping sessions the order of endings is arbitrary: the last app to
finish can restore a stream that belongs to an app that finished earlier, so every later ``print`` goes to (and
keeps alive) a dead app. Session apps therefore redirect to one shared stream that sends text to ``logging``;
when the last session app ends, the streams found before the first one started are put back.
"""

from __future__ import annotations

import io
import logging
import sys
from collections.abc import Callable
from typing import Any, TextIO

from textual.app import App

log = logging.getLogger("nothanks_server.ssh.stdout")


class LoggingStream(io.TextIOBase):
    """A text stream whose complete lines go to a logger (a session app's stray prints end up in the host's log)."""

    def __init__(self, level: int, fallback: Callable[[], Any]) -> None:
        super().__init__()
        self._level = level
        self._fallback = fallback
        self._pending = ""
        self._busy = False

    def write(self, text: str) -> int:
        if self._busy:
            # A logging handler writing to sys.stderr (logging's last-resort handler does) while sys.stderr is
            # this stream: send it to the real stream instead of logging it again, forever.
            stream = self._fallback()
            if stream is not None:
                stream.write(text)
            return len(text)
        self._busy = True
        try:
            return self._log(text)
        finally:
            self._busy = False

    def _log(self, text: str) -> int:
        self._pending += text
        *lines, self._pending = self._pending.split("\n")
        if len(self._pending) > 4096:
            lines.append(self._pending)
            self._pending = ""
        for line in lines:
            if line:
                log.log(self._level, "%s", line[:4096])
        return len(text)

    def flush(self) -> None:
        if self._pending and not self._busy:
            self._busy = True
            try:
                log.log(self._level, "%s", self._pending)
                self._pending = ""
            finally:
                self._busy = False

    def isatty(self) -> bool:
        return False


SESSION_STDOUT = LoggingStream(logging.INFO, lambda: sys.__stdout__)
SESSION_STDERR = LoggingStream(logging.WARNING, lambda: sys.__stderr__)


class StdioGuard:
    """Counts running session apps and restores the process streams when the last one ends."""

    def __init__(self) -> None:
        self._running = 0
        self._saved: tuple[Any, Any] | None = None

    @property
    def running(self) -> int:
        return self._running

    def prepare(self, app: App[Any]) -> None:
        """Make ``app`` redirect print output to the shared logging streams instead of to itself."""
        # Private attributes read by App._process_messages; checked by tests/ssh/test_textual_internals.py.
        app._capture_stdout = SESSION_STDOUT  # type: ignore[assignment]
        app._capture_stderr = SESSION_STDERR  # type: ignore[assignment]

    def app_starting(self) -> None:
        if self._running == 0:
            self._saved = (_live_stream(sys.stdout, sys.__stdout__), _live_stream(sys.stderr, sys.__stderr__))
        self._running += 1

    def app_finished(self) -> None:
        self._running = max(0, self._running - 1)
        if self._running == 0 and self._saved is not None:
            stdout, stderr = self._saved
            self._saved = None
            if sys.stdout is SESSION_STDOUT or _is_dead_capture(sys.stdout):
                sys.stdout = stdout
            if sys.stderr is SESSION_STDERR or _is_dead_capture(sys.stderr):
                sys.stderr = stderr


def _is_dead_capture(stream: object) -> bool:
    """Is ``stream`` Textual's print capture of an app that no longer runs?"""
    owner = getattr(stream, "app", None)
    return isinstance(owner, App) and not owner.is_running


def _live_stream(stream: TextIO | Any, fallback: TextIO | Any) -> TextIO | Any:
    if stream is SESSION_STDOUT or stream is SESSION_STDERR or _is_dead_capture(stream):
        return fallback
    return stream
