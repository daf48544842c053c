"""The leave question says the seat is kept whenever the host keeps it: a seat token, or (over SSH) the player's
key, which binds every seat they take and comes with no token (a player back by key was asked the generic
question, as if their seat were lost)."""

from __future__ import annotations

from nothanks_tui.client.tcp import TcpLobby, TcpTable


def test_a_seat_is_kept_by_its_token_or_by_the_players_key():
    plain = TcpLobby("127.0.0.1", 1, "ana")
    assert TcpTable(plain, "t1", 0, "token").seat_kept
    assert not TcpTable(plain, "t1", 0, None).seat_kept
    keyed = TcpLobby("127.0.0.1", 1, "ana", via="10.0.0.9", proxy_key="secret", key="SHA256:abc")
    assert TcpTable(keyed, "t1", 0, None).seat_kept  # resume_key: no token, the key holds the seat
    assert not TcpTable(keyed, "t1", None, None).seat_kept  # watching: no seat to keep
    keyless = TcpLobby("127.0.0.1", 1, "ana", via="10.0.0.9", proxy_key="secret")
    assert not TcpTable(keyless, "t1", 0, None).seat_kept
