"""A public host's limits, each at small scale over real loopback sockets: no single address or idle connection
can hold what would lock the others out (issue 16). Different loopback addresses (127.0.0.2, .3...) stand for
different machines."""

from __future__ import annotations

import asyncio
import socket

import msgpack

from nothanks_server.limits import ClientLimits, LoopStalls, PerTurn, TokenBucket
from nothanks_tui.link import errors
from nothanks_tui.link.wire import CLIENT_MAX_FRAME, PROTOCOL_VERSION, encode

from .net_helpers import RawClient, live_host, of_type


async def eventually(condition, what: str = "the condition") -> None:
    """Let the host run until ``condition()`` holds (bounded: about 10 s)."""
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


async def test_a_frame_over_the_limit_is_refused_even_when_its_bytes_come_one_small_piece_at_a_time():
    async with live_host() as host:
        raw = await RawClient.connect(host.port)
        big = encode({"type": "ping", "pad": "x" * 500, "more": ["y" * 500] * 12})
        assert len(big) > CLIENT_MAX_FRAME
        for start in range(0, len(big), 200):
            try:
                await raw.send_bytes(big[start : start + 200])
            except ConnectionError:
                break
        refused = await raw.until(of_type("error"))
        assert refused["code"] == errors.TOO_BIG and refused["fatal"]
        assert await raw.closed()
        assert not any(frame.get("type") == "pong" for frame in raw.frames if isinstance(frame, dict))


async def test_small_frames_back_to_back_are_fine_however_they_are_cut():
    async with live_host() as host:
        raw = await RawClient.connect(host.port)
        stream = b"".join(encode({"type": "ping", "id": n}) for n in range(40))  # 40 frames, more than 4096 bytes
        for start in range(0, len(stream), 7):
            await raw.send_bytes(stream[start : start + 7])
        for n in range(40):
            assert (await raw.until(of_type("pong")))["re"] == n


async def test_nesting_deeper_than_a_message_of_scalars_is_a_bad_frame():
    async with live_host() as host:
        raw = await RawClient.connect(host.port)
        await raw.send({"type": "ping", "x": [[[1]]]})
        refused = await raw.until(of_type("error"))
        assert refused["code"] == errors.BAD_FRAME and refused["fatal"]


async def test_one_address_cannot_hold_more_than_its_connections_and_others_still_get_in():
    async with live_host(limits=ClientLimits(per_address_connections=3)) as host:
        mine = [await RawClient.connect(host.port, source="127.0.0.2") for _ in range(3)]
        extra = RawClient(*await asyncio.open_connection("127.0.0.1", host.port, local_addr=("127.0.0.2", 0)))
        refused = await extra.next_frame()  # instead of the host's hello
        assert refused["code"] == errors.TOO_MANY and refused["fatal"]
        assert await extra.closed()
        other = await RawClient.connect(host.port, source="127.0.0.3")  # another machine is not affected
        await other.send({"type": "ping", "id": 1})
        assert (await other.until(of_type("pong")))["re"] == 1
        await mine[0].close()
        await eventually(lambda: host.connections["127.0.0.2"] < 3)  # the host frees the place when it sees the close
        again = await RawClient.connect(host.port, source="127.0.0.2")
        await again.send({"type": "ping", "id": 2})
        assert (await again.until(of_type("pong")))["re"] == 2


async def test_one_address_creates_at_most_its_open_tables():
    async with live_host(max_tables_per_address=2) as host:
        creators = []  # kept connected: a table whose last member leaves closes
        for n in range(2):
            client = await RawClient.connect(host.port, source="127.0.0.2")
            await client.send({"type": "create_table", "players": 7, "bots": 6, "id": n})
            await client.until(of_type("joined"))
            creators.append(client)
        third = await RawClient.connect(host.port, source="127.0.0.2")
        await third.send({"type": "create_table", "players": 7, "bots": 6, "id": 9})
        refused = await third.until(of_type("error"))
        assert refused["code"] == errors.TOO_MANY and refused["re"] == 9
        elsewhere = await RawClient.connect(host.port, source="127.0.0.3")
        await elsewhere.send({"type": "create_table", "players": 3, "id": 1})
        assert (await elsewhere.until(of_type("joined")))["seat"] == 0


