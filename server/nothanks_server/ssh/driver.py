"""A Textual driver whose terminal is an SSH channel, so one worker process can run an app per SSH session.

Textual's Linux driver owns the process (threads, termios, signal handlers): not possible in a server. Here
everything runs on the event loop: channel bytes are parsed in ``feed`` (paced by the ``InputGate``), window
changes come as ``resize``, output is written once per loop turn. Each app gets a console for the client's terminal
(``session_console``: a systemd unit has no TERM) and draws in 24-bit; ``downgrade_colors`` brings the output down
as it leaves, since Textual caches a style's escape codes on the style, shared by every app of the process.
"""

from __future__ import annotations

import asyncio
import codecs
import contextvars
import io
import logging
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from rich.color import Color, ColorSystem
from rich.console import Console
from textual import constants, events
from textual.driver import Driver
from textual.geometry import Size
from textual.message import Message
from textual.messages import InBandWindowResize

from .patches import escape_pending, new_key_parser
from .settings import cancel

if TYPE_CHECKING:
    from textual.app import App

    from .session import GameSession

log = logging.getLogger(__name__)

DEFAULT_SIZE = (80, 24)
MAX_SIZE = (400, 150)  # a 4K screen with a small font is about 380x100; beyond this a size is only a way to make
# the host draw (and keep) a screen of millions of cells for one player: it is cut down to this
_TRUECOLOR_TERMS = ("truecolor", "24bit", "direct", "kitty", "wezterm", "alacritty", "foot", "ghostty", "iterm")
_TICK_AFTER = constants.ESCAPE_DELAY + 0.005  # seconds: just after the escape delay, the parser's deadline passed
_KITTY_FLAGS = 0b1 | 0b1000 | 0b10000  # disambiguate escapes, report all keys as codes, report associated text
# Characters the parser may take in without producing an event: a bracketed paste collects in the parser until
# its end marker, so a client that opens a paste and never closes it would grow that buffer (within the input
# budget: 1 KiB/s, 88 MB a day) for the life of the session. Past this, the paste is dropped and parsing restarts.
MAX_UNFINISHED_INPUT = 64 * 1024
TOO_LONG_NOTICE = "Pasted text too long: ignored."
ESC = "\x1b"
PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"

# Alternate screen, cursor hidden, mouse presses as SGR (no motion tracking: it costs every session bandwidth), focus
# events, bracketed paste, no line wrap; and a question: does the terminal do synchronized output?
ENTER_SEQUENCES = "\x1b[?1049h\x1b[?25l\x1b[?1000h\x1b[?1006h\x1b[?1004h\x1b[?2004h\x1b[?7l\x1b[?2026$p"
# The screen erased (a terminal without an alternate screen, GNU screen with altscreen off, kept the last frame),
# bracketed paste off, line wrap on, every mouse mode off, the kitty keyboard mode popped (ignored by terminals
# without it), the alternate screen left, the cursor shown, focus events off, default colours.
LEAVE_SEQUENCES = (
    "\x1b[H\x1b[2J\x1b[?2004l\x1b[?7h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1015l"
    "\x1b[<u\x1b[?1049l\x1b[?25h\x1b[?1004l\x1b[0m"
)


class PasteEscapes:
    """Escape characters inside a bracketed paste dropped before the key parser sees them: Textual reads an ESC in a
    paste as a key sequence, so a chat line pasted with colour codes closed the chat there and the rest went to the
    table as keys (``t`` takes the card). Only the paste's end marker keeps its ESC; the host cleans the rest. Fed
    chunk by chunk as input arrives (a marker may be split between two chunks)."""

    def __init__(self) -> None:
        self.in_paste = False
        self._seen = ""  # the last few characters passed on outside a paste (to find a start marker split in two)
        self._held = ""  # inside a paste: the chunk's end, which may be the start of the end marker

    def feed(self, text: str) -> str:
        """``text`` as the parser should get it."""
        out: list[str] = []
        while True:
            if not self.in_paste:
                window = self._seen + text
                found = window.find(PASTE_START)
                if found < 0:
                    self._seen = window[1 - len(PASTE_START) :]
                    return "".join(out) + text
                end = found + len(PASTE_START) - len(self._seen)  # where the marker ends, in text
                out.append(text[:end])
                text, self._seen, self.in_paste = text[end:], "", True
            text, self._held = self._held + text, ""
            found = text.find(PASTE_END)
            if found < 0:  # what may be the start of the end marker, cut short by the chunk's end, waits
                size = next((n for n in range(len(PASTE_END) - 1, 0, -1) if text.endswith(PASTE_END[:n])), 0)
                self._held = text[len(text) - size :]
                return "".join(out) + text[: len(text) - size].replace(ESC, "")
            out.append(text[:found].replace(ESC, "") + PASTE_END)  # an escape code's ESC goes, the rest stays text
            text, self.in_paste = text[found + len(PASTE_END) :], False


