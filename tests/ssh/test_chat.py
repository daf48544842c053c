"""Chat over SSH: two players' terminals (sessions in this process, tables behind a TCP host). One speaks, the
other sees it; a hostile line from a raw TCP client reaches both terminals as plain text, its escapes gone."""

from __future__ import annotations

from nothanks_tui.link.wire import PROTOCOL_VERSION
from tools.loadgen.terminal_client import TerminalClient

from ..net_helpers import RawClient, of_type

HOSTILE = "\x1b[2J\x1b]0;pwned\x07\x1b[5m[bold red]FAKE[/] \x1b[31mred?\x9b2J ok"
SHOWN = "[bold red]FAKE[/] red? ok"


async def test_one_player_speaks_the_other_sees_it_and_a_hostile_line_is_plain_text(game_sessions):
    alice = await TerminalClient().connect(game_sessions.port, "alice")
    await alice.wait_for("Your name at the table")
    alice.send("\r")
    await alice.wait_for("No tables yet")
    alice.send("c")
    await alice.wait_for("New table")
    alice.send("\x13")  # ctrl+s: create (3 players)
    await alice.wait_for("waiting for players")

    bob = await TerminalClient().connect(game_sessions.port, "bob")
    await bob.wait_for("Your name at the table")
    bob.send("\r")
    await bob.wait_for("alice")  # the table in the lobby's list
    bob.send("\r")
    await bob.wait_for("seat 2: ~bob")  # (keyless: guests, marked)
    await alice.wait_for("seat 2: ~bob")

    alice.send("c")
    await alice.wait_for("^G/Esc Close")
    alice.send("hi bob, t and n type here\r")
    await bob.wait_for("<~alice> hi bob, t and n type here")
    await alice.wait_for("<~alice> hi bob, t and n type here")

    (table,) = game_sessions.lobby.tables()
    raw = await RawClient.connect(game_sessions.host.port, name=None)
    await raw.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "mal\x1b[1mlory", "features": ["chat"]})
    await raw.send({"type": "spectate", "table": table.table_id, "id": 1})
    await raw.until(of_type("joined"))
    await raw.send({"type": "chat", "text": HOSTILE})
    for player in (alice, bob):
        await player.wait_for(f"<mallory (watching)> {SHOWN}")
        assert "pwned" not in player.text() and player.screen.title != "pwned"
        assert b"pwned" not in player.raw and b"\x1b[5m" not in player.raw

    # Bob (whose turn it may be, or not) closes a line with ctrl+g: nothing is sent, he is back at the table.
    bob.send("c")
    await bob.wait_for("^G/Esc Close")
    bob.send("never sent\x07")
    await bob.wait_for(lambda: "c Chat" in bob.text())
    bob.send("c")
    await bob.wait_for("^G/Esc Close")
    bob.send("sent\r")
    await alice.wait_for("<~bob> sent")
    assert "never sent" not in alice.text()
    await raw.close()
    await alice.close()
    await bob.close()
