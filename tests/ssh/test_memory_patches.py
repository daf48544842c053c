"""Patches 7 and 8 (ssh/patches.py): Textual's key parser cache no longer keeps a departed player's parser (and
app); an SSH player's screens mount no tooltip widget (the game shows none) and still show notifications."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest
from textual import events
from textual._xterm_parser import XTermParser
from textual.widgets import Tooltip
from textual.widgets._toast import ToastRack

from nothanks_server.ssh import patches
from tools.loadgen.terminal_client import TerminalClient

KEYS = "a\x1b[97;5u\x1b[13u\x1b[1;5A"  # a letter, then ctrl+a and enter (the kitty protocol's), then ctrl+up


def parsed(parser: XTermParser) -> list[tuple[str, str | None]]:
    return [(event.key, event.character) for event in parser.feed(KEYS) if isinstance(event, events.Key)]


def test_a_parser_gone_is_not_kept_by_the_cache_and_keys_parse_as_textuals(monkeypatch: pytest.MonkeyPatch) -> None:
    theirs = parsed(XTermParser())
    monkeypatch.setattr(XTermParser, "_parse_extended_key", patches._parse_extended_key)
    parser = XTermParser()
    assert parsed(parser) == theirs == [("a", "a"), ("ctrl+a", None), ("enter", "\r"), ("ctrl+up", None)]
    assert parsed(XTermParser()) == theirs  # (from the cache this time)
    gone = weakref.ref(parser)
    del parser
    gc.collect()
    assert gone() is None


def test_the_parser_cache_is_as_checked() -> None:
    assert patches._check_key_cache() == []


async def test_an_ssh_players_screens_have_no_tooltip_widget(game_sessions: Any) -> None:
    client = await TerminalClient().connect(game_sessions.port, "alice")
    await client.wait_for("Your name at the table")
    client.send("\r")
    await client.wait_for("No tables yet")
    (app,) = list(game_sessions.apps)
    assert app.screen.query(ToastRack) and not app.screen.query(Tooltip)
    await client.close()
