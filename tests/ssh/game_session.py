"""One scripted session of the real game over SSH, the output that Textual really sends a player's terminal.

Shared by tests/ssh/test_fast_screen.py (which checks, chunk by chunk, that tests/ssh/fast_screen.py shows what pyte
shows) and scripts/bench_screens.py (which records the output once and times both screens replaying it).
"""

from __future__ import annotations

from typing import Any

from nothanks_server import Lobby, LobbySettings
from nothanks_server.ssh import AppFactory
from nothanks_server.ssh.game import SeatMemory, game_app_factory

from .terminal_client import TerminalClient
from .visitors import my_turn, play_my_turn

GROWN = (100, 30)  # the window after the first resize, then shrunk to SHRUNK (width, height)
SHRUNK = (70, 20)


def bot_game_factory() -> AppFactory:
    """The game's apps, at the tables of a lobby whose bots move at once and whose turns have no timer."""
    return game_app_factory(Lobby(LobbySettings(bot_delay=0.0, turn_timer=None, seed=11)), SeatMemory())


class RecordingClient(TerminalClient):
    """A ``TerminalClient`` that keeps what its screen went through, in order: each chunk of output as it arrived,
    and each resize of the window as (width, height)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.recording: list[bytes | tuple[int, int]] = []

    def _received(self, data: bytes, datatype: Any) -> None:
        if datatype is None:  # stdout, not stderr
            self.recording.append(bytes(data))
        super()._received(data, datatype)

    def resize(self, width: int, height: int) -> None:
        self.recording.append((width, height))
        super().resize(width, height)


async def play_a_game(client: TerminalClient, max_moves: int = 200) -> int:
    """From the welcome screen: a name, the lobby, a 3-seat table with two bots, then moves (No thanks! while I have
    chips, else take) until the game is over, the window grown after the 3rd move and shrunk after the 8th; then
    ctrl+q, until the session ends. The number of moves made."""
    for keys, shown in [
        ("", "Your name at the table"),
        ("\r", "No tables yet"),
        ("c", "New table"),
        ("\x13", "waiting for players"),  # ctrl+s: create
        ("b", "seat 2: rules"),
        ("b", "press s to start"),
        ("s", "You: 11 chips"),
    ]:
        client.send(keys)
        await client.wait_for(shown)
    moves = 0
    while moves < max_moves:
        await client.wait_for(lambda: my_turn(client) or "Game over" in client.text(), timeout=30)
        if not my_turn(client):
            break
        if not await play_my_turn(client, timeout=10):
            continue
        moves += 1
        if moves == 3:
            client.resize(*GROWN)
            await client.wait_for("─" * GROWN[0])
        elif moves == 8:
            client.resize(*SHRUNK)  # the emulators drop lines from the top: the title is back once redrawn
            await client.wait_for(lambda: "No Thanks!" in client.text().splitlines()[0])
    client.send("\x11")  # ctrl+q
    await client.wait_closed()
    return moves
