"""The creator's say over SSH (issue 29): alice makes a private table and reads its invite code in the waiting room,
bob (who does not see it listed) sits there with i and the code, and alice removes him with x and his seat's
number: he is back in the lobby, told why."""

from __future__ import annotations

import re

from tools.loadgen.terminal_client import TerminalClient


async def test_a_private_table_joined_by_its_code_and_a_player_removed_over_ssh(game_sessions):
    alice = await TerminalClient().connect(game_sessions.port, "alice")
    await alice.wait_for("Your name at the table")
    alice.send("\r")
    await alice.wait_for("No tables yet")
    alice.send("c")
    await alice.wait_for("Private: only an invite code")
    alice.send("\t" * 6 + " ")  # from the players' field to the Private box (bots, variant, clock, open chips, coach)
    alice.send("\x13")  # ctrl+s: create
    await alice.wait_for("others join with the invite code")
    code = re.search(r"invite code (\d+-\w{4}-\w{4})", alice.text()).group(1)

    bob = await TerminalClient().connect(game_sessions.port, "bob")
    await bob.wait_for("Your name at the table")
    bob.send("\r")
    await bob.wait_for("No tables yet")  # a private table is not listed
    bob.send("i")
    await bob.wait_for("The invite code of a private table")
    bob.send(code + "\r")
    await bob.wait_for("seat 2: ~bob")  # (a keyless SSH player: a guest)
    await alice.wait_for("seat 2: ~bob")
    assert "x Remove" not in bob.text()

    alice.send("x")
    await alice.wait_for("Remove whom?")
    alice.send("2")
    await bob.wait_for("the table's creator removed you from the table")
    await bob.wait_for("lobby at this host")  # back in the lobby
    await alice.wait_for("Removed by the table's creator: bob")
    await alice.close()
    await bob.close()
