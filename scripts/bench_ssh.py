#!/usr/bin/env python3
"""The SSH front's benchmark: a real host (``nothanks server --ssh-port 0``, its SSH worker processes) and scripted
SSH players (tools/loadgen/visitors.py) in separate processes, on loopback. One mode per run:

- ``crowd``: ``--players`` (100) each connect, create a 3-seat table with two bots and play, thinking ``--think``
  (0.3-1.5 s) before each move, for ``--play-seconds``; meanwhile ``--newcomers`` arrive one by one and wait for
  their first screen. Reports each key's time from the key to the screen showing its effect (p50 / p99 / max),
  the newcomers' first screen (TCP connect to the screen drawn), every stall of a worker's event loop over 50 ms
  (from the host's log: every player of that worker saw it), and the memory of every process of the host (PSS:
  the host, the forkserver, the workers) with everyone connected, per player.
- ``arrivals``: ``--players`` (50) connect in the same instant: each one's first screen (p50 / p99 / max).
- ``leak``: ``--sessions`` (1,000) come and go, ``--concurrency`` (25) at a time, each to the lobby and away; the
  host's PSS (every process) before, and after its workers have recycled.

Every line says the machine's load average (``uptime``) when the run began and ended: the machine is shared.
Run from the repository root: ``.venv/bin/python scripts/bench_ssh.py crowd [--players 100] [--ssh-workers 2]``.
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
STALL = re.compile(r"ssh-worker-(\d+) .*event loop stalled (\d+) ms")
RECYCLED = re.compile(r"SSH worker \d+ recycled")


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (the host, its forkserver and SSH workers, the resource tracker)."""
    found = [pid]
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return found
    for child in children:
        found += process_tree(int(child))
    return found


def pss_mib(pid: int) -> float:
    """Proportional set size of ``pid`` and its descendants: each shared page counted once in all."""
    total = 0.0
    for member in process_tree(pid):
        try:
            for line in Path(f"/proc/{member}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1]) / 1024
        except OSError:
            pass  # it ended meanwhile
    return total


def cpu_seconds(pid: int) -> float:
    total = 0.0
    for member in process_tree(pid):
        try:
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(value) for value in fields[11:15]) / TICKS
    return total


def load() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 1)[0]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))]


def spread(values: list[float]) -> str:
    """p50 / p99 / max of seconds, in ms."""
    ms = [1000 * value for value in values]
    if not ms:
        return "-"
    return f"{statistics.median(ms):.0f} / {percentile(ms, 0.99):.0f} / {max(ms):.0f} ms (n={len(ms)})"


class Host:
    """A ``nothanks server`` with an SSH port in a temporary directory, its log in a file."""

    def __init__(self, workers: int, worker_sessions: int, worker_mib: int) -> None:
        self.directory = tempfile.TemporaryDirectory()
        self.log = Path(self.directory.name) / "host.log"
        command = [
            sys.executable, "-m", "nothanks_tui", "server", "--bind", "127.0.0.1", "--port", "0", "--ssh-port", "0",
            "--data-dir", self.directory.name, "--max-sessions", "1000", "--ssh-workers", str(workers),
            "--ssh-worker-sessions", str(worker_sessions), "--ssh-worker-mib", str(worker_mib), "--verbose",
            # every benchmark player comes from 127.0.0.1: lift the per-address limits, as bench_host.py does
            "--per-address-connections", "5000", "--connects-per-minute", "1000000",
            "--per-address-tables", "5000", "--per-address-spectating", "5000",
            "--ssh-per-address", "5000", "--ssh-logins-per-address", "5000", "--ssh-connect-rate", "0",
            # and the login total, now counted by network at the front: one network (this one) arrives all at once
            "--max-logins", "500",
        ]  # fmt: skip
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True
            )
        assert self.process.stdout is not None
        for line in self.process.stdout:
            found = re.search(r"ssh -p (\d+)", line)
            if found:
                self.port = int(found.group(1))
                return
        raise RuntimeError("the host did not say its SSH port: " + self.log.read_text()[-2000:])

    def log_text(self, start: int = 0) -> str:
        with self.log.open(encoding="utf-8", errors="replace") as lines:
            lines.seek(start)
            return lines.read()

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=120)
        keep = os.environ.get("BENCH_SSH_KEEP_LOG")
        if keep:
            Path(keep).write_text(self.log_text())
        self.directory.cleanup()


