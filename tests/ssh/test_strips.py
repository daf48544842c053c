"""Textual's rendered lines with the host's fixes: the same answers as Textual's, no self-reference, lazy caches."""

from __future__ import annotations

import gc
import sys

from hypothesis import given
from hypothesis import strategies as st
from rich.segment import Segment
from rich.style import Style
from textual.cache import FIFOCache
from textual.strip import Strip

from nothanks_server.ssh import strips
from nothanks_server.ssh.strips import CACHE_SLOTS, check_strip_internals, install_strip_fixes


def test_textuals_strip_still_looks_as_the_fixes_expect():
    check_strip_internals()  # raises StripInternalsChanged otherwise
    install_strip_fixes()
    check_strip_internals()  # and still holds once they are installed


def test_the_whole_line_cut_keeps_no_reference_to_itself():
    install_strip_fixes()
    line = Strip([Segment("No "), Segment("thanks!")])
    references = sys.getrefcount(line)
    assert line.divide([line.cell_length]) == [line]
    assert sys.getrefcount(line) == references


def test_textuals_own_divide_makes_the_cycle_this_module_avoids():
    """If this starts failing, Textual fixed the cycle upstream and that part of strips.py can go."""
    line = Strip([Segment("No thanks!")])
    references = sys.getrefcount(line)
    strips._TEXTUAL_DIVIDE(line, [line.cell_length])
    assert sys.getrefcount(line) == references + 1
    gc.collect()  # the cycle made just now


def _caches_alive() -> int:
    return sum(1 for item in gc.get_objects() if type(item) is FIFOCache)


def test_a_new_strip_makes_no_cache_until_one_is_used():
    install_strip_fixes()
    gc.collect()
    before = _caches_alive()
    lines = [Strip([Segment(f"line {number}")]) for number in range(200)]
    assert _caches_alive() == before
    cropped = lines[0].crop(1, 4)
    assert _caches_alive() == before + 1  # the crop cache of that one line
    assert lines[0].crop(1, 4) is cropped  # and it caches, as Textual's does
    for name in CACHE_SLOTS:
        assert isinstance(getattr(lines[1], name), FIFOCache)


STYLES = st.sampled_from([None, Style(bold=True), Style(color="red"), Style(color="color(3)", bgcolor="blue")])
SEGMENTS = st.lists(
    st.builds(Segment, st.text(alphabet="ab●7 ", min_size=1, max_size=6), STYLES), min_size=1, max_size=4
)


@given(
    segments=SEGMENTS,
    cuts=st.lists(st.integers(min_value=0, max_value=30), max_size=4),
    start=st.integers(min_value=0, max_value=12),
    end=st.integers(min_value=0, max_value=30),
    width=st.integers(min_value=0, max_value=30),
)
def test_every_operation_gives_what_textual_gives(
    segments: list[Segment], cuts: list[int], start: int, end: int, width: int
):
    """The same operations on a strip made by Textual's own __init__ (eager caches) and on a fixed one."""
    install_strip_fixes()
    theirs = object.__new__(Strip)
    strips._TEXTUAL_INIT(theirs, segments)
    ours = Strip(segments)
    style = Style(italic=True)
    operations = [
        lambda line: [part.text for part in line.divide(sorted(cuts))],
        lambda line: list(line.crop(start, end)),
        lambda line: list(line.crop_extend(start, end, style)),
        lambda line: list(line.apply_style(style)),
        lambda line: list(line.adjust_cell_length(width, style)),
        lambda line: list(line.extend_cell_length(width, style)),
        lambda line: list(line.apply_offsets(start, end)),
        lambda line: list(line.text_align(max(width, line.cell_length), "center")),
    ]
    for operation in operations:
        assert operation(ours) == operation(theirs)
        assert operation(ours) == operation(theirs)  # the second time through the caches
