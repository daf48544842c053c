#!/usr/bin/env python3
"""What a client flooding the SSH transport costs the host and the other players (server/nothanks_server/ssh/
inbound_shaper.py): the benchmark behind docs/benchmarks.md, "SSH front, eighth pass".

A host (lobby and SSH front, the game's app) runs in this process. Two more processes, started from this script
with ``--clients``, hold the clients: one the N flooders, which log in and then send empty SSH_MSG_IGNORE packets
as fast as their socket takes them (the cheapest packet to send, each one decrypted and parsed by the host); the
other a player who sits at the first screen and types a letter every 0.1 s into the name field, timing each key
from the press to the letter drawn on their screen (a process of its own, so that the flooders' busy loop is not
in the times). Each configuration runs twice: without the inbound budget (``inbound_rate=0``)
and with the default one.

Reported per run: the host's CPU (its process only) as a share of one core, the player's key-to-screen p50 / p99
/ max, the flood's packets sent by the clients and the bytes the host accepted from the flooders a second.

Run from the repository root: ``.venv/bin/python scripts/bench_ssh_flood.py [--flooders 1,4] [--seconds 15]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.ssh.terminal_client is imported from the repository root

NAME_KEYS = "qxzjvkwy"  # typed into the name field, then erased: a pair of them appears nowhere else on the screen


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))] if ordered else float("nan")


# The clients' process -----------------------------------------------------------------------------------------


async def flood(port: int, until: float, sent: list[int]) -> None:
    import asyncssh
    from asyncssh.constants import MSG_IGNORE
    from asyncssh.packet import String

    conn = await asyncssh.connect(
        "127.0.0.1", port, username="flood", password="", known_hosts=None, client_keys=None, agent_path=None
    )
    transport = conn._transport  # to see how much is still unsent: the socket's back-pressure
    count = 0
    while time.monotonic() < until and not transport.is_closing():
        for _ in range(200):
            conn.send_packet(MSG_IGNORE, String(b""))
        count += 200
        while transport.get_write_buffer_size() > 256 * 1024 and time.monotonic() < until:
            await asyncio.sleep(0.002)
        await asyncio.sleep(0)
    sent.append(count)
    conn.close()


async def type_keys(port: int, until: float, latencies: list[float]) -> None:
    from tests.ssh.terminal_client import TerminalClient

    player = await TerminalClient().connect(port, "play")
    await player.wait_for("Go to the tables", timeout=60)
    typed = ""
    while time.monotonic() < until:
        if len(typed) == len(NAME_KEYS):
            player.send("\x7f" * len(typed))
            await player.wait_for(lambda: NAME_KEYS[:2] not in player.text(), timeout=60)
            typed = ""
        typed += NAME_KEYS[len(typed)]
        started = time.perf_counter()
        player.send(typed[-1])
        await player.wait_for(lambda shown=typed: shown in player.text(), timeout=60)
        latencies.append(time.perf_counter() - started)
        await asyncio.sleep(0.1)
    await player.close()


async def clients(port: int, flooders: int, seconds: float) -> None:
    """The flooders (``flooders`` > 0) or the player (0), for ``seconds``; prints what they saw as JSON."""
    until = time.monotonic() + seconds
    if flooders:
        sent: list[int] = []
        await asyncio.gather(*(flood(port, until, sent) for _ in range(flooders)))
        print(json.dumps({"sent": sum(sent)}))
    else:
        latencies: list[float] = []
        await type_keys(port, until, latencies)
        print(json.dumps({"latencies": latencies}))


# The host's process -------------------------------------------------------------------------------------------


async def one_run(flooders: int, seconds: float, budget: bool) -> dict[str, float]:
    from nothanks_server import Lobby, LobbySettings
    from nothanks_server.ssh import SSHFront, SSHSettings
    from nothanks_server.ssh import server as ssh_server
    from nothanks_server.ssh.game import game_app_factory
    from nothanks_server.ssh.inbound_shaper import INBOUND_RATE

    shapers: list[object] = []
    shape_inbound = ssh_server.shape_inbound

    def recording(conn, **options):  # type: ignore[no-untyped-def]
        shaper = shape_inbound(conn, **options)
        shapers.append(shaper)
        return shaper

    ssh_server.shape_inbound = recording
    settings = SSHSettings(
        host_key_path=Path(tempfile.mkdtemp()) / "host_key", port=0, inbound_rate=INBOUND_RATE if budget else 0
    )
    front = SSHFront(settings, game_app_factory(Lobby(LobbySettings())))
    await front.start()
    try:
        cpu, wall = time.process_time(), time.perf_counter()
        flooding, playing = [
            await asyncio.create_subprocess_exec(
                sys.executable,
                __file__,
                "--clients",
                str(front.port),
                "--flooders",
                str(count),
                "--seconds",
                str(seconds),
                stdout=asyncio.subprocess.PIPE,
                cwd=ROOT,
            )
            for count in (flooders, 0)
        ]
        (flood_output, _), (play_output, _) = await asyncio.gather(flooding.communicate(), playing.communicate())
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    finally:
        ssh_server.shape_inbound = shape_inbound
        await front.close()
    result = json.loads(flood_output.decode().strip().splitlines()[-1])
    result |= json.loads(play_output.decode().strip().splitlines()[-1])
    latencies = result["latencies"]
    # The player's connection is the first or the second: the flooders' are the ones with the most bytes.
    accepted = sorted((shaper.delivered for shaper in shapers), reverse=True)[:flooders]  # type: ignore[attr-defined]
    return {
        "flooders": flooders,
        "budget": budget,
        "host_cpu": 100 * cpu / wall,
        "key_p50": 1000 * percentile(latencies, 0.5),
        "key_p99": 1000 * percentile(latencies, 0.99),
        "key_max": 1000 * max(latencies),
        "keys": len(latencies),
        "packets_sent": result["sent"],
        "accepted_per_s": sum(accepted) / seconds if budget else float("nan"),
        "held": front.connections_held,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flooders", default="1,4", help="comma-separated numbers of flooding clients (1,4)")
    parser.add_argument("--seconds", type=float, default=15.0, help="how long each run floods and types (15)")
    parser.add_argument("--clients", type=int, metavar="PORT", help=argparse.SUPPRESS)  # the clients' process
    options = parser.parse_args()
    if options.clients is not None:
        asyncio.run(clients(options.clients, int(options.flooders), options.seconds))
        return 0
    print("flooders  budget  host CPU  key p50 / p99 / max (keys)  IGNORE packets sent  flood accepted")
    rows = []
    for flooders in (int(item) for item in options.flooders.split(",")):
        for budget in (False, True):
            row = asyncio.run(one_run(flooders, options.seconds, budget))
            rows.append(row)
            accepted = f"{row['accepted_per_s'] / 1000:.1f} kB/s" if budget else "(not counted)"
            sys.__stdout__.write(
                f"{flooders:>8}  {'on' if budget else 'off':>6}  {row['host_cpu']:>7.0f} %  "
                f"{row['key_p50']:>7.0f} / {row['key_p99']:.0f} / {row['key_max']:.0f} ms ({row['keys']})"
                f"  {row['packets_sent']:>19,}  {accepted}\n"
            )
            sys.__stdout__.flush()
    print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
