"""Untrusted text (player names, messages from a host) made safe to draw: never raises, always fits.

A name may hold terminal escape sequences, control characters, Rich markup or 10 kB of text. For display we drop
escape sequences and control/format characters and collapse whitespace, by the link's one rule for that
(``link.names.printable_text``, which also cleans names at the host's door), then truncate by terminal cell
width. The result is still plain text: widgets must draw it as literal text (``Content``/``Text``), never parse it
as markup.
"""

from __future__ import annotations

from rich.cells import cell_len

from ..link.names import printable_text

MAX_NAME_CELLS = 14
_MAX_INPUT = 256  # never scan more than this much of a hostile name


def clean_name(raw: object, max_input: int = _MAX_INPUT) -> str:
    """The name without escape sequences or control characters, whitespace collapsed; '?' if nothing is left.

    For drawing, where ``link.names.clean_name`` is for admitting: the same cleaning, but of any value (``str`` of
    it, the first ``max_input`` characters), never refusing, and with no length rule (``display_name`` cuts by
    cells). A name a host admitted comes out unchanged.
    """
    return printable_text(str(raw)[:max_input]) or "?"


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
