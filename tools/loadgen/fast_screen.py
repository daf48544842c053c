"""A cheap terminal screen for the benchmark visitors: the characters pyte would show, without pyte's cost.

scripts/bench_ssh.py runs 50+ SSH clients in one process (loadgen/visitors.py). Fed to pyte, which parses char by
char in Python and keeps a dict of styled cells, their output kept that process so busy that its own lag (26-83 ms
at p99) polluted the key-to-update times it measures. ``FastScreen`` tokenizes each chunk with compiled regular
expressions into runs of text and escape sequences, writes a run at the cursor as one slice assignment into a row
(a list of one-character strings), and tracks characters only, never styles.

It follows pyte 0.8's ``Screen`` fed through a ``ByteStream``, down to its quirks (its CSI grammar, how it writes at
the last column with autowrap on and off, wide characters with an empty stub cell after them), so that
``display`` is the same list of strings for what Textual sends: cursor positions and moves, erases, SGR (ignored),
private modes (only autowrap, ``?7``, matters), OSC strings (ignored), line feeds that scroll. Where it differs on
purpose or by omission:

- entering the alternate screen (``CSI ?1049h``) clears the screen, as a terminal does; pyte ignores it. Leaving it
  is ignored, as pyte does (a terminal would bring back the main screen).
- not supported (the sequence is ignored): scrolling margins (``CSI r``), inserting or deleting lines or
  characters (``CSI L M @ P``), insert and newline modes (``CSI 4h``, ``CSI 20h``), origin and 132-column modes,
  ``ESC # 8``, the Latin-1 switch ``ESC % @``, a CSI with more than two parameters where pyte raises.
- what pyte writes out of sight to the right of the screen (after it lost columns) is not kept.
- pyte drops the rest of a run of text after an unprintable or zero-width (not combining) character; SGR being
  dropped first makes runs here longer, so more may be dropped. Textual sends no such characters.
"""

from __future__ import annotations

import codecs
import re
import unicodedata

from wcwidth import wcwidth

# Everything but C0/C1 introducers and the controls pyte acts on is text (pyte's own ``Stream._text_pattern``).
_TEXT = r"(?P<text>[^\x00\x07-\x0f\x1b\x7f\x9b\x9d]+)"
_CONTROL = r"(?P<control>[\x00\x07-\x0f\x7f])"
# pyte's CSI grammar: digits, ';', '?' (private), '>' and ' ' (ignored) until any other character, which ends the
# sequence; '$' swallows one more character; the controls BEL..CR in the middle act as they would outside; CAN and
# SUB cancel. So ``CSI <u`` ends at '<' and the 'u' is text, as in pyte.
_CSI = (
    r"(?P<csi>(?:\x1b\[|\x9b)(?P<params>[0-9;?> \x07-\x0d]*)"
    r"(?:\$[\s\S]|(?P<final>[^0-9;?> $\x07-\x0d\x18\x1a])|(?P<cancel>[\x18\x1a])))"
)
# pyte: 'R' and 'P' end an OSC at once; otherwise it runs to BEL, ST (8-bit) or ESC \, an ESC pairing with the
# character after it.
_OSC = r"(?P<osc>(?:\x1b\]|\x9d)(?:[RP]|[\s\S](?:[^\x07\x9c\x1b]|\x1b[\s\S])*?(?:\x07|\x9c|\x1b\\)))"
_ESCAPE = r"(?P<escape>\x1b(?:[#%()][\s\S]|[^\[\]#%()]))"
_TOKENS = re.compile("|".join((_TEXT, _CSI, _ESCAPE, _OSC, _CONTROL)))
# SGR (styles) is most of Textual's output and does nothing here: dropped before tokenizing, so the text runs on
# either side of it become one run. Only the plain form, which in pyte has no other effect.
_SGR = re.compile(r"(?:\x1b\[|\x9b)[0-9;]*m")
_NOT_CSI_PARAMS = str.maketrans("", "", "?> \x07\x08\x09\x0a\x0b\x0c\x0d")

_ALTERNATE_SCREEN = 1049
_AUTOWRAP = 7