def visitors(port: int, *arguments: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "tools.loadgen.visitors", "--port", str(port), *arguments]
    return subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def finish(process: subprocess.Popen[str], timeout: float = 1800) -> dict[str, list[float]]:
    output, _ = process.communicate(timeout=timeout)
    result = json.loads(output.strip().splitlines()[-1])
    if result["failures"]:
        raise RuntimeError(f"{len(result['failures'])} visitors failed, first: {result['failures'][0]}")
    return result


def warm_up(host: Host) -> None:
    finish(visitors(host.port, "--sessions", "2", "--script", "game", "--screen", "fast"))


def crowd(args: argparse.Namespace) -> dict[str, object]:
    host = Host(args.ssh_workers, args.worker_sessions, args.worker_mib)
    try:
        warm_up(host)
        idle_pss = pss_mib(host.process.pid)
        log_start = host.log.stat().st_size
        cpu_before, wall_before = cpu_seconds(host.process.pid), time.perf_counter()
        shares = [args.players // args.visitor_processes + (index < args.players % args.visitor_processes)
                  for index in range(args.visitor_processes)]  # fmt: skip
        crowds = [
            visitors(
                host.port,
                "--sessions",
                str(share),
                "--concurrency",
                str(share),
                "--script",
                "game",
                "--hold",
                "--play-seconds",
                str(args.play_seconds),
                "--newcomers",
                str(args.newcomers if index == 0 else 0),
                "--think",
                args.think,
                "--screen",
                "fast",
            )
            for index, share in enumerate(shares)
        ]
        for process in crowds:
            assert process.stdout is not None
            json.loads(process.stdout.readline())  # all of this process's players played (the host keeps them)
        loaded_pss = pss_mib(host.process.pid)
        for process in crowds:
            assert process.stdin is not None
            process.stdin.write("\n")
            process.stdin.flush()
        host_cpu = cpu_seconds(host.process.pid) - cpu_before
        wall = time.perf_counter() - wall_before
        results = [finish(process) for process in crowds]
        stalls = [int(found[2]) for found in STALL.finditer(host.log_text(log_start))]
    finally:
        host.stop()
    merged = {name: [value for one in results for value in one[name]] for name in results[0] if name != "failures"
              and isinstance(results[0][name], list)}  # fmt: skip
    steady = [key for key, pressed in zip(merged["key_to_update"], merged["key_into_play"]) if pressed >= args.settle]
    return {
        "key to screen (p50/p99/max)": spread(merged["key_to_update"]),
        f"... pressed {args.settle:.0f} s or more into play": spread(steady),
        "newcomer first screen": spread(merged["newcomer_first_frame"]),
        "burst first screen": spread(merged["first_frame"]),
        "worker stalls > 50 ms": f"{len(stalls)}, longest {max(stalls, default=0)} ms",
        "PSS idle / with all": f"{idle_pss:.0f} / {loaded_pss:.0f} MiB",
        "PSS per player": f"{loaded_pss / args.players:.2f} MiB (all processes / players)",
        "host CPU": f"{100 * host_cpu / wall:.0f} % of one core",
        "visitors' own loop lag p99": f"{1000 * percentile(merged['visitors_loop_lag'], 0.99):.0f} ms",
    }


