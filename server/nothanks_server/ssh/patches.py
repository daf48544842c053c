"""Every private name of a third-party library the SSH front relies on, each with why and its measured figure, and a
startup check (``check_patches``) that fails loudly if a release changed it (textual and asyncssh are pinned).

1. asyncssh ``SSHServerChannel._env`` (``limit_environment``): asyncssh keeps every ``env`` request, with no hook to
   refuse one (thousands of 32 KiB names kept a session's life). Only ``KEPT_VARIABLES`` with short values are
   kept: of 5,000 requests, 4 (tests/ssh/test_input_limits.py). A security bound.
2. asyncssh ``SSHConnection.data_received`` / ``_transport`` (``shape_inbound``): bytes are decrypted and parsed
   before any budget sees them; an ``InboundShaper`` goes in front. An IGNORE flood took 98 % of a core and another
   player's keys to 1.0-2.1 s; with it 7 % and 8 / 36 ms p50 / p99 (docs/benchmarks.md, "SSH front, eighth pass").
3. textual ``Strip.divide`` (``install``): for a cut at the line's own end Textual caches ``[self]`` in
   the strip, a self-reference the per-second freeze (worker.py) kept for ever. Without it, at 40 players memory
   grows 0.06 MiB/s instead of 2, keys p50/p99/max 16/114/254 ms instead of 22/302/711.
4. textual ``_xterm_parser.XTermParser`` and ``_timeout_time`` (``new_key_parser``, ``escape_pending``): Textual has
   no public key parser; the SSH driver needs one. Not a saving: what a driver needs.
5. textual ``Stylesheet._parse_rules`` (``install``): every app parsed the same CSS into rule sets of its
   own, only read once parsed: one table per process (keyed on source, origin, scope and the CSS variables), filled
   in the forkserver, shares them. The parser's ~0.8 MiB per player is gone; with the smaller msgpack buffer, 30
   players' PSS 291 -> 266 MiB (docs/benchmarks.md, "What an SSH player's memory is made of").
6. textual ``Strip.__init__`` (``install``): each drawn line made seven small caches it seldom uses; they
   are made when first asked for (``__getattr__``), at Textual's sizes: a strip 1,249 -> 353 bytes.
7. textual ``XTermParser._parse_extended_key`` (``install``): an ``lru_cache`` keyed on the parser, whose
   parse generator holds its last key, whose sender is the app: every departed player's app stayed reachable until
   the worker exited. One cache keyed on the sequence alone (the method reads no parser state) holds plain strings.
8. textual ``Screen._extend_compose`` (``install``): every screen mounted a tooltip widget (13 KiB), and the game
   shows no tooltip: none now (Textual's screens do without one, as under ``App.run_test``).
9. textual ``App._refresh_notifications`` and ``_notifications`` (``install``): every screen mounted a notification
   rack (24 KiB), and only the table shows notifications: a screen gets one when it first has one to show.
10. textual ``Stylesheet._process_component_classes`` (``install``): every restyle of a widget (focus, hover, a
    resize class) made a new node per component class of it, 6.5 KiB each, and left the old one, frozen, as
    garbage; each widget keeps its own (Textual's styles, tested against its method).
11. textual ``Select.compose`` and the methods reading its overlay (``_LAZY_SELECT``): every ``Select`` composed
    its drop-down list (an ``OptionList``), hidden; the new-table dialog has five, and most players open none:
    the list is made when its select first opens. The open dialog 1,260 -> 1,040 KiB (frozen garbage once closed);
    100 players' PSS 4.85-4.89 -> 4.60-4.62 MiB a player (docs/benchmarks.md, "A newcomer's first screen at 100
    SSH players").

Removed, measured (docs/benchmarks.md, "SSH front, worker processes"): the sweeper, the session task factory, the
freezing collector, the component-style rewrite, the lru-cache clearing, the uncached key parser, the stdout guard.
Private Textual names outside this file are the client's, each with its reason there (client/app.py, table.py).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import asyncssh
import textual
from asyncssh.connection import SSHConnection
from rich.segment import Segment
from textual import events
from textual._xterm_parser import XTermParser
from textual.app import App
from textual.cache import FIFOCache
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Select, Tooltip
from textual.widgets._select import SelectCurrent, SelectOverlay
from textual.widgets._toast import ToastRack

from .input_gate import INBOUND_SLICE, InboundShaper
from .settings import INBOUND_BURST, INBOUND_RATE

log = logging.getLogger(__name__)

CHECKED_VERSIONS = {"textual": "8.2.8", "asyncssh": "2.24.1"}
# What says how the terminal draws (`SendEnv COLORTERM NO_COLOR`), and which language the player reads (OpenSSH's
# usual `SendEnv LANG LC_*`).
KEPT_VARIABLES = frozenset({b"COLORTERM", b"NO_COLOR", b"LANG", b"LC_ALL", b"LC_CTYPE", b"LC_MESSAGES"})
MAX_VALUE = 64  # bytes; "truecolor" or "en_US.UTF-8" fit, a 32 KiB value does not
TOO_MANY_REQUESTS = 32  # after this many env requests on one channel, say so in the log (once)


class PatchedInternalsChanged(RuntimeError):
    """A library no longer looks the way one of the patches here was written against."""


def check_patches() -> None:
    """Raise ``PatchedInternalsChanged`` unless every private name used here is as it was when checked."""
    problems: list[str] = []
    versions = {"textual": textual.__version__, "asyncssh": asyncssh.__version__}
    problems += [
        f"{name} is {versions[name]}, checked {want}"
        for name, want in CHECKED_VERSIONS.items()
        if versions[name] != want
    ]
    if not callable(getattr(asyncssh.SSHServerChannel, "_process_env_request", None)):
        problems.append("asyncssh.SSHServerChannel._process_env_request is gone")
    made = getattr(SSHConnection, "connection_made", None)
    received = getattr(SSHConnection, "data_received", None)
    if (
        not issubclass(asyncssh.SSHServerConnection, SSHConnection)
        or made is None
        or "_transport" not in made.__code__.co_names
        or received is None
        or received.__code__.co_varnames[:2] != ("self", "data")
    ):
        problems.append("asyncssh's SSHConnection no longer keeps _transport or parses in data_received(data)")
    for name in ("feed", "tick"):
        if not callable(getattr(XTermParser, name, None)):
            problems.append(f"textual's XTermParser.{name} is missing")
    if not hasattr(XTermParser(), "_timeout_time"):
        problems.append("textual's XTermParser._timeout_time (a pending escape's deadline) is missing")
    problems += _check_divide()
    problems += _check_parse_rules()
    problems += _check_strip_caches()
    problems += _check_key_cache()
    problems += _check_select()
    names = {name for f in (App.__init__, _TEXTUAL_EXTEND_COMPOSE, _TEXTUAL_COMPONENTS) for name in f.__code__.co_names}
    if not {"_notifications", "ToastRack", "Tooltip", "_get_component_classes", "_component_styles"} <= names:
        problems.append("textual's screens' ToastRack and Tooltip, or its component styles, changed (patches 8-10)")
    if problems:
        raise PatchedInternalsChanged("review server/nothanks_server/ssh/patches.py: " + "; ".join(problems))


# 1. env requests ---------------------------------------------------------------------------------------------


class SessionEnvironment(dict[bytes, bytes]):
    """A channel's environment that keeps at most ``KEPT_VARIABLES``, each value at most ``MAX_VALUE`` bytes."""

    def __init__(self, initial: Any = (), peer: str = "?") -> None:
        super().__init__(initial)  # e.g. an authorized_keys environment= option: set by the host's owner, kept
        self.peer = peer
        self.requests = 0  # env requests received on this channel

    def __setitem__(self, key: bytes, value: bytes) -> None:
        self.requests += 1
        if key in KEPT_VARIABLES and len(value) <= MAX_VALUE:
            super().__setitem__(key, value)
            return
        if self.requests == TOO_MANY_REQUESTS + 1:
            log.info("ignoring env requests from %s: more than %d on one session", self.peer, TOO_MANY_REQUESTS)


