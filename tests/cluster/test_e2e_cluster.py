"""The cluster end to end, as real processes (cluster_processes.py): Redis with its append-only file fsynced on
every write, three table hosts and two fronts on loopback addresses of their own, HAProxy in front of the fronts.
Players come through the balancer from other loopback addresses, over SSH (the game's own screens, with a key) or
TCP (the documented protocol), and what an operator fears is done to the cluster under them: a table host
SIGKILLed mid-game, a front killed, a table host cut off (SIGSTOP) past its lease while another adopts its table.

Each scenario waits on conditions with deadlines, never on time; the deadlines are generous (a loaded CI machine),
and the promises themselves (a takeover within 4 s, no move lost or applied twice) are asserted separately.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable

import asyncssh
import pytest
import pytest_asyncio

from nothanks_tui.client.tcp import TcpLobby
from nothanks_tui.engine import Action
from nothanks_tui.link import errors
from nothanks_tui.link.events import NewTable, TableUpdate
from tools.cluster_log import MoveLog
from tools.loadgen.terminal_client import TerminalClient
from tools.loadgen.visitors import FIRST_BOT_SEAT, play_my_turn

from . import haproxy, redis_server
from .cluster_processes import WAIT, Cluster, ClusterShape, Member, running_cluster, until
from .tcp_player import TcpPlayer

TAKEOVER = 4.0  # the contract: a dead host's table is adopted, restored and listed within 4 s of the kill
CARDS = 24  # a game is over once 24 cards were taken: that many "take" moves
PER_ADDRESS = 3  # the fronts' --per-address-connections: an SSH player's app holds up to 2 connections


def require_programs() -> None:
    redis_server.require()
    if haproxy.binary() is None:
        missing = "haproxy is not installed (apt-get install haproxy; .ci/run installs it when missing)"
        if os.environ.get("CI"):
            pytest.fail(f"{missing}: CI must run these tests")
        pytest.skip(missing)


pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared_cluster(tmp_path_factory):
    """One cluster for the module (starting one takes seconds): each test heals what it broke before the next."""
    require_programs()
    shape = ClusterShape(front_options=("--per-address-connections", str(PER_ADDRESS)))
    async with running_cluster(tmp_path_factory.mktemp("e2e") / "cluster", shape) as started:
        yield started


@pytest_asyncio.fixture(loop_scope="module")
async def cluster(shared_cluster):
    await shared_cluster.heal()
    yield shared_cluster


# Helpers -------------------------------------------------------------------------------------------------------


async def table_of(cluster: Cluster, name: str) -> str:
    """The id of the table where a player called ``name`` sits, from the shared lobby (once it is published)."""
    directory = await cluster.directory_client()

    async def listed() -> str | None:
        for line in await directory.lobby():
            if any(seat.name == name for seat in line.summary.seats):
                return line.summary.table_id
        return None

    return await until(listed)


async def logged_moves(cluster: Cluster, table_id: str) -> list[tuple[int, str]]:
    """(seat, action) of every move in the fenced log of ``table_id``'s latest game."""
    directory = await cluster.directory_client()
    keys = [key.decode() for key in await directory.client.keys(f"{directory.prefix}:moves:{table_id}:*")]
    assert keys, f"no move log for {table_id}"
    latest = max(int(key.rsplit(":", 1)[1]) for key in keys)
    return [(move.seat, move.action) for move in await MoveLog(directory).moves(table_id, latest)]


def public(moves: list[list[object]]) -> list[tuple[object, object]]:
    return [(move[0], move[1]) for move in moves]


async def front_holding(cluster: Cluster, backend: str) -> Member:
    """The front HAProxy sent the one current connection of ``backend`` (nothanks_ssh or nothanks_tcp) to."""
    assert cluster.balancer is not None

    async def which() -> Member | None:
        assert cluster.balancer is not None
        rows = await cluster.balancer.show_stat()
        busy = [row["svname"] for row in rows if row["pxname"] == backend and row["svname"].startswith("game")]
        busy = [name for name in busy if any(r["svname"] == name and r["scur"] != "0" for r in rows)]
        return cluster.fronts[int(busy[0][4:]) - 1] if len(busy) == 1 else None

    return await until(which)


