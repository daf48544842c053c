"""The creator's say (issue 29): the table's creator removes a player (or a bot) before the deal, and a private
table is joined or watched only with its invite code; over TCP with the real host, and kept across a restart."""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from nothanks_server import Lobby, LobbySettings
from nothanks_tui.link import NewTable
from nothanks_tui.link.identity import Identity
from nothanks_tui.link.invites import ALPHABET, SECRET_LENGTH, parse_invite

from .net_helpers import RawClient, live_host, of_type


def answer(frame) -> bool:
    return isinstance(frame, dict) and frame.get("type") in ("joined", "error")


def waiting_with(predicate):
    return lambda frame: of_type("waiting")(frame) and predicate(frame)


async def create(client: RawClient, **fields) -> dict:
    await client.send({"type": "create_table", "players": 3, **fields})
    joined = await client.until(answer)
    assert joined["type"] == "joined", joined
    return joined


def invite_of(client: RawClient) -> str:
    """The invite code the creator was shown (in the waiting frames that came before ``joined``)."""
    return next(frame["invite"] for frame in client.frames if of_type("waiting")(frame) and frame["invite"])


async def test_the_creator_removes_a_player_who_is_told_and_may_not_sit_there_again_before_the_deal():
    async with live_host() as host:
        ann, bob, cat = [await RawClient.connect(host.port, name) for name in ("ann", "bob", "cat")]
        table = (await create(ann))["table"]
        for client in (bob, cat):
            await client.send({"type": "join", "table": table})
            assert (await client.until(answer))["type"] == "joined"
        await bob.send({"type": "remove", "seat": 2, "id": 5})  # only the creator may
        refused = await bob.until(of_type("error"))
        assert (refused["code"], refused["re"]) == ("not_creator", 5)
        await ann.send({"type": "remove", "seat": 1})
        closed = await bob.until(of_type("table_closed"))
        assert closed["reason"] == "the table's creator removed you from the table"
        seen = await cat.until(waiting_with(lambda frame: frame["seats"][1]["empty"]))
        assert seen["removed_players"] == ["bob"] and seen["invite"] is None
        await bob.send({"type": "join", "table": table, "id": 6})  # back in the lobby, refused there again
        again = await bob.until(answer)
        assert (again["type"], again["code"], again["re"]) == ("error", "removed", 6)
        await bob.send({"type": "spectate", "table": table})  # watching is still open to them
        assert (await bob.until(answer))["type"] == "joined"
        for client in (ann, bob, cat):
            await client.close()


async def test_a_removed_player_is_kept_out_under_a_look_alike_name_or_another_name_of_their_key():
    """Barred by who they are: their name, case and width aside (guest ``cat`` as ``Ｃat``), and the key that owns
    it (a `join` key owns every name it plays under: ``bob2`` with bob's key is still bob)."""
    key = Identity(Ed25519PrivateKey.generate())
    async with live_host() as host:
        ann = await RawClient.connect(host.port, "ann")
        bob, cat = await RawClient.connect(host.port, "bob", key=key), await RawClient.connect(host.port, "cat")
        table = (await create(ann, players=4))["table"]
        for client in (bob, cat):
            await client.send({"type": "join", "table": table})
            await ann.send({"type": "remove", "seat": (await client.until(answer))["seat"]})
            await client.until(of_type("table_closed"))
        for name, who in (("Ｃat", None), ("bob2", key)):
            again = await RawClient.connect(host.port, name, key=who)
            await again.send({"type": "join", "table": table})
            assert (await again.until(answer)).get("code") == "removed", name
            await again.close()
        for client in (ann, bob, cat):
            await client.close()


async def test_the_creator_removes_a_bot_and_not_their_own_seat_nor_after_the_deal():
    async with live_host() as host:
        ann = await RawClient.connect(host.port, "ann")
        await create(ann, players=2, bots=1)
        await ann.send({"type": "remove", "seat": 0, "id": 1})
        assert (await ann.until(of_type("error")))["code"] == "bad_field"
        await ann.send({"type": "remove", "seat": 1})
        freed = await ann.until(waiting_with(lambda frame: frame["seats"][1]["empty"]))
        assert freed["removed_players"] == []  # a bot is not named as removed
        await ann.send({"type": "add_bot"})
        await ann.until(waiting_with(lambda frame: frame["can_start"]))
        await ann.send({"type": "start"})
        await ann.until(of_type("update"))
        await ann.send({"type": "remove", "seat": 1, "id": 2})
        assert (await ann.until(of_type("error")))["code"] == "already_started"
        await ann.close()


