"""loadgen/fast_screen.py shows what pyte shows: hand-written sequences, then the real game's output over SSH.

The expectation is always pyte's ``Screen.display`` fed the same bytes, never written out here.
"""

from __future__ import annotations

from typing import Any

import asyncssh
import pyte
import pytest

from tools.loadgen.fast_screen import FastScreen
from tools.loadgen.terminal_client import TerminalClient
from tools.loadgen.visitors import SHRUNK, play_a_game

ESC = "\x1b"
CSI = "\x1b["


def screens(columns: int = 20, lines: int = 5) -> tuple[FastScreen, pyte.Screen, pyte.ByteStream]:
    reference = pyte.Screen(columns, lines)
    return FastScreen(columns, lines), reference, pyte.ByteStream(reference)


def fed(*chunks: str | bytes, columns: int = 20, lines: int = 5) -> tuple[list[str], list[str]]:
    """The displays of the fast screen and of pyte, each fed ``chunks`` one by one."""
    fast, reference, stream = screens(columns, lines)
    for chunk in chunks:
        data = chunk.encode() if isinstance(chunk, str) else chunk
        fast.feed(data)
        stream.feed(data)
    return fast.display, reference.display


SAME_AS_PYTE = {
    "text, CR, LF": ["hello\r\nworld\n  indented"],
    "scrolls at the bottom": ["\r\n".join(f"line {n}" for n in range(9))],
    "wraps at the right margin": ["x" * 20 + "y", "z" * 45],
    "at the last column": ["x" * 20, "\r\n", "abc"],
    "the last column, then a cursor move": ["x" * 20, f"{CSI}D", "y", f"{CSI}3;5H", "z" * 16],
    "no autowrap: the last column takes the last character": [f"{CSI}?7l", "x" * 18 + "abcd", "\r\n", "e" * 30],
    "autowrap back on": [f"{CSI}?7l", "x" * 25, f"{CSI}?7h", "y" * 25],
    "cursor positions, defaults and clamping": [
        f"{CSI}Ha{CSI}3Hb{CSI};5Hc{CSI}2;7Hd{CSI}99;999He{CSI}0;0Hf{CSI}4;2fg",
    ],
    "cursor moves": [
        f"{CSI}3;10H*{CSI}A^{CSI}2B{CSI}Dv{CSI}5C>{CSI}30C|{CSI}40D<{CSI}E1{CSI}2F2{CSI}7G3{CSI}4d4{CSI}0A5",
        f"{CSI}e6{CSI}3a7{CSI}`8{CSI}2'9",
    ],
    "erase in line": [
        "abcdefghij\r\nabcdefghij\r\nabcdefghij\r\nabcdefghij",
        f"{CSI}1;4H{CSI}K{CSI}2;4H{CSI}0K{CSI}3;4H{CSI}1K{CSI}4;4H{CSI}2K{CSI}4;9H{CSI}3X",
    ],
    "erase below": ["\r\n".join("abcdefghij" for _ in range(5)), f"{CSI}3;4H{CSI}J"],
    "erase above": ["\r\n".join("abcdefghij" for _ in range(5)), f"{CSI}3;4H{CSI}1J"],
    "erase all, the cursor stays": ["\r\n".join("abcdefghij" for _ in range(5)), f"{CSI}3;4H{CSI}2Jhere"],
    "erase at the pending wrap": ["x" * 20, f"{CSI}K", "\r\n" + "y" * 20, f"{CSI}1K"],
    "SGR is ignored": [f"{CSI}1;38;5;214;48;5;233mbold{CSI}0m plain{CSI}m{CSI}38;2;1;2;3mrgb"],
    "OSC with BEL or ST is ignored": [f"a{ESC}]22;default\x07b{ESC}]0;a title{ESC}\\c{ESC}]8;;http://x{ESC}\\d"],
    "what Textual sends on entering": [
        f"{CSI}?1049h{CSI}?25l{CSI}?1000h{CSI}?1006h{CSI}?1004h{CSI}?2004h{CSI}?7l{CSI}?2026$p{CSI}>25u"
        f"{ESC}]22;default\x07{CSI}2;3Hshown",
    ],
    "what Textual sends on leaving (pyte draws the u of CSI <u)": [
        f"{CSI}3;4H{CSI}?2004l{CSI}?7h{CSI}?1000l{CSI}?1002l{CSI}?1003l{CSI}?1006l{CSI}?1015l{CSI}<u"
        f"{CSI}?1049l{CSI}?25h{CSI}?1004l{CSI}0m",
    ],
    "other escapes": [f"ab{ESC}7{CSI}4;4Hcd{ESC}8ef{ESC}Dg{ESC}Eh{ESC}(Bi{ESC}=j{ESC}>k"],
    "restore with nothing saved goes home": [f"{CSI}3;3Hx{ESC}8y"],
    "reverse index scrolls at the top": ["one\r\ntwo", f"{CSI}H{ESC}Mnew{ESC}M{ESC}Mtop"],
    "reset": ["text", f"{CSI}?7l{CSI}3;3H{ESC}c", "x" * 25],
    "backspace and tab": ["abc\bX\b\b\bY\tT\tU\t\tV\b\bW", "\r\n" + "x" * 20 + "\bZ"],
    "tab stops set and cleared": [f"{CSI}3G{ESC}H\r\tA{CSI}g\r\tB{CSI}3g\r\tC"],
    "ignored controls": ["a\x07b\x0ec\x0fd\x00e\x7ff"],
    "box drawing and symbols": ["╭─ u6 ───╮ ▶ · — … → − ━ ┃ ▌▎▏▔ ● ★", "\r\n│ ╺━┓┏━╸ │" + "─" * 30],
    "wide characters": ["中文 ok", "\r\n" + "x" * 19 + "中", f"{CSI}3;1H" + "宽" * 12],
    "a wide character's stub overwritten": ["中文", f"{CSI}1;2Ha", f"{CSI}2;1H中文", f"{CSI}2;1H宽"],
    "combining characters": ["cafe\u0301 e\u0301", "\r\n" + "x" * 20 + "\u0301y"],
    "unprintable characters in text": ["ab\x01cd", "\r\nef\x85gh", "\r\nij\u200bkl"],
    "CAN and SUB cancel a CSI": [f"a{CSI}3\x18b{CSI}4;\x1ac"],
    "controls in a CSI act": [f"abc{CSI}\r2;\n5Hd"],
    "8-bit CSI and OSC": ["a\u009b3;4Hb\u009d0;title\x07c"],
    "invalid UTF-8 is replaced": [b"a\xffb\xe2\x94c"],
}


