"""Patch 6 (ssh/patches.py): a line Textual draws makes its caches when first used, and draws the same."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from nothanks_server.ssh import patches

SEGMENTS = [Segment("No ", Style(bold=True)), Segment("thanks!", Style(color="red")), Segment(" 27")]


@pytest.fixture
def lazy(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The patch installed for this test only."""
    monkeypatch.setattr(Strip, "__init__", patches._lean_strip_init)
    monkeypatch.setattr(Strip, "__getattr__", patches._strip_cache, raising=False)
    yield


def unset(strip: Strip, name: str) -> bool:
    try:
        Strip.__dict__[name].__get__(strip, Strip)  # the slot itself: never asks __getattr__
    except AttributeError:
        return True
    return False


def drawn(strip: Strip) -> list[object]:
    """What a line becomes through the strip operations Textual's compositor uses."""
    return [
        strip.text,
        strip.cell_length,
        [part.text for part in strip.divide([3, 6, 13])],
        strip.crop(2, 9).text,
        strip.crop_extend(1, 20, Style(dim=True)).text,
        strip.extend_cell_length(16).text,
        strip.adjust_cell_length(5).text,
        list(strip.apply_style(Style(italic=True))),
        list(strip.simplify()),
        strip.render(Console(color_system="truecolor")),
    ]


def test_a_new_line_makes_no_cache_until_one_is_used(lazy: None) -> None:
    strip = Strip(SEGMENTS)
    assert all(unset(strip, name) for name in patches.STRIP_CACHES)
    strip.crop(0, 3)
    assert not unset(strip, "_crop_cache") and unset(strip, "_style_cache")
    assert strip._crop_cache._maxsize == patches.STRIP_CACHES["_crop_cache"]
    assert strip.crop(0, 3) is strip.crop(0, 3)  # and it caches, as Textual's does


def test_lines_draw_as_textuals_own(lazy: None) -> None:
    ours = drawn(Strip(SEGMENTS))
    with pytest.MonkeyPatch.context() as unpatched:
        unpatched.setattr(Strip, "__init__", patches._TEXTUAL_STRIP_INIT)
        unpatched.delattr(Strip, "__getattr__")
        theirs = drawn(Strip(SEGMENTS))
    assert ours == theirs


def test_other_missing_attributes_are_still_missing(lazy: None) -> None:
    strip = Strip(SEGMENTS)
    assert not hasattr(strip, "__rich__")
    with pytest.raises(AttributeError):
        strip.nothing_of_the_sort  # noqa: B018


def test_textuals_strip_is_still_as_the_patch_knows_it() -> None:
    assert patches._check_strip_caches() == []
