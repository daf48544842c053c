"""One SSH session channel: the checks before a game starts, then one Textual app drawn on the channel.

Only a shell request gets the game: the Textual app with a pty, the plain lines (client/plain.py) for ``TERM=dumb``
or ``ssh -T``. ``ssh host cmd`` gets one line on stderr and exit status 1; subsystems (SFTP) are refused. The
client's bytes pass the session's ``InputGate`` (input_gate.py), where what arrives before the app's driver exists
waits.
"""

from __future__ import annotations

import asyncio
import codecs
import contextvars
import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import asyncssh
from textual.app import App

from nothanks_tui.client.plain import Hangup
from nothanks_tui.i18n import language_from_environment

from .driver import ChannelDriver, color_system_for, session_console, terminal_size
from .input_gate import HOLD_OFF, InputGate
from .settings import cancel

if TYPE_CHECKING:
    from .server import SessionServer

log = logging.getLogger(__name__)

NO_PTY_MESSAGE = (
    "No Thanks! needs an interactive terminal: connect with plain `{command}` (or add -t); commands are not run.\r\n"
)
CRASH_MESSAGE = "\r\nSorry: the game hit an error and closed this session. Reconnect to play on.\r\n"
MAX_UNSENT_OUTPUT = 8 * 1024 * 1024  # a client that stops reading this much output is disconnected
EXIT_GRACE = 30.0  # seconds an app gets to finish after its client went away, before it is cancelled
ANONYMOUS_USERS = frozenset({"play", "nothanks", "guest", "anonymous"})
RESIZE_INTERVAL = 0.2  # seconds between two window sizes passed to the app: each costs a whole new layout and
# screen, and a window being dragged (or a hostile client) sends dozens a second; the last size always arrives


@dataclass(frozen=True, slots=True)
class SSHPlayer:
    """One SSH login. ``key_fingerprint`` is set only when the client proved it holds that public key."""

    username: str
    key_fingerprint: str | None
    peer: str
    term: str
    color_system: str
    language: str = "en"  # from the LC_ALL / LC_MESSAGES / LANG the client sent (nothanks_tui.i18n)

    @property
    def suggested_name(self) -> str:
        """The display name to prefill: the SSH user name, unless it is the generic ``play`` (then empty)."""
        name = self.username.strip()
        return "" if name.lower() in ANONYMOUS_USERS else name

    @property
    def address(self) -> str:
        """The client's address without its port (what per-address limits count)."""
        host, _, port = self.peer.rpartition(":")
        return host if host and port.isdigit() else self.peer


AppFactory = Callable[[SSHPlayer], App[Any]]
PLAIN_TERMS = frozenset({None, "dumb"})  # a session without a pty, or TERM=dumb: the plain front (client/plain.py)


class ChannelLines:
    """The channel as the plain front's lines. With a pty the player's terminal sends each key as typed: they are
    echoed and gathered into lines here (Backspace works; the escape sequences of arrows and such are dropped)."""

    def __init__(self, session: GameSession, pty: bool) -> None:
        self.session, self.echoes = session, pty
        self.farewell: Callable[[str], str] | None = None  # the host's reason to stop, in the player's words
        self._typed, self._escape, self._return = "", False, False
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._lines: asyncio.Queue[str | Hangup | None] = asyncio.Queue()

    def write(self, text: str, echo: bool = False) -> None:
        if self.echoes and not echo and self._typed and not text.endswith("\n"):
            text += self._typed  # a question asked again below a line: what was typed so far after it
        self.session.send_output(text.replace("\n", "\r\n") if self.echoes else text)

    async def readline(self) -> str | None:
        line = await self._lines.get()
        if isinstance(line, Hangup):
            self._lines.put_nowait(line)  # (and at every read after)
            raise line
        return line

    def exit(self) -> None:
        """The player is gone, or the server closes: their seat waits for them (the app's exit, for these lines)."""
        self._lines.put_nowait(Hangup())

    def feed(self, data: bytes) -> None:
        for char in self._decoder.decode(data):
            echo, after_return, self._return = "", self._return, char == "\r"
            if self._escape:  # the rest of a key's escape sequence: ESC [ 1 ; 5 A
                self._escape = char in "[O;" or char.isdigit()
            elif char == "\x1b":
                self._escape = True
            elif char in "\r\n" and not (char == "\n" and after_return):
                self._lines.put_nowait(self._typed)
                self._typed, echo = "", "\n"
            elif char in "\x7f\b" and self._typed:
                self._typed, echo = self._typed[:-1], "\b \b"
            elif char in "\x03\x04":  # Ctrl-C, Ctrl-D: the end
                self._lines.put_nowait(None)
            elif char.isprintable() and len(self._typed) < 200:
                self._typed += char
                echo = char
            if echo and self.echoes:
                self.write(echo, echo=True)

    def call_when_processed(self, callback: Callable[[], None]) -> bool:
        return False  # (handled as fed)

    def input_dropped(self, notice: str | None) -> None:
        if notice:
            self.write(f"\n{notice}\n")


