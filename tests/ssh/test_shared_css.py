"""Patch 5 (ssh/patches.py): the apps of one worker share their parsed CSS rule sets, per set of CSS variables."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from textual.css.stylesheet import Stylesheet, StylesheetParseError

from nothanks_server.ssh import patches

SOURCE = "Label { color: $accent; } .quiet { text-style: dim; }"


@pytest.fixture
def shared_css(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The patch installed for this test only, its table empty before and after."""
    monkeypatch.setattr(Stylesheet, "_parse_rules", patches._shared_parse_rules)
    patches._shared_rules.clear()
    yield
    patches._shared_rules.clear()


def parsed(variables: dict[str, str], css: str = SOURCE) -> Stylesheet:
    stylesheet = Stylesheet(variables=variables)
    stylesheet.add_source(css, read_from=("app.tcss", ""))
    stylesheet.parse()
    return stylesheet


def test_two_apps_with_the_same_variables_share_their_rule_sets(shared_css: None) -> None:
    first, second = parsed({"accent": "red"}), parsed({"accent": "red"})
    assert len(first.rules) == 2
    assert all(mine is theirs for mine, theirs in zip(first.rules, second.rules, strict=True))
    assert first.rules is not second.rules  # each stylesheet's own list: only the rule sets are shared


def test_other_variables_get_rule_sets_of_their_own(shared_css: None) -> None:
    red, blue = parsed({"accent": "red"}), parsed({"accent": "blue"})
    assert red.rules[0] is not blue.rules[0]
    assert "red" in red.css or "#FF0000" in red.css.upper()
    assert red.css != blue.css
    assert parsed({"accent": "red"}).css == red.css  # the red ones were not changed by parsing the blue


def test_a_stylesheet_whose_variables_change_parses_again(shared_css: None) -> None:
    stylesheet = parsed({"accent": "red"})
    before = stylesheet.css
    stylesheet.set_variables({"accent": "blue"})
    stylesheet.reparse()
    assert stylesheet.css != before
    assert stylesheet.css == parsed({"accent": "blue"}).css


def test_the_shared_rules_read_as_textual_parses_them(shared_css: None) -> None:
    shared = parsed({"accent": "red"}).css
    patches._shared_rules.clear()
    with pytest.MonkeyPatch.context() as unpatched:
        unpatched.setattr(Stylesheet, "_parse_rules", patches._TEXTUAL_PARSE_RULES)
        assert parsed({"accent": "red"}).css == shared


def test_invalid_css_is_refused_every_time_and_never_kept(shared_css: None) -> None:
    for _ in range(2):
        with pytest.raises(StylesheetParseError):
            parsed({}, "Label { colour: nonsense; }")
    assert patches._shared_rules == {}


def test_the_table_is_bounded(shared_css: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(patches, "SHARED_CSS_SOURCES", 2)
    for index in range(5):
        parsed({"accent": "red"}, f".rule{index} {{ color: $accent; }}")
    assert len(patches._shared_rules) == 2
