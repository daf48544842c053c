"""Player names are untrusted text typed by strangers: clean them once, at the door, the same way everywhere.

A name is 1..20 printable characters: escape sequences and control characters stripped (never interpreted),
whitespace runs made one space. Markup such as ``[red]`` stays literal: names are always drawn as plain text.
"""

from __future__ import annotations

import re
import unicodedata

MAX_NAME = 20
GUEST_MARK = "~"  # before a guest's (keyless player's) name wherever it is shown; never typed (clean_name drops it)
MARK_LOOKALIKES = GUEST_MARK + "～∼˜〜⁓∽῀\u0303 "  # what reads as the guest mark at a name's start: dropped too
MAX_RAW_NAME = 256  # longer input is refused before any cleaning work

# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), other two-byte ESC sequences, and 8-bit C1 CSI/OSC.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|\x1b[ -/]*[0-~]?"
    r"|\x9b[0-?]*[ -/]*[@-~]"
    r"|\x9d[^\x07\x9c]*[\x07\x9c]?"
)
_SPACES = re.compile(r"\s+")


class BadName(ValueError):
    """A name that is empty (after cleaning) or too long. The host answers with code ``bad_name``."""


def clean_name(raw: object) -> str:
    """The display form of ``raw``: escapes and control characters removed, 1..20 characters, or ``BadName``: the
    door's rule (the client's ``safe_text.clean_name`` is the drawing side, which never refuses)."""
    if not isinstance(raw, str):
        raise BadName("a name is text")
    if len(raw) > MAX_RAW_NAME:
        raise BadName(f"a name has at most {MAX_NAME} characters")
    text = printable_text(raw).lstrip(MARK_LOOKALIKES)
    if not text:
        raise BadName("a name needs at least one printable character")
    if len(text) > MAX_NAME:
        raise BadName(f"a name has at most {MAX_NAME} characters")
    return text


def name_key(name: str) -> str:
    """Whose a name is, for owning it: case and compatibility forms aside (``Ａlice`` is ``alice``'s)."""
    return unicodedata.normalize("NFKC", name).casefold()


def printable_text(raw: str) -> str:
    """``raw`` without escape sequences or control and format characters, whitespace runs made one space, stripped:
    what is unsafe in untrusted text, in one place (``clean_name``, ``client/safe_text.py``)."""
    text = _ESCAPES.sub("", raw)
    text = "".join(ch if _printable(ch) else " " if ch.isspace() else "" for ch in text)
    return _SPACES.sub(" ", text).strip()


def _printable(ch: str) -> bool:
    category = unicodedata.category(ch)
    # C* = control, format (bidi overrides, zero-width), surrogate, private use, unassigned; Z[lp] = line breaks.
    return not (category.startswith("C") or category in ("Zl", "Zp"))
