"""Escape characters inside a bracketed paste are dropped before the key parser sees them: Textual reads an ESC in a
paste as a key sequence, so a chat line pasted with colour codes closed the chat there and the rest went to the table
as keys (``t`` takes the card). Only the paste's own end marker keeps its ESC; the host cleans the rest of the codes.
"""

from __future__ import annotations

ESC = "\x1b"
PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"


class PasteEscapes:
    """A filter of the client's input, chunk by chunk as it arrives (a marker may be split between two chunks)."""

    def __init__(self) -> None:
        self.in_paste = False
        self._seen = ""  # the last few characters passed on outside a paste (to find a start marker split in two)
        self._held = ""  # inside a paste: the chunk's end, which may be the start of the end marker

    def feed(self, text: str) -> str:
        """``text`` as the parser should get it."""
        out: list[str] = []
        text = self._held + text
        self._held = ""
        position = 0
        while position < len(text):
            if not self.in_paste:
                window = self._seen + text[position:]
                found = window.find(PASTE_START)
                if found < 0:
                    out.append(text[position:])
                    self._seen = window[-(len(PASTE_START) - 1) :]
                    break
                end = found + len(PASTE_START) - len(self._seen)  # where the marker ends, in text
                out.append(text[position : position + end])
                position += end
                self._seen = ""
                self.in_paste = True
                continue
            found = text.find(ESC, position)
            if found < 0:
                out.append(text[position:])
                break
            out.append(text[position:found])
            rest = text[found : found + len(PASTE_END)]
            if rest == PASTE_END:
                out.append(PASTE_END)
                position = found + len(PASTE_END)
                self.in_paste = False
            elif PASTE_END.startswith(rest):  # perhaps the end marker, cut short by the chunk's end: wait
                self._held = rest
                break
            else:  # an escape code in the pasted text: its ESC goes, the rest stays text
                position = found + 1
        return "".join(out)

    def reset(self) -> None:
        self.in_paste = False
        self._seen = ""
        self._held = ""