@pytest.mark.parametrize("chunks", SAME_AS_PYTE.values(), ids=SAME_AS_PYTE.keys())
def test_shows_what_pyte_shows(chunks: list[str | bytes]) -> None:
    fast, reference = fed(*chunks)
    assert fast == reference
    assert fast != [" " * 20] * 5  # something to compare


@pytest.mark.parametrize("chunks", SAME_AS_PYTE.values(), ids=SAME_AS_PYTE.keys())
def test_shows_what_pyte_shows_fed_a_byte_at_a_time(chunks: list[str | bytes]) -> None:
    data = b"".join(chunk.encode() if isinstance(chunk, str) else chunk for chunk in chunks)
    fast, reference = fed(*(data[index : index + 1] for index in range(len(data))))
    assert fast == reference


def test_an_escape_sequence_split_at_every_point() -> None:
    data = f"{CSI}2;3H{CSI}1;38;5;214mab{ESC}]22;default{ESC}\\{CSI}?2026$p{CSI}Kc{ESC}]0;t\x07{CSI}4;18H─d".encode()
    whole, _ = fed(data)
    assert whole[1].startswith("  ab") and whole[3].endswith("─d ")
    for split in range(1, len(data)):
        fast, reference = fed(data[:split], data[split:])
        assert fast == reference == whole, f"split at byte {split}"


def test_a_utf8_character_split_across_feeds() -> None:
    data = "a─b中c".encode()
    for split in range(1, len(data)):
        fast, reference = fed(data[:split], data[split:])
        assert fast == reference
        assert fast[0].startswith("a─b中c")


def test_entering_the_alternate_screen_clears_it() -> None:
    before = "old text\r\nmore old text"
    fast, reference = fed(before, f"{CSI}?1049h", "new")
    assert "old" in "".join(reference)  # pyte does not know the alternate screen
    cleared, reference_cleared = fed(before, f"{CSI}?1049h{CSI}2J", "new")  # what a terminal does: erase all
    assert fast == reference_cleared == cleared
    assert "old" not in "".join(fast) and "new" in fast[1]