class FastScreen:
    """The characters on a ``columns`` x ``lines`` terminal fed with UTF-8 output, like ``pyte.Screen.display``."""

    def __init__(self, columns: int, lines: int) -> None:
        self.columns = columns
        self.lines = lines
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""  # an escape sequence the last chunk ended in the middle of
        self._narrow: set[str] = {chr(code) for code in range(0x20, 0x7F)}  # characters one cell wide, so far
        self._saved: list[tuple[int, int, bool]] = []
        self._display: list[str] | None = None
        self.reset()

    def reset(self) -> None:
        """Blank screen, cursor home, autowrap on, tab stops every 8 columns (``ESC c``; pyte's ``reset``)."""
        # a list of cells per line; after the screen loses lines, rows below them, out of sight (as in pyte)
        self._rows = [[" "] * self.columns for _ in range(self.lines)]
        self.x = 0  # == columns after writing the last column: the next character wraps (or, no autowrap, stays)
        self.y = 0
        self.autowrap = True
        self._tabstops = set(range(8, self.columns, 8))
        self._display = None

    @property
    def display(self) -> list[str]:
        """One string per line, ``columns`` cells each (a two-cell character and its stub count as one string)."""
        if self._display is None:
            narrow = self._narrow
            self._display = []
            for row in self._rows[: self.lines]:
                line = "".join(row)
                if not line.isascii() and not narrow.issuperset(line):
                    line = self._render_wide(row)  # a two-cell or a combined character
                self._display.append(line)
        return self._display

    @staticmethod
    def _render_wide(row: list[str]) -> str:
        rendered = []
        skip = False
        for cell in row:
            if skip:  # the stub after a two-cell character, whatever it holds now (as pyte renders)
                skip = False
                continue
            rendered.append(cell)
            skip = bool(cell) and wcwidth(cell[0]) == 2
        return "".join(rendered)

    def resize(self, lines: int | None = None, columns: int | None = None) -> None:
        """pyte's ``resize``: fewer lines drops them from the top, fewer columns crops at the right. The cursor
        stays where it was, even below the last line (pyte)."""
        lines = lines or self.lines
        columns = columns or self.columns
        if (lines, columns) == (self.lines, self.columns):
            return
        if lines < self.lines:
            dropped = self.lines - lines
            rows = self._rows
            rows[: self.lines] = rows[dropped : self.lines] + [[" "] * self.columns for _ in range(dropped)]
            # pyte saves and restores the cursor around dropping the lines, which keeps it in the old bounds
            self.x = min(self.x, self.columns - 1)
            self.y = min(self.y, self.lines - 1)
        self._rows += [[" "] * self.columns for _ in range(lines - len(self._rows))]
        if columns < self.columns:
            for row in self._rows:
                del row[columns:]
        elif columns > self.columns:
            for row in self._rows:
                row += [" "] * (columns - self.columns)
        self.lines, self.columns = lines, columns
        self._display = None

    def feed(self, data: bytes) -> None:
        """Take a chunk of output: any UTF-8 character or escape sequence it splits is finished by the next one."""
        text = self._pending + self._decoder.decode(data)
        self._pending = ""
        if not text:
            return
        self._display = None
        if "m" in text:
            text = _SGR.sub("", text)
        expected = 0
        for token in _TOKENS.finditer(text):
            if token.start() != expected:
                break  # an escape sequence that does not end in this chunk
            expected = token.end()
            kind = token.lastgroup
            if kind == "text":
                self._draw(token.group())
            elif kind == "csi":
                final = token.group("final")
                if final is not None:
                    self._csi(token.group("params"), final)
                else:
                    self._csi_controls(token.group("params"))
                    if token.group("cancel"):
                        self._draw_slowly(token.group("cancel"))  # pyte draws CAN or SUB: nothing, but it wraps
            elif kind == "control":
                self._control(token.group())
            elif kind == "escape":
                self._escape(token.group())
            # osc: titles and colours, nothing to show
        if expected != len(text):
            self._pending = text[expected:]

    def _draw(self, run: str) -> None:
        if not (run.isascii() and run.isprintable()) and not self._all_narrow(run):
            self._draw_slowly(run)
            return
        columns = self.columns
        x = self.x
        while run:
            if x >= columns:
                if x > columns:  # pyte writes one character out of sight, then stays at the margin
                    run = run[1:]
                    x = columns
                    continue
                if not self.autowrap:  # every character lands in the last column: the last one stays
                    self._rows[self.y][columns - 1] = run[-1]
                    break
                x = 0
                self._index()
            part = run[: columns - x]
            self._rows[self.y][x : x + len(part)] = part
            x += len(part)
            run = run[len(part) :]
        self.x = x

    def _all_narrow(self, run: str) -> bool:
        narrow = self._narrow
        if narrow.issuperset(run):
            return True
        for char in set(run).difference(narrow):
            if wcwidth(char) == 1 and char.isprintable():
                narrow.add(char)
        return narrow.issuperset(run)

    def _draw_slowly(self, run: str) -> None:
        """pyte's ``draw``, character by character: wide, combining, zero-width and unprintable characters."""
        columns = self.columns
        for char in run:
            width = wcwidth(char)
            if self.x > columns:  # out of sight after a resize (pyte): written there, then at the margin
                if width > 0:
                    self.x = columns
                    continue
                if unicodedata.combining(char):
                    continue
                break
            if self.x == columns:
                if self.autowrap:
                    self.x = 0
                    self._index()
                elif width > 0:
                    self.x -= width
            row = self._rows[self.y]
            if width == 1:
                row[self.x] = char
            elif width == 2:
                row[self.x] = char
                if self.x + 1 < columns:
                    row[self.x + 1] = ""
            elif width == 0 and unicodedata.combining(char):
                if self.x:
                    row[self.x - 1] = unicodedata.normalize("NFC", row[self.x - 1] + char)
                elif self.y:
                    above = self._rows[self.y - 1]
                    above[columns - 1] = unicodedata.normalize("NFC", above[columns - 1] + char)
            else:
                break  # pyte drops the rest of the run after an unprintable or zero-width character
            if width > 0:
                self.x = min(self.x + width, columns)

    def _index(self) -> None:
        """Line feed: down a line, scrolling the screen up at the bottom."""
        bottom = self.lines - 1
        if self.y == bottom:
            del self._rows[0]
            self._rows.insert(bottom, [" "] * self.columns)
        else:
            self.y = min(self.y + 1, bottom)  # from below the screen (after a resize), back to its last line

    def _reverse_index(self) -> None:
        if self.y == 0:
            del self._rows[self.lines - 1]
            self._rows.insert(0, [" "] * self.columns)
        else:
            self.y = max(self.y - 1, 0)

    def _control(self, char: str) -> None:
        if char in "\n\x0b\x0c":
            self._index()
        elif char == "\r":
            self.x = 0
        elif char == "\b":
            self._cursor_back(1)
        elif char == "\t":
            self.x = min((stop for stop in self._tabstops if stop > self.x), default=self.columns - 1)
        # BEL, SO, SI (ignored in UTF-8), NUL, DEL: nothing

    def _csi_controls(self, params: str) -> None:
        """The controls BEL..CR inside a CSI act as they would outside it (pyte)."""
        if not params.isprintable():
            for char in params:
                if not char.isprintable():
                    self._control(char)

    def _csi(self, params: str, final: str) -> None:
        self._csi_controls(params)
        private = "?" in params
        values = [min(int(value or 0), 9999) for value in params.translate(_NOT_CSI_PARAMS).split(";")]
        first = values[0] or 1
        if final in "Hf":
            self.y = min(max(first, 1), self.lines) - 1
            self.x = min(max(values[1] if len(values) > 1 and values[1] else 1, 1), self.columns) - 1
        elif final == "A":
            self.y = max(self.y - first, 0)
        elif final in "Be":
            self.y = min(self.y + first, self.lines - 1)
        elif final in "Ca":
            self.x = min(self.x + first, self.columns - 1)
        elif final == "D":
            self._cursor_back(first)
        elif final == "E":
            self.y = min(self.y + first, self.lines - 1)
            self.x = 0
        elif final == "F":
            self.y = max(self.y - first, 0)
            self.x = 0
        elif final in "G'":  # pyte's HPA is ' (ECMA-48's is `)
            self.x = min(first, self.columns) - 1
        elif final == "d":
            self.y = min(first, self.lines) - 1
        elif final == "K":
            self._erase_in_line(values[0])
        elif final == "J":
            self._erase_in_display(values[0])
        elif final == "X":
            row = self._rows[self.y]
            end = min(self.x + first, self.columns)
            row[self.x : end] = [" "] * max(end - self.x, 0)
        elif final == "g":
            if values[0] == 0:
                self._tabstops.discard(self.x)
            elif values[0] == 3:
                self._tabstops.clear()
        elif final in "hl" and private:
            if _AUTOWRAP in values:
                self.autowrap = final == "h"
            if _ALTERNATE_SCREEN in values and final == "h":
                self._erase_in_display(2)
        # SGR when not dropped earlier, device reports, keyboard protocols, the rest: nothing to show

    def _cursor_back(self, count: int) -> None:
        if self.x == self.columns:
            self.x -= 1
        self.x = min(max(self.x - count, 0), self.columns - 1)

    def _erase_in_line(self, how: int) -> None:
        row = self._rows[self.y]
        if how == 0:
            row[self.x :] = [" "] * max(self.columns - self.x, 0)
        elif how == 1:
            end = min(self.x + 1, self.columns)
            row[:end] = [" "] * end
        elif how == 2:
            row[:] = [" "] * self.columns

    def _erase_in_display(self, how: int) -> None:
        if how in (2, 3):
            self._rows[: self.lines] = [[" "] * self.columns for _ in range(self.lines)]
            return
        rows = range(self.y + 1, self.lines) if how == 0 else range(self.y) if how == 1 else range(0)
        for y in rows:
            self._rows[y] = [" "] * self.columns
        if how in (0, 1):
            self._erase_in_line(how)

    def _escape(self, sequence: str) -> None:
        char = sequence[1]
        if char == "D":
            self._index()
        elif char == "E":  # pyte: a line feed, no carriage return
            self._index()
        elif char == "M":
            self._reverse_index()
        elif char == "7":
            self._saved.append((self.x, self.y, self.autowrap))
        elif char == "8":
            if self._saved:
                x, y, autowrap = self._saved.pop()
                self.x, self.y = min(x, self.columns - 1), min(y, self.lines - 1)
                self.autowrap = self.autowrap or autowrap  # pyte only ever sets it back on
            else:
                self.x = self.y = 0
        elif char == "H":
            self._tabstops.add(self.x)
        elif char == "c":
            self.reset()
        # charsets, ESC # 8 and the rest: nothing here
