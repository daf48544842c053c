#!/usr/bin/env python3
"""Benchmark of the SSH front: N concurrent SSH sessions on loopback, each running the game's app in the host.

For each N (default 10, 50, 200) a fresh host process is started (``nothanks server --ssh-port 0``, bots moving
at their normal pace of 0.8 s), then one visitors process (tests/ssh/visitors.py) runs three phases:

1. Burst: all N visitors connect at the same moment, each waits for its first screen, enters a name, creates a
   3-seat table in the lobby, adds two bots and starts (the worst case: N people arriving in the same instant).
2. Play: once all N are seated, every visitor plays on for ``--play-seconds`` (No thanks! while it has chips,
   else take) against its bots. By default each moves the instant its turn shows, so all N tables move in
   lockstep (the worst case); ``--think 0.3,1.5`` makes each player wait a random 0.3 to 1.5 s before each move,
   as people do.
3. Newcomers: during the play phase, ``--newcomers`` more visitors arrive one after another, each waiting for its
   first screen and leaving: what someone connecting to a host with N players sees.

Reported (all times measured at the visitor, from the key or the TCP connect to the output that shows it):

- host RSS per session: (host RSS with all N connected - host RSS after one warm-up session) / N; with
  ``--ssh-workers N`` the host counts with its worker processes (the warm-up's baseline includes their start-up)
- burst first frame: TCP connect to the first screen fully drawn, for the N arriving at once
- setup key: each key on the way to the table (name, lobby, waiting room), during the burst
- newcomer first frame: TCP connect to the first screen for a visitor arriving while N play
- play key: key press to the screen showing its effect, while all N play (the game's key-to-update), over the
  whole play phase; "steady" counts only the keys pressed ``--settle`` seconds (5) or more after play began. The
  first seconds of play still carry the end of the burst: N tables started in the same few seconds, their apps
  switching screens and every table making its first move at once. A host where people come and go never sees that;
  both are reported.
- host CPU: host process CPU time (with its workers') over the run, as a share of one core; visitors CPU likewise
  (the visitors' terminal emulators share the machine: near 100 % means the measurement itself is saturated)
- deep GC: the host's deep garbage collections after the warm-up (from its log), with each one's pause: every
  session waits that long, so one of them during play sets the keys' p99 (docs/benchmarks.md, sixth pass)
- sweeps: the finished apps the host freed by sweeping them (server/nothanks_server/ssh/sweeper.py), with the
  median and longest pause; "kept" counts those it could not free, left to a deep collection

The visitors read their screens through pyte by default; ``--screen fast`` gives them the cheap screen of
tests/ssh/fast_screen.py instead (the same text for the game's output, a fraction of the CPU), so that less of each
time measured is the visitors process's own lag. The choice is printed in the header (and in each JSON row).

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


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (the host and its SSH workers)."""
    found = [pid]
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        found += process_tree(int(child))
    return found


