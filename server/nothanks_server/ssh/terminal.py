"""What the SSH client's terminal can do, from what the client sent: TERM, optional COLORTERM, pty size.

Textual builds an app's console from the server process's environment. A server started from a systemd unit has
no TERM at all, and every player would get the server's colours instead of their own terminal's; so each session's
app gets a console built from the client's pty request instead.
"""

from __future__ import annotations

from collections.abc import Mapping

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


def session_console(term: str | None, environment: Mapping[str, str] | None, size: tuple[int, int]) -> Console:
    """A console like the one ``textual.app.App`` builds, but for the client's terminal instead of ours."""
    width, height = size
    return Console(
        color_system=color_system_for(term, environment),  # type: ignore[arg-type]
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
