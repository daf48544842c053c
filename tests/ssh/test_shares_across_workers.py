"""A public host under a botnet, across the front's workers (issue 31): the totals of connections and logins are
the front's, shared by network; the sessions cap makes room in whichever worker holds the biggest share; a key's
player takes a stranger's place; the workers' count and memory are bounded, and memory goes back when idle."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import socket
from collections import Counter
from collections.abc import Callable, Iterator
from types import SimpleNamespace

import asyncssh
import pytest

from nothanks_server.ssh import front as front_module
from nothanks_server.ssh import worker as worker_module
from nothanks_server.ssh.front import MEMORY_FULL
from nothanks_server.ssh.server import BUSY_MESSAGE, ROOM_MESSAGE, SessionServer
from nothanks_server.ssh.settings import SSHSettings, shared_counts
from tools.loadgen.terminal_client import TerminalClient

from .conftest import PROBE, until
from .test_auth_limits import FakeClock, Guesser
from .test_fair_shares import open_from
from .test_front import _write_authorized
from .test_game import sit_at_bot_table

GAME = SSHSettings.app  # the game's app, whose sessions say whether their player sits at a table
LOOSE = {"per_address": 16, "logins_per_address": 16, "connect_burst": 16, "app": PROBE}  # one address may hold many


async def hold_from(source: str, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection from ``source`` that says it speaks SSH and then nothing more (a login in progress)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    writer.write(b"SSH-2.0-idle\r\n")
    await reader.readline()  # the host's version line: a worker has it
    return reader, writer


async def closed_with(held: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]], message: str) -> int:
    """How many of ``held`` the host closed once the first was, each with ``message``; all are closed after."""
    reads = [asyncio.ensure_future(reader.read()) for reader, _ in held]
    done, pending = await asyncio.wait(reads, timeout=10, return_when=asyncio.FIRST_COMPLETED)
    for read in pending:
        read.cancel()
    for _, writer in held:
        writer.close()
    assert all(message.encode() in read.result() for read in done)
    return len(done)


async def test_the_fronts_connection_total_makes_room_for_a_newcomer_from_another_network(start_host):
    front = await start_host(max_connections=4, **LOOSE)
    held = [await hold_from("127.0.8.1", front.port) for _ in range(4)]
    await until(lambda: front.open.total() == 4)
    reader, writer = await asyncio.open_connection("127.0.0.1", front.port, local_addr=("127.0.8.1", 0))
    async with asyncio.timeout(10):  # the biggest holder itself: turned away
        assert b"too many connections from your address" in await reader.read()
    writer.close()
    player = await TerminalClient().connect(front.port, "new", local_addr=("127.0.8.2", 0))
    await player.wait_for("name: new")
    assert await closed_with(held, ROOM_MESSAGE) == 1  # the oldest of the biggest holder's gave way
    await until(lambda: front.open.total() == 1)
    await player.close()


async def test_logins_in_progress_are_capped_in_all_not_per_worker(start_host):
    front = await start_host(workers=2, max_logins=4, **LOOSE)
    held = [await hold_from("127.0.9.1", front.port) for _ in range(4)]  # two in each worker
    await until(lambda: front.logging_in.total() == 4 and all(len(w.logging_in) for w in front.workers()))
    player = await TerminalClient().connect(front.port, "new", local_addr=("127.0.9.2", 0))
    await player.wait_for("name: new")
    assert await closed_with(held, BUSY_MESSAGE) == 1
    await player.close()


async def test_the_sessions_cap_makes_room_in_the_worker_holding_the_biggest_share(start_host):
    front = await start_host(workers=1, worker_sessions=4, max_sessions=4, session_timeout=60, **LOOSE)
    idle = [await open_from("127.0.10.1", front.port, password="") for _ in range(4)]  # logged in, no session
    await front.wait_until(lambda: [worker.state for worker in front.workers()] == ["draining", "taking"])
    assert front.sessions == 4  # all in the draining worker: the fresh one has nothing of its own to close
    player = await TerminalClient().connect(front.port, "new", local_addr=("127.0.10.2", 0))
    await player.wait_for("name: new")
    async with asyncio.timeout(10):
        await idle[0].wait_closed()  # the oldest, in the other worker
    assert [conn.is_closed() for conn in idle] == [True, False, False, False]
    await player.close()
    for conn in idle:
        conn.close()


async def test_a_players_session_is_never_closed_for_a_stranger_in_another_worker(start_host):
    front = await start_host(workers=1, worker_sessions=2, max_sessions=2, **LOOSE)
    players = [await TerminalClient().connect(front.port, f"p{n}", local_addr=("127.0.11.1", 0)) for n in range(2)]
    for number, player in enumerate(players):
        await player.wait_for(f"name: p{number}")
    await front.wait_until(lambda: [worker.state for worker in front.workers()] == ["draining", "taking"])
    try:
        await TerminalClient().connect(front.port, "new", local_addr=("127.0.11.2", 0))
    except asyncssh.DisconnectError as error:
        assert "full" in error.reason
    else:
        raise AssertionError("a stranger got in past a cap of 2 players in sessions")
    for player in players:
        player.send("z")
        await player.wait_for("last: z")
        await player.close()


async def test_a_players_key_takes_a_strangers_place_at_the_sessions_cap(start_sessions):
    sessions = await start_sessions(max_sessions=2)
    strangers = [await TerminalClient().connect(sessions.port, local_addr=("127.0.0.2", 0)) for _ in range(2)]
    for stranger in strangers:
        await stranger.wait_for("No Thanks!")
    key = asyncssh.generate_private_key("ssh-ed25519")
    player = await TerminalClient().connect(sessions.port, "keyed", client_keys=[key], local_addr=("127.0.0.3", 0))
    await player.wait_for("No Thanks!")  # not "full": a key's player goes first
    assert sessions.made_room == 1 and sessions.admitted == 2
    await sessions.wait_until(lambda: sessions.running_apps == 2, timeout=10)
    other = TerminalClient().connect(sessions.port, "other", client_keys=[key], local_addr=("127.0.0.4", 0))
    await (await other).wait_for("No Thanks!")  # another key: the remaining stranger's place, never a key's
    assert sessions.made_room == 2
    player.send("z")
    await player.wait_for("last: z")
    for client in (*strangers, player):
        await client.close()


async def test_replacements_asked_for_at_once_never_pass_max_workers(start_host, caplog):
    front = await start_host(workers=1, max_workers=2, app=PROBE)
    for _ in range(3):  # in one tick, as a sweep over retiring workers does: each task had seen one worker alive
        front._replace()
    await front.wait_until(lambda: len(front.workers()) == 2 and front._wanted == 2)
    await front.wait_until(lambda: all(worker.state != "starting" for worker in front.workers()))
    assert len(front.workers()) == 2
    assert not [record for record in caplog.records if record.exc_info]  # no traceback in the log


async def test_past_the_memory_ceiling_no_worker_starts_and_a_newcomer_is_told_why(start_host, caplog):
    front = await start_host(workers=1, memory_mib=1, app=PROBE)  # one worker alone is past it
    await until(lambda: front.memory > 1)
    reader, writer = await asyncio.open_connection("127.0.0.1", front.port)
    async with asyncio.timeout(10):
        assert MEMORY_FULL.encode() in await reader.read()
    writer.close()
    assert len(front.workers()) == 1  # retiring past its share, it keeps going: none can start in its place
    assert not [record for record in caplog.records if record.exc_info]


async def test_a_worker_whose_memory_grew_is_recycled_once_idle(start_host, monkeypatch):
    monkeypatch.setattr(front_module, "IDLE_LOOKS", 1)
    front = await start_host(workers=1, app=PROBE)
    (first,) = front.workers()
    _reader, writer = await hold_from("127.0.0.2", front.port)  # a port probe: no login, no app
    writer.close()
    await until(lambda: not front.open)
    first.ready_mib = 1.0  # as if what it served had grown its memory (churn's frozen garbage)
    await front.wait_until(lambda: [worker.state for worker in front.workers()] == ["taking"] and first.state == "gone")
    player = await TerminalClient().connect(front.port, "after")
    await player.wait_for("name: after")
    await player.close()


async def test_password_guesses_never_delay_a_key_login(start_sessions, tmp_path):
    key = asyncssh.generate_private_key("ssh-ed25519")
    keys = _write_authorized(tmp_path / "authorized_keys", key)
    sessions = await start_sessions(password="sesame", authorized_keys=keys, auth_delay=0.0, password_rate=2)
    turn = asyncio.Event()  # the password queue does not move until the end: a key that waited in it never gets in
    sessions.server.sleep = lambda _delay: turn.wait()

    async def guesses_from(source: str) -> None:
        with contextlib.suppress(asyncssh.Error, OSError):
            await open_from(source, sessions.port, preferred_auth="password", client_factory=lambda: Guesser(["x"] * 6))

    guessing = [asyncio.create_task(guesses_from("127.0.0.2")) for _ in range(4)]
    await until(lambda: len(sessions.server._password_queue) >= 3, timeout=10)
    async with asyncio.timeout(5):
        conn = await open_from("127.0.0.3", sessions.port, client_keys=[key])  # straight past the queue
    assert len(sessions.server._password_queue) >= 3  # the guesses still wait their turn
    conn.close()
    turn.set()
    for task in guessing:
        task.cancel()
    await asyncio.gather(*guessing, return_exceptions=True)


async def test_a_network_whose_connections_close_before_logging_in_is_penalised(start_host):
    front = await start_host(connect_rate=100, **LOOSE)
    for _ in range(11):  # eleven closed before authenticating: a second of penalty each, past the ten allowed
        _reader, writer = await hold_from("127.0.12.1", front.port)
        writer.close()
    await until(lambda: not front.open)
    reader, writer = await asyncio.open_connection("127.0.0.1", front.port, local_addr=("127.0.12.1", 0))
    async with asyncio.timeout(10):
        assert b"too many connections closed before logging in from your address" in await reader.read()
    writer.close()
    player = await TerminalClient().connect(front.port, "new", local_addr=("127.0.12.2", 0))  # another network: in
    await player.wait_for("name: new")
    await player.close()


def servers_sharing(tmp_path, count: int, **settings: object) -> list[SessionServer]:
    """``count`` workers' servers in this process, sharing their counts as the front's workers do."""
    counts = shared_counts(multiprocessing, count)
    shared = SSHSettings(host_key_path=tmp_path / "key", **settings)  # type: ignore[arg-type]
    return [SessionServer(shared, lambda player: None, counts, slot) for slot in range(count)]


async def test_passwords_are_looked_at_at_most_password_rate_a_second_over_every_worker(tmp_path):
    servers = servers_sharing(tmp_path, 3, workers=1, password_rate=4)  # a spare and a retiring one take players too
    clock = FakeClock()
    for server in servers:
        server.clock, server.sleep = clock, lambda _delay: asyncio.sleep(0)
    turns = [asyncio.ensure_future(server.password_turn(f"10.0.0.{n}")) for server in servers for n in range(20)]
    for _ in range(40):  # 2 seconds on the servers' clock
        clock.now += 0.05
        for _ in range(10):
            await asyncio.sleep(0)
    assert 8 <= sum(turn.done() for turn in turns) <= 4 * 2 + 4  # the rate over 2 s, and a burst of 4 at once
    for turn in turns:
        turn.cancel()


def held_still(servers: list[SessionServer]) -> tuple[FakeClock, asyncio.Event]:
    """``servers`` on one clock, whose password queues do not move until the event is set."""
    clock, moved = FakeClock(), asyncio.Event()

    async def until_moved(_delay: float) -> None:
        await moved.wait()
        await asyncio.sleep(0)

    for server in servers:
        server.clock, server.sleep = clock, until_moved
    return clock, moved


async def test_a_newcomers_password_goes_before_the_guesses_waiting_in_another_worker(tmp_path):
    guessed, fresh = servers_sharing(tmp_path, 2, password_rate=1)
    clock, moved = held_still([guessed, fresh])
    guessed.password_failures["10.0.0.1"] = 5
    await guessed.password_turn("10.0.0.1")  # the burst, spent
    order: list[str] = []
    guesses = [asyncio.ensure_future(guessed.password_turn("10.0.0.1")) for _ in range(3)]
    await until(lambda: guessed._password_pump is not None)
    newcomer = asyncio.ensure_future(fresh.password_turn("10.0.0.2"))
    for task in (*guesses, newcomer):
        task.add_done_callback(lambda done, who=("new" if task is newcomer else "guess"): order.append(who))
    await until(lambda: fresh._password_pump is not None or newcomer.done())
    assert not newcomer.done()  # the burst was spent in the other worker
    clock.now += 1.0  # one more password's time: the newcomer's, though the guesses waited first
    moved.set()
    await until(lambda: bool(order))
    assert order[0] == "new"
    for task in (*guesses, newcomer):
        task.cancel()


async def test_a_newcomers_password_goes_before_guesses_whose_networks_only_had_connections_closed_early(tmp_path):
    servers = servers_sharing(tmp_path, 2, password_rate=1)
    clock, moved = held_still(servers)
    await servers[0].password_turn("10.0.9.9")  # the burst, spent
    guesses = []  # a botnet's first passwords, none failed yet: its connections refused or closed for room
    for n, server in enumerate(servers * 2):
        server.closed_early[f"10.0.0.{n}"] = 1
        guesses.append(asyncio.ensure_future(server.password_turn(f"10.0.0.{n}")))
    await until(lambda: all(len(server._password_queue) == 2 for server in servers))
    newcomer = asyncio.ensure_future(servers[1].password_turn("10.0.1.1"))  # a fresh address, queued last
    await until(lambda: len(servers[1]._password_queue) == 3)
    clock.now += 1.0  # one password's time
    moved.set()
    await until(lambda: newcomer.done() or any(guess.done() for guess in guesses))
    assert newcomer.done() and not any(guess.done() for guess in guesses)
    for task in guesses:
        task.cancel()


async def test_a_place_closed_in_another_worker_goes_to_the_newcomer_it_was_closed_for(tmp_path):
    mine, theirs = servers_sharing(tmp_path, 2, max_sessions=2)
    assert theirs.admit() and theirs.admit()
    stolen: list[bool] = []

    async def front_makes_room(network: str, key: bool) -> bool:
        theirs.release()  # the place closed for the newcomer...
        stolen.append(theirs.admit())  # ... and an attacker's login there, before the newcomer's worker counts it
        return True

    mine.want_room = front_makes_room
    assert await mine.take_place(SimpleNamespace(network="10.0.0.2"))  # type: ignore[arg-type]
    assert stolen == [False] and list(mine._counts[:4]) == [1, 1, 0, 0]  # sessions by worker, then places held


async def test_a_place_closed_for_another_workers_newcomer_is_free_before_its_connection_has_closed(start_sessions):
    sessions = await start_sessions(max_sessions=2, session_timeout=60)
    told: list[bytes] = []
    sessions.server.tell = told.append  # what the front hears (the places by network, which it ranks by)
    idle = [await open_from("127.0.0.2", sessions.port, password="") for _ in range(2)]
    await sessions.wait_until(lambda: sessions.admitted == 2 and sessions.logins_in_progress == 0, timeout=10)
    assert told.count(b"p127.0.0.2") == 2
    assert sessions.evict("127.0.0.2", 3)  # the front's ``v``: its worker then tells it ``g`` at once
    assert told[-1] == b"q127.0.0.2"
    assert sessions.admit()  # the newcomer's worker, told ``m`` 1, finds the place free
    for conn in idle:
        conn.close()


async def test_a_place_closed_for_a_newcomer_is_its_own_though_others_wait_for_theirs(tmp_path):
    mine, theirs = servers_sharing(tmp_path, 2, max_sessions=2)
    assert theirs.admit() and theirs.admit()
    theirs._counts[3] += 1  # a place held in the other worker too, for a room request of its own still on its way

    async def front_makes_room(network: str, key: bool) -> bool:
        theirs.release()  # the place closed for the newcomer
        return True

    mine.want_room = front_makes_room
    assert await mine.take_place(SimpleNamespace(network="10.0.0.2"))  # type: ignore[arg-type]
    assert list(mine._counts[:4]) == [1, 1, 0, 1]


async def test_the_sessions_cap_closes_a_lobby_session_in_another_worker_never_a_seated_players(start_host):
    front = await start_host(workers=1, worker_sessions=2, max_sessions=2, session_settle=0, **LOOSE | {"app": GAME})
    player = await TerminalClient().connect(front.port, "seated", local_addr=("127.0.13.1", 0))
    await sit_at_bot_table(player)
    lobbyist = await TerminalClient().connect(front.port, "lobbyist", local_addr=("127.0.13.1", 0))
    await lobbyist.wait_for("Your name at the table")
    lobbyist.send("\r")
    await lobbyist.wait_for("you are lobbyist")  # in the lobby
    first = front.workers()[0]
    await front.wait_until(lambda: first.state == "draining" and first.seated == 1)
    newcomer = await TerminalClient().connect(front.port, "new", local_addr=("127.0.13.2", 0))
    await newcomer.wait_for("Your name at the table")  # in another worker: the lobby's session gave way
    async with asyncio.timeout(10):
        await lobbyist.closed.wait()
    assert not player.closed.is_set()
    for client in (player, newcomer):
        await client.close()


@pytest.fixture
def front_with_workers(tmp_path) -> Iterator[Callable[[int], tuple[front_module.SSHFront, list, Callable]]]:
    """``front_with_workers(count)``: a front, ``count`` workers it sends to, and ``said(worker)``: what it sent
    that worker since last asked."""
    ends: list[tuple[socket.socket, socket.socket]] = []

    def make(count: int) -> tuple[front_module.SSHFront, list, Callable]:
        front = front_module.SSHFront(SSHSettings(host_key_path=tmp_path / "key"), "127.0.0.1", 1)
        ends.extend(socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET) for _ in range(count))
        front._workers = [
            front_module.Worker(slot, None, ours, state="taking")  # type: ignore[arg-type]
            for slot, (ours, _theirs) in enumerate(ends)
        ]

        def said(worker: front_module.Worker) -> list[bytes]:
            theirs, messages = ends[worker.slot][1], []
            theirs.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                while True:
                    messages.append(theirs.recv(256))
            return messages

        return front, front._workers, said

    yield make
    for pair in ends:
        for end in pair:
            end.close()


async def test_the_front_tells_the_worker_how_often_it_turned_a_connections_network_away(front_with_workers, tmp_path):
    front, (worker,), said = front_with_workers(1)
    for _ in range(2):  # a botnet's address, turned away before any worker saw it
        refused, client = socket.socketpair()
        front._refuse(refused, "10.0.0.5", "too many connections")
        client.close()
    handed, client = socket.socketpair()
    front._waiting.append((handed, "10.0.0.5", None))
    front._hand_waiting()
    assert said(worker) == [b"c2"]
    (server,) = servers_sharing(tmp_path, 1)  # the worker: two strikes, as if closed early here
    server.serve(client, ("10.0.0.5", 2222), 2)
    await asyncio.sleep(0)
    assert server.strikes("10.0.0.5") == 2
    client.close()
    await until(lambda: not server._tasks, timeout=10)
    for lingering in front._lingering:
        lingering.close()


async def test_a_networks_connections_turned_away_are_forgiven_in_time(front_with_workers):
    front, (worker,), said = front_with_workers(1)
    now = [100.0]
    front.clock = lambda: now[0]
    for _ in range(2):
        refused, client = socket.socketpair()
        front._refuse(refused, "10.0.0.5", "too many connections")
        client.close()
    for later in (0.0, front_module.STRIKE_FORGIVEN, 2 * front_module.STRIKE_FORGIVEN):
        now[0] = 100.0 + later
        handed, client = socket.socketpair()
        front._waiting.append((handed, "10.0.0.5", None))
        front._hand_waiting()
        client.close()
    assert said(worker) == [b"c2", b"c1", b"c0"]  # one forgiven a minute, as penalties run out
    for lingering in front._lingering:
        lingering.close()


async def test_a_workers_report_of_its_places_heals_a_lost_p_or_q(front_with_workers):
    front, (worker,), _said = front_with_workers(1)
    for told in (b"p10.0.0.1", b"p10.0.0.1", b"p10.0.0.2", b"q10.0.0.1"):  # 10.0.0.2's q and 10.0.0.3's p were lost
        front._handle(worker, told)
    front._handle(worker, b"t1 10.0.0.1 1 10.0.0.3 2")  # what the worker holds now, absolute
    assert front.placed == worker.placed == {"10.0.0.1": 1, "10.0.0.3": 2} and worker.seated == 1
    front._handle(worker, b"t0")
    assert not front.placed and not worker.placed and worker.seated == 0


async def test_a_worker_tells_its_counts_again_until_the_front_has_them(monkeypatch):
    monkeypatch.setattr(worker_module, "SEATED_LOOK", 0)
    server = SimpleNamespace(seated=lambda: Counter({"10.0.0.1": 1}), places=lambda: Counter({"10.0.0.1": 2}))
    reports: list[bytes] = []

    def tell(message: bytes) -> bool:  # the control socket full for the first two reports
        reports.extend([message] if message[:1] == b"t" else [])
        return len(reports) > 2

    telling = asyncio.create_task(worker_module._tell_seated(server, tell))  # type: ignore[arg-type]
    await until(lambda: len(reports) == 3)
    for _ in range(20):
        await asyncio.sleep(0)  # looks that find nothing changed since the report the front had
    telling.cancel()
    assert reports == [b"t1 10.0.0.1 2"] * 3


async def test_a_room_request_asks_the_next_network_when_the_first_worker_asked_has_none_to_close(front_with_workers):
    front, (first, second, newcomers), said = front_with_workers(3)
    for worker, network, held in ((first, "10.0.0.1", 3), (second, "10.0.0.2", 2)):
        for _ in range(held):
            front._count(worker, network, "open placed", 1)
    front._count(newcomers, "10.0.0.9", "open logging_in", 1)  # the newcomer, logging in
    front._handle(newcomers, b"w-7 10.0.0.9")
    assert said(first) == [b"v310.0.0.1"]  # the biggest holder's first
    front._handle(first, b"u10.0.0.1")  # ... whose worker had no place of it to close (logins in key exchange)
    assert said(second) == [b"v310.0.0.2"] and said(newcomers) == []  # the next, not "full"
    front._handle(second, b"g10.0.0.2")  # its place closed
    assert said(newcomers) == [b"m7 1"]


async def test_a_room_request_asks_the_network_holding_the_most_places_not_the_most_connections(front_with_workers):
    front, (first, second, newcomers), said = front_with_workers(3)
    for _ in range(6):  # a network whose connections are in key exchange, or refused: they hold no place
        front._count(first, "10.0.0.1", "open logging_in", 1)
    for _ in range(3):  # one that holds 3 places (logged in or at the password prompt, no session)
        front._count(second, "10.0.0.2", "open placed", 1)
    front._count(first, "10.0.0.2", "open logging_in", 1)
    front._count(newcomers, "10.0.0.9", "open logging_in", 1)
    front._handle(newcomers, b"w-7 10.0.0.9")
    assert said(first) == [] and said(second) == [b"v310.0.0.2"]  # where its places are


async def test_a_room_request_is_met_by_the_place_asked_for_closing_not_by_any_connection_of_its_network(
    front_with_workers,
):
    front, (holder, newcomers), said = front_with_workers(2)
    for _ in range(3):
        front._count(holder, "10.0.0.1", "open placed", 1)
    front._count(holder, "10.0.0.1", "open logging_in", 1)
    front._handle(newcomers, b"w-7 10.0.0.9")
    assert said(holder) == [b"v310.0.0.1"]
    front._handle(holder, b"x110.0.0.1")  # another of its connections, refused while logging in: no place freed
    assert said(newcomers) == []
    front._handle(holder, b"g10.0.0.1")  # the place asked for, closed
    assert said(newcomers) == [b"m7 1"]


async def test_a_room_request_asks_for_an_idle_place_when_no_network_holds_two_more(front_with_workers):
    front, (holder, newcomers), said = front_with_workers(2)
    front._count(holder, "10.0.0.1", "open placed", 1)  # a botnet of many addresses: one place each
    front._count(newcomers, "10.0.0.9", "open logging_in", 1)
    front._handle(newcomers, b"w-7 10.0.0.9")
    assert said(holder) == [b"vi10.0.0.1"]  # if idle (server.py ``_Gate.idle``), its worker closes it
