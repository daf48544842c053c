"""Names belong to their players (issue 29): a `join` player's key pair, proven with the host hello's nonce, owns
the names it plays under; another key or a guest is refused ``name_taken`` with a free name offered; a wrong
signature is ``bad_signature``; guests' seats say so; ownership outlives the host."""

from __future__ import annotations

import asyncio
import base64
import os
import stat

import asyncssh
import pytest

from nothanks_server.store import SqliteStore
from nothanks_tui.client.seat_tokens import SeatTokens
from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.link import LobbyError, NewTable, TableUpdate, TableWaiting, errors
from nothanks_tui.link.identity import Identity
from nothanks_tui.link.names import GUEST_MARK, clean_name
from nothanks_tui.link.wire import PROTOCOL_VERSION

from .net_helpers import WAIT, RawClient, live_host
from .test_host_tcp import next_matching


def identity(tmp_path, who: str) -> Identity:
    return Identity.load(tmp_path / f"{who}.key")


async def started(port: int, name: str, key: Identity | None = None) -> TcpLobby:
    lobby = TcpLobby("127.0.0.1", port, name, identity=key)
    await lobby.start()
    return lobby


async def refused(port: int, name: str, key: Identity | None = None) -> LobbyError:
    with pytest.raises(LobbyError) as error:
        await started(port, name, key)
    return error.value


def test_the_key_is_made_once_owner_only_and_is_an_ssh_key(tmp_path):
    path = tmp_path / "config" / "identity"
    first = Identity.load(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert Identity.load(path).public == first.public  # the same person after a restart
    ssh_key = asyncssh.import_private_key(path.read_bytes())  # an OpenSSH key: `ssh -i` takes it too
    assert ssh_key.get_fingerprint("sha256") == first.owner


async def test_a_key_owns_its_name_another_key_and_a_guest_are_offered_another(tmp_path):
    alice, mallory = identity(tmp_path, "alice"), identity(tmp_path, "mallory")
    async with live_host(data_dir=tmp_path) as host:
        first = await started(host.port, "alice", alice)
        for who in (mallory, None):  # another key, or no key at all
            error = await refused(host.port, "Alice", who)  # (case aside)
            assert error.code == errors.NAME_TAKEN and error.free_name == "Alice2"
        hostile = await refused(host.port, "\x1b[31m~ alice\x1b[0m", mallory)  # escapes and a guest mark dropped
        assert hostile.code == errors.NAME_TAKEN
        again = await started(host.port, "alice", alice)  # the same key and name: the same player
        assert again.name == "alice"
        taken = await started(host.port, "Alice2", mallory)  # the offer is free
        assert (await refused(host.port, "alice2", alice)).code == errors.NAME_TAKEN
        for lobby in (first, again, taken):
            await lobby.close()


async def test_a_look_alike_of_an_owned_name_is_refused_and_a_racing_claim_has_one_owner(tmp_path):
    """Full-width letters (``Ａlice``) and a full-width or other tilde before the name (``～alice``, which would
    read as a guest's mark) are the owned name's; of two keys saying hello at once with a new name, one owns it."""
    alice, mallory = identity(tmp_path, "alice"), identity(tmp_path, "mallory")
    async with live_host(data_dir=tmp_path) as host:
        first = await started(host.port, "alice", alice)
        for look_alike in ("Ａlice", "ａｌｉｃｅ", "～alice", "∼ALICE", "〜 alice", "˜alice"):
            for who in (mallory, None):
                assert (await refused(host.port, look_alike, who)).code == errors.NAME_TAKEN, look_alike
        results = await asyncio.gather(*(started(host.port, "Bob", key) for key in (alice, mallory)),
                                       return_exceptions=True)  # fmt: skip
        assert sorted(type(result).__name__ for result in results) == ["LobbyError", "TcpLobby"]
        for result in (first, *results):
            if isinstance(result, TcpLobby):
                await result.close()


async def test_a_wrong_signature_is_refused_with_its_code(tmp_path):
    alice, mallory = identity(tmp_path, "alice"), identity(tmp_path, "mallory")
    async with live_host() as host:
        client = await RawClient.connect(host.port, name=None)
        nonce = client.frames[0]["nonce"]
        forged = alice.prove(nonce) | {"public_key": mallory.prove(nonce)["public_key"]}
        await client.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "eve", **forged})
        error = await client.next_frame()
        assert (error["code"], error["fatal"]) == (errors.BAD_SIGNATURE, True)
        replayed = await RawClient.connect(host.port, name=None)  # a signature of another nonce: refused too
        await replayed.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "eve", **alice.prove(nonce)})
        assert (await replayed.next_frame())["code"] == errors.BAD_SIGNATURE
        junk = await RawClient.connect(host.port, name=None)
        garbage = {"public_key": base64.b64encode(b"x" * 100).decode(), "signature": "%%%"}  # not a key, not base64
        await junk.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "eve", **garbage})
        assert (await junk.next_frame())["code"] == errors.BAD_SIGNATURE


