"""Seat tokens are kept per host AND name (issue 29, defect 2): two ``nothanks join``s from one user account with
different ``--name``s are two players, and the same name again resumes its seat. (The key pair proven with the
host hello's nonce, later, can take the name's place as the second half of the key.)"""

from __future__ import annotations

from nothanks_tui.client.seat_tokens import SeatTokens, remember_and_resume
from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.link import NewTable

from ..net_helpers import live_host


async def joined(port: int, name: str, tokens: SeatTokens):
    lobby = TcpLobby("127.0.0.1", port, name)
    await lobby.start()
    return lobby, await remember_and_resume(lobby, tokens, f"127.0.0.1:{port}")


async def test_a_second_name_from_the_same_account_is_a_second_player(tmp_path):
    tokens = SeatTokens(tmp_path / "seats.json")  # one user account's file
    async with live_host() as host:
        bob, resumed = await joined(host.port, "bob", tokens)
        assert resumed is None
        table = await bob.create_table(NewTable(players=3))
        carol, resumed = await joined(host.port, "carol", tokens)
        assert resumed is None  # (it took bob's seat, and bob was thrown out of it)
        seat = await carol.join(table.table_id)
        assert (table.seat, seat.seat) == (0, 1)
        bob_again, resumed = await joined(host.port, "bob", tokens)  # bob's terminal closed; he comes back
        assert resumed is not None and resumed.seat == 0
        carol_again, resumed = await joined(host.port, "carol", tokens)
        assert resumed is not None and resumed.seat == 1
        for lobby in (bob, carol, bob_again, carol_again):
            await lobby.close()


def test_tokens_are_kept_per_address_and_name_privately(tmp_path):
    tokens = SeatTokens(tmp_path / "state" / "seats.json")
    assert tokens.get("127.0.0.1:7777", "bob") is None
    tokens.put("127.0.0.1:7777", "bob", "abc")
    tokens.put("127.0.0.1:7777", "carol", "ghi")
    tokens.put("[::1]:7000", "bob", "def")
    again = SeatTokens(tokens.path)
    assert again.get("127.0.0.1:7777", "bob") == "abc" and again.get("127.0.0.1:7777", "carol") == "ghi"
    assert again.get("[::1]:7000", "carol") is None
    assert tokens.path.stat().st_mode & 0o077 == 0
    tokens.forget("127.0.0.1:7777", "bob")
    assert tokens.get("127.0.0.1:7777", "bob") is None and tokens.get("127.0.0.1:7777", "carol") == "ghi"
    tokens.path.write_text('{"127.0.0.1:7777": "a token of before: whose?", "x": {"bob": 3}}')
    assert tokens.get("127.0.0.1:7777", "bob") is None and tokens.get("x", "bob") is None
    tokens.put("127.0.0.1:7777", "bob", "jkl")
    assert tokens.get("127.0.0.1:7777", "bob") == "jkl"
    tokens.path.write_text("not json")
    assert tokens.get("127.0.0.1:7777", "bob") is None
