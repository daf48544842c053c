"""A paste with escape codes in it reaches the app as one paste, never as key presses (the SSH driver's filter,
server/nothanks_server/ssh/driver.py, PasteEscapes): pasted into the chat line, an escape code closed the line and
sent the rest of the text to the table as keys, where t takes the card."""

from __future__ import annotations

from textual import events
from textual._xterm_parser import XTermParser

from nothanks_server.ssh.driver import PasteEscapes

HOSTILE = "hi \x1b[31mred\x1b[0m \x1b]0;title\x07 t t n \x1b"
PASTED = "\x1b[200~" + HOSTILE + "\x1b[201~"


def parsed(chunks: list[str]) -> list[events.Event]:
    parser = XTermParser(debug=False)
    escapes = PasteEscapes()
    found: list[events.Event] = []
    for chunk in chunks:
        text = escapes.feed(chunk)
        if text:  # (an empty feed is the end of input to the parser)
            found.extend(parser.feed(text))
    return found


def test_a_paste_with_escape_codes_is_one_paste_and_no_keys():
    for chunks in ([PASTED], [PASTED[:3], PASTED[3:9], PASTED[9:]], list(PASTED), [PASTED[:-3], PASTED[-3:]]):
        seen = parsed(chunks)
        pastes = [event for event in seen if isinstance(event, events.Paste)]
        keys = [event for event in seen if isinstance(event, events.Key)]
        assert keys == [], (chunks, keys)
        assert len(pastes) == 1 and "\x1b" not in pastes[0].text
        assert pastes[0].text.startswith("hi [31mred") and "t t n" in pastes[0].text


def test_keys_outside_a_paste_pass_untouched():
    escapes = PasteEscapes()
    for text in ("t", "\x1b", "\x1b[A", "n", "\x1b[1;5C"):
        assert escapes.feed(text) == text
    assert not escapes.in_paste
    assert escapes.feed("\x1b[20") == "\x1b[20" and escapes.feed("0~x") == "0~x" and escapes.in_paste
    assert escapes.feed("\x1b[201~t") == "\x1b[201~t" and not escapes.in_paste