class GameSession(asyncssh.SSHServerSession):
    """The server side of one SSH session channel."""

    def __init__(self, server: SessionServer, username: str, key_fingerprint: str | None, peer: str) -> None:
        self._server = server
        self._username = username
        self._key_fingerprint = key_fingerprint
        self._peer = peer
        self._chan: asyncssh.SSHServerChannel | None = None
        self._term: str | None = None
        self._size = (0, 0)
        self._command: str | None = None
        self._driver: ChannelDriver | None = None
        self.input_gate = InputGate(peer)
        self._held_off: asyncio.TimerHandle | None = None  # resumes reading from a client that went over budget
        self._resuming = False  # resume_reading() is handing over what arrived while reading was paused
        self._dropped_while_resuming = False
        self._app: App[Any] | None = None
        self._lines: ChannelLines | None = None  # the plain front's, while it runs
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self._farewell_said = False
        self._gone = False  # the client left (EOF, disconnect, or it stopped reading)
        self._grace: asyncio.TimerHandle | None = None  # cancels an app still running long after its client left
        self._resized_at = float("-inf")  # loop time the app was last given a window size
        self._pending_resize: asyncio.TimerHandle | None = None  # gives it the latest size once the interval is over

    def connection_made(self, chan: asyncssh.SSHServerChannel) -> None:
        self._chan = chan

    def seated(self) -> bool:
        """Whether its player sits at a table, as its app says (``ssh_session_seated``); an app that cannot say, or
        the plain lines, count as seated (never closed for a stranger)."""
        says = getattr(self._app, "ssh_session_seated", None)
        return says is None or bool(says())

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], term_modes: Any) -> bool:
        self._term = term_type or "xterm"
        self._size = (term_size[0], term_size[1])
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        self._command = command  # accepted only to explain, in session_started, that commands are not run
        return True

    def subsystem_requested(self, subsystem: str) -> bool:
        log.info("refused subsystem %r from %s", subsystem[:40], self._peer)
        return False

    def session_started(self) -> None:
        assert self._chan is not None
        plain = hasattr(self._server.app_factory, "plain")
        if self._command is not None or (self._term is None and not plain):
            log.info("refused a %s session from %s", "command" if self._command is not None else "pty-less", self._peer)
            self._chan.write_stderr(no_pty_message(self._username, self._chan.get_extra_info("sockname")).encode())
            self._chan.exit(1)
            return
        self._task = self._server.spawn(self._run(), name=f"ssh-session {self._peer}")

    def data_received(self, data: bytes, datatype: Any) -> None:
        if self._gone or self.input_gate.receive(data):
            return
        if self._resuming:
            self._dropped_while_resuming = True  # take (and drop) the rest of what is buffered first
        else:
            self._hold_off()

    def _hold_off(self) -> None:
        """Over budget: read nothing from this client for a moment (its flood backs up at its end, not ours)."""
        chan = self._chan
        if chan is None or self._held_off is not None:
            return
        chan.pause_reading()
        self._held_off = asyncio.get_running_loop().call_later(HOLD_OFF, self._resume_reading)

    def _resume_reading(self) -> None:
        """Take everything the client sent while held off (up to the channel window) in one go; hold off again if
        some of it was over budget, so a flood drains at about INPUT_WINDOW / HOLD_OFF bytes a second."""
        self._held_off = None
        chan = self._chan
        if chan is None or self._closed or chan.is_closing():
            return
        self._resuming, self._dropped_while_resuming = True, False
        try:
            chan.resume_reading()  # delivers what asyncssh buffered, right here
        finally:
            self._resuming = False
        if self._dropped_while_resuming:
            self._hold_off()

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        self._size = (width, height)
        if self._driver is None or self._pending_resize is not None:
            return  # the driver takes the size when it starts; a pending resize will take the latest
        loop = asyncio.get_running_loop()
        wait = self._resized_at + RESIZE_INTERVAL - loop.time()
        if wait <= 0:
            self._apply_resize()
        else:
            self._pending_resize = loop.call_later(wait, self._apply_resize, context=contextvars.Context())

    def _apply_resize(self) -> None:
        self._pending_resize = None
        self._resized_at = asyncio.get_running_loop().time()
        if self._driver is not None:
            self._driver.resize(*self._size)

    def eof_received(self) -> bool:
        self._client_gone()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._closed = True
        self._client_gone()

    def send_output(self, text: str) -> None:
        chan = self._chan
        if self._closed or chan is None or chan.is_closing():
            return
        chan.write(text.encode("utf-8", "replace"))
        if chan.get_write_buffer_size() > MAX_UNSENT_OUTPUT:
            log.warning("closing the session of %s: it stopped reading its screen", self._peer)
            self._closed = True
            chan.close()
            self._client_gone()

    def driver_started(self, driver: ChannelDriver) -> None:
        if self._gone:  # the client left while the app was starting (``ssh -tt host </dev/null``): end it now
            if self._app is not None:
                self._app.exit()
            return
        self._driver = driver
        driver.resize(*self._size)  # a window change may have come before the driver existed
        self.input_gate.attach(driver)  # with whatever was typed before the app was up

    def player(self) -> SSHPlayer:
        return SSHPlayer(
            username=self._username,
            key_fingerprint=self._key_fingerprint,
            peer=self._peer,
            term=self._term or "xterm",
            color_system=color_system_for(self._term, self._environment()),
            language=language_from_environment(self._environment()),
        )

    def _environment(self) -> dict[str, str]:
        if self._chan is None:
            return {}
        return {key: value for key, value in self._chan.get_environment().items() if isinstance(value, str)}

    async def _run(self) -> None:
        status = 1
        app: App[Any] | None = None
        try:
            if self._gone:
                return
            plain = getattr(self._server.app_factory, "plain", None)
            if plain is not None and self._term in PLAIN_TERMS:
                status = await self._run_plain(plain)
                return
            player = self.player()
            app = self._server.app_factory(player)
            self._prepare(app, player.color_system)
            starting = getattr(app, "ssh_session_starting", None)
            if starting is not None:
                await starting()  # e.g. ask the host for the seat held for the player's key
                if self._gone:  # the client left meanwhile (``ssh -tt host </dev/null``): no app to start
                    return
            self._app = app
            self._server.app_starting(app)
            try:
                await app.run_async(size=terminal_size(*self._size), mouse=True)
            finally:
                self._server.app_finished(app)
                if not app.return_code:
                    # Now, not after leaving the tables: when the whole host stops, leaving may outlast the
                    # wait the server gives its sessions, and the player would read a bare disconnect.
                    self._say_farewell(app)
                ended = getattr(app, "ssh_session_ended", None)
                if ended is not None:
                    await ended()  # e.g. leave the tables it sat at
            status = app.return_code or 0
            name = getattr(app, "go_plain", None)  # chosen on the welcome screen
            if plain is not None and name is not None and not self._gone:
                status = await self._run_plain(plain, name, getattr(app, "language", ""))
        except Exception:
            log.exception("the SSH session of %s failed", self._peer)
        finally:
            self._grace = cancel(self._grace)
            self._task = None
            self._driver = None
            self._app = None
            self.input_gate.detach()
            self._held_off = cancel(self._held_off)
            self._pending_resize = cancel(self._pending_resize)
            chan = self._chan
            if not self._closed and chan is not None:
                if chan.is_closing():
                    status = 0  # we sent our end of file (the client sent theirs first): nothing more to say
                elif status:
                    chan.write_stderr(CRASH_MESSAGE.encode())
                else:
                    self._say_farewell(app or self._lines)
                chan.exit(status)  # exit status and close, also after an end of file
            self._chan = None

    async def _run_plain(self, plain: Callable[..., Awaitable[int]], *more: str) -> int:
        """The plain front (``GameAppFactory.plain``) on this channel, counted as a running app."""
        self._lines = lines = ChannelLines(self, self._term is not None)
        self.input_gate.attach(lines)
        self._server.app_starting(lines)
        try:
            return await plain(self.player(), lines, *more)
        finally:
            self._server.app_finished(lines)

    def _say_farewell(self, app: App[Any] | ChannelLines | None) -> None:
        """Once the app is gone and the server is closing: tell the player why their session ends (once), in the
        app's words for it if it has some (``farewell``: the player's language)."""
        chan = self._chan
        if self._farewell_said or self._closed or chan is None or chan.is_closing() or not self._server.farewell:
            return
        self._farewell_said = True
        words = getattr(app, "farewell", None)
        farewell = words(self._server.farewell) if words is not None else self._server.farewell
        chan.write(f"No Thanks!: {farewell}.\r\n".encode())

    def _prepare(self, app: App[Any], color_system: str) -> None:
        """Point ``app`` at this channel and the client's terminal, and take away anything acting on the host."""
        if color_system == "none":
            app.no_color = True  # what Textual reads from the process's NO_COLOR, for this session's app alone
        app.driver_class = functools.partial(  # type: ignore[assignment]
            ChannelDriver, link=self, color_system=color_system
        )
        app.console = session_console(self._term, terminal_size(*self._size))
        for name, what in HOST_ACTIONS.items():  # every path to the driver's own goes through one of them
            setattr(app, name, functools.partial(_refuse, what))

    def _client_gone(self) -> None:
        """The client closed or vanished: let the app finish (it leaves its table), then make sure it did."""
        self._gone = True
        self._driver = None
        self.input_gate.detach()
        if self._lines is not None:
            self._lines.exit()
        app = self._app
        if app is not None and app.is_running:
            app.exit()  # one still starting is ended by driver_started, once it can take the message
        task = self._task
        if task is not None and not task.done() and self._grace is None:
            # An empty context: a cancelled timer stays in the loop's queue until its time, with its context, and
            # the context this runs in may be an app's (holding it through Textual's context variables for 30 s).
            self._grace = asyncio.get_running_loop().call_later(
                EXIT_GRACE, self._cancel_stuck_app, context=contextvars.Context()
            )

    def _cancel_stuck_app(self) -> None:
        self._grace = None
        if self._task is not None and not self._task.done():
            log.warning("cancelling the app of %s: it did not finish after its client left", self._peer)
            self._task.cancel()


