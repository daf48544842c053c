"""Player names: escapes and control characters stripped, length 1..20, markup left as literal text."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nothanks_tui.link.names import MAX_NAME, BadName, clean_name


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("alice", "alice"),
        ("  bob   the  builder ", "bob the builder"),
        ("\x1b[31mred\x1b[0m", "red"),
        ("\x1b]0;title\x07eve", "eve"),
        ("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"),
        ("tab\tnew\nline", "tab new line"),
        ("mallory[/]", "mallory[/]"),
        ("[bold red]x[/]", "[bold red]x[/]"),
        ("zero\u200bwidth\u202egnol", "zerowidthgnol"),
        ("\x9b2Jc1", "c1"),
        ("Zoë 🎲", "Zoë 🎲"),
    ],
)
def test_clean_name(raw, clean):
    assert clean_name(raw) == clean


@pytest.mark.parametrize("raw", ["", "   ", "\x1b[2J", "\x00\x01", "x" * 21, "y" * 10_000, 42, None])
def test_bad_names_are_refused(raw):
    with pytest.raises(BadName):
        clean_name(raw)


@given(st.text(max_size=60))
def test_a_clean_name_never_holds_control_characters(raw):
    try:
        name = clean_name(raw)
    except BadName:
        return
    assert 1 <= len(name) <= MAX_NAME
    assert "\x1b" not in name and all(ch.isprintable() for ch in name)