def rss_mib(pid: int) -> float:
    """Resident memory of ``pid`` and its descendants."""
    total = 0.0
    for member in process_tree(pid):
        for line in Path(f"/proc/{member}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1]) / 1024
    return total


def cpu_seconds(pid: int) -> float:
    """CPU time of ``pid`` and its live descendants (their own, plus what their finished children used)."""
    total = 0.0
    for member in process_tree(pid):
        fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
        total += sum(int(value) for value in fields[11:15]) / TICKS  # utime, stime, cutime, cstime
    return total


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


DEEP_COLLECTION = re.compile(r"deep garbage collection \((.+?)\):.* (\d+) ms")


SWEEP = re.compile(r"swept a finished app: .* (\d+) ms|a finished app is left to the deep collection: .*\((\d+) ms\)")


def sweeps(log: Path, start: int) -> tuple[list[int], int]:
    """(pause in ms of each sweep that freed a finished app, how many apps were left to the deep collection)
    logged by the host after byte ``start`` of its log (server/nothanks_server/ssh/sweeper.py)."""
    with log.open(encoding="utf-8", errors="replace") as lines:
        lines.seek(start)
        found = list(SWEEP.finditer(lines.read()))
    return [int(match[1]) for match in found if match[1] is not None], sum(1 for match in found if match[2])


def deep_collections(log: Path, start: int) -> list[tuple[str, int]]:
    """(reason, pause in ms) of each deep collection the host logged after byte ``start`` of its log."""
    with log.open(encoding="utf-8", errors="replace") as lines:
        lines.seek(start)
        return [(found[1], int(found[2])) for found in DEEP_COLLECTION.finditer(lines.read())]


def start_host(
    app: str, directory: Path, workers: int = 0, log: Path | None = None, sweep: bool = True
) -> tuple[subprocess.Popen[str], int]:
    if app == "probe":
        command = [sys.executable, "-m", "tests.ssh.probe_host", str(directory)]
    else:
        command = [
            sys.executable,
            "-m",
            "nothanks_tui",
            "server",
            "--bind",
            "127.0.0.1",
            "--port",
            "0",
            "--ssh-port",
            "0",
            "--data-dir",
            str(directory),
            "--max-sessions",
            "1000",
            "--ssh-workers",
            str(workers),
            "--verbose",  # its log (to ``log``) says when it collected deeply, and for how long
            *([] if sweep else ["--no-ssh-sweep"]),
        ]
    log_file = log.open("w") if log is not None else None
    host = subprocess.Popen(
        command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log_file, text=True
    )
    if log_file is not None:
        log_file.close()  # the host has its own copy
    assert host.stdout is not None
    for line in host.stdout:
        found = re.search(r"ssh -p (\d+)", line)
        if found:
            return host, int(found.group(1))
    raise RuntimeError("the host did not say its SSH port")


def visitors(
    port: int,
    sessions: int,
    script: str,
    hold: bool,
    play_seconds: float = 0.0,
    newcomers: int = 0,
    think: str = "0,0",
    screen: str = "pyte",
) -> subprocess.Popen[str]:
    command = (
        [
            sys.executable,
            "-m",
            "tests.ssh.visitors",
            "--port",
            str(port),
            "--sessions",
            str(sessions),
            "--concurrency",
            str(sessions),
            "--script",
            script,
            "--play-seconds",
            str(play_seconds),
            "--newcomers",
            str(newcomers),
            "--think",
            think,
            "--screen",
            screen,
        ]
        + (["--hold"] if hold else [])
        + (["--raw"] if script == "probe" else [])
    )
    return subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def finish(process: subprocess.Popen[str]) -> dict[str, object]:
    output, _ = process.communicate(timeout=600)
    result = json.loads(output.strip().splitlines()[-1])
    if result["failures"]:
        raise RuntimeError(f"{len(result['failures'])} visitors failed, first: {result['failures'][0]}")
    return result


def measure(
    app: str,
    sessions: int,
    play_seconds: float,
    newcomers: int,
    think: str,
    settle: float = 5.0,
    workers: int = 0,
    visitor_processes: int = 1,
    screen: str = "pyte",
    sweep: bool = True,  # False: the host runs with --no-ssh-sweep
) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as directory:
        log = Path(directory) / "host.log"
        host, port = start_host(app, Path(directory), workers, log, sweep)
        try:
            finish(visitors(port, 1, app, hold=False, screen=screen))  # warm-up: imports, first app, caches
            time.sleep(1.0)  # let the warm-up session's app finish and its memory settle before the baseline
            log_start = log.stat().st_size
            baseline = rss_mib(host.pid)
            cpu_before, wall_before = cpu_seconds(host.pid), time.perf_counter()
            shares = [
                sessions // visitor_processes + (index < sessions % visitor_processes)
                for index in range(visitor_processes)
            ]
            crowds = [
                visitors(
                    port,
                    share,
                    app,
                    hold=True,
                    play_seconds=play_seconds,
                    newcomers=newcomers if index == 0 else 0,
                    think=think,
                    screen=screen,
                )
                for index, share in enumerate(shares)
                if share
            ]
            for crowd in crowds:
                assert crowd.stdout is not None
                ready = json.loads(crowd.stdout.readline())
                if ready.get("failures"):
                    for other in crowds:
                        other.stdin.write("\n")  # type: ignore[union-attr]
                        other.stdin.flush()  # type: ignore[union-attr]
                    for other in crowds:
                        finish(other)
            loaded = rss_mib(host.pid)
            for crowd in crowds:
                crowd.stdin.write("\n")  # type: ignore[union-attr]
                crowd.stdin.flush()  # type: ignore[union-attr]
            cpu = cpu_seconds(host.pid) - cpu_before
            crowd_cpu = sum(cpu_seconds(crowd.pid) for crowd in crowds)
            wall = time.perf_counter() - wall_before
            results = [finish(crowd) for crowd in crowds]
            collections = deep_collections(log, log_start)
            swept, kept = sweeps(log, log_start)
            result = {
                name: [value for one in results for value in one[name]]  # type: ignore[attr-defined]
                for name in results[0]
                if isinstance(results[0][name], list)
            }
        finally:
            host.stdin.close()  # type: ignore[union-attr]
            host.terminate()
            host.wait(timeout=120)
    row: dict[str, float] = {
        "sessions": sessions,
        "baseline_rss_mib": baseline,
        "loaded_rss_mib": loaded,
        "rss_per_session_mib": (loaded - baseline) / sessions,
        "host_cpu_s": cpu,
        "wall_s": wall,
        "host_cpu_share": cpu / wall,
        "visitors_cpu_share": crowd_cpu / wall,
        "deep_collections": len(collections),
        "deep_collection_ms": [pause for _reason, pause in collections],  # type: ignore[dict-item]
        "deep_collection_reasons": [reason for reason, _pause in collections],  # type: ignore[dict-item]
        "sweep_ms": swept,  # type: ignore[dict-item]
        "apps_left_to_deep_collection": kept,
    }
    for name in ("first_frame", "setup_key", "newcomer_first_frame", "key_to_update"):
        values = [value * 1000 for value in result[name]]  # type: ignore[union-attr]
        row[f"{name}_p50_ms"] = statistics.median(values) if values else float("nan")
        row[f"{name}_p99_ms"] = percentile(values, 0.99)
        row[f"{name}_count"] = len(values)
    steady = [
        1000 * value
        for value, pressed in zip(result["key_to_update"], result["key_into_play"])  # type: ignore[call-overload]
        if pressed >= settle
    ]
    row["steady_key_p50_ms"] = statistics.median(steady) if steady else float("nan")
    row["steady_key_p99_ms"] = percentile(steady, 0.99)
    row["steady_key_count"] = len(steady)
    lags = [1000 * value for value in result["visitors_loop_lag"]]  # type: ignore[union-attr]
    row["visitors_lag_p99_ms"] = percentile(lags, 0.99)
    return row


def deep_summary(row: dict[str, float]) -> str:
    """The host's deep collections in the run and their pauses in ms: "0", or "2 (931, 407)"."""
    pauses: list[int] = row["deep_collection_ms"]  # type: ignore[assignment]
    return f"{len(pauses)} ({', '.join(str(pause) for pause in pauses)})" if pauses else "0"


def sweep_summary(row: dict[str, float]) -> str:
    """Departures swept in the run, with their pauses' median and maximum in ms: "12 (p50 14, max 41)"."""
    pauses: list[int] = row["sweep_ms"]  # type: ignore[assignment]
    kept = f", {row['apps_left_to_deep_collection']:.0f} kept" if row["apps_left_to_deep_collection"] else ""
    if not pauses:
        return "0" + kept
    return f"{len(pauses)} (p50 {statistics.median(pauses):.0f}, max {max(pauses)}{kept})"


def pair(row: dict[str, float], name: str) -> str:
    return f"{row[f'{name}_p50_ms']:>6.0f} /{row[f'{name}_p99_ms']:>5.0f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", default="10,50,200", help="comma-separated session counts (10,50,200)")
    parser.add_argument("--app", choices=("game", "probe"), default="game")
    parser.add_argument("--play-seconds", type=float, default=20.0, help="length of the play phase (20)")
    parser.add_argument("--newcomers", type=int, default=10, help="visitors arriving one by one during play (10)")
    parser.add_argument("--think", default="0,0", help="MIN,MAX seconds a player waits before each move (0,0)")
    parser.add_argument("--ssh-workers", type=int, default=0, help="the host's --ssh-workers (0: in-process)")
    parser.add_argument("--no-sweep", action="store_true", help="the host runs with --no-ssh-sweep, to compare")
    parser.add_argument(
        "--visitor-processes", type=int, default=1, help="split the visitors over this many processes (1)"
    )
    parser.add_argument("--settle", type=float, default=5.0, help="steady keys: pressed this long into play (5)")
    parser.add_argument(
        "--screen",
        choices=("pyte", "fast"),
        default="pyte",
        help="the visitors' terminal emulator: pyte, or the cheap tests/ssh/fast_screen.py (pyte; probe: raw output)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object per line instead of a table")
    args = parser.parse_args()
    if args.app == "probe":
        args.play_seconds, args.newcomers = 0.0, 0
    screen = "raw" if args.app == "probe" else args.screen  # the probe's visitors match raw output, no emulator
    if not args.json:
        pace = "lockstep" if args.think in ("0", "0,0") else f"players think {args.think} s"
        where = f"{args.ssh_workers} SSH worker processes" if args.ssh_workers else "sessions in the host process"
        where += "; finished apps left to the deep collection (--no-sweep)" if args.no_sweep else ""
        print(f"times in ms, p50 / p99; (n) = samples; play: {pace}; {where}; visitors' screen: {screen}")
        print(
            f"{'sessions':>8} {'RSS/sess':>9} | {'burst first':>13} {'setup key':>13} | {'newcomer first':>14}"
            f" {'play key':>13} {'(n)':>5} {'steady key':>13} {'(n)':>5} | {'host CPU':>8} {'visitors':>8}"
            " | deep GC (ms) | sweeps (ms)"
        )
    for count in (int(text) for text in args.sessions.split(",")):
        row = measure(
            args.app,
            count,
            args.play_seconds,
            args.newcomers,
            args.think,
            args.settle,
            args.ssh_workers,
            args.visitor_processes,
            args.screen,
            not args.no_sweep,
        )
        if args.json:
            print(json.dumps({"screen": screen, **row}), flush=True)
        else:
            print(
                f"{count:>8} {row['rss_per_session_mib']:>5.2f} MiB | {pair(row, 'first_frame')} "
                f"{pair(row, 'setup_key')} | {pair(row, 'newcomer_first_frame'):>14} {pair(row, 'key_to_update')} "
                f"{row['key_to_update_count']:>5.0f} {pair(row, 'steady_key')} {row['steady_key_count']:>5.0f} | "
                f"{100 * row['host_cpu_share']:>6.0f} % "
                f"{100 * row['visitors_cpu_share']:>6.0f} % (lag p99 {row['visitors_lag_p99_ms']:.0f} ms)"
                f" | {deep_summary(row)} | {sweep_summary(row)}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