async def test_one_address_watches_at_most_its_tables():
    async with live_host(limits=ClientLimits(per_address_spectating=2)) as host:
        owner = await RawClient.connect(host.port, source="127.0.0.3")
        await owner.send({"type": "create_table", "players": 3, "id": 1})
        table = (await owner.until(of_type("joined")))["table"]
        watchers = [await RawClient.connect(host.port, source="127.0.0.2") for _ in range(3)]
        for watcher in watchers[:2]:
            await watcher.send({"type": "spectate", "table": table, "id": 1})
            await watcher.until(of_type("joined"))
        await watchers[2].send({"type": "spectate", "table": table, "id": 2})
        assert (await watchers[2].until(of_type("error")))["code"] == errors.TOO_MANY
        await watchers[0].send({"type": "leave", "id": 3})
        await watchers[0].until(of_type("left"))
        await watchers[2].send({"type": "spectate", "table": table, "id": 4})
        assert (await watchers[2].until(of_type("joined")))["seat"] is None


async def test_watchers_coming_and_going_send_nothing_to_the_players():
    async with live_host() as host:
        owner = await RawClient.connect(host.port)
        await owner.send({"type": "create_table", "players": 3, "id": 1})
        table = (await owner.until(of_type("joined")))["table"]  # its waiting room came just before
        watcher = await RawClient.connect(host.port, source="127.0.0.2")
        for n in range(5):
            await watcher.send({"type": "spectate", "table": table, "id": n})
            assert (await watcher.until(of_type("waiting")))["your_seat"] is None  # the watcher sees the table
            await watcher.send({"type": "leave", "id": 100 + n})
            await watcher.until(of_type("left"))
        await owner.send({"type": "ping", "id": 7})
        after = await owner.until(lambda frame: frame.get("type") in ("pong", "waiting"))
        assert after["type"] == "pong", "the player heard about a watcher"


async def test_the_table_list_is_a_bounded_page_built_once_per_change_and_asked_for_at_a_bounded_rate():
    async with live_host(max_tables_per_address=200, max_tables=200) as host:
        creators = []  # kept connected: a table whose last member leaves closes
        for n in range(60):
            creator = await RawClient.connect(host.port, source=f"127.0.1.{n % 50 + 1}")
            await creator.send({"type": "create_table", "players": 2, "id": n})
            await creator.until(of_type("joined"))
            creators.append(creator)
        reader = await RawClient.connect(host.port, source="127.0.0.9")
        built = 0
        summary = type(host.lobby.all_tables()[0]).summary

        def counted(table):
            nonlocal built
            built += 1
            return summary(table)

        type(host.lobby.all_tables()[0]).summary = counted
        try:
            await reader.send({"type": "list_tables", "id": 1})
            first = await reader.until(of_type("tables"))
            assert len(first["tables"]) == 50 and first["total"] == 60 and first["offset"] == 0
            await reader.send({"type": "list_tables", "id": 2, "offset": 50})
            rest = await reader.until(of_type("tables"))
            assert len(rest["tables"]) == 10 and rest["re"] == 2
            built_for_two_pages = built
            for n in range(4):  # nothing changed: the same pages, not built again
                await reader.send({"type": "list_tables", "id": 10 + n})
                assert (await reader.until(of_type("tables")))["re"] == 10 + n
            assert built == built_for_two_pages
        finally:
            type(host.lobby.all_tables()[0]).summary = summary
        for n in range(10):  # past the burst: slowed down, not served
            await reader.send({"type": "list_tables", "id": 100 + n})
        assert (await reader.until(of_type("error")))["code"] == errors.SLOW_DOWN