def limit_environment(chan: asyncssh.SSHServerChannel, peer: str = "?") -> SessionEnvironment:
    """Make ``chan`` keep only the variables the game reads; returns the environment it keeps from now on."""
    current = getattr(chan, "_env", None)
    if not isinstance(current, dict):
        raise PatchedInternalsChanged("asyncssh.SSHServerChannel has no _env dict any more; review ssh/patches.py")
    environment = SessionEnvironment(current, peer)
    chan._env = environment
    return environment


# 2. the inbound byte budget ------------------------------------------------------------------------------------


def shape_inbound(
    conn: asyncssh.SSHServerConnection,
    *,
    rate: float = INBOUND_RATE,
    burst: int = INBOUND_BURST,
    on_held: Callable[[], None] | None = None,
) -> InboundShaper | None:
    """Put ``conn``'s incoming bytes under a budget; call from the server's ``connection_made``. None when the
    connection has no socket transport to pause (then nothing changes). ``unshape_inbound`` when it is lost."""
    transport = getattr(conn, "_transport", None)
    if not isinstance(transport, asyncio.Transport):
        log.warning("no inbound budget for an SSH connection without a socket transport (%r)", transport)
        return None
    shaper = InboundShaper(
        conn.data_received, transport, rate=rate, burst=burst, slice_size=min(INBOUND_SLICE, burst), on_held=on_held
    )
    conn.data_received = shaper.data_received  # type: ignore[method-assign]  # the transport calls this attribute
    return shaper


