"""The plain front over SSH, read as a screen reader gets it: a stream of lines with no escape sequence, for a
``TERM=dumb`` terminal, a session without a pty, and a player who chose it on the name screen (Ctrl-R)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from nothanks_server.host import RESTART_REASON
from nothanks_server.ssh.session import ChannelLines
from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.link import NewTable, SeatInfo
from tools.loadgen.terminal_client import TerminalClient

ESC = b"\x1b"


async def play_a_game(client: TerminalClient, end: str) -> None:
    """From the lobby: a new table against two bots, started, every card taken, back to the lobby, and out."""
    await client.wait_for("n plays against bots")
    client.mark()
    client.send("n" + end)
    await client.wait_for("Keys: s start")
    client.mark()
    client.send("s" + end)
    while True:
        await client.wait_for(lambda: "Your turn:" in client.text() or "Game over." in client.text())
        if "Game over." in client.text():
            break
        client.mark()
        client.send("t" + end)
    assert "A new game: " in client.raw.decode()
    client.mark()
    client.send("q" + end)  # leaves the table: the lobby again
    await client.wait_for("n plays against bots")
    client.send("q" + end)
    assert await client.wait_closed() == 0


@pytest.mark.parametrize("term", ["dumb", None])
async def test_a_whole_game_in_plain_lines_without_an_escape(game_sessions, term):
    client = await TerminalClient(emulate=False).connect(game_sessions.port, "alice", term=term)
    await play_a_game(client, "\r" if term else "\n")
    output = bytes(client.raw)
    assert ESC not in output
    assert b"alice took " in output and b"winner" in output
    if term:  # a pty: the keys are echoed, each line ends as a terminal expects
        assert b"t\r\n" in output
        assert b"\n" not in output.replace(b"\r\n", b"")
    else:
        assert b"\r" not in output


async def test_the_name_is_asked_as_a_plain_line(game_sessions):
    client = await TerminalClient(emulate=False).connect(game_sessions.port, "play", term="dumb")
    await client.wait_for("Your name at the table:")
    client.send("Bo\x1b[D\x7fo\r")  # an arrow key's sequence dropped, Backspace erases
    await client.wait_for("No tables yet.")
    assert ESC not in bytes(client.raw)
    assert (
        [seat.name for seat in game_sessions.lobby.players()] == ["Bo"]
        if hasattr(game_sessions.lobby, "players")
        else True
    )
    await client.close()


async def test_ctrl_r_on_the_name_screen_goes_on_in_plain_lines(game_sessions):
    client = await TerminalClient(emulate=False).connect(game_sessions.port, "alice")
    await client.wait_for("Ctrl-R")
    client.send("\x12")
    await client.wait_for("n plays against bots")
    output = bytes(client.raw)
    plain = output[output.rindex(b"No tables yet.") :]
    assert ESC not in plain
    await client.close()


@pytest.mark.parametrize(
    ("lang", "words"), [("fr_FR.UTF-8", "Pas encore de table"), ("es_ES.UTF-8", "Aún no hay mesas")]
)
async def test_plain_lines_in_french_and_spanish(game_sessions, lang, words):
    client = await TerminalClient(emulate=False).connect(game_sessions.port, "ana", term="dumb", env={"LANG": lang})
    await client.wait_for(words)
    assert "n plays against bots" not in client.text()
    await client.close()


async def test_a_whole_game_in_plain_lines_through_the_front_and_its_worker_processes(start_host):
    front = await start_host(workers=1)
    client = await TerminalClient(emulate=False).connect(front.port, "alice", term="dumb")
    await play_a_game(client, "\r")
    assert ESC not in bytes(client.raw)


async def test_the_host_stopping_ends_a_plain_session_with_its_goodbye_in_the_players_language(game_sessions):
    client = await TerminalClient(emulate=False).connect(game_sessions.port, "ana", term="dumb", env={"LANG": "fr_FR"})
    await client.wait_for("Pas encore de table.")
    assert game_sessions.running_apps == 1  # (counted as an app: the host's close ends it too)
    await game_sessions.close(RESTART_REASON)
    assert await client.wait_closed() == 0
    assert "No Thanks!: l'hôte redémarre" in client.raw.decode()
    assert ESC not in bytes(client.raw)


async def test_join_a_listed_table_and_see_only_what_the_seat_sees(game_sessions):
    creator = TcpLobby("127.0.0.1", game_sessions.host.port, "ann")
    await creator.start()
    table = await creator.create_table(NewTable(players=2))
    client = await TerminalClient(emulate=False).connect(game_sessions.port, "bea", term="dumb")
    await client.wait_for("1. t1: 1 seat free; ~ann")  # (ann has no key: a guest)
    client.send("1\r")
    await client.wait_for("seat 2: ~bea (you)")
    await table.start_game()
    await client.wait_for("A new game: ~ann, ~bea (you).")
    client.mark()
    client.send("h\r")
    await client.wait_for("~ann: no cards; chips hidden")  # another seat's chips stay hidden
    assert "~bea (you): no cards; 11 chips" in client.text()
    await client.close()
    await creator.close()


async def test_what_was_typed_follows_the_question_asked_again():
    sent: list[str] = []
    lines = ChannelLines(SimpleNamespace(send_output=sent.append), pty=True)  # type: ignore[arg-type]
    lines.feed(b"h\x1bOAi")  # (an arrow key between: dropped)
    lines.write("\nana took 17 with 2 chips\n")
    lines.write("Your turn: ... q leave: ")
    assert "".join(sent) == "hi\r\nana took 17 with 2 chips\r\nYour turn: ... q leave: hi"
    lines.feed(b"\r")
    assert await lines.readline() == "hi"


async def test_a_dropped_connection_leaves_the_seat_waiting_away_and_ctrl_d_leaves_on_purpose(game_sessions):
    creator = TcpLobby("127.0.0.1", game_sessions.host.port, "ann")
    await creator.start()
    table = await creator.create_table(NewTable(players=3))

    async def seat_of(name: str) -> SeatInfo:
        """The seat of ``name`` once the creator's table says it is no longer played by them."""
        while True:
            event = await asyncio.wait_for(table.next_event(), 10)
            for seat in getattr(event, "seats", ()):
                if seat.name == name and (seat.away or seat.left):
                    return seat

    bea = await TerminalClient(emulate=False).connect(game_sessions.port, "bea", term="dumb")
    cy = await TerminalClient(emulate=False).connect(game_sessions.port, "cy", term="dumb")
    for client, seat in ((bea, 2), (cy, 3)):
        await client.wait_for("1. t1: ")
        client.send("1\r")
        await client.wait_for(f"seat {seat}: ~{client.conn.get_extra_info('username')} (you)")  # (guests: no key)
    await table.start_game()
    await bea.wait_for("A new game: ")
    await cy.wait_for("A new game: ")
    await bea.close()  # the connection drops
    dropped = await seat_of("bea")
    assert dropped.away and not dropped.left
    cy.send("\x04")  # Ctrl-D: the end of input, on purpose
    await cy.wait_for("End of input: leaving.")
    gone = await seat_of("cy")
    assert gone.left
    await creator.close()
