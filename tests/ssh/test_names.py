"""Over SSH a name belongs to the first key that plays under it on the host: another key, or a keyless guest, is
told on the name screen, in their language, that it is taken, with a free name in the field; guests show with a
``~`` before their name to the others (the lobby, the waiting room, the chat)."""

from __future__ import annotations

import asyncssh

from tools.loadgen.terminal_client import TerminalClient


async def into_lobby(client: TerminalClient) -> None:
    await client.wait_for("Your name at the table")
    client.send("\r")
    await client.wait_for("No tables yet")


async def test_another_key_and_a_guest_are_offered_another_name_and_the_owner_plays_on(game_sessions):
    alice, mallory = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    owner = await TerminalClient().connect(game_sessions.port, "alice", client_keys=[alice])
    await into_lobby(owner)
    await owner.close()

    stranger = await TerminalClient().connect(game_sessions.port, "alice", client_keys=[mallory])
    await stranger.wait_for("Your name at the table")
    stranger.send("\r")
    await stranger.wait_for("about alice2?")  # "That name belongs to another player on this host: how about..."
    stranger.send("\r")  # the free name offered is in the field
    await stranger.wait_for("No tables yet")
    await stranger.close()

    guest = await TerminalClient().connect(game_sessions.port, "ALICE", env={"LANG": "fr_FR.UTF-8"})
    await guest.wait_for("table")
    guest.send("\r")
    await guest.wait_for("ALICE3 ?")  # (alice2 is mallory's now), in French
    await guest.close()

    look_alike = await TerminalClient().connect(game_sessions.port)  # (asyncssh folds a user name's width)
    await look_alike.wait_for("Your name at the table")
    look_alike.send("～Ａlice\r")  # typed: a full-width tilde and A
    await look_alike.wait_for("lice3?")  # the owned name all the same
    await look_alike.close()

    again = await TerminalClient().connect(game_sessions.port, "alice", client_keys=[alice])
    await into_lobby(again)  # the owner's key: still theirs
    await again.close()


async def test_a_keyless_guest_is_marked_where_the_others_see_them(game_sessions):
    guest = await TerminalClient().connect(game_sessions.port, "dan")
    await into_lobby(guest)
    guest.send("c")
    await guest.wait_for("New table")
    guest.send("\x13")  # ctrl+s: create (3 players)
    await guest.wait_for("waiting for players")
    await guest.wait_for("~dan")  # their own waiting room says it too

    key = asyncssh.generate_private_key("ssh-ed25519")
    other = await TerminalClient().connect(game_sessions.port, "erin", client_keys=[key])
    await other.wait_for("Your name at the table")
    other.send("\r")
    await other.wait_for("~dan")  # the lobby's line of the table
    other.send("\r")
    await other.wait_for("seat 2: erin")
    await other.wait_for("seat 1: ~dan")  # the waiting room
    guest.send("c")
    await guest.wait_for("^G/Esc Close")
    guest.send("hello\r")
    await other.wait_for("<~dan> hello")  # the chat
    assert "~erin" not in other.text() + guest.text()
    for client in (guest, other):
        await client.close()
