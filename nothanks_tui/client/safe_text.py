"""Untrusted text (names, a host's messages) made safe to draw: escapes and control characters dropped by the link's
rule (``link.names.printable_text``), cut by terminal cells; still drawn as literal text, never markup."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size

from ..link.names import printable_text

MAX_NAME_CELLS = 14
_MAX_INPUT = 256  # never scan more than this much of a hostile name


def clean_name(raw: object, max_input: int = _MAX_INPUT) -> str:
    """``raw`` (any value, its first ``max_input`` characters) cleaned as ``link.names`` cleans names, never refused:
    '?' if nothing is left. A name a host admitted comes out unchanged."""
    return printable_text(str(raw)[:max_input]) or "?"


def display_name(raw: object, max_cells: int = MAX_NAME_CELLS) -> str:
    """``clean_name`` truncated to ``max_cells`` terminal cells, with '…' when cut."""
    name = clean_name(raw)
    return name if cell_len(name) <= max_cells else set_cell_size(name, max_cells - 1).rstrip() + "…"


def clean_message(raw: object, max_chars: int = 300) -> str:
    """Untrusted message text (a refusal or close reason from a host) made safe to draw, at most ``max_chars``."""
    text = clean_name(raw, max_input=max_chars * 4)
    return text if len(text) <= max_chars else text[: max_chars - 1] + "…"