def arrivals(args: argparse.Namespace) -> dict[str, object]:
    host = Host(args.ssh_workers, args.worker_sessions, args.worker_mib)
    try:
        warm_up(host)
        log_start = host.log.stat().st_size
        result = finish(visitors(host.port, "--sessions", str(args.players), "--concurrency", str(args.players),
                                 "--script", "game", "--screen", "fast"))  # fmt: skip
        stalls = [int(found[2]) for found in STALL.finditer(host.log_text(log_start))]
    finally:
        host.stop()
    return {
        "first screen (p50/p99/max)": spread(result["first_frame"]),
        "all within 2 s": max(result["first_frame"]) < 2.0,
        "worker stalls > 50 ms": f"{len(stalls)}, longest {max(stalls, default=0)} ms",
    }


def leak(args: argparse.Namespace) -> dict[str, object]:
    host = Host(args.ssh_workers, args.worker_sessions, args.worker_mib)
    try:
        warm_up(host)
        before = pss_mib(host.process.pid)
        cpu_before = cpu_seconds(host.process.pid)
        started = time.perf_counter()
        result = finish(visitors(host.port, "--sessions", str(args.sessions), "--concurrency", str(args.concurrency),
                                 "--script", "lobby", "--screen", "fast"))  # fmt: skip
        took = time.perf_counter() - started
        cpu = cpu_seconds(host.process.pid) - cpu_before  # finished workers' CPU counts through their parent
        peak_workers = len(process_tree(host.process.pid))
        deadline = time.monotonic() + 120
        wanted = args.sessions // args.worker_sessions
        while len(RECYCLED.findall(host.log_text())) < wanted and time.monotonic() < deadline:
            time.sleep(0.5)  # a worker's exit has no event to wait on from here
        time.sleep(2.0)  # the last departures reach the lobby over TCP
        after = pss_mib(host.process.pid)
        recycled = len(RECYCLED.findall(host.log_text()))
    finally:
        host.stop()
    return {
        "sessions": f"{len(result['first_frame'])} in {took:.0f} s",
        "host CPU per session": f"{1000 * cpu / args.sessions:.0f} ms (connect, first screen, lobby, leave)",
        "first screen": spread(result["first_frame"]),
        "PSS before / after": f"{before:.1f} / {after:.1f} MiB",
        "grown": f"{after - before:+.1f} MiB",
        "workers recycled": recycled,
        "processes at the end": peak_workers,
    }


MODES = {"crowd": crowd, "arrivals": arrivals, "leak": leak}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=sorted(MODES))
    parser.add_argument("--players", type=int, default=None, help="crowd: 100; arrivals: 50")
    parser.add_argument("--play-seconds", type=float, default=60.0, help="crowd: how long everyone plays (60)")
    parser.add_argument("--newcomers", type=int, default=20, help="crowd: arriving one by one during play (20)")
    parser.add_argument("--think", default="0.3,1.5", help="crowd: MIN,MAX seconds before each move (0.3,1.5)")
    parser.add_argument("--settle", type=float, default=10.0, help="crowd: steady keys start this far into play (10)")
    parser.add_argument("--visitor-processes", type=int, default=2, help="crowd: split the players (2)")
    parser.add_argument("--sessions", type=int, default=1000, help="leak: sessions that come and go (1000)")
    parser.add_argument("--concurrency", type=int, default=25, help="leak: at a time (25)")
    parser.add_argument("--ssh-workers", type=int, default=2, help="the host's --ssh-workers (2)")
    parser.add_argument("--worker-sessions", type=int, default=200, help="the host's --ssh-worker-sessions (200)")
    parser.add_argument("--worker-mib", type=int, default=768, help="the host's --ssh-worker-mib (768)")
    args = parser.parse_args()
    if args.players is None:
        args.players = 100 if args.mode == "crowd" else 50
    load_before = load()
    row = MODES[args.mode](args)
    settings = f"workers {args.ssh_workers}, recycle after {args.worker_sessions} sessions or {args.worker_mib} MiB"
    print(f"{args.mode}: {settings}; load {load_before} -> {load()}")
    for name, value in row.items():
        print(f"  {name}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
