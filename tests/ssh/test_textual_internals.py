"""The SSH front leans on private corners of Textual. These fail loudly if an upgrade moves them."""

from __future__ import annotations

import gc
import weakref
from importlib.metadata import version

from textual._xterm_parser import XTermParser
from textual.app import App

from nothanks_server.ssh.caches import check_instance_caches
from nothanks_server.ssh.css_cache import check_stylesheet_internals, shared_entries
from nothanks_server.ssh.keys import SessionKeyParser, check_parser_internals

KITTY_SHIFT_A = "\x1b[97;2u"  # the kitty keyboard protocol's shift+a


def test_textual_is_in_the_pinned_range():
    major, minor, *_ = (int(part) for part in version("textual").split(".")[:2])
    assert (major, minor) >= (8, 2) and major < 9, "the SSH front was checked against textual 8.2..8.x"


def test_private_parser_api_is_still_there():
    check_parser_internals()  # raises ParserInternalsChanged otherwise


def test_textual_parser_still_caches_per_instance_which_is_why_sessions_get_their_own():
    # If this starts failing, Textual fixed its cache: keys.py may then simply use XTermParser.
    XTermParser._parse_extended_key.cache_clear()
    parser = XTermParser()
    list(parser.feed(KITTY_SHIFT_A))
    assert XTermParser._parse_extended_key.cache_info().currsize > 0
    reference = weakref.ref(parser)
    del parser
    gc.collect()
    assert reference() is not None, "the lru_cache keeps the parser alive"
    XTermParser._parse_extended_key.cache_clear()
    gc.collect()
    assert reference() is None


def test_session_parser_parses_kitty_keys_without_the_shared_cache():
    XTermParser._parse_extended_key.cache_clear()
    parser = SessionKeyParser()
    keys = [event.key for event in parser.feed(KITTY_SHIFT_A + "\x1b[27u" + "x")]
    assert keys == ["A", "escape", "x"] or keys == ["shift+a", "escape", "x"]
    assert XTermParser._parse_extended_key.cache_info().currsize == 0
    reference = weakref.ref(parser)
    del parser
    gc.collect()
    assert reference() is None


def test_session_parser_reports_a_pending_lone_escape():
    parser = SessionKeyParser()
    assert list(parser.feed("\x1b")) == []
    assert parser.has_pending_timeout
    assert next(iter(parser.feed("[A"))).key == "up"
    assert not parser.has_pending_timeout


def test_app_still_redirects_print_through_capture_attributes():
    app = App()
    assert hasattr(app, "_capture_stdout") and hasattr(app, "_capture_stderr")
    assert hasattr(app, "_original_stdout")


def test_instance_keyed_caches_are_still_lru_caches():
    check_instance_caches()  # raises InstanceCachesChanged otherwise


def test_stylesheet_internals_for_the_shared_css_cache_are_there():
    check_stylesheet_internals()  # raises StylesheetInternalsChanged otherwise


async def test_session_apps_share_parsed_css(start_front):
    from .terminal_client import TerminalClient

    front = await start_front()
    first = await TerminalClient().connect(front.port)
    await first.wait_for("No Thanks!")
    parsed = shared_entries()
    assert parsed > 0
    second = await TerminalClient().connect(front.port)
    await second.wait_for("No Thanks!")
    assert shared_entries() == parsed  # the second app parsed nothing new
    # and it looks the same: the probe's #title colour came through the shared rules
    assert b"No Thanks!" in second.raw
    await first.close()
    await second.close()