async def sit_at_bot_table(player: TerminalClient) -> None:
    """Over SSH, from the welcome screen to a started game at a 3-seat table with two bots."""
    for keys, shown in [
        ("", "Your name at the table"),
        ("\r", "New table"),
        ("c", "Create"),
        ("\x13", "waiting for players"),  # ctrl+s: create
        ("b", FIRST_BOT_SEAT),
        ("b", "press s to start"),
        ("s", "You: 11 chips"),
    ]:
        player.send(keys)
        await player.wait_for(shown, timeout=WAIT)


async def ssh_moves(player: TerminalClient, count: int) -> int:
    """Make up to ``count`` moves over SSH (fewer if the game ends): how many were made."""
    made = 0
    while made < count:
        await player.wait_for(lambda: "Your turn" in player.text() or "Game over" in player.text(), timeout=WAIT)
        if "Game over" in player.text():
            break
        if await play_my_turn(player, timeout=WAIT):
            made += 1
    return made


async def ssh_play_to_the_end(player: TerminalClient) -> int:
    return await ssh_moves(player, 10_000)


# Scenarios -----------------------------------------------------------------------------------------------------


async def test_the_lobby_is_the_same_on_every_front(cluster):
    ann, bea = TcpPlayer("ann"), TcpPlayer("bea")
    first, second = cluster.fronts
    await ann.connect(first.port, source="127.0.0.5", host=first.address)
    await bea.connect(second.port, source="127.0.0.6", host=second.address)
    created = await ann.request({"type": "create_table", "players": 3, "bots": 1})
    assert created["type"] == "joined", created
    table_id = created["table"]

    async def listing(player: TcpPlayer) -> list[dict]:
        reply = await player.request({"type": "list_tables"})
        assert reply["type"] == "tables", reply
        return reply["tables"]

    async def bea_sees_it() -> bool:
        await asyncio.sleep(0.5)  # list_tables may be asked 2 a second: the pace of this poll
        return any(table["table"] == table_id for table in await listing(bea))

    await until(bea_sees_it)  # the other front's lobby shows it, from the shared directory
    joined = await bea.request({"type": "join", "table": table_id})
    assert joined["type"] == "joined" and joined["table"] == table_id and joined["seat"] == 2, joined

    async def both_agree() -> list[dict] | None:
        await asyncio.sleep(0.5)
        seen = [await listing(ann), await listing(bea)]
        names = [[seat["name"] for seat in table["seats"]] for table in seen[0] if table["table"] == table_id]
        return seen[0] if seen[0] == seen[1] and len(names) == 1 and names[0][::2] == ["ann", "bea"] else None

    agreed = await until(both_agree)
    assert table_id in [table["table"] for table in agreed]
    await ann.close()
    await bea.close()


async def test_the_real_client_address_reaches_the_front(cluster):
    """Through the balancer, each front counts connections by the player's own address (its per-address limit,
    3 here) and logs the SSH player's address: had the fronts seen the balancer's, the last would be refused."""
    assert cluster.balancer is not None
    players = []
    while True:
        player = TcpPlayer(f"p{len(players)}")
        players.append(player)
        answer = await player.connect(cluster.balancer.game_port, source="127.0.0.30")
        if answer["type"] != "welcome":
            break
    assert answer["type"] == "error" and answer["code"] == errors.TOO_MANY, answer
    assert len(players) == 1 + PER_ADDRESS * len(cluster.fronts)  # leastconn spread them: each front took 3
    other = TcpPlayer("dan")
    assert (await other.connect(cluster.balancer.game_port, source="127.0.0.31"))["type"] == "welcome"

    ssh = await TerminalClient().connect(cluster.balancer.ssh_port, "eve", local_addr=("127.0.0.32", 0))
    await ssh.wait_for("Your name at the table", timeout=WAIT)
    expected = "SSH: connection from 127.0.0.32:"
    await until(lambda: any(expected in front.log_text() for front in cluster.fronts))
    for player in [*players, other]:
        await player.close()
    await ssh.close()