def test_each_line_is_as_wide_as_the_screen() -> None:
    fast, _, _ = screens(33, 7)
    fast.feed("\r\n".join(["x" * 40, "", "╭─╮", "short"]).encode())
    assert len(fast.display) == 7
    assert [len(line) for line in fast.display] == [33] * 7


@pytest.mark.parametrize(("lines", "columns"), [(8, 30), (3, 12), (3, 30), (8, 12), (5, 20), (2, 20)])
@pytest.mark.parametrize("cursor", ["4;20H", "5;1H", "1;1H", "4;20Hx"])
def test_resize_as_pyte_does(lines: int, columns: int, cursor: str) -> None:
    fast, reference, stream = screens(20, 5)

    def feed(text: str) -> None:
        fast.feed(text.encode())
        stream.feed(text.encode())
        assert fast.display == reference.display

    feed("\r\n".join(f"{row}" * 20 for row in range(5)) + f"{CSI}{cursor}")
    fast.resize(lines, columns)
    reference.resize(lines, columns)
    assert fast.display == reference.display
    feed("abc\r\ndef\r\nghi")  # from where the cursor was: below the screen if it lost those lines
    feed(f"{CSI}{lines};{columns}Hgh{CSI}H{'z' * (columns + 3)}")
    if cursor.startswith("4;20H") and columns < 20:
        return  # pyte wrote the "a" out of sight, right of the screen, and would show it again: not kept here
    fast.resize(6, 25)
    reference.resize(6, 25)
    feed(f"{CSI}6;1H\r\n\nend")  # what was below the screen comes back (pyte)


def test_text_is_joined_once_per_change() -> None:
    client = TerminalClient(10, 3, screen="fast")
    client._received(b"hello", None)
    text = client.text()
    assert text == "hello     \n          \n          "
    assert client.text() is text
    client._received(b"\r\nworld", None)
    assert client.text() == "hello     \nworld     \n          "


def test_raw_mode_still_reads_the_output_since_the_mark() -> None:
    client = TerminalClient(emulate=False, screen="fast")
    client._received(b"before", None)
    client.mark()
    client._received(b"after", None)
    assert client.text() == "after"


def test_an_unknown_screen_is_refused() -> None:
    with pytest.raises(ValueError, match="screen"):
        TerminalClient(screen="vt100")


class BothScreens(TerminalClient):
    """A client reading the fast screen, with pyte fed every chunk too; the two compared after each chunk."""

    def __init__(self, width: int = 80, height: int = 24) -> None:
        super().__init__(width, height, screen="fast")
        self.reference = pyte.Screen(width, height)
        self._reference_stream = pyte.ByteStream(self.reference)
        self.chunks = 0
        self.differences: list[str] = []
        self.saw_game_over = False  # (quitting clears the screen, issue 29 #15: the end is seen before it)

    def _received(self, data: bytes, datatype: Any) -> None:
        super()._received(data, datatype)
        if datatype == asyncssh.EXTENDED_DATA_STDERR:
            return
        self._reference_stream.feed(data)
        self.chunks += 1
        fast = self.screen.display
        self.saw_game_over = self.saw_game_over or any("Game over" in line for line in fast)
        if fast != self.reference.display:
            lines = [
                f"  line {y}: fast {mine!r}\n          pyte {theirs!r}"
                for y, (mine, theirs) in enumerate(zip(fast, self.reference.display))
                if mine != theirs
            ]
            self.differences.append(f"after chunk {self.chunks}:\n" + "\n".join(lines))

    def resize(self, width: int, height: int) -> None:
        self.reference.resize(height, width)
        super().resize(width, height)


async def test_the_games_output_shows_the_same_on_both_screens_after_every_chunk(game_sessions):
    client = await BothScreens().connect(game_sessions.port, "alice")
    moves = await play_a_game(client)
    assert client.differences == []
    assert moves >= 8  # both resizes happened
    assert (client.screen.columns, client.screen.lines) == SHRUNK
    assert client.chunks > 20
    raw = bytes(client.raw)
    for sequence in (b"\x1b[?1049h", b"\x1b[?7l", b"\x1b]22;default\x07", "─".encode(), b"\x1b[<u"):
        assert sequence in raw
    assert client.saw_game_over
    assert "Game over" not in client.text()  # quitting left a clear screen
