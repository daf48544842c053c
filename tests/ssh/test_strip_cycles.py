"""Rendered lines free themselves: the cycle-free ``Strip.divide`` answers as Textual's and keeps no self-reference."""

from __future__ import annotations

import gc
import sys

from hypothesis import given
from hypothesis import strategies as st
from rich.segment import Segment
from textual.strip import Strip

from nothanks_server.ssh import strip_cycles
from nothanks_server.ssh.strip_cycles import check_strip_divide, prevent_strip_cycles


def test_textuals_divide_still_answers_as_the_wrapped_one():
    check_strip_divide()  # raises StripDivideChanged otherwise


def test_the_whole_line_cut_keeps_no_reference_to_itself():
    prevent_strip_cycles()
    line = Strip([Segment("No "), Segment("thanks!")])
    references = sys.getrefcount(line)
    assert line.divide([line.cell_length]) == [line]
    assert sys.getrefcount(line) == references


def test_textuals_own_divide_makes_the_cycle_this_module_avoids():
    """If this starts failing, Textual fixed the cycle upstream and strip_cycles.py can go."""
    line = Strip([Segment("No thanks!")])
    references = sys.getrefcount(line)
    strip_cycles._TEXTUAL_DIVIDE(line, [line.cell_length])
    assert sys.getrefcount(line) == references + 1
    gc.collect()  # the cycle made just now


@given(
    texts=st.lists(st.text(alphabet="ab●7 ", min_size=1, max_size=6), min_size=1, max_size=4),
    cuts=st.lists(st.integers(min_value=0, max_value=30), max_size=4),
)
def test_every_cut_list_gives_what_textual_gives(texts: list[str], cuts: list[int]):
    prevent_strip_cycles()
    segments = [Segment(text) for text in texts]
    ours = [strip.text for strip in Strip(segments).divide(sorted(cuts))]
    theirs = [strip.text for strip in strip_cycles._TEXTUAL_DIVIDE(Strip(segments), sorted(cuts))]
    assert ours == theirs
