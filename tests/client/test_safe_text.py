"""Drawing untrusted text: the link's cleaning, never refusing, always something to draw."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nothanks_tui.client.safe_text import clean_message, clean_name, display_name
from nothanks_tui.link import names


@given(st.text(max_size=300))
def test_a_name_the_door_admits_is_drawn_as_admitted_and_anything_else_is_drawn_clean(raw):
    drawn = clean_name(raw)
    assert drawn and "\x1b" not in drawn and all(ch.isprintable() for ch in drawn)
    try:
        admitted = names.clean_name(raw)
    except names.BadName:
        return
    # (the door drops a leading guest mark, which a guest's label then adds back: names.GUEST_MARK)
    assert drawn.lstrip(names.GUEST_MARK + " ") == admitted
    assert drawn == admitted or drawn.startswith(names.GUEST_MARK)


@pytest.mark.parametrize(
    ("raw", "drawn"),
    [(None, "None"), (42, "42"), ("", "?"), ("\x1b[2J\x00", "?"), ("\x1b(Bbo", "bo"), ("a\x1b]8;;x\x07b", "ab")],
)
def test_any_value_is_drawn_and_nothing_becomes_a_question_mark(raw, drawn):
    assert clean_name(raw) == drawn


def test_long_text_is_cut_to_its_cells():
    assert display_name("ab" * 20, max_cells=6) == "ababa…"
    assert display_name("🎲" * 10, max_cells=6) == "🎲🎲…"
    assert len(clean_message("x\n" * 1000, max_chars=50)) == 50