async def test_a_client_that_does_not_read_holds_at_most_one_waiting_view_and_is_dropped_in_time():
    limits = ClientLimits(backlog_bytes=1024, slow_reader=0.5)
    async with live_host(limits=limits) as host:
        silent = await RawClient.connect(host.port)
        silent.writer.transport.pause_reading()  # it never reads again
        await silent.send({"type": "create_table", "players": 2, "bots": 1})
        await eventually(lambda: host.lobby.all_tables())
        session = next(s for s in host.sessions if s.name == "raw")
        # Small socket buffers on both ends, so that a few updates fill them (the kernel's would take megabytes).
        session.writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        silent.writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        table = host.lobby.all_tables()[0]
        backlog_seen = False
        for _ in range(2000):  # a table that keeps changing, about 10 s at most: its sockets fill, then the backlog
            table._broadcast()
            backlog_seen = backlog_seen or bool(session._backlog)
            assert len(session._backlog) <= 1 and session._backlog_view in (None, 0)  # one view, the newest
            if session not in host.sessions:
                break
            await asyncio.sleep(0.005)
        assert backlog_seen, "the sockets never filled up"
        assert session not in host.sessions, "a client that read nothing for 0.5 s was kept"
        silent.writer.transport.resume_reading()
        assert await silent.closed()


async def test_connections_idle_in_the_lobby_and_tables_that_never_start_expire():
    async with live_host(limits=ClientLimits(lobby_idle=900), unstarted_table_timeout=900) as host:
        idle = await RawClient.connect(host.port)
        seated = await RawClient.connect(host.port, source="127.0.0.2")
        await seated.send({"type": "create_table", "players": 3, "id": 1})
        await seated.until(of_type("joined"))
        loop_now = asyncio.get_running_loop().time()  # time.monotonic's clock
        assert host.close_idle(loop_now + 899) == 0
        assert host.close_idle(loop_now + 901) == 1
        assert (await idle.until(of_type("error")))["code"] == errors.IDLE
        assert await idle.closed()
        assert host.lobby.expire_unstarted(loop_now + 901) == 1
        closed = await seated.until(of_type("table_closed"))
        assert "did not start" in closed["reason"]


async def test_only_the_hosts_own_front_may_speak_for_another_address():
    async with live_host(proxy_key="s3cret", limits=ClientLimits(per_address_connections=1)) as host:
        forged = await RawClient.connect(host.port, name=None)
        await forged.send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "x", "via": "203.0.113.9"})
        assert (await forged.until(of_type("error")))["code"] == errors.BAD_FIELD
        front = await RawClient.connect(host.port, name=None, source="127.0.0.5")
        hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "name": "p", "proxy_key": "s3cret"}
        await front.send(hello | {"via": "203.0.113.9"})
        await front.until(of_type("welcome"))
        assert host.connections["203.0.113.9"] == 1 and host.connections["127.0.0.5"] == 0
        second = await RawClient.connect(host.port, name=None, source="127.0.0.6")
        await second.send(hello | {"via": "203.0.113.9"})  # the same player's address again: over its limit
        assert (await second.until(of_type("error")))["code"] == errors.TOO_MANY


def test_the_message_budget_does_not_charge_a_client_for_the_hosts_own_stall():
    stalls = LoopStalls()
    bucket = TokenBucket(rate=10, burst=5, stalls=stalls, now=0.0)
    assert all(bucket.take(0.0) for _ in range(5)) and not bucket.take(0.0)  # a burst, then the limit
    stalls.total += 20.0  # the host was held up for 20 s: a client pinging 10 times a second queued 200
    assert all(bucket.take(20.0) for _ in range(200))
    assert not all(bucket.take(20.0) for _ in range(10))  # but not more than it could have sent meanwhile
    flooder = TokenBucket(rate=10, burst=5, stalls=stalls, now=20.0)
    assert sum(flooder.take(120.0) for _ in range(1000)) == 5  # an idle client's budget still tops out at the burst


def test_frames_are_counted_from_their_bytes():
    from nothanks_tui.link.wire import FrameReader, FrameTooBig, host_unpacker

    reader = FrameReader(host_unpacker(), 100, 2)
    frame = msgpack.packb({"type": "ping", "pad": "x" * 150})
    refused = False
    for start in range(0, len(frame), 10):
        reader.feed(frame[start : start + 10])
        try:
            while reader.next_frame() is not None:
                pass
        except FrameTooBig:
            refused = True
            break
    assert refused