async def test_two_names_of_one_key_are_two_players_and_guests_are_marked(tmp_path):
    """One account, `join --name bob` then `join --name carol`: two seats, not one taken over; a guest shows."""
    key = identity(tmp_path, "account")
    async with live_host(data_dir=tmp_path) as host:
        bob, carol = await started(host.port, "bob", key), await started(host.port, "carol", key)
        guest = await started(host.port, "dan")
        table = await bob.create_table(NewTable(players=3))
        await carol.join(table.table_id)
        await guest.join(table.table_id)
        waiting = await next_matching(table, lambda e: isinstance(e, TableWaiting) and e.can_start)
        assert [(seat.name, seat.guest) for seat in waiting.seats] == [("bob", False), ("carol", False), ("dan", True)]
        assert waiting.seats[2].label == GUEST_MARK + "dan" and waiting.seats[0].label == "bob"
        [summary] = await bob.list_tables()
        assert [seat.guest for seat in summary.seats] == [False, False, True]
        for lobby in (bob, carol, guest):
            await lobby.close()


async def test_join_host_proves_the_config_dirs_key_and_keeps_a_seat_per_name(tmp_path, monkeypatch):
    """`nothanks join` twice from one account with two names: two players, each back at their own seat."""
    from nothanks_tui.client.netlaunch import join_host

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    tokens = SeatTokens(tmp_path / "seats.json")
    async with live_host(data_dir=tmp_path) as host:
        address = f"127.0.0.1:{host.port}"
        bob, _ = await join_host(address, "bob", tokens)
        table = await bob.create_table(NewTable(players=2))
        carol, held = await join_host(address, "carol", tokens)
        assert held is None  # carol is not put in bob's seat
        sitting = await carol.join(table.table_id)
        assert sitting.seat == 1
        await next_matching(table, lambda e: isinstance(e, TableWaiting) and e.can_start)
        await table.start_game()
        await next_matching(sitting, lambda e: isinstance(e, TableUpdate))
        await bob.close()  # (a seat in a game under way waits for its player)
        back, held = await join_host(address, "bob", tokens)  # bob again: his seat, his name (a reconnect)
        assert held is not None and held.seat == 0
        assert (tmp_path / "config" / "nothanks" / "identity").exists()
        other = identity(tmp_path, "stranger")
        assert (await refused(host.port, "carol", other)).code == errors.NAME_TAKEN
        for lobby in (back, carol):
            await lobby.close()


async def test_ownership_and_guest_seats_survive_a_restart_of_the_host(tmp_path):
    alice, mallory = identity(tmp_path, "alice"), identity(tmp_path, "mallory")
    async with live_host(data_dir=tmp_path) as host:
        guest = await started(host.port, "dan")
        await started(host.port, "alice", alice)
        await guest.create_table(NewTable(players=2))
    async with live_host(data_dir=tmp_path) as host:
        assert (await refused(host.port, "alice", mallory)).code == errors.NAME_TAKEN
        [summary] = await (await started(host.port, "alice", alice)).list_tables()
        assert summary.seats[0].guest
    store = SqliteStore(tmp_path / "nothanks.sqlite3")
    assert store.claim_name("ALICE", None) == alice.owner and store.claim_name("zed", None) is None
    store.close()


def test_a_typed_guest_mark_is_never_part_of_a_name():
    assert clean_name("~alice") == clean_name(" ~ ~alice") == clean_name("～∼〜῀alice") == "alice"
    with pytest.raises(ValueError):
        clean_name("~~~")


async def test_a_finished_games_record_says_which_seats_were_guests(tmp_path):
    from .test_host_tcp import play_to_end

    key = identity(tmp_path, "alice")
    async with live_host(data_dir=tmp_path) as host:
        alice, dan = await started(host.port, "alice", key), await started(host.port, "dan")
        table = await alice.create_table(NewTable(players=3, bots=1))
        other = await dan.join(table.table_id)
        await next_matching(table, lambda e: isinstance(e, TableWaiting) and e.can_start)
        await table.start_game()
        import asyncio

        await asyncio.wait_for(asyncio.gather(play_to_end(table), play_to_end(other)), WAIT)
        record = host.lobby.store.records()[0].record
        assert record["players"] == ["alice", "ana", "dan"] and record["guests"] == [False, False, True]
        for lobby in (alice, dan):
            await lobby.close()


async def test_the_hosting_players_name_is_claimed_and_the_you_mark_follows_a_players_key(tmp_path):
    """`nothanks host`'s own player claims their name with their key (a remote key asking for it is offered another);
    the statistics mark the asker's own row by their key: a join's, the hosting player's, not only an SSH key."""
    from nothanks_server.inprocess import InProcessLobby

    from .test_host_tcp import play_to_end

    own_key, bob_key = identity(tmp_path, "host"), identity(tmp_path, "bob")
    async with live_host(data_dir=tmp_path) as host:
        own = InProcessLobby(host.lobby, "alice", owner=own_key.owner)
        await own.start()
        taken = await refused(host.port, "Alice", bob_key)
        assert taken.code == errors.NAME_TAKEN and taken.free_name == "Alice2"
        bob = await started(host.port, "bob", bob_key)
        for player in (own, bob):
            table = await player.create_table(NewTable(players=2, bots=1))
            await next_matching(table, lambda e: isinstance(e, TableWaiting) and e.can_start)
            await table.start_game()
            await play_to_end(table)
            assert [row.name for row in await player.player_stats() if row.you] == [player.name]
        await bob.close()
        await own.close()
