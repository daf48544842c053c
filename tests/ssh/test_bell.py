"""The your-turn bell reaches an SSH player's terminal: a BEL byte in the channel's output when it becomes their
turn, once, and none once they turn it off (b)."""

from __future__ import annotations

import re

from tools.loadgen.terminal_client import TerminalClient

from .test_game import sit_at_bot_table

_OSC = re.compile(rb"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")  # an OSC sequence may end in BEL: that is not a bell


def bells(raw: bytes | bytearray) -> int:
    return _OSC.sub(b"", bytes(raw)).count(b"\x07")


async def test_the_bell_byte_reaches_the_terminal_once_per_turn_and_not_when_turned_off(game_sessions):
    client = await TerminalClient().connect(game_sessions.port, "alice")
    await sit_at_bot_table(client)
    await client.wait_for("Your turn")
    assert bells(client.raw) == 1
    client.send("l")
    await client.wait_for("Bell off")
    client.send("n")
    await client.wait_for(lambda: "You: 10 chips" in client.text() and "Your turn" in client.text())
    assert bells(client.raw) == 1
    client.send("l")
    await client.wait_for("Bell on")
    client.send("n")
    await client.wait_for(lambda: "You: 9 chips" in client.text() and "Your turn" in client.text())
    assert bells(client.raw) == 2
    await client.close()