async def test_one_network_opening_connections_faster_than_its_rate_is_refused_while_others_get_in():
    """Churn (issue 31): connections opened and closed at once never reach the per-address total, but each is
    charged to its network's rate; the front's own connections are given back once its hello says whom it carries."""
    async with live_host(proxy_key="s3cret", limits=ClientLimits(connects_per_minute=3)) as host:
        for _ in range(3):
            churn = await RawClient.connect(host.port, source="127.0.0.2")
            await churn.close()
            await eventually(lambda: host.connections["127.0.0.2"] == 0)
        extra = RawClient(*await asyncio.open_connection("127.0.0.1", host.port, local_addr=("127.0.0.2", 0)))
        refused = await extra.next_frame()
        assert refused["code"] == errors.TOO_MANY and "last minute" in refused["message"]
        assert await extra.closed()
        other = await RawClient.connect(host.port, source="127.0.0.3")
        await other.send({"type": "ping", "id": 1})
        assert (await other.until(of_type("pong")))["re"] == 1
        hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "name": "p", "proxy_key": "s3cret"}
        for n in range(5):  # the front carries five players from its one address: none is charged to it
            front = await RawClient.connect(host.port, name=None, source="127.0.0.5")
            await front.send(hello | {"via": f"203.0.113.{n + 1}"})
            await front.until(of_type("welcome"))


def test_the_command_line_sets_the_tcp_totals_rate_and_prefixes():
    from nothanks_tui.cli import build_parser
    from nothanks_tui.commands.net import _limits, _settings

    chosen = ["--connects-per-minute", "30", "--max-connections", "900", "--max-tables", "40"]
    args = build_parser().parse_args(["server", *chosen, "--ipv4-prefix", "24", "--ipv6-prefix", "56"])
    limits, settings = _limits(args), _settings(args)
    assert (limits.connects_per_minute, limits.max_connections, limits.v4_prefix, limits.v6_prefix) == (30, 900, 24, 56)
    assert settings.max_tables == 40
    assert limits.network("198.51.100.7") == limits.network("198.51.100.200") != limits.network("198.51.101.7")
    default = _limits(build_parser().parse_args(["server"]))
    assert (default.connects_per_minute, default.max_connections, default.v4_prefix) == (120, 5000, 32)


async def test_costly_requests_start_a_few_a_turn_of_the_loop_first_come_first_served():
    per_turn, turn = PerTurn(2), 0
    started: list[tuple[int, int]] = []  # (request, the loop turn it started in)

    async def request(number: int) -> None:
        await per_turn.take()
        started.append((number, turn))

    tasks = [asyncio.create_task(request(number)) for number in range(7)]
    tasks[3].cancel()  # (its connection ended while it waited: it takes nobody's turn)
    while len(started) < 6 and turn < 100:
        await asyncio.sleep(0)  # one turn of the loop
        turn += 1
    assert [number for number, _ in started] == [0, 1, 2, 4, 5, 6]
    by_turn = [sum(1 for _, at in started if at == turn) for turn in {at for _, at in started}]
    assert max(by_turn) == 2 and len(by_turn) == 3


async def test_costly_requests_of_several_networks_are_served_in_rotation():
    """A network queueing hundreds of table requests does not hold another network's one behind them all."""
    per_turn = PerTurn(2)
    started: list[str] = []

    async def request(holder: str, number: int) -> None:
        await per_turn.take(holder)
        started.append(f"{holder}{number}")

    tasks = [asyncio.create_task(request("botnet", number)) for number in range(20)]
    tasks += [asyncio.create_task(request("player", 0)), asyncio.create_task(request("other", 0))]
    await asyncio.gather(*tasks)
    assert started[:2] == ["botnet0", "botnet1"]  # (the first turn's, before anyone else waited)
    assert started.index("player0") <= 3 and started.index("other0") <= 4
    assert [name for name in started if name.startswith("botnet")] == [f"botnet{n}" for n in range(20)]