async def test_an_ssh_players_game_outlives_its_table_host(cluster):
    """SIGKILL the host holding the table mid-game: the player finishes the game, on another host, in the same
    SSH session; every move is in the fenced log once."""
    assert cluster.balancer is not None
    key = asyncssh.generate_private_key("ssh-ed25519")
    player = await TerminalClient().connect(
        cluster.balancer.ssh_port, "cara", client_keys=[key], local_addr=("127.0.0.33", 0)
    )
    await sit_at_bot_table(player)
    assert await ssh_moves(player, 3) == 3
    table_id = await table_of(cluster, "cara")
    old = await cluster.wait_holder(table_id)
    await old.kill()
    killed_at = time.monotonic()
    new = await cluster.wait_holder(table_id, other_than=old)
    adopted_in = time.monotonic() - killed_at

    after = await ssh_play_to_the_end(player)
    assert "Game over" in player.text()
    assert after >= 1  # the player moved on the new host, in the session that was open before the kill
    assert not player.closed.is_set()
    moves = await logged_moves(cluster, table_id)
    assert sum(action == "take" for _, action in moves) == CARDS, moves  # the whole game, no move twice
    assert (await cluster.holder(table_id)) is new
    assert adopted_in < TAKEOVER, f"adopted {adopted_in:.1f} s after the kill"
    await player.close()


async def test_a_tcp_player_resumes_through_the_other_front_when_theirs_dies(cluster):
    assert cluster.balancer is not None
    ann = TcpPlayer("tom")
    await ann.connect(cluster.balancer.game_port, source="127.0.0.34")
    created = await ann.request({"type": "create_table", "players": 2, "bots": 1})
    assert created["type"] == "joined", created
    ann.send({"type": "start"})
    await ann.move()
    await ann.move()
    seen = public(ann.view["moves"])
    token = ann.token

    front = await front_holding(cluster, "nothanks_tcp")
    await front.kill()
    await until(ann.closed.is_set)
    await cluster.wait_front_state(front, "DOWN")
    welcome = await ann.connect(cluster.balancer.game_port, source="127.0.0.34")
    assert welcome["type"] == "welcome", welcome
    resumed = await ann.request({"type": "resume", "token": token})
    assert resumed["type"] == "joined" and resumed["seat"] == 0, resumed
    await ann.until(lambda: ann.view is not None and len(ann.view["moves"]) >= len(seen))
    assert public(ann.view["moves"])[: len(seen)] == seen  # nothing the player saw accepted was lost
    other = next(member for member in cluster.fronts if member is not front)
    assert await front_holding(cluster, "nothanks_tcp") is other
    final = await ann.play_to_the_end()
    assert public(final["moves"]) == await logged_moves(cluster, created["table"])
    await ann.close()


async def test_a_move_sent_into_a_dying_front_is_played_once_when_the_client_is_back(cluster):
    """Issue 32, point 34: the game's own client (client/tcp.py) sends a move to a front that dies before passing
    it on (stopped, then killed). The client takes its seat back through the other front and sends the move again:
    it is played, once."""
    assert cluster.balancer is not None
    lobby = TcpLobby("127.0.0.1", cluster.balancer.game_port, "una")
    await lobby.start()
    table = await lobby.create_table(NewTable(players=2, bots=1))
    await table.start_game()

    async def update(check: Callable[[TableUpdate], bool]) -> TableUpdate:
        while not (isinstance(event := await asyncio.wait_for(table.next_event(), WAIT), TableUpdate) and check(event)):
            pass
        return event

    turn = (await update(lambda event: event.view.my_turn)).view
    front = await front_holding(cluster, "nothanks_tcp")
    front.pause()  # the move waits in its socket, never passed on
    await table.send_action(Action.TAKE, turn.state_id)
    await front.kill()
    after = (await update(lambda event: event.view.state_id > turn.state_id)).view
    assert [(move.seat, move.action) for move in after.moves[: turn.state_id + 1]] == [
        *[(move.seat, move.action) for move in turn.moves],
        (turn.seat, Action.TAKE),
    ]
    logged = await logged_moves(cluster, table.table_id)
    assert logged[: turn.state_id + 1] == [(m.seat, m.action.value) for m in after.moves[: turn.state_id + 1]]
    await lobby.close()