class ChannelDriver(Driver):
    """Drives one Textual app over one SSH channel; all work happens on the event loop."""

    _unfinished: int  # characters parsed since the parser last produced an event

    def __init__(self, app: App[Any], *, link: GameSession, color_system: str = "truecolor", **options: Any) -> None:
        """``link``: output to the client, input waiting (an escape may go on in it), ``driver_started``; ``options``:
        Textual's (``mouse``, ``size``; ``debug`` is never on)."""
        super().__init__(app, **options | {"debug": False})
        self._game_app = app  # (Textual's Driver keeps it, and the size, under private names of its own)
        self._terminal: tuple[int, int] | None = options.get("size")
        self._link = link
        self._color_system = color_system  # the terminal's: output is drawn in 24-bit and brought down to it
        self._output: list[str] = []
        self._flush_handle: asyncio.Handle | None = None
        self._tick_handle: asyncio.TimerHandle | None = None
        self._input_enabled = False
        self._app_context: contextvars.Context | None = None
        self._reset_parser()

    def feed(self, data: bytes) -> None:
        """Bytes the client typed: decode (bad UTF-8 becomes U+FFFD), parse, and post the events to the app."""
        if self._input_enabled and (text := self._decode(data)):
            self._in_app(self._parse, text)

    def _in_app(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``function(*args, **kwargs)`` in the app's context, while it takes input (else None)."""
        if self._input_enabled and self._app_context is not None:
            return self._app_context.run(function, *args, **kwargs)
        return None

    def _parse(self, text: str) -> None:
        text = self._paste_escapes.feed(text)
        if not text:  # (held back: perhaps the start of a paste's end marker; an empty feed would end the parser)
            return
        produced = False
        for event in self._parser.feed(text):
            self.process_message(event)
            produced = True
        self._unfinished = 0 if produced else self._unfinished + len(text)
        if self._unfinished > MAX_UNFINISHED_INPUT:
            log.info("dropping an unfinished paste of more than %d characters", MAX_UNFINISHED_INPUT)
            self._reset_parser()
            self._game_app.notify(TOO_LONG_NOTICE, severity="warning", markup=False)  # already in the app's context
            return
        self._schedule_tick()

    def _schedule_tick(self) -> None:
        """A lone ESC is only known to be the Escape key once no more bytes follow within the escape delay."""
        self._tick_handle = cancel(self._tick_handle)
        if self._input_enabled and escape_pending(self._parser):  # a lone ESC
            self._tick_handle = asyncio.get_running_loop().call_later(_TICK_AFTER, self._on_tick)

    def _on_tick(self) -> None:
        self._tick_handle = None
        if self._link.input_gate.waiting:
            return  # the rest may still come: the next feed decides, and schedules the tick again
        self._in_app(self._tick)

    def _tick(self) -> None:
        for event in self._parser.tick():
            self.process_message(event)
        self._schedule_tick()

    def call_when_processed(self, callback: Callable[[], None]) -> bool:
        """Have the app run ``callback`` once it has handled every event fed so far (False: it takes no more)."""
        return bool(self._in_app(self._game_app.call_later, callback))

    def input_dropped(self, notice: str | None) -> None:
        """Input was dropped mid-stream: start parsing afresh, and tell the player why when ``notice`` is given."""
        self._reset_parser()
        if notice is not None:
            self._in_app(self._game_app.notify, notice, severity="warning", markup=False)

    def _reset_parser(self) -> None:
        """Forget any half-parsed escape sequence or unfinished paste."""
        self._tick_handle = cancel(self._tick_handle)
        self._parser = new_key_parser()  # the parser Textual's own drivers use (a private module: patches.py)
        self._parser.terminal_size = self._terminal or terminal_size(0, 0)
        self._paste_escapes = PasteEscapes()  # pasted text stays text: its escape codes never become keys
        self._unfinished = 0
        self._decode = codecs.getincrementaldecoder("utf-8")(errors="replace").decode

    def resize(self, width: int, height: int) -> None:
        """The client's window changed size."""
        size = terminal_size(width, height)
        self._terminal = size
        self._parser.terminal_size = size
        if self._input_enabled:
            self.send_message(events.Resize(Size(*size), Size(*size)))

    def send_message(self, message: Message) -> None:
        # Same thread as the app: queue directly rather than through run_coroutine_threadsafe.
        self._game_app.post_message(message)

    def process_message(self, message: Message) -> None:
        if isinstance(message, InBandWindowResize):
            return  # sizes come from the SSH window-change requests
        super().process_message(message)

    def write(self, data: str) -> None:
        self._output.append(data)
        if self._flush_handle is None:
            self._flush_handle = asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        self._flush_handle = cancel(self._flush_handle)
        if self._output:
            text = downgrade_colors("".join(self._output), self._color_system)
            self._output.clear()
            self._link.send_output(text)

    def start_application_mode(self) -> None:
        # Called inside the app's context: parse input there too, so events carry this app (never another's).
        self._app_context = contextvars.copy_context()
        self.write(ENTER_SEQUENCES)
        if not constants.DISABLE_KITTY_KEY:
            self.write(f"\x1b[>{_KITTY_FLAGS}u")
        self.flush()
        self._input_enabled = True
        self.resize(*(self._terminal or (0, 0)))
        self._link.driver_started(self)

    def disable_input(self) -> None:
        self._input_enabled = False
        self._tick_handle = cancel(self._tick_handle)

    def stop_application_mode(self) -> None:
        self.disable_input()
        self.write(LEAVE_SEQUENCES)
        self.flush()

    def close(self) -> None:
        self.disable_input()
        self.flush()
        self._app_context = None


def color_system_for(term: str | None, environment: Mapping[str, str] | None = None) -> str:
    """Rich's colour system for a client: "none" for NO_COLOR (``SetEnv``) or a monochrome TERM (``dumb``,
    ``*-mono``, ``*-m``); else "truecolor" for COLORTERM=truecolor/24bit or a terminal known to do it, "256" for
    ``*-256color``, and the 16 "standard" colours for anything else (``xterm``, ``screen``, unknown, none)."""
    environment = environment or {}
    name = (term or "").strip().lower()
    if "NO_COLOR" in environment or name == "dumb" or name.endswith(("-mono", "-m")):
        return "none"
    colorterm = environment.get("COLORTERM", "").strip().lower()
    if colorterm in ("truecolor", "24bit") or any(marker in name for marker in _TRUECOLOR_TERMS):
        return "truecolor"
    if "256color" in name or "256" in name.rsplit("-", 1)[-1]:
        return "256"
    return "standard"


def terminal_size(width: int, height: int) -> tuple[int, int]:
    """The size to draw at: the client's, 80x24 when it reports 0 (``ssh -tt`` without a local terminal), and at
    most ``MAX_SIZE``."""
    return (
        min(width, MAX_SIZE[0]) if width > 0 else DEFAULT_SIZE[0],
        min(height, MAX_SIZE[1]) if height > 0 else DEFAULT_SIZE[1],
    )


class _Discard(io.TextIOBase):
    """A file that swallows writes (an app's console renders to strings, never to a file)."""

    def write(self, text: str) -> int:
        return len(text)

    def isatty(self) -> bool:
        return True


def session_console(term: str | None, size: tuple[int, int]) -> Console:
    """A console like the one ``textual.app.App`` builds, but for the client's terminal instead of ours (in 24-bit
    colour: the driver brings the output down to the terminal's colours, see the module docstring)."""
    width, height = size
    return Console(
        color_system="truecolor",
        file=_Discard(),  # type: ignore[arg-type]
        markup=True,
        highlight=False,
        emoji=False,
        legacy_windows=False,
        _environ={"TERM": term or "xterm", "COLUMNS": str(width), "LINES": str(height)},
        force_terminal=True,
        safe_box=False,
        soft_wrap=False,
    )


_SGR = re.compile(r"\x1b\[([0-9;]*)m")
_SYSTEMS = {"256": ColorSystem.EIGHT_BIT, "standard": ColorSystem.STANDARD}
_MAX_CACHED = 8192  # distinct escape sequences remembered per colour system (a game uses a few hundred)
_downgraded: dict[str, dict[str, str]] = {name: {} for name in _SYSTEMS}


def _downgrade_parameters(parameters: str, system: ColorSystem) -> str:
    parts = parameters.split(";")
    out: list[str] = []
    index = 0
    while index < len(parts):
        part = parts[index]
        kind = parts[index + 1] if part in ("38", "48") and index + 1 < len(parts) else None
        if kind == "2" and index + 4 < len(parts):
            red, green, blue = (int(value or 0) for value in parts[index + 2 : index + 5])
            color = Color.from_rgb(red, green, blue)
            out.extend(color.downgrade(system).get_ansi_codes(foreground=part == "38"))
            index += 5
        elif kind == "5" and index + 2 < len(parts) and system == ColorSystem.STANDARD:
            color = Color.from_ansi(int(parts[index + 2] or 0))
            out.extend(color.downgrade(system).get_ansi_codes(foreground=part == "38"))
            index += 3
        else:
            out.append(part)
            index += 1
    return f"\x1b[{';'.join(out)}m"


def downgrade_colors(text: str, color_system: str) -> str:
    """``text`` (terminal output drawn in 24-bit colour) with its colours in ``color_system`` ("truecolor", "256"
    or "standard")."""
    system = _SYSTEMS.get(color_system)
    if system is None or "\x1b[" not in text:
        return text
    cache = _downgraded[color_system]

    def replace(match: re.Match[str]) -> str:
        parameters = match.group(1)
        if "8;" not in parameters:
            return match.group(0)
        found = cache.get(parameters)
        if found is None:
            if len(cache) >= _MAX_CACHED:
                cache.clear()
            found = cache[parameters] = _downgrade_parameters(parameters, system)
        return found

    return _SGR.sub(replace, text)
