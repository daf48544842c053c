"""Every place the SSH front reaches into a third-party library's private names, in one list, each with what it
buys and a check run at startup (``check_patches``) that fails loudly when a release changes what it relies on.
textual and asyncssh are pinned to the exact versions checked (pyproject.toml).

The SSH front otherwise uses only public extension points: Textual's ``Driver`` and ``App`` API, asyncssh's
``run_server`` and its ``SSHServer`` / ``SSHServerSession`` callbacks. What is left here, and why:

1. **asyncssh ``SSHServerChannel._env`` (``limit_environment``).** asyncssh keeps every ``env`` request of a
   session channel in that dict, with no callback to refuse one: a client may send thousands of distinct names of
   up to 32 KiB each and the worker would keep them for the session's life. The swap keeps only COLORTERM, LANG,
   LC_ALL, LC_CTYPE and LC_MESSAGES with short values. Figure: a session's memory stays bounded under an env flood
   (tests/ssh/test_input_limits.py sends 5,000 requests and finds 4 kept); without it, what a client sends is kept.
   A security bound, not a speed-up: it stays while asyncssh has no public hook.
2. **asyncssh ``SSHConnection.data_received`` / ``_transport`` (``shape_inbound``).** Every byte a connection
   sends is decrypted and parsed on the worker's loop before any budget sees it (SSH_MSG_IGNORE floods, auth
   attempts before login). An instance attribute puts the connection's bytes behind an ``InboundShaper``
   (inbound_shaper.py). Figure (docs/benchmarks.md, "SSH front, eighth pass"): one client flooding IGNORE packets
   took 98 % of a core and put another player's keys at 1.0-2.1 s; with the budget 7 % and 8 / 36 ms (p50 / p99).
   tests/ssh/test_inbound_shaper.py checks that a flood is still paced and the others play on.
3. **textual ``Strip.divide`` (``divide_without_cycles``).** When the only cut is a line's own end (the usual
   case), Textual returns ``[self]`` and stores that list in the strip's own cache: every rendered line refers to
   itself and only a garbage collection frees it. A worker freezes its heap every second (worker.py), so such lines
   were never freed. Figure (``bench_ssh.py crowd --players 40``, load 4.8-5.1, same hour): with it the host's
   memory grows 0.06 MiB/s at play instead of 2 MiB/s, keys p50/p99/max 16/114/254 ms instead of 22/302/711.
   The replacement returns a fresh ``[self]`` in that one case and calls Textual's method otherwise; the check
   compares both on a set of cuts.
4. **textual ``_xterm_parser.XTermParser`` and its ``_timeout_time`` (``new_key_parser``, ``escape_pending``).**
   Textual's own drivers parse keys with it and there is no public parser: the SSH driver (driver.py) gets it only
   through these two functions, and the check looks for the pieces it calls. Not a saving: what a driver needs.
5. **textual ``Stylesheet._parse_rules`` (``share_parsed_css``).** Each app parses every CSS source it meets (our
   .tcss files, every widget's ``DEFAULT_CSS``) into rule sets of its own, the same for every player, and parses
   them again when its cache of 64 sources is full. The rule sets are only read once parsed, so a process-wide
   table keyed on the source, where it came from, its scope and the app's CSS variables gives every app of a worker
   the same ones, parsed in the forkserver's warm-up (preload.py) for the first screens. Figure
   (scripts/ssh_memory_sites.py, 8 players: docs/benchmarks.md, "What an SSH player's memory is made of"): the
   allocations of the CSS parser held per player, about 0.8 MiB by tracemalloc's count, are gone; with the client's
   smaller msgpack buffer, 30 players' PSS 291 -> 266 MiB. Earlier tried for CPU alone, where it was within the
   noise (docs/benchmarks.md, "Tried, not kept"). tests/ssh/test_shared_css.py checks what it shares and when not.
6. **textual ``Strip.__init__`` (``lazy_strip_caches``).** Every line Textual draws is a ``Strip`` that makes seven
   small caches (crop, style, divide, ...) as it is made, about 0.9 KiB, though most lines never use one. The
   replacement makes each cache the first time it is asked for (``__getattr__``, only called for a slot not yet
   set), with Textual's sizes; the check compares a strip made by Textual's ``__init__`` with one made here. Figure:
   a strip 1,249 -> 353 bytes; per player see docs/benchmarks.md, "What an SSH player's memory is made of".

Removed (docs/benchmarks.md, "SSH front, worker processes"): the sweeper and the session task factory, the freezing
collector, the component-style rewrite, the lru-cache clearing, the uncached key parser and the stdout guard
(patches 5 and 6 bring back, measured, two that had gone: the shared parsed CSS and the lazy ``Strip`` caches).
Each worker's memory comes back when it exits (front.py).

Outside this file, one Textual name is left, in the client (which may not import the host): ``first_screen``'s
``Screen._push_result_callback`` (nothanks_tui/client/app.py): it lets the first screen be the bottom of the stack
instead of over a blank default screen, which cost every SSH arrival a layout and a frame of its own, a third of the
CPU to its first frame (tests/client/test_screens_below.py fails if Textual changes it). Replacing it with public API
means the client's screens no longer counting on being alone on the stack (``len(screen_stack) == 1``).
The app's override of ``App._background_screens`` is gone: once the lobby stopped polling while covered, a table over
a lobby drew the same frames with and without it (42 in 8 s of play; 0 idle after a resize).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import asyncssh
import textual
from asyncssh.connection import SSHConnection
from rich.segment import Segment
from textual._xterm_parser import XTermParser
from textual.cache import FIFOCache
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.strip import Strip

from .inbound_shaper import INBOUND_SLICE, InboundShaper
from .settings import INBOUND_BURST, INBOUND_RATE

log = logging.getLogger(__name__)

CHECKED_VERSIONS = {"textual": "8.2.8", "asyncssh": "2.24.1"}
# What says how the terminal draws, and which language the player reads (OpenSSH's usual `SendEnv LANG LC_*`).
KEPT_VARIABLES = frozenset({b"COLORTERM", b"LANG", b"LC_ALL", b"LC_CTYPE", b"LC_MESSAGES"})
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
    if problems:
        raise PatchedInternalsChanged("review server/nothanks_server/ssh/patches.py: " + "; ".join(problems))


# 1. env requests ---------------------------------------------------------------------------------------------


class SessionEnvironment(dict[bytes, bytes]):
    """A channel's environment that keeps at most ``KEPT_VARIABLES``, each value at most ``MAX_VALUE`` bytes."""

    def __init__(self, initial: Any = (), peer: str = "?") -> None:
        super().__init__(initial)  # e.g. an authorized_keys environment= option: set by the host's owner, kept
        self.peer = peer
        self.requests = 0  # env requests received on this channel
        self.ignored = 0  # ... of which not kept

    def __setitem__(self, key: bytes, value: bytes) -> None:
        self.requests += 1
        if key in KEPT_VARIABLES and len(value) <= MAX_VALUE:
            super().__setitem__(key, value)
            return
        self.ignored += 1
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


def divide_without_cycles() -> None:
    """Install the ``Strip.divide`` of patch 3 (process-wide, in a worker; idempotent)."""
    Strip.divide = _divide_without_cycle  # type: ignore[method-assign]


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


def share_parsed_css() -> None:
    """Install the ``Stylesheet._parse_rules`` of patch 5 (process-wide, in the forkserver and each worker;
    idempotent)."""
    Stylesheet._parse_rules = _shared_parse_rules  # type: ignore[method-assign]


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


def lazy_strip_caches() -> None:
    """Install the ``Strip.__init__`` of patch 6 (process-wide, in the forkserver and each worker; idempotent)."""
    Strip.__init__ = _lean_strip_init  # type: ignore[method-assign]
    Strip.__getattr__ = _strip_cache  # type: ignore[attr-defined]