def no_pty_message(username: str, sockname: object) -> str:
    """What ``ssh -T`` (or a command) is told: the ``ssh`` line that works, with the address and port the client
    reached this server at, and its own user name."""
    host, port = (str(sockname[0]), int(sockname[1])) if isinstance(sockname, tuple) and len(sockname) >= 2 else ("", 0)
    host = host.removeprefix("::ffff:") or "this-host"  # (an IPv4 client on a dual-stack socket)
    user = printable_user(username) or "play"
    option = "" if port in (0, 22) else f"-p {port} "
    return NO_PTY_MESSAGE.format(command=f"ssh {option}{user}@{host}")


def printable_user(username: str) -> str:
    """The user name if it is safe to echo back in a command line (letters, digits, ``._-``), else empty."""
    return username if username and len(username) <= 32 and all(c.isalnum() or c in "._-" for c in username) else ""


# The App methods that would touch the host machine (its browser, its disk, its process), and what each does.
HOST_ACTIONS = {"open_url": "opening a URL", "action_suspend_process": "suspending the process"}
HOST_ACTIONS |= dict.fromkeys(("save_screenshot", "action_screenshot", "deliver_screenshot"), "saving a screenshot")
HOST_ACTIONS |= dict.fromkeys(("deliver_text", "deliver_binary"), "saving a file")


def _refuse(what: str, *args: Any, **kwargs: Any) -> None:
    log.info("refused %s on the host for an SSH session", what)