def unshape_inbound(conn: asyncssh.SSHServerConnection, shaper: InboundShaper) -> None:
    """Undo ``shape_inbound`` (the shaper and the connection held each other)."""
    shaper.close()
    conn.__dict__.pop("data_received", None)


# 3. Strip.divide without a self-reference ------------------------------------------------------------------------

_TEXTUAL_DIVIDE: Callable[[Strip, Iterable[int]], Sequence[Strip]] = Strip.divide


def _divide_without_cycle(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
    cell_length = self.cell_length
    kept = [cut for cut in cuts if cut <= cell_length]
    if kept == [cell_length]:
        return [self]  # what Textual returns here, minus the self-reference in the strip's cache
    return _TEXTUAL_DIVIDE(self, kept)


def _check_divide() -> list[str]:
    line = Strip([Segment("No "), Segment("thanks!")])
    length = line.cell_length
    problems = []
    for cuts in ([length], [length, length + 4], [3, length], [2, 5, length], [length + 1], []):
        ours = [strip.text for strip in _divide_without_cycle(line, cuts)]
        theirs = [strip.text for strip in _TEXTUAL_DIVIDE(Strip(list(line)), cuts)]
        if ours != theirs:
            problems.append(f"textual's Strip.divide changed (cuts {cuts}: {theirs!r}, ours {ours!r})")
    return problems


# 4. the key parser Textual's own drivers use ----------------------------------------------------------------------


def new_key_parser() -> XTermParser:
    """A fresh key parser (``debug=True`` would open keys.log in the server's directory)."""
    return XTermParser(debug=False)


def escape_pending(parser: XTermParser) -> bool:
    """Whether ``parser`` holds a lone ESC that becomes the Escape key unless more bytes follow in time."""
    return getattr(parser, "_timeout_time", None) is not None


# 5. parsed CSS shared by every app of a process ------------------------------------------------------------------

_TEXTUAL_PARSE_RULES: Callable[..., list[RuleSet]] = Stylesheet._parse_rules
_PARSE_RULES_ARGUMENTS = ("self", "css", "read_from", "is_default_rules", "tie_breaker", "scope")
SHARED_CSS_SOURCES = 1024  # parsed sources kept per process (an app meets about 60; more are parsed, not kept)
_shared_rules: dict[tuple[Any, ...], list[RuleSet]] = {}
_variable_sets: dict[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]] = {}


def _shared_parse_rules(
    self: Stylesheet,
    css: str,
    read_from: Any,
    is_default_rules: bool = False,
    tie_breaker: int = 0,
    scope: str = "",
) -> list[RuleSet]:
    key = (css, read_from, is_default_rules, tie_breaker, scope, _variables_key(self))
    rules = _shared_rules.get(key)
    if rules is None:
        rules = _TEXTUAL_PARSE_RULES(self, css, read_from, is_default_rules, tie_breaker, scope)
        if len(_shared_rules) < SHARED_CSS_SOURCES and not any(rule.errors for rule in rules):
            _shared_rules[key] = rules
    return list(rules)  # (a list of its own, as Textual's cache would give: the rule sets are what is shared)


def _variables_key(stylesheet: Stylesheet) -> tuple[tuple[str, str], ...]:
    """The stylesheet's CSS variables (a theme's colours, parsed into the rules) as a key, made once per set of
    variables (Textual gives a stylesheet a new dict when they change)."""
    variables = stylesheet._variables
    made = stylesheet.__dict__.get("_nothanks_variables")
    if made is None or made[0] is not variables:
        key = tuple(sorted(variables.items()))
        made = (variables, _variable_sets.setdefault(key, key))  # one tuple per theme in the process, not per app
        stylesheet.__dict__["_nothanks_variables"] = made
    return made[1]


def _check_parse_rules() -> list[str]:
    code = getattr(_TEXTUAL_PARSE_RULES, "__code__", None)
    if code is None or code.co_varnames[: len(_PARSE_RULES_ARGUMENTS)] != _PARSE_RULES_ARGUMENTS:
        return ["textual's Stylesheet._parse_rules(css, read_from, is_default_rules, tie_breaker, scope) changed"]
    if not isinstance(getattr(Stylesheet(), "_variables", None), dict):
        return ["textual's Stylesheet._variables (the CSS variables parsed into the rules) is gone"]
    return []


