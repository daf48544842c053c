"""docs/scaling.md's "Run a cluster on one machine", run exactly as written (issue 32): its shell block, taken from
the document, in bash, with the real redis-server and haproxy; then a game through the balancer, and the table
host holding the table stopped (step 6) while the game plays on at the other.

The block is run from a directory standing for the repository's root: ``.venv/bin/nothanks`` is this
environment's program and ``docs/haproxy.cfg`` the repository's, so not a word of the document is changed. Its
addresses and ports (127.0.10.x; 6390, 7700, 7777, 2222) are the document's; the test is skipped if another
program holds one of them, except under CI.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import socket
import sys
from pathlib import Path

import pytest

from . import haproxy, redis_server
from .cluster_processes import WAIT, until
from .tcp_player import TcpPlayer

ROOT = Path(__file__).resolve().parents[2]
SCALING = ROOT / "docs" / "scaling.md"
USED = [("127.0.10.2", 6390), ("127.0.10.21", 7700), ("127.0.10.22", 7700), ("127.0.10.5", 7777)]


def documented_block() -> str:
    """The shell block of the section, as the document has it."""
    section = SCALING.read_text().split("## Run a cluster on one machine", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"\n```\n(.*?)\n```\n", section, re.DOTALL)
    assert len(blocks) == 1, "the section has one shell block, copied as a whole"
    return blocks[0]


def taken(address: str, port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # (as the servers do: TIME_WAIT is no holder)
        try:
            probe.bind((address, port))
        except OSError:
            return True
    return False


async def test_the_documented_one_machine_cluster_runs_as_written(tmp_path):
    redis_server.require()
    if haproxy.binary() is None:
        pytest.fail("haproxy is not installed") if os.environ.get("CI") else pytest.skip("haproxy is not installed")
    if any(taken(*address) for address in USED) and not os.environ.get("CI"):
        pytest.skip("another program holds one of the documented addresses")
    root = tmp_path / "repository"
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / ".venv" / "bin" / "nothanks").symlink_to(Path(sys.executable).with_name("nothanks"))
    (root / "docs").mkdir()
    (root / "docs" / "haproxy.cfg").symlink_to(ROOT / "docs" / "haproxy.cfg")
    env = {**os.environ, "PATH": f"{os.environ.get('PATH', '')}:/usr/sbin:/sbin"}
    # The block, then what the test needs to find its work (the directory, the jobs in the order started).
    script = documented_block() + '\necho "D=$D"; echo "JOBS=$(jobs -p | tr "\\n" " ")"\n'
    shell = await asyncio.create_subprocess_exec(
        "bash", "-c", script, cwd=root, env=env, stdout=asyncio.subprocess.PIPE, start_new_session=True
    )
    work: Path | None = None
    try:
        output = (await asyncio.wait_for(shell.communicate(), 3 * WAIT))[0].decode()
        assert shell.returncode == 0, output
        work = Path(re.search(r"^D=(.*)$", output, re.M)[1])  # type: ignore[index]
        jobs = [int(pid) for pid in re.search(r"^JOBS=(.*)$", output, re.M)[1].split()]  # type: ignore[index]
        assert len(jobs) == 6, output  # redis, table1, table2, front1, front2, haproxy
        password = re.search(r'requirepass "(.*)"', (work / "redis.conf").read_text())[1]  # type: ignore[index]

        # HAProxy is the last job: up once its stats socket answers and its checks passed (a person waits too).
        balancer = haproxy.HAProxy(shell, 2222, 7777, work / "haproxy.sock", work / "haproxy.log")  # type: ignore[arg-type]
        await until(balancer.stats.exists)
        await balancer.wait_checked()

        # Step 5: a game through the balancer, at the table host with the fewest tables.
        ann = TcpPlayer("ann")
        welcome = await ann.connect(7777, host="127.0.10.5")
        assert welcome["type"] == "welcome", welcome
        created = await ann.request({"type": "create_table", "players": 2, "bots": 1})
        assert created["type"] == "joined", created
        ann.send({"type": "start"})
        await ann.move()

        # Step 6: the lease names the table's host; stopped (`kill %2` or `kill %3`), the other adopts the table.
        import redis.asyncio

        directory = redis.asyncio.Redis(host="127.0.10.2", port=6390, password=password)
        lease = f"nothanks:lease:{created['table']}"
        holder = (await directory.get(lease)).decode()
        assert holder in ("table1 1", "table2 1")
        os.kill(jobs[1 if holder.startswith("table1") else 2], signal.SIGTERM)
        other = "table2" if holder.startswith("table1") else "table1"

        async def adopted() -> bool:
            return (await directory.get(lease) or b"").decode() == f"{other} 2"

        await until(adopted)
        played = await ann.move()  # the same connection plays on
        assert len(played["moves"]) >= 2
        await directory.aclose()
        await ann.close()
    finally:
        await stop_every_job(shell)
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)


async def stop_every_job(shell: asyncio.subprocess.Process) -> None:
    """Step 7: every job of the shell (its process group) stopped, and gone before its files are."""
    if shell.returncode is None:
        os.killpg(shell.pid, signal.SIGKILL)
        await shell.wait()

    def gone() -> bool:
        try:
            os.killpg(shell.pid, signal.SIGTERM)
        except ProcessLookupError:
            return True
        return False

    try:
        await until(gone)
    except TimeoutError:
        os.killpg(shell.pid, signal.SIGKILL)