async def test_a_private_table_is_not_listed_and_lets_in_only_its_code():
    async with live_host() as host:
        ann, bob = [await RawClient.connect(host.port, name) for name in ("ann", "bob")]
        table = (await create(ann, private=True))["table"]
        code = invite_of(ann)
        number, secret = code.split("-", 1)
        assert f"t{number}" == table and parse_invite(code) == (table, secret.replace("-", ""))
        assert len(secret.replace("-", "")) == SECRET_LENGTH and set(secret) <= set(ALPHABET + "-")
        await bob.send({"type": "list_tables", "id": 1})
        assert (await bob.until(of_type("tables")))["tables"] == []
        for asked in ({}, {"code": "1-AAAA-AAAA"}, {"code": code.replace(number, "99", 1)}):
            for kind in ("join", "spectate"):
                await bob.send({"type": kind, "table": table, **asked})
                assert (await bob.until(answer))["code"] == "private_table"
        spoken = code.lower().replace("-", " ")  # as read aloud and typed: any case, spaces for dashes
        assert parse_invite(spoken) == parse_invite(f" {number} - {secret}") == parse_invite(code)
        assert parse_invite(f"{number}-") is None and parse_invite(f"{number} - -") is None
        await bob.send({"type": "spectate", "table": table, "code": spoken})
        assert (await bob.until(answer))["type"] == "joined"
        watched = [frame for frame in bob.frames if of_type("waiting")(frame)]
        assert watched and all(frame["invite"] is None for frame in watched)  # the creator's only
        await bob.send({"type": "leave"})
        await bob.until(of_type("left"))
        await bob.send({"type": "join", "table": table, "code": code})
        assert (await bob.until(answer))["type"] == "joined"
        for client in (ann, bob):
            await client.close()


async def test_a_private_tables_code_goes_to_its_players_before_and_during_the_game_never_to_spectators():
    async with live_host() as host:
        ann, bob, eve = [await RawClient.connect(host.port, name) for name in ("ann", "bob", "eve")]
        table = (await create(ann, players=2, private=True))["table"]
        code = invite_of(ann)
        await bob.send({"type": "join", "table": table, "code": code})
        await eve.send({"type": "spectate", "table": table, "code": code})
        assert [(await client.until(answer))["type"] for client in (bob, eve)] == ["joined", "joined"]
        await ann.until(waiting_with(lambda frame: frame["can_start"]))
        await ann.send({"type": "start"})
        for client in (ann, bob):  # during the game too: someone may still be asked to watch
            assert (await client.until(of_type("update")))["invite"] == code
        assert invite_of(bob) == code
        assert "invite" not in await eve.until(of_type("update"))
        assert all(frame["invite"] is None for frame in eve.frames if of_type("waiting")(frame))
        for client in (ann, bob, eve):
            await client.close()


async def test_invite_codes_tried_are_counted_per_network_so_guessing_is_not_practical():
    async with live_host(code_guesses=3) as host:
        ann = await RawClient.connect(host.port, "ann")
        table = (await create(ann, private=True))["table"]
        code = invite_of(ann)
        guesser = await RawClient.connect(host.port, "eve", source="127.0.0.2")
        for _ in range(3):
            await guesser.send({"type": "join", "table": table, "code": "1-2222-2222"})
            assert (await guesser.until(answer))["code"] == "private_table"
        again = await RawClient.connect(host.port, "eve2", source="127.0.0.2")  # a new connection: the same network
        await again.send({"type": "join", "table": table, "code": code})  # even the right code, now
        assert (await again.until(answer))["code"] == "too_many"
        friend = await RawClient.connect(host.port, "bob", source="127.0.0.3")
        await friend.send({"type": "join", "table": table, "code": code})
        assert (await friend.until(answer))["type"] == "joined"
        for client in (ann, guesser, again, friend):
            await client.close()


async def test_a_private_table_s_code_and_a_table_s_turn_clock_survive_a_restart(tmp_path):
    settings = LobbySettings(data_dir=tmp_path, bot_delay=0, turn_timer=None, turn_clock=None, seed=2)
    lobby = Lobby(settings)
    from .test_host_table import lobby_player

    ann = await lobby_player(lobby, "ann")
    await ann.create_table(NewTable(players=3, bots=1, bot="rules", private=True, turn_clock=30))
    [before] = lobby.all_tables()
    lobby.close()
    again = Lobby(settings)
    try:
        [after] = again.all_tables()
        assert after.invite == before.invite is not None and again.tables() == []
        assert after.settings.turn_clock == 30 and after.summary().turn_clock == 30
    finally:
        again.close()


async def test_the_lobby_line_says_a_table_s_turn_clock():
    async with live_host(turn_clock=None) as host:
        ann = await RawClient.connect(host.port, "ann")
        await create(ann, turn_clock=30)
        await ann.send({"type": "list_tables", "id": 1})
        assert [line["turn_clock"] for line in (await ann.until(of_type("tables")))["tables"]] == [30]
        await ann.close()


async def test_join_with_code_sits_at_the_private_table_or_watches_it_when_it_is_full(tmp_path):
    from nothanks_tui.client.netlaunch import join_host
    from nothanks_tui.client.seat_tokens import SeatTokens

    from .test_cli_errors import one_sentence, said

    async with live_host() as host:
        ann = await RawClient.connect(host.port, "ann")
        table = (await create(ann, players=2, private=True))["table"]
        code = invite_of(ann)
        address = f"127.0.0.1:{host.port}"
        bob, seat = await join_host(address, "bob", SeatTokens(tmp_path / "bob.json"), code)
        assert seat is not None and seat.table_id == table and seat.seat_token is not None  # a seat
        cat, watching = await join_host(address, "cat", SeatTokens(tmp_path / "cat.json"), code.lower())
        assert watching is not None and watching.table_id == table and watching.seat_token is None  # full: watching
        for lobby in (bob, cat):
            await lobby.close()
        await ann.close()
    one_sentence(*await said(tmp_path, "join", "127.0.0.1:1", "--code", "nope"), "not an invite code")
