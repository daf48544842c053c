"""What the SSH client's terminal can do (TERM, COLORTERM, pty size), and the session's colours brought down to it.

Textual builds a console from the process's environment (a systemd unit has no TERM): each app gets one built from
the client's pty request instead. Every app draws in 24-bit and ``downgrade_colors`` (rich's ``Color.downgrade``,
cached) brings the output down as it leaves: Textual caches a style's escape codes on the style, shared by the apps
of a process, so apps drawing at different colour systems gave one another's codes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rich.color import Color, ColorSystem
from rich.console import Console

DEFAULT_SIZE = (80, 24)
MAX_SIZE = (400, 150)  # a 4K screen with a small font is about 380x100; beyond this a size is only a way to make
# the host draw (and keep) a screen of millions of cells for one player: it is cut down to this
_TRUECOLOR_TERMS = ("truecolor", "24bit", "direct", "kitty", "wezterm", "alacritty", "foot", "ghostty", "iterm")


def color_system_for(term: str | None, environment: Mapping[str, str] | None = None) -> str:
    """Rich's colour system name for a client: "truecolor", "256" or "standard" (never None).

    COLORTERM=truecolor/24bit (sent when the client's ssh is configured with ``SendEnv COLORTERM``) wins; otherwise
    the TERM name decides: ``*-256color`` is 256 colours, a handful of terminals known to do 24-bit colour are
    truecolor, anything else (``xterm``, ``screen``, ``vt100``, unknown, none) gets the 16 standard colours.
    """
    colorterm = (environment or {}).get("COLORTERM", "").strip().lower()
    if colorterm in ("truecolor", "24bit"):
        return "truecolor"
    name = (term or "").strip().lower()
    if any(marker in name for marker in _TRUECOLOR_TERMS):
        return "truecolor"
    if "256color" in name or "256" in name.rsplit("-", 1)[-1]:
        return "256"
    return "standard"


def terminal_size(width: int, height: int) -> tuple[int, int]:
    """The size to draw at: the client's, 80x24 when it reports 0 (``ssh -tt`` without a local terminal), and at
    most ``MAX_SIZE``."""
    default_width, default_height = DEFAULT_SIZE
    max_width, max_height = MAX_SIZE
    return (
        min(width, max_width) if width > 0 else default_width,
        min(height, max_height) if height > 0 else default_height,
    )


class _Discard:
    """A file that swallows writes (an app's console renders to strings, never to a file)."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass

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