# 6. Strip caches made when first used ------------------------------------------------------------------------------

_TEXTUAL_STRIP_INIT: Callable[..., None] = Strip.__init__
STRIP_CACHES = {  # each cache Textual's Strip.__init__ makes, with its size
    "_divide_cache": 4,
    "_crop_cache": 16,
    "_style_cache": 16,
    "_filter_cache": 4,
    "_line_length_cache": 4,
    "_crop_extend_cache": 4,
    "_offsets_cache": 4,
}
STRIP_PLAIN = ("_segments", "_cell_length", "_render_cache", "_link_ids", "_cell_count")  # set as Textual sets them


def _lean_strip_init(self: Strip, segments: Iterable[Segment], cell_length: int | None = None) -> None:
    self._segments = list(segments)
    self._cell_length = cell_length
    self._render_cache = None
    self._link_ids = None
    self._cell_count = None


def _strip_cache(self: Strip, name: str) -> Any:
    """A cache not made yet (Python asks ``__getattr__`` only for an attribute it did not find)."""
    size = STRIP_CACHES.get(name)
    if size is None:
        raise AttributeError(name)
    cache: FIFOCache[Any, Any] = FIFOCache(size)
    object.__setattr__(self, name, cache)
    return cache


def _check_strip_caches() -> list[str]:
    theirs = object.__new__(Strip)
    _TEXTUAL_STRIP_INIT(theirs, [Segment("No thanks!")], 10)
    made = {name for name in Strip.__slots__ if hasattr(theirs, name)}
    if made != set(STRIP_CACHES) | set(STRIP_PLAIN):
        return [f"textual's Strip.__init__ sets {sorted(made)}, not what patch 6 knows"]
    sizes = {name: getattr(getattr(theirs, name), "_maxsize", None) for name in STRIP_CACHES}
    if sizes != STRIP_CACHES or any(type(getattr(theirs, name)) is not FIFOCache for name in STRIP_CACHES):
        return [f"textual's Strip caches changed: {sizes}"]
    return []


# 7. the key parser's cache without the parser ---------------------------------------------------------------------

_TEXTUAL_EXTENDED_KEY: Any = getattr(XTermParser._parse_extended_key, "__wrapped__", None)


@functools.lru_cache(maxsize=1024)
def _extended_key_names(sequence: str) -> tuple[tuple[str, str | None], ...]:
    """(key, character) of each key ``sequence`` is, none if it is no extended key (Textual's method reads only
    the class's ``_parse_colon_codepoints``, no parser state)."""
    return tuple((key.key, key.character) for key in _TEXTUAL_EXTENDED_KEY(XTermParser, sequence) or ())


def _parse_extended_key(self: XTermParser, sequence: str) -> list[events.Key] | None:
    return [events.Key(*names) for names in _extended_key_names(sequence)] or None


def _check_key_cache() -> list[str]:
    if _TEXTUAL_EXTENDED_KEY is None:
        return ["textual's XTermParser._parse_extended_key is no longer an lru_cache"]
    parser = XTermParser()
    for sequence in ("\x1b[97;5u", "\x1b[13u", "\x1b[57441;2u", "\x1b[97;1;65u", "\x1b[1;5A", "a", "\x1b[Z"):
        theirs, ours = (
            None if keys is None else [(key.key, key.character) for key in keys]
            for keys in (_TEXTUAL_EXTENDED_KEY(parser, sequence), _parse_extended_key(parser, sequence))
        )
        if theirs != ours:
            return [f"textual's XTermParser._parse_extended_key changed ({sequence!r}: {theirs!r}, ours {ours!r})"]
    return []


def install() -> None:
    """Install patches 3 and 5-11, process-wide (in the forkserver before its warm-up, and in each worker;
    idempotent): a worker's lines, parsed CSS and key cache as described above."""
    Strip.divide = _divide_without_cycle  # type: ignore[method-assign]
    Stylesheet._parse_rules = _shared_parse_rules  # type: ignore[method-assign]
    Strip.__init__ = _lean_strip_init  # type: ignore[method-assign]
    Strip.__getattr__ = _strip_cache  # type: ignore[attr-defined]
    XTermParser._parse_extended_key = _parse_extended_key  # type: ignore[method-assign,assignment]
    Screen._extend_compose = _extend_compose_without_rack  # type: ignore[method-assign]
    App._refresh_notifications = _refresh_notifications  # type: ignore[method-assign]
    Stylesheet._process_component_classes = _process_component_classes  # type: ignore[method-assign]
    for name, method in _LAZY_SELECT.items():
        setattr(Select, name, method)