async def test_an_ssh_player_is_back_at_their_seat_through_the_other_front(cluster):
    """Their front killed, an SSH player with a key connects again (the balancer sends them to the other front)
    and is straight back at their seat, the game where they left it (``held`` through ``P:keyseat:``)."""
    assert cluster.balancer is not None
    key = asyncssh.generate_private_key("ssh-ed25519")
    player = await TerminalClient().connect(
        cluster.balancer.ssh_port, "sue", client_keys=[key], local_addr=("127.0.0.35", 0)
    )
    await sit_at_bot_table(player)
    assert await ssh_moves(player, 2) == 2
    front = await front_holding(cluster, "nothanks_ssh")
    await front.kill()
    await player.wait_closed(timeout=WAIT)
    await cluster.wait_front_state(front, "DOWN")

    again = await TerminalClient().connect(
        cluster.balancer.ssh_port, "sue", client_keys=[key], local_addr=("127.0.0.35", 0)
    )
    await again.wait_for("You:", timeout=WAIT)  # straight back to the table, no name asked
    assert "Your name at the table" not in again.text()
    await ssh_play_to_the_end(again)
    assert "Game over" in again.text()
    table_id = await table_of(cluster, "sue")
    moves = await logged_moves(cluster, table_id)
    assert sum(action == "take" for _, action in moves) == CARDS
    await again.close()


async def test_a_partitioned_old_owners_writes_are_refused(cluster):
    """SIGSTOP the table's host past its lease, with a move of the player's sent to it meanwhile; another host
    adopts the table; SIGCONT the old one. Its writes are fenced: the game goes on at the new host, and the log
    holds every move once, exactly the moves the player saw."""
    first = cluster.fronts[0]
    ann = TcpPlayer("pat")
    await ann.connect(first.port, source="127.0.0.36", host=first.address)
    created = await ann.request({"type": "create_table", "players": 2, "bots": 1})
    assert created["type"] == "joined", created
    table_id = created["table"]
    ann.send({"type": "start"})
    await ann.move()
    await ann.until(ann.my_turn)
    old = await cluster.wait_holder(table_id)
    directory = await cluster.directory_client()
    epoch_before = (await directory.holder(table_id)).epoch

    old.pause()
    try:
        assert ann.view is not None
        stalled = ann.view["state_id"]
        ann.send({"type": "action", "action": "take", "state_id": stalled})  # reaches the stopped host only
        new = await cluster.wait_holder(table_id, other_than=old)
        assert (await directory.holder(table_id)).epoch > epoch_before
    finally:
        old.resume()

    # The old owner wakes up holding a move and a table it no longer owns: it must write nothing and let go.
    async def old_let_go() -> bool:
        lines = await directory.lobby()
        return not any(line.host_id == old.name and line.summary.table_id == table_id for line in lines)

    await until(old_let_go)
    final = await ann.play_to_the_end()
    assert (await cluster.holder(table_id)) is new
    assert public(final["moves"]) == await logged_moves(cluster, table_id)  # nothing from the old owner in it
    assert sum(action == "take" for _, action in public(final["moves"])) == CARDS
    assert old.alive  # it lost the table, not its life
    await ann.close()


async def test_a_table_host_stopped_for_a_restart_hands_its_table_over(cluster):
    """A rolling restart: SIGTERM the table's host mid-game; it gives the table up after its last move, another
    adopts it, and the player plays on in the same connection to the end, every move in the log once."""
    first = cluster.fronts[1]
    ann = TcpPlayer("rosa")
    await ann.connect(first.port, source="127.0.0.37", host=first.address)
    created = await ann.request({"type": "create_table", "players": 2, "bots": 1})
    assert created["type"] == "joined", created
    table_id = created["table"]
    ann.send({"type": "start"})
    await ann.move()
    old = await cluster.wait_holder(table_id)
    stopping = time.monotonic()
    await old.stop()
    assert old.process is not None and old.process.returncode == 0
    await cluster.wait_holder(table_id, other_than=old)
    adopted_in = time.monotonic() - stopping
    final = await ann.play_to_the_end()
    assert not ann.closed.is_set()  # the front kept the player's connection through the move
    assert public(final["moves"]) == await logged_moves(cluster, table_id)
    assert adopted_in < TAKEOVER, f"adopted {adopted_in:.1f} s after the SIGTERM"
    await ann.close()


async def test_the_readmes_balancer_lines_are_the_tested_configuration():
    readme = (haproxy.DOCUMENTED.parents[1] / "README.md").read_text()
    section = readme[readme.index("## More than one machine") :]
    block = section[section.index("frontend ssh") : section.index("```", section.index("frontend ssh"))]
    assert block in haproxy.DOCUMENTED.read_text()
