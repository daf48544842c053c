"""LAN discovery for real: ``nothanks server`` and a player's ``join`` find each other over multicast DNS, as two
processes in a network namespace the test makes (its own loopback, with multicast switched on and routed).

Nothing leaves the namespace. Where a namespace cannot be made (no ``unshare``, no ``ip``, no user namespaces),
the tests skip and say why.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
WAIT = 60.0  # the probe's own steps are bounded at 30 s each; this bounds the whole run

# Inside the namespace: loopback up, multicast on it, and the multicast range routed through it.
MULTICAST_LOOPBACK = "ip link set lo up && ip link set lo multicast on && ip route add 224.0.0.0/4 dev lo"


def _namespace_problem() -> str | None:
    """Why no network namespace can be made here, or None."""
    for tool in ("unshare", "ip"):
        if shutil.which(tool) is None:
            return f"`{tool}` is not installed (util-linux / iproute2)"
    try:
        done = subprocess.run(
            ["unshare", "-rn", "sh", "-c", MULTICAST_LOOPBACK], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"`unshare -rn` failed: {error}"
    if done.returncode != 0:
        return f"cannot make a network namespace with multicast (unshare -rn): {done.stderr.strip()[:200]}"
    return None


PROBLEM = _namespace_problem()
needs_namespace = pytest.mark.skipif(PROBLEM is not None, reason=PROBLEM or "")


def _environment(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        env[name] = str(tmp_path / name.lower())
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


@needs_namespace
async def test_a_server_and_a_player_find_each_other_over_multicast_in_a_namespace(tmp_path):
    script = f"""
{MULTICAST_LOOPBACK}
"$PY" -m nothanks_tui server --port 0 --data-dir "$DATA" --bot-pace 0 >"$DATA/server.out" 2>"$DATA/server.err" &
server=$!
"$PY" -m tests.lan_probe
status=$?
kill -TERM $server
wait $server
echo "server exit $?"
exit $status
"""
    env = _environment(tmp_path) | {"PY": sys.executable, "DATA": str(tmp_path)}
    process = await asyncio.create_subprocess_exec(
        "unshare", "-rn", "sh", "-c", script,
        cwd=ROOT, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    try:
        out, err = await asyncio.wait_for(process.communicate(), WAIT)
    except TimeoutError:
        out, err = b"(timed out)", b""
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # the shell, the server and the probe: nothing outlives the test
        await process.wait()
    server_out = (tmp_path / "server.out").read_text()
    server_err = (tmp_path / "server.err").read_text()
    detail = f"probe: {out.decode()}\n{err.decode()[-3000:]}\nserver: {server_out}\n{server_err[-3000:]}"
    assert process.returncode == 0, detail
    steps = {line["step"]: line for line in map(json.loads, out.decode().splitlines()[:-1])}
    assert "server exit 0" in out.decode(), detail

    port = int(server_out.split("listening on 0.0.0.0:")[1].split(";")[0])
    (found,) = steps["found"]["hosts"]  # the one host in the namespace, as the Join tab listed it
    assert found["address"] == "127.0.0.1" and found["port"] == port
    assert found["protocol"] == 2 and found["free_seats"] == 0
    assert found["name"] == os.uname().nodename.split(".")[0][:20]
    assert steps["joined"]["name"] == "probe" and f":{port}" in steps["joined"]["info"]
    assert steps["seats"]["seen"][-1] == 2  # the table of three the probe opened, announced as it filled
    assert "Traceback" not in server_err


@needs_namespace
async def test_a_host_starts_where_there_is_no_multicast_and_says_so_in_one_line(tmp_path):
    # A namespace whose only interface is down: zeroconf has nothing to listen on.
    process = await asyncio.create_subprocess_exec(
        "unshare", "-rn", sys.executable, "-m", "nothanks_tui", "server", "--port", "0", "--data-dir", str(tmp_path),
        cwd=ROOT, env=_environment(tmp_path), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        first = (await asyncio.wait_for(process.stdout.readline(), WAIT)).decode()
        assert "listening on 0.0.0.0:" in first
        warning = (await asyncio.wait_for(process.stderr.readline(), WAIT)).decode()
        assert "not advertised on the local network" in warning
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), WAIT) == 0
        rest = (await process.stderr.read()).decode()
        assert "Traceback" not in rest and "advertis" not in rest  # one line, not one per retry
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
