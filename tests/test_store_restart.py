"""``nothanks server`` as a real process, killed or told to restart: tables, moves, seats and tokens come back."""

from __future__ import annotations

import asyncio
import re
import signal

import pytest

from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.link import NewTable, Rejected, TableUpdate

from .net_helpers import WAIT, RawClient, local_server_process, of_type


async def start_server(data_dir, port: int = 0):
    process = await local_server_process(data_dir, "--bot-pace", "0", "--turn-timer", "off")
    if port:  # local_server_process asks for any port; a restart wants the same one back
        process.kill()
        await process.wait()
        from .net_helpers import nothanks_process

        process = await nothanks_process(
            "server",
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--data-dir",
            str(data_dir),
            "--bot-pace",
            "0",
            "--turn-timer",
            "off",
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    line = (await asyncio.wait_for(process.stdout.readline(), WAIT)).decode()
    match = re.search(r"127\.0\.0\.1:(\d+)", line)
    assert match, line + (await process.stderr.read()).decode()
    return process, int(match.group(1))


async def stop(process) -> None:
    if process.returncode is None:
        process.kill()
        await process.wait()


def is_update(frame) -> bool:
    return isinstance(frame, dict) and frame.get("type") == "update"


async def two_players_mid_game(port: int):
    """alice (creator) and bob at a 3-seat table with a bot; both play until at least 6 moves are in and it is a
    human's turn (the table then waits: nothing moves until one of them does). Returns (alice, bob, tokens, view)."""
    alice = await RawClient.connect(port, "alice")
    await alice.send({"type": "create_table", "players": 3, "bots": 1, "id": 1})
    joined = await alice.until(of_type("joined"))
    bob = await RawClient.connect(port, "bob")
    await bob.send({"type": "join", "table": joined["table"], "id": 2})
    bob_joined = await bob.until(of_type("joined"))
    await alice.until(lambda f: of_type("waiting")(f) and f["can_start"])
    await alice.send({"type": "start"})
    seats = {"alice": joined["seat"], "bob": bob_joined["seat"]}
    tokens = {"alice": joined["token"], "bob": bob_joined["token"]}

    async def move(client, seat: int, state_id: int) -> None:
        view = await client.until(lambda f: is_update(f) and f["view"]["state_id"] == state_id)
        view = view["view"]
        action = "pass" if view["chips"][seat] and view["pot"] < 2 else "take"
        await client.send({"type": "action", "action": action, "state_id": state_id})

    while True:  # alice hears of every change; whoever is to move, moves
        view = (await alice.until(is_update))["view"]
        state_id, mover = view["state_id"], view["to_move"]
        if mover not in seats.values():
            continue  # the bot's turn
        if state_id >= 6:  # a human's turn: the table waits for them, nothing moves
            await bob.until(lambda f, s=state_id: is_update(f) and f["view"]["state_id"] == s)
            return alice, bob, tokens, view, joined["table"]
        if mover == seats["bob"]:
            await move(bob, mover, state_id)
        else:
            action = "pass" if view["chips"][mover] and view["pot"] < 2 else "take"
            await alice.send({"type": "action", "action": action, "state_id": state_id})


async def check_restored(port: int, tokens: dict[str, str], before: dict, table_id: str) -> None:
    for name, token in tokens.items():
        client = await RawClient.connect(port, name)
        await client.send({"type": "resume", "token": token, "id": 3})
        joined = await client.until(lambda f: f.get("type") in ("joined", "error"))
        assert joined["type"] == "joined", joined
        updates = [f for f in client.frames if is_update(f)]  # (the host pushes the view right before `joined`)
        view = (updates[-1] if updates else await client.until(is_update))["view"]
        assert view["state_id"] == before["state_id"] and view["moves"] == before["moves"]
        assert view["hands"] == before["hands"] and view["to_move"] == before["to_move"]
        await client.close()
    watcher = await RawClient.connect(port, "eve")  # spectators can watch again
    await watcher.send({"type": "spectate", "table": table_id, "id": 4})
    await watcher.until(of_type("joined"))
    updates = [f for f in watcher.frames if is_update(f)]
    assert (updates[-1] if updates else await watcher.until(is_update))["view"]["state_id"] == before["state_id"]
    await watcher.close()


async def test_after_sigkill_the_table_comes_back_at_its_last_move_and_tokens_resume_the_seats(tmp_path):
    process, port = await start_server(tmp_path)
    try:
        alice, bob, tokens, before, table_id = await two_players_mid_game(port)
        process.kill()  # SIGKILL: no goodbye, nothing flushed by the host itself
        await process.wait()
        await alice.close()
        await bob.close()
        process, port = await start_server(tmp_path)
        await check_restored(port, tokens, before, table_id)
        bad = await RawClient.connect(port, "mallory")
        await bad.send({"type": "resume", "token": "not-a-token", "id": 5})
        assert (await bad.until(of_type("error")))["code"] == "bad_token"
    finally:
        await stop(process)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
async def test_sigterm_tells_clients_to_come_back_and_keeps_every_game(tmp_path, signum):
    """SIGHUP (the terminal the server ran in went away) is a restart as SIGTERM is: players told, store flushed."""
    process, port = await start_server(tmp_path)
    try:
        alice, bob, tokens, before, table_id = await two_players_mid_game(port)
        process.send_signal(signum)
        for client in (alice, bob):
            closing = await client.until(of_type("closing"))
            assert closing["restart"] is True and "restarting" in closing["reason"]
            assert await client.closed()  # and nothing after the closing frame: no table_closed
            assert not [f for f in client.frames if f.get("type") == "table_closed"]
        assert await asyncio.wait_for(process.wait(), WAIT) == 0
        process, port = await start_server(tmp_path)
        await check_restored(port, tokens, before, table_id)
    finally:
        await stop(process)


async def test_the_tcp_client_reconnects_by_itself_to_a_restarting_host_and_gets_its_seat_back(tmp_path):
    process, port = await start_server(tmp_path)
    lobby = TcpLobby("127.0.0.1", port, "alice")
    try:
        await lobby.start()
        table = await lobby.create_table(NewTable(players=2, bots=1))
        await table.start_game()

        async def update():
            while True:
                event = await asyncio.wait_for(table.next_event(), WAIT)
                if isinstance(event, TableUpdate):
                    return event

        first = await update()
        while not first.view.my_turn:
            first = await update()
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), WAIT) == 0
        process, _ = await start_server(tmp_path, port)
        notice = await asyncio.wait_for(table.next_event(), WAIT)  # said at once, on the table itself
        assert isinstance(notice, Rejected) and "restarting" in notice.message
        again = await update()  # the same TcpTable, after the reconnect and the resume
        assert again.view.state_id == first.view.state_id and again.view.hands == first.view.hands
        assert again.view.my_turn and not again.seats[again.view.seat].away
        assert lobby.closed_reason is None
    finally:
        await lobby.close()
        await stop(process)
