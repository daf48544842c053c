#!/usr/bin/env python3
"""Chaos for the host's store: SIGKILL a real ``nothanks server`` again and again, check nothing is lost.

Runs ``nothanks server --data-dir D`` on loopback with many tables (scripted TCP players and bots), SIGKILLs it at
random moments (some right after a game ended, while its record is written), restarts it with the same data dir
and checks every table, every acknowledged move and every record (tools/chaos.py says how).
Bounded: --kills, --seconds. Prints a summary table; exit status 1 if anything was lost.

    .venv/bin/python scripts/chaos_host.py [--kills 30] [--tables 8] [--seconds 600] [--data-dir DIR]
    .venv/bin/python scripts/chaos_host.py --kills 20 --tables 10 --turn-timer 0.3 --away 3   (bots finish games
        while the players are away: every seat token must still resume)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/ (the chaos run) is not installed

from tools.chaos import ChaosSettings, run_chaos


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=30, help="SIGKILLs (default 30)")
    parser.add_argument("--tables", type=int, default=8, help="tables kept in play (default 8)")
    parser.add_argument("--players", type=int, default=3, help="seats per table (default 3)")
    parser.add_argument("--humans", type=int, default=2, help="scripted TCP players per table, the rest bots (2)")
    parser.add_argument("--seconds", type=float, default=600.0, help="time budget (default 600)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bot-pace", type=float, default=0.1, help="the host's --bot-pace (default 0.1)")
    parser.add_argument("--turn-timer", type=float, default=None, help="the host's --turn-timer (default off)")
    parser.add_argument("--away", type=float, default=0.0, help="players come back up to this late (seconds; 0)")
    parser.add_argument("--data-dir", type=Path, default=None, help="default: a new temporary directory")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="nothanks-chaos-") as temp:
        data_dir = args.data_dir or Path(temp) / "data"
        settings = ChaosSettings(
            data_dir=data_dir,
            kills=args.kills,
            tables=args.tables,
            players=args.players,
            humans=args.humans,
            seconds=args.seconds,
            seed=args.seed,
            bot_pace=args.bot_pace,
            turn_timer=args.turn_timer,
            away=args.away,
        )
        print(f"load before: {os.getloadavg()}; cpus: {os.cpu_count()}; data dir {data_dir}", flush=True)
        report = run_chaos(settings)
        print(report.table())
        print(f"load after: {os.getloadavg()}")
    return 1 if report.problems else 0


if __name__ == "__main__":
    sys.exit(main())
