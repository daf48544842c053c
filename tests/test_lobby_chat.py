"""Chat in a host's lobby, over real sockets: who hears a line (everyone at no table whose hello listed lobby
chat, nobody at a table), the recent lines on arriving, cleaning, both rates, and a cluster front's refusal."""

from __future__ import annotations

from nothanks_server import Lobby
from nothanks_server.cluster.gateway import FrontSession
from nothanks_tui.link import errors
from nothanks_tui.link.chat import CHAT_BURST, CHAT_HISTORY, TABLE_CHAT_BURST
from nothanks_tui.link.wire import PROTOCOL_VERSION, encode

from .net_helpers import RawClient, live_host, of_type
from .test_host_chat import HOSTILE, HOSTILE_CLEANED, lines_taken


async def in_lobby(port: int, name: str, features: tuple[str, ...] = ("chat", "lobby_chat")) -> RawClient:
    raw = await RawClient.connect(port, name=None)
    await raw.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": name, "features": list(features)})
    await raw.until(of_type("welcome"))
    return raw


async def said(raw: RawClient, request_id: int) -> list[dict]:
    """The frames ``raw`` got until the pong for ``request_id`` (a ping sent now): all it was sent before it."""
    await raw.send({"type": "ping", "id": request_id})
    frames = []
    while (frame := await raw.next_frame()) is not None and frame.get("re") != request_id:
        frames.append(frame)
    return frames


async def test_a_line_said_in_the_lobby_reaches_everyone_there_cleaned_and_not_those_at_a_table():
    async with live_host() as host:
        ann, bob = await in_lobby(host.port, "ann"), await in_lobby(host.port, "bob")
        old = await in_lobby(host.port, "old", ("chat",))  # a client older than lobby chat hears none of it
        seated = await in_lobby(host.port, "sat")
        await seated.send({"type": "create_table", "players": 2, "id": 1})
        await seated.until(of_type("joined"))
        await ann.send({"type": "chat", "text": HOSTILE})
        line = {"type": "chat", "name": "ann", "seat": None, "text": HOSTILE_CLEANED, "lobby": True}
        assert await bob.until(of_type("chat")) == line
        assert await ann.until(of_type("chat")) == line  # the sender too
        assert b"\x1b" not in bob.received and b"\x07" not in bob.received
        assert not [f for f in await said(seated, 2) if f["type"].startswith("chat")]
        assert not [f for f in await said(old, 3) if f["type"].startswith("chat")]
        await old.send({"type": "chat", "text": "me too?", "id": 4})  # it never said it speaks lobby chat
        assert (await old.until(of_type("error")))["code"] == errors.NOT_AT_TABLE
        # Arriving (after hello, or back from a table) shows the recent lines, the history cleaned too.
        late = await in_lobby(host.port, "late")
        history = await late.until(of_type("chat_history"))
        assert history["lines"] == [{k: v for k, v in line.items() if k != "type"}]
        await seated.send({"type": "leave", "id": 5})
        assert (await seated.until(of_type("chat_history")))["lines"] == history["lines"]
        for raw in (ann, bob, old, seated, late):
            await raw.close()


async def test_lobby_chat_is_held_to_each_connection_s_rate_and_to_the_lobby_s():
    async with live_host() as host:
        spam, bob = await in_lobby(host.port, "spam"), await in_lobby(host.port, "bob")
        await spam.send_bytes(b"".join(encode({"type": "chat", "text": f"spam {n}"}) for n in range(30)))
        frames = await said(spam, 1)
        lines = [f for f in frames if f["type"] == "chat"]
        too_fast = [f for f in frames if f["type"] == "error" and f["code"] == errors.CHAT_TOO_FAST]
        assert CHAT_BURST <= len(lines) < 30 and len(lines) + len(too_fast) == 30
        assert not any(f.get("fatal") for f in too_fast)  # slowed down, not thrown out
        lobby: Lobby = host.lobby
        member = next(s for s in host.sessions if s.name == "bob")
        accepted = lines_taken(lambda text: lobby.say(member, text))  # no connection's own budget in the way
        assert accepted < 40 and TABLE_CHAT_BURST <= accepted + len(lines)  # (the lobby's burst: both together)
        history = lobby.chat.history()
        assert history is not None and len(history.lines) <= CHAT_HISTORY
        await spam.close()
        await bob.close()


def test_a_cluster_front_does_not_offer_lobby_chat():
    assert "lobby_chat" not in FrontSession.offered and "chat" in FrontSession.offered
