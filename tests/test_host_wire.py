"""Frame-level tests against a live host: hidden information never sent, and every kind of bad input refused.

Each abusive connection gets an error frame (or is closed) while a game at another table plays on unharmed.
"""

from __future__ import annotations

import msgpack
import pytest

from nothanks_server import session as tcp  # (the reading of every client: limits, rates)
from nothanks_tui.link.wire import CLIENT_MAX_FRAME, PROTOCOL_VERSION, encode

from .net_helpers import RawClient, live_host, of_type


def walk(value):
    """Every key and scalar inside a decoded frame."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item)
    else:
        yield value


def cards_shown(view) -> set[int]:
    cards = {card for hand in view["hands"] for card in hand} | {move[2] for move in view["moves"]}
    if view["card"] is not None:
        cards.add(view["card"])
    return cards


async def play_raw_game(port: int, players: list[RawClient], watcher: RawClient, open_chips: bool):
    """Two raw clients and a bot play a whole game; returns the table id."""
    alice, bob = players
    await alice.send({"type": "create_table", "players": 3, "bots": 1, "open_chips": open_chips, "id": 1})
    joined = await alice.until(of_type("joined"))
    await bob.send({"type": "join", "table": joined["table"], "id": 2})
    await bob.until(of_type("joined"))
    await watcher.send({"type": "spectate", "table": joined["table"]})
    await watcher.until(of_type("joined"))
    await alice.until(lambda f: f.get("type") == "waiting" and f["can_start"])
    await alice.send({"type": "start"})
    finished = {0: False, 1: False}
    # Alternate between the two players, each acting on its own latest update.
    while not all(finished.values()):
        for index, client in enumerate(players):
            if finished[index]:
                continue
            frame = await client.until(of_type("update"))
            view = frame["view"]
            if view["finished"]:
                finished[index] = True
            elif view["to_move"] == view["seat"]:
                action = "pass" if view["chips"][view["seat"]] > 0 and view["pot"] < 2 else "take"
                await client.send({"type": "action", "action": action, "state_id": view["state_id"]})
    await watcher.until(lambda f: f.get("type") == "update" and f["view"]["finished"])
    return joined["table"]


@pytest.mark.parametrize("open_chips", [False, True])
async def test_no_byte_sent_reveals_the_deck_the_removed_cards_the_seed_or_hidden_chips(open_chips):
    async with live_host() as host:
        alice = await RawClient.connect(host.port, "alice")
        bob = await RawClient.connect(host.port, "bob")
        eve = await RawClient.connect(host.port, "eve")
        table_id = await play_raw_game(host.port, [alice, bob], eve, open_chips)
        state = host.lobby.table(table_id).state
        assert state.finished
        secrets_as_bytes = [
            encode(state.seed),
            str(state.seed).encode(),
            encode(list(state.deck)),
            encode(list(state.removed)),
            bytes(state.deck[:6]),
        ]
        for client in (alice, bob, eve):
            for needle in secrets_as_bytes:
                assert needle not in client.received
            for frame in client.frames:
                scalars = set(walk(frame))
                assert not any(isinstance(s, float) for s in walk(frame)), frame  # no table frame carries a float
                assert not {"seed", "deck", "removed", "first_player"} & {s for s in scalars if isinstance(s, str)}
                if frame.get("type") != "update":
                    continue
                view = frame["view"]
                shown = cards_shown(view)
                assert not shown & set(state.removed), "a removed card was sent"
                taken = view["state_id"] and sum(1 for m in view["moves"] if m[1] == "take")
                assert shown <= set(state.deck[: taken + 1]), "a card not yet flipped was sent"
                if not open_chips and not view["finished"]:
                    hidden = [c for i, c in enumerate(view["chips"]) if i != view["seat"]]
                    assert hidden == [None] * len(hidden), "another seat's chips were sent"
        for client in (alice, bob, eve):
            await client.close()


async def expect_error(client: RawClient, code: str, closed: bool):
    frame = await client.until(of_type("error"))
    assert frame["code"] == code, frame
    assert bool(frame.get("fatal")) == closed
    if closed:
        assert await client.closed()
    else:
        await client.send({"type": "ping", "id": 77})
        assert (await client.until(of_type("pong")))["re"] == 77
    return frame


async def bystander_game(port: int):
    """A table where a player and a bot are mid-game: abuse elsewhere must not touch it."""
    player = await RawClient.connect(port, "bystander")
    await player.send({"type": "create_table", "players": 2, "bots": 1})
    await player.until(lambda f: f.get("type") == "waiting" and f["can_start"])
    await player.send({"type": "start"})
    first = await player.until(lambda f: f.get("type") == "update" and f["view"]["to_move"] == f["view"]["seat"])
    return player, first["view"]


async def check_bystander(player: RawClient, view) -> None:
    await player.send({"type": "action", "action": "take", "state_id": view["state_id"]})
    after = await player.until(of_type("update"))
    assert after["view"]["state_id"] == view["state_id"] + 1
    assert after["view"]["hands"][view["seat"]] == sorted([*view["hands"][view["seat"]], view["card"]])


BAD_INPUTS = [
    # (raw bytes after hello, expected code, connection closed)
    (b"\xc1", "bad_frame", True),  # a byte msgpack never uses
    (encode({1: "int key"}), "bad_frame", True),  # strict_map_key
    (msgpack.packb(b"binary"), "bad_frame", True),  # bin is refused
    (msgpack.packb(msgpack.ExtType(1, b"x")), "bad_frame", True),  # ext is refused
    (encode({"type": "x" * 1000}), "bad_frame", True),  # string over the cap
    (encode({"type": "ping", "pad": list(range(100))}), "bad_frame", True),  # array over the cap
    (b"\x91" * 2000 + b"\xc0", "bad_frame", True),  # deep nesting
    (encode({"type": "teleport"}), "unknown_type", False),
    (encode({"no": "type"}), "bad_field", False),
    (encode([1, 2, 3]), "bad_field", False),
    (encode({"type": "action", "action": "take", "state_id": "0"}), "bad_field", False),
    (encode({"type": "action", "action": 1, "state_id": 0}), "bad_field", False),
    (encode({"type": "join", "table": ["t1"]}), "bad_field", False),
    (encode({"type": "ping", "id": -1}), "bad_field", False),
    (encode({"type": "ping", "id": True}), "bad_field", False),
    (encode({"type": "action", "action": "take", "state_id": 0}), "not_at_table", False),
    (encode({"type": "action", "action": "steal", "state_id": 0}), "not_at_table", False),
    (encode({"type": "hello", "protocol": 1, "name": "again"}), "bad_field", False),
    (encode({"type": "resume", "token": "\u00e9" * 100}), "bad_token", False),
    (encode({"type": "create_table", "players": 2**63}), "bad_config", False),
    (encode({"type": "create_table", "players": 3, "bots": 3}), "bad_field", False),
    (encode({"type": "create_table", "players": 3, "bot": "skynet"}), "bad_bot", False),
]


@pytest.mark.parametrize(("data", "code", "closed"), BAD_INPUTS)
async def test_bad_input_gets_an_error_and_harms_no_one_else(data, code, closed):
    async with live_host() as host:
        player, view = await bystander_game(host.port)
        abuser = await RawClient.connect(host.port, "abuser")
        await abuser.send_bytes(data)
        await expect_error(abuser, code, closed)
        await check_bystander(player, view)


async def test_an_oversize_frame_closes_that_connection_only():
    async with live_host() as host:
        player, view = await bystander_game(host.port)
        abuser = await RawClient.connect(host.port, "abuser")
        await abuser.send_bytes(b"\xdb" + (100_000).to_bytes(4, "big") + b"a" * (CLIENT_MAX_FRAME + 10))
        frame = await abuser.until(of_type("error"))
        assert frame["code"] in ("too_big", "bad_frame") and frame["fatal"]
        assert await abuser.closed()
        await check_bystander(player, view)


async def test_a_flood_of_messages_closes_that_connection_only():
    async with live_host() as host:
        player, view = await bystander_game(host.port)
        abuser = await RawClient.connect(host.port, "abuser")
        await abuser.send_bytes(encode({"type": "ping"}) * int(tcp.RATE_BURST * 3))
        frame = await abuser.until(of_type("error"))
        assert frame["code"] == "flood" and frame["fatal"]
        assert await abuser.closed()
        await check_bystander(player, view)


async def test_many_refused_messages_close_the_connection():
    async with live_host() as host:
        abuser = await RawClient.connect(host.port, "abuser")
        await abuser.send_bytes(encode({"type": "nope"}) * (tcp.MAX_SOFT_ERRORS + 1))
        frame = await abuser.until(lambda f: f.get("type") == "error" and f.get("fatal"))
        assert frame["code"] == "flood"
        assert await abuser.closed()


@pytest.mark.parametrize(
    ("first", "code"),
    [
        ({"type": "list_tables"}, "hello_first"),
        ({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "\x1b[2J"}, "bad_name"),
        ({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "x" * 300}, "bad_name"),
        ({"type": "hello", "protocol": "1", "name": "a"}, "bad_field"),
    ],
)
async def test_the_first_message_must_be_a_valid_hello(first, code):
    async with live_host() as host:
        client = await RawClient.connect(host.port, name=None)
        await client.send(first)
        frame = await client.until(of_type("error"))
        assert frame["code"] == code
        if frame.get("fatal"):
            assert await client.closed()


async def test_a_hostile_name_reaches_others_cleaned_and_never_as_an_escape():
    async with live_host() as host:
        mallory = await RawClient.connect(host.port, "\x1b[31m[bold]mallory[/]\x1b]0;owned\x07\x07")
        await mallory.send({"type": "create_table", "players": 2})
        table = (await mallory.until(of_type("joined")))["table"]
        alice = await RawClient.connect(host.port, "alice")
        await alice.send({"type": "list_tables", "id": 5})
        tables = await alice.until(of_type("tables"))
        assert tables["tables"][0]["seats"][0]["name"] == "[bold]mallory[/]"
        await alice.send({"type": "join", "table": table})
        waiting = await alice.until(of_type("waiting"))
        assert waiting["seats"][0]["name"] == "[bold]mallory[/]"
        assert b"\x1b" not in alice.received and b"\x07" not in alice.received
