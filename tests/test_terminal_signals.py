"""``kill PID`` (SIGTERM) or a closed terminal window (SIGHUP) gives the terminal back and leaves the table (17.4).

The game runs as a real process on a pseudo-terminal; what it writes there after the signal must switch the
alternate screen and mouse reporting off and show the cursor again, so nobody needs ``reset``.
"""

from __future__ import annotations

import asyncio
import os
import pty
import signal
import subprocess
import sys
import threading
import time

import pytest

from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.link import NewTable, TableUpdate

from .net_helpers import live_host

WAIT = 60.0  # bound on each wait (the machine may be busy); normally a second or two
ALT_SCREEN_ON, ALT_SCREEN_OFF = b"\x1b[?1049h", b"\x1b[?1049l"
MOUSE_OFF, CURSOR_SHOWN = b"\x1b[?1000l", b"\x1b[?25h"


def _take_the_terminal() -> None:
    import fcntl
    import termios

    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class PtyGame:
    """``python -m nothanks_tui ARGS`` on a pseudo-terminal of 80x24, its output collected by a thread."""

    def __init__(self, *arguments: str, env: dict[str, str], controlling: bool = False) -> None:
        """``controlling``: the terminal is the process's controlling terminal (closing it hangs the process up)."""
        master, slave = pty.openpty()
        os.set_blocking(master, True)
        import fcntl
        import struct
        import termios

        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "nothanks_tui", *arguments],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=not controlling,
            preexec_fn=_take_the_terminal if controlling else None,
            env={**os.environ, "TERM": "xterm-256color", **env},
        )
        os.close(slave)
        self.master = master
        self.output = bytearray()
        self.ended = threading.Event()
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                break
            if not data:
                break
            with self._lock:
                self.output += data
        self.ended.set()

    def seen(self) -> bytes:
        with self._lock:
            return bytes(self.output)

    async def wait_for(self, text: bytes, after: int = 0) -> None:
        deadline = time.monotonic() + WAIT
        while text not in self.seen()[after:]:
            assert time.monotonic() < deadline, f"never saw {text!r}: {self.seen()[-400:]!r}"
            await asyncio.sleep(0.05)

    def press(self, keys: bytes) -> None:
        os.write(self.master, keys)

    async def finish(self) -> int:
        code = await asyncio.to_thread(self.process.wait, WAIT)
        await asyncio.to_thread(self.ended.wait, WAIT)
        os.close(self.master)
        return code


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
async def test_a_signal_gives_the_terminal_back(signum, tmp_path):
    game = PtyGame("play", "--players", "3", "--seed", "1", env={"XDG_CONFIG_HOME": str(tmp_path)})
    await game.wait_for(ALT_SCREEN_ON)
    await game.wait_for(b"No thanks!")
    mark = len(game.seen())
    game.process.send_signal(signum)
    code = await game.finish()
    after = game.seen()[mark:]
    assert code == 0, after[-400:]
    for sequence in (ALT_SCREEN_OFF, MOUSE_OFF, CURSOR_SHOWN):
        assert sequence in after, (sequence, after[-400:])
    assert b"Traceback" not in after


async def test_sigterm_at_a_host_table_tells_the_host(tmp_path):
    async with live_host() as host:
        alice = TcpLobby("127.0.0.1", host.port, "alice")
        await alice.start()
        table = await alice.create_table(NewTable(players=2))
        env = {"XDG_STATE_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)}
        game = PtyGame("join", f"127.0.0.1:{host.port}", "--name", "bob", env=env)
        await game.wait_for(b"alice")  # the lobby lists alice's table
        game.press(b"j")
        deadline = time.monotonic() + WAIT
        while host.lobby.table(table.table_id).seats[1].empty:
            assert time.monotonic() < deadline, "bob never sat down"
            await asyncio.sleep(0.05)
        await table.start_game()
        while not isinstance(event := await asyncio.wait_for(table.next_event(), WAIT), TableUpdate):
            pass
        assert not event.seats[1].away
        game.process.send_signal(signal.SIGTERM)
        while True:
            event = await asyncio.wait_for(table.next_event(), WAIT)
            if isinstance(event, TableUpdate) and event.seats[1].away:
                break
        assert await game.finish() == 0
        assert ALT_SCREEN_OFF in game.seen()
        await alice.close()


async def test_a_closed_terminal_window_does_not_leave_the_game_running(tmp_path):
    """The window closes: the kernel hangs the game up (SIGHUP) with no terminal left to give back; it still ends."""
    env = {"XDG_CONFIG_HOME": str(tmp_path)}
    game = PtyGame("play", "--players", "3", "--seed", "1", env=env, controlling=True)
    await game.wait_for(b"No thanks!")
    os.close(game.master)  # the window closes: the kernel sends SIGHUP
    code = await asyncio.to_thread(game.process.wait, WAIT)
    assert code == 0


async def test_quitting_leaves_a_clear_screen_even_without_an_alternate_screen(tmp_path):
    """GNU screen with ``altscreen off`` ignores the alternate screen: quitting left the last frame there, the
    prompt over its top-left corner (issue 29, defect 15). The app erases the screen before it leaves the
    alternate one (where there is one, that erases only the alternate screen)."""
    env = {"XDG_CONFIG_HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path)}
    game = PtyGame("play", "--players", "3", "--seed", "1", env=env)
    await game.wait_for(b"No thanks!")
    await game.wait_for(b"Quit")
    mark = len(game.seen())
    game.press(b"\x11")  # Ctrl-Q: "Quit No Thanks!?"
    await game.wait_for(b"keep playing", mark)
    game.press(b"y")
    assert await game.finish() == 0
    after = game.seen()[mark:]
    erased = after.rfind(b"\x1b[2J")
    assert erased >= 0 and ALT_SCREEN_OFF in after[erased:], after[-300:]
    assert b"No thanks" not in after[erased:]  # nothing drawn again after the erasing
