"""Sessions that come and go leave nothing behind: their workers recycle, and the host process does not grow.

CI-sized (60 sessions); ``scripts/bench_ssh.py leak`` runs 1,000 and measures every process of the host. The
visitors run in a separate process, so the memory measured here is the host's (this test process) alone.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from .conftest import PROBE

SESSIONS = 60
PER_WORKER = 20


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS in /proc/self/status")


async def visitors(port: int, sessions: int) -> dict[str, object]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tools.loadgen.visitors",
        "--port",
        str(port),
        "--sessions",
        str(sessions),
        "--concurrency",
        "10",
        "--script",
        "probe",
        stdout=asyncio.subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[2],  # (tools/ is at the repository's root, not installed)
    )
    output, _ = await process.communicate()
    result = json.loads(output.decode().strip().splitlines()[-1])
    assert process.returncode == 0, result["failures"]
    return result


async def test_sessions_that_come_and_go_are_given_back_by_recycled_workers(start_host):
    # Visitors coming and going from loopback, 10 at once: over the per-address limits (8 logging in, 16 connected,
    # counted until each worker reports a departure; 2 new connections a second), which this test is not about
    front = await start_host(
        workers=1, worker_sessions=PER_WORKER, app=PROBE, logins_per_address=1000, per_address=1000, connect_rate=0
    )
    await visitors(front.port, 10)  # warm up the host's side: imports, buffers
    await front.wait_until(lambda: front.sessions == 0)
    before = rss_mib()
    first = front.worker_pids()

    result = await visitors(front.port, SESSIONS)

    assert len(result["first_frame"]) == SESSIONS
    await front.wait_until(lambda: front.sessions == 0 and all(w.state == "taking" for w in front.workers()))
    assert front.recycled >= SESSIONS // PER_WORKER and front.restarts == 0
    assert len(front.worker_pids()) == 1 and front.worker_pids() != first  # only a fresh worker is left
    grown = rss_mib() - before
    assert grown < 5, f"the host process grew by {grown:.1f} MiB over {SESSIONS} sessions"
