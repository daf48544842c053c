#!/usr/bin/env python3
"""Benchmark of the SSH front: N concurrent SSH sessions on loopback, each running the game's app in the host.

For each N (default 10, 50, 200) a fresh host process is started (``nothanks server --ssh-port 0``, bots moving
at their normal pace of 0.8 s), then one visitors process opens N SSH sessions with a pty at once; each visitor
waits for its first screen, plays its script and holds its connection until every visitor has played. Reported:

- host RSS per session: (host RSS with all N connected - host RSS after one warm-up session) / N
- connect-to-first-frame: from TCP connect to the first screen fully drawn on the visitor's emulated terminal
- key-to-update: from a key press to the screen showing its effect
- host CPU: host process CPU time over the run, as a share of one core

Run from the repository root: ``.venv/bin/python scripts/bench_ssh.py [--sessions 10,50,200] [--app game|probe]``.
``--app probe`` serves a minimal Textual app instead of the game (the front's own cost).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def start_host(app: str, directory: Path) -> tuple[subprocess.Popen[str], int]:
    if app == "probe":
        command = [sys.executable, "-m", "tests.ssh.probe_host", str(directory)]
    else:
        command = [
            sys.executable, "-m", "nothanks_tui", "server", "--bind", "127.0.0.1", "--port", "0",
            "--ssh-port", "0", "--data-dir", str(directory), "--max-sessions", "1000",
        ]
    host = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert host.stdout is not None
    for line in host.stdout:
        found = re.search(r"ssh -p (\d+)", line)
        if found:
            return host, int(found.group(1))
    raise RuntimeError("the host did not say its SSH port")


def visitors(port: int, sessions: int, script: str, hold: bool) -> subprocess.Popen[str]:
    command = [
        sys.executable, "-m", "tests.ssh.visitors", "--port", str(port), "--sessions", str(sessions),
        "--concurrency", str(sessions), "--script", script,
    ] + (["--hold"] if hold else []) + (["--raw"] if script == "probe" else [])
    return subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def finish(process: subprocess.Popen[str]) -> dict[str, object]:
    output, _ = process.communicate(timeout=600)
    result = json.loads(output.strip().splitlines()[-1])
    if result["failures"]:
        raise RuntimeError(f"{len(result['failures'])} visitors failed, first: {result['failures'][0]}")
    return result


def measure(app: str, sessions: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as directory:
        host, port = start_host(app, Path(directory))
        try:
            finish(visitors(port, 1, app, hold=False))  # warm-up: imports, first app, caches
            time.sleep(1.0)  # let the warm-up session's app finish and its memory settle before the baseline
            baseline = rss_mib(host.pid)
            cpu_before, wall_before = cpu_seconds(host.pid), time.perf_counter()
            crowd = visitors(port, sessions, app, hold=True)
            assert crowd.stdout is not None and crowd.stdin is not None
            ready = json.loads(crowd.stdout.readline())
            if ready.get("failures"):
                crowd.stdin.write("\n")
                crowd.stdin.flush()
                finish(crowd)
            loaded = rss_mib(host.pid)
            crowd.stdin.write("\n")
            crowd.stdin.flush()
            result = finish(crowd)
            cpu = cpu_seconds(host.pid) - cpu_before
            wall = time.perf_counter() - wall_before
        finally:
            host.stdin.close()  # type: ignore[union-attr]
            host.terminate()
            host.wait(timeout=120)
    first = [value * 1000 for value in result["first_frame"]]  # type: ignore[union-attr]
    keys = [value * 1000 for value in result["key_to_update"]]  # type: ignore[union-attr]
    return {
        "sessions": sessions,
        "baseline_rss_mib": baseline,
        "loaded_rss_mib": loaded,
        "rss_per_session_mib": (loaded - baseline) / sessions,
        "first_frame_p50_ms": statistics.median(first),
        "first_frame_p99_ms": percentile(first, 0.99),
        "key_p50_ms": statistics.median(keys) if keys else float("nan"),
        "key_p99_ms": percentile(keys, 0.99),
        "keys_measured": len(keys),
        "host_cpu_s": cpu,
        "wall_s": wall,
        "host_cpu_share": cpu / wall,
        "host_cpu_ms_per_session": 1000 * cpu / sessions,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", default="10,50,200", help="comma-separated session counts (10,50,200)")
    parser.add_argument("--app", choices=("game", "probe"), default="game")
    parser.add_argument("--json", action="store_true", help="print one JSON object per line instead of a table")
    args = parser.parse_args()
    print(
        f"{'sessions':>8} {'RSS/session':>12} {'first frame p50/p99':>20} {'key p50/p99':>16} {'host CPU':>9}"
        f" {'CPU/session':>12}"
        if not args.json
        else "",
        end="\n" if not args.json else "",
    )
    for count in (int(text) for text in args.sessions.split(",")):
        row = measure(args.app, count)
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            print(
                f"{count:>8} {row['rss_per_session_mib']:>8.2f} MiB "
                f"{row['first_frame_p50_ms']:>9.0f} /{row['first_frame_p99_ms']:>5.0f} ms "
                f"{row['key_p50_ms']:>6.1f} /{row['key_p99_ms']:>5.1f} ms "
                f"{100 * row['host_cpu_share']:>7.0f} % "
                f"{row['host_cpu_ms_per_session']:>8.0f} ms",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