# 8 and 9. no tooltip widget, a notification rack on the screens that show a notification ---------------------------

_TEXTUAL_EXTEND_COMPOSE = Screen._extend_compose
_TEXTUAL_REFRESH_NOTIFICATIONS = App._refresh_notifications


def _extend_compose_without_rack(self: Screen[Any], widgets: list[Widget]) -> None:
    _TEXTUAL_EXTEND_COMPOSE(self, widgets)
    widgets[:] = [widget for widget in widgets if not isinstance(widget, (ToastRack, Tooltip))]


def _refresh_notifications(self: App[Any]) -> None:
    if self._notifications and self.screen_stack and not self.screen.query_children(ToastRack):
        self.screen.mount(ToastRack(id="textual-toastrack"))
    _TEXTUAL_REFRESH_NOTIFICATIONS(self)


# 10. one node per widget and component class ----------------------------------------------------------------------

_TEXTUAL_COMPONENTS = Stylesheet._process_component_classes


def _process_component_classes(self: Stylesheet, node: DOMNode) -> None:
    """Textual's, with the node a component's styles were read from kept and styled again (not a new one)."""
    refresh = False
    for component in sorted(node._get_component_classes()):
        styles = node._component_styles.get(component)
        if styles is None or styles.node is None:
            virtual, before = DOMNode(classes=component), None
            virtual._attach(node)
        else:
            virtual, before = styles.node, styles.base.get_rules()
            virtual.styles.base.reset()  # (as new: Textual's apply sets no rule where none matches)
        self.apply(virtual, animate=False)
        refresh = refresh or before != virtual.styles.base.get_rules()
        node._component_styles[component] = virtual.styles
    if refresh:
        node.refresh()


# 11. a Select's overlay made when it first opens -------------------------------------------------------------------

_TEXTUAL_SELECT = {name: getattr(Select, name) for name in ("compose", "_setup_options_renderables", "_watch_value")}


def _select_compose(self: Select[Any]) -> Iterator[Widget]:
    yield next(iter(_TEXTUAL_SELECT["compose"](self)))  # the current value only (the overlay is its second widget)


def _with_overlay(method: Callable[..., Any]) -> Callable[..., Any]:
    """Textual's ``method``, with the overlay mounted first if the select has none yet (not to close it)."""

    def opening(self: Select[Any], *args: Any) -> Any:
        if args[:1] != (False,) and self.is_mounted and not self.query_children(SelectOverlay):
            overlay = SelectOverlay(type_to_search=self._type_to_search)
            overlay.compact = self.compact  # (Textual binds it: a select's ``compact`` is never changed here)
            self.mount(overlay)
            _TEXTUAL_SELECT["_setup_options_renderables"](self)
        return method(self, *args)

    return opening


def _setup_options(self: Select[Any]) -> None:
    if self.query_children(SelectOverlay):  # (else they go in when it is made)
        _TEXTUAL_SELECT["_setup_options_renderables"](self)


def _watch_value(self: Select[Any], value: Any) -> None:
    if self.query_children(SelectOverlay):
        _TEXTUAL_SELECT["_watch_value"](self, value)
        return
    self._value = value  # as Textual's: the current value shows the option's prompt, and says it changed
    for current in self.query_children(SelectCurrent):
        current.update(next((shown for shown, of in self._options if of == value != self.NULL), self.NULL))
        self.post_message(self.Changed(self, value))


OPENING = ("_watch_expanded", "action_show_overlay", "_watch_prompt")  # Textual's Select methods that show its list
_LAZY_SELECT = {
    "compose": _select_compose,
    "_setup_options_renderables": _setup_options,
    "_watch_value": _watch_value,
    **{name: _with_overlay(getattr(Select, name)) for name in OPENING},
}


def _check_select() -> list[str]:
    compose = _TEXTUAL_SELECT["compose"].__code__.co_names
    if compose[:2] != ("SelectCurrent", "prompt") or "SelectOverlay" not in compose:
        return ["textual's Select.compose no longer yields its SelectCurrent, then its SelectOverlay (patch 11)"]
    select = Select([("No thanks!", 1)], allow_blank=False)
    if not all(hasattr(select, name) for name in ("_type_to_search", "_options", "compact", *_LAZY_SELECT)):
        return ["textual's Select lost a name patch 11 uses"]
    return []
