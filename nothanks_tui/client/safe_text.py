"""Untrusted text (player names, messages from a host) made safe to draw: never raises, always fits.

A name may hold terminal escape sequences, control characters, Rich markup or 10 kB of text. For display we drop
escape sequences and control/format characters, collapse whitespace and truncate by terminal cell width. The result
is still plain text: widgets must draw it as literal text (``Content``/``Text``), never parse it as markup.
"""

from __future__ import annotations

import re
import unicodedata

from rich.cells import cell_len

MAX_NAME_CELLS = 14
_ESCAPE_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI ... final byte
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC ... BEL or ST
    r"|\x1b[P^_X][^\x1b]*(?:\x1b\\)?"  # DCS / PM / APC / SOS strings
    r"|\x1b."  # any other two-byte escape
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
_MAX_INPUT = 256  # never scan more than this much of a hostile name


def clean_name(raw: object, max_input: int = _MAX_INPUT) -> str:
    """The name without escape sequences or control characters, whitespace collapsed; '?' if nothing is left."""
    text = str(raw)[:max_input]
    text = _ESCAPE_SEQUENCE.sub("", text)
    kept = []
    for char in text:
        category = unicodedata.category(char)
        if category in ("Zs", "Zl", "Zp") or char in "\t\n\r":
            kept.append(" ")
        elif category[0] != "C":  # Cc control, Cf format (bidi overrides, zero-width), Cs, Co, Cn
            kept.append(char)
    cleaned = " ".join("".join(kept).split())
    return cleaned or "?"


def display_name(raw: object, max_cells: int = MAX_NAME_CELLS) -> str:
    """``clean_name`` truncated to ``max_cells`` terminal cells, with '…' when cut."""
    name = clean_name(raw)
    if cell_len(name) <= max_cells:
        return name
    cut = []
    width = 0
    for char in name:
        char_width = cell_len(char)
        if width + char_width > max_cells - 1:
            break
        cut.append(char)
        width += char_width
    return "".join(cut).rstrip() + "…"


def clean_message(raw: object, max_chars: int = 300) -> str:
    """Untrusted message text (a refusal or close reason from a host) made safe to draw, at most ``max_chars``."""
    text = clean_name(raw, max_input=max_chars * 4)
    return text if len(text) <= max_chars else text[: max_chars - 1] + "…"
