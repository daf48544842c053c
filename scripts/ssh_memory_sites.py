#!/usr/bin/env python3
"""What one more SSH player costs an SSH worker, by allocation site: tracemalloc, so the load of the machine does
not change the answer (docs/benchmarks.md, "What an SSH player's memory is made of").

``measure`` starts three processes from one source tree (``--tree``, this repository by default, or any older
checkout: its own code runs in all three, through ``PYTHONPATH``):

- the host (``nothanks server`` on a loopback port, no SSH front of its own);
- a stand-in SSH worker (this script, ``_worker``): it imports ``nothanks_server.ssh.preload`` as the front's
  forkserver does (every import, the first screen drawn headless, ``gc.freeze``), then runs the tree's own
  ``SessionServer`` with the tree's app factory on a listening socket, freezing its heap every second as a real
  worker does; tracemalloc traces everything from after the preload;
- the tree's scripted SSH visitors (``tools.loadgen.visitors``; ``nothanks_server.ssh.loadgen.visitors`` in older
  trees; real asyncssh clients with a pty):
  two come and go to warm the worker up, then ``--players`` each name themselves, create a 3-seat table with two
  bots, start and play for ``--play-seconds`` (the ``crowd`` script of scripts/bench_ssh.py), and stay connected.

Snapshots: ``base`` after the warm-up (its garbage collected), ``held`` with every player connected (what the
worker holds: frozen garbage included), ``live`` the same after a full collection (the heap unfrozen first), and
``gone`` once every player has left. Each difference from ``base``, divided by the number of players, is written
to ``--json`` grouped four ways (the allocating line; its file; the nearest frame of our own code; the package),
with the worker's own PSS and private memory as a cross-check (it includes tracemalloc's own bookkeeping).

``compare OLD.json NEW.json`` prints the totals and the groups that moved most between two measurements.

    .venv/bin/python scripts/ssh_memory_sites.py measure --players 10 --json /tmp/new.json
    git archive 6f5b775 | tar -x -C /tmp/old   # an older tree: same venv, its code on PYTHONPATH
    .venv/bin/python scripts/ssh_memory_sites.py measure --tree /tmp/old --json /tmp/old.json
    .venv/bin/python scripts/ssh_memory_sites.py compare /tmp/old.json /tmp/new.json
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import linecache
import os
import re
import socket
import subprocess
import sys
import sysconfig
import tempfile
import tracemalloc
import types
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OURS = ("nothanks_tui/", "nothanks_server/")
KIB = 1024


# The measuring side ----------------------------------------------------------------------------------------------


def tree_environment(tree: Path) -> dict[str, str]:
    """The environment that runs ``tree``'s code: its packages first on the path."""
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join([str(tree), str(tree / "server")])
    environment.pop("PYTHONTRACEMALLOC", None)
    return environment


def start_host(tree: Path, data_dir: str) -> tuple[subprocess.Popen[str], int]:
    command = [
        sys.executable, "-m", "nothanks_tui", "server", "--bind", "127.0.0.1", "--port", "0", "--data-dir", data_dir,
        # every visitor comes from 127.0.0.1: lift the per-address limits, as scripts/bench_ssh.py does
        "--per-address-connections", "5000", "--connects-per-minute", "1000000",
        "--per-address-tables", "5000", "--per-address-spectating", "5000",
    ]  # fmt: skip
    if "--no-advertise" in (tree / "nothanks_tui" / "commands" / "net.py").read_text():
        command.append("--no-advertise")
    host = subprocess.Popen(
        command, cwd=tree, env=tree_environment(tree), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert host.stdout is not None
    for line in host.stdout:
        found = re.search(r"listening on [^ ]*:(\d+)", line)
        if found:
            return host, int(found.group(1))
    raise RuntimeError("the host did not say its port")


def visitors(tree: Path, port: int, *arguments: str) -> subprocess.Popen[str]:
    module = (
        "tools.loadgen.visitors" if (tree / "tools" / "loadgen").is_dir() else "nothanks_server.ssh.loadgen.visitors"
    )
    command = [sys.executable, "-m", module, "--port", str(port), "--screen", "fast"]
    return subprocess.Popen(
        [*command, *arguments], cwd=tree, env=tree_environment(tree), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip


def finished(process: subprocess.Popen[str], timeout: float = 600) -> None:
    output, _ = process.communicate(timeout=timeout)
    result = json.loads(output.strip().splitlines()[-1])
    if result["failures"]:
        raise RuntimeError(f"visitors failed: {result['failures'][:3]}")


class Worker:
    """The stand-in worker process, told what to do one line at a time on its stdin."""

    def __init__(self, tree: Path, host_port: int, scratch: str, frames: int) -> None:
        command = [sys.executable, str(Path(__file__).resolve()), "_worker", "--host-port", str(host_port),
                   "--scratch", scratch, "--frames", str(frames)]  # fmt: skip
        self.process = subprocess.Popen(
            command, cwd=tree, env=tree_environment(tree), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.port = int(self.ask("port")["port"])

    def ask(self, request: str) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(request + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the worker ended while asked {request!r}")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=60)


def normalise(filename: str, tree: Path) -> str:
    """A file name that reads the same whichever tree or virtual environment it was measured in."""
    if "site-packages/" in filename:
        return filename.split("site-packages/", 1)[1]
    for root in (str(tree / "server") + "/", str(tree) + "/"):
        if filename.startswith(root):
            return filename[len(root) :]
    stdlib = sysconfig.get_paths()["stdlib"] + "/"
    if filename.startswith(stdlib):
        return "stdlib/" + filename[len(stdlib) :]
    return filename


def package_of(name: str) -> str:
    """``nothanks_tui/client/widgets/x.py`` -> ``nothanks_tui/client/widgets``; ``textual/...`` -> ``textual``."""
    parts = name.split("/")
    if parts[0] in ("nothanks_tui", "nothanks_server"):
        return "/".join(parts[: min(3, len(parts) - 1)])
    if parts[0] == "stdlib":
        return "stdlib/" + parts[1].removesuffix(".py")
    return parts[0].removesuffix(".py")


GROUPINGS = ("package", "file", "ours-file", "ours", "line")


def grouped(diffs: list[tracemalloc.StatisticDiff], tree: Path, players: int) -> dict[str, dict[str, float]]:
    """Bytes per player by the allocating line, its file, the nearest frame of our code (and its file), and the
    package. A line is named by its file and its text, so that two trees compare where lines moved."""
    groups: dict[str, dict[str, float]] = {name: defaultdict(float) for name in GROUPINGS}
    texts: dict[tuple[str, int], str] = {}

    def line_key(name: str, number: int) -> str:
        if (name, number) not in texts:
            texts[name, number] = source_line(f"{name}:{number}", tree)
        return f"{name}: {texts[name, number]}" if texts[name, number] else f"{name}:{number}"

    for diff in diffs:
        if not diff.size_diff:
            continue
        frames = [(normalise(frame.filename, tree), frame.lineno) for frame in diff.traceback]  # innermost last
        inner, line = frames[-1]
        ours = next(((name, number) for name, number in reversed(frames) if name.startswith(OURS)), None)
        share = diff.size_diff / players
        groups["line"][line_key(inner, line)] += share
        groups["file"][inner] += share
        groups["ours"][line_key(*ours) if ours else "(none)"] += share
        groups["ours-file"][ours[0] if ours else "(none)"] += share
        groups["package"][package_of(inner)] += share
    return {name: dict(sorted(found.items(), key=lambda item: -abs(item[1]))) for name, found in groups.items()}


def source_line(key: str, tree: Path) -> str:
    """The text of ``file:line`` in ``tree`` or the environment, for the report."""
    name, _, number = key.rpartition(":")
    if not number.isdigit():
        return ""
    for base in (tree, tree / "server", Path(sysconfig.get_paths()["purelib"]), Path(sysconfig.get_paths()["stdlib"])):
        path = base / name.removeprefix("stdlib/")
        if path.is_file():
            return linecache.getline(str(path), int(number)).strip()
    return ""


def measure(args: argparse.Namespace) -> int:
    tree = Path(args.tree).resolve()
    commit = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    with tempfile.TemporaryDirectory() as scratch:
        host, host_port = start_host(tree, scratch)
        worker: Worker | None = None
        try:
            worker = Worker(tree, host_port, scratch, args.frames)
            finished(visitors(tree, worker.port, "--sessions", "2", "--concurrency", "1", "--script", "game"))
            worker.ask("wait-empty")
            memory = {"base": worker.ask("snapshot base live")}
            # The players arrive one after another (a traced worker is several times slower: a crowd arriving at
            # once would time its visitors out), each plays its own table, then stays connected.
            crowd = []
            for _ in range(args.players):
                crowd.append(visitors(
                    tree, worker.port, "--sessions", "1", "--concurrency", "1", "--script", "game", "--hold",
                    "--play-seconds", str(args.play_seconds), "--think", args.think,
                ))  # fmt: skip
                assert crowd[-1].stdout is not None
                json.loads(crowd[-1].stdout.readline())  # it played and is still connected
            memory["held"] = worker.ask("snapshot held as-is")
            memory["live"] = worker.ask("snapshot live live")
            for player in crowd:
                assert player.stdin is not None
                player.stdin.write("\n")
                player.stdin.flush()
            for player in crowd:
                finished(player)
            worker.ask("wait-empty")
            memory["gone"] = worker.ask("snapshot gone live")
            left_behind = worker.ask("apps")
            frozen = worker.ask("frozen")["frozen"]
        finally:
            if worker is not None:
                worker.stop()
            host.terminate()
            host.wait(timeout=60)
        snapshots = {name: tracemalloc.Snapshot.load(str(Path(scratch) / f"{name}.snapshot")) for name in memory}
    base = snapshots["base"]
    result: dict[str, Any] = {
        "tree": str(tree),
        "commit": commit.stdout.strip(),
        "players": args.players,
        "play_seconds": args.play_seconds,
        "load": [os.getloadavg()[0]],
        "process_mib": memory,
        "apps_left_behind": left_behind,
        "frozen_heap": frozen,
        "per_player": {},
        "groups": {},
    }
    for name in ("held", "live", "gone"):
        diffs = snapshots[name].compare_to(base, "traceback")
        result["per_player"][name] = sum(diff.size_diff for diff in diffs) / args.players
        result["groups"][name] = grouped(diffs, tree, args.players)
    Path(args.json).write_text(json.dumps(result, indent=1))
    print(f"{tree} ({result['commit']}), {args.players} players, load {os.getloadavg()[0]:.2f}")
    for name in ("held", "live", "gone"):
        print(f"  {name}: {result['per_player'][name] / KIB / KIB:.3f} MiB per player (tracemalloc)")
    for name in ("base", "held", "live", "gone"):
        print(f"  worker {name}: {memory[name]}")
    print(f"  apps alive once all had left: {left_behind['apps']}")
    if frozen is not None:
        print(f"  the worker's frozen heap: {frozen}")
    for holder in left_behind["held by"]:
        print(f"    held by {holder}")
    for grouping in ("package", "ours-file"):
        print(f"  top {grouping} (live, KiB per player):")
        for key, size in list(result["groups"]["live"][grouping].items())[: args.top]:
            print(f"    {size / KIB:9.1f}  {key}")
    return 0


def compare(args: argparse.Namespace) -> int:
    old, new = (json.loads(Path(name).read_text()) for name in (args.old, args.new))
    print(f"old: {old['tree']} ({old['commit']}), new: {new['tree']} ({new['commit']}); players {old['players']}/"
          f"{new['players']}")  # fmt: skip
    for name in ("held", "live", "gone"):
        before, after = old["per_player"][name] / KIB, new["per_player"][name] / KIB
        print(f"  {name}: {before:.0f} -> {after:.0f} KiB per player ({after - before:+.0f})")
    for grouping in GROUPINGS:
        print(f"\n{args.snapshot}, by {grouping}: KiB per player, old -> new (difference), largest differences")
        olds, news = old["groups"][args.snapshot].get(grouping, {}), new["groups"][args.snapshot].get(grouping, {})
        keys = sorted(set(olds) | set(news), key=lambda key: -abs(news.get(key, 0.0) - olds.get(key, 0.0)))
        for key in keys[: args.top]:
            before, after = olds.get(key, 0.0) / KIB, news.get(key, 0.0) / KIB
            print(f"  {before:8.1f} -> {after:8.1f} ({after - before:+8.1f})  {key[:100]}")
    return 0


# The stand-in worker ----------------------------------------------------------------------------------------------


def private_mib() -> dict[str, float]:
    found: dict[str, float] = {}
    for line in Path("/proc/self/smaps_rollup").read_text().splitlines():
        field, _, value = line.partition(":")
        if field in ("Rss", "Pss", "Private_Dirty", "Private_Clean"):
            found[field] = round(int(value.split()[0]) / KIB, 2)
    return found


async def serve(args: argparse.Namespace) -> None:
    from textual.app import App

    from nothanks_server.ssh import patches
    from nothanks_server.ssh import settings as ssh_settings
    from nothanks_server.ssh.server import SessionServer
    from nothanks_server.ssh.worker import load_app_factory

    # a worker's patches
    for name in ("install", "divide_without_cycles", "share_parsed_css", "lazy_strip_caches"):
        if hasattr(patches, name):
            getattr(patches, name)()
    fields = ssh_settings.SSHSettings.__dataclass_fields__
    extra: dict[str, Any] = {}
    if "bot_choices" in fields:  # what the host passes its workers: the new-table dialog's bots
        from nothanks_tui.bots import offered_bots
        from nothanks_tui.defaults import DEFAULT_BOT

        extra = {"bot_choices": tuple(offered_bots(DEFAULT_BOT)), "default_bot": DEFAULT_BOT}
    settings = ssh_settings.SSHSettings(
        host_key_path=Path(args.scratch) / "ssh_host_key", port=0, max_sessions=1000, max_logins=1000, **extra
    )
    plan = ssh_settings.WorkerPlan(
        slot=0, ssh=settings, lobby_host="127.0.0.1", lobby_port=args.host_port, data_dir=Path(args.scratch),
        log_level=30,
    )  # fmt: skip
    factory = load_app_factory(plan)
    freezer: Any = None
    try:  # a tree whose workers collect before each freeze (ssh/worker.py) does here as they do
        from nothanks_server.ssh.worker import Freezer
    except ImportError:
        pass
    else:
        freezer = Freezer()
    server = SessionServer(settings, factory)
    await server.prepare()
    loop = asyncio.get_running_loop()
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)

    def accept() -> None:
        try:
            connection, _ = listener.accept()
        except BlockingIOError:
            return
        server.serve(connection)

    loop.add_reader(listener.fileno(), accept)

    def freeze() -> None:  # an older worker's freezer: everything alive so far is left out of later collections
        gc.freeze()
        loop.call_later(1.0, freeze)

    if freezer is not None:
        freezer.start(loop)
    else:
        loop.call_later(1.0, freeze)
    # Textual points sys.stdout at a running app while one runs: answer through a file of our own
    requests = os.fdopen(os.dup(0), "r")
    answers = os.fdopen(os.dup(1), "w")
    while True:
        request = (await loop.run_in_executor(None, requests.readline)).split()
        if not request:
            return
        if request[0] == "port":
            answer: dict[str, Any] = {"port": listener.getsockname()[1]}
        elif request[0] == "wait-empty":
            await server.wait_until(lambda: server.connections == 0 and server.running_apps == 0, 120)
            answer = {"empty": True}
        elif request[0] == "frozen":
            answer = {"frozen": freezer.summary() if freezer is not None else None}
        elif request[0] == "apps":  # the apps still alive once every player has left, and what holds the first
            gc.unfreeze()
            gc.collect()
            apps = [thing for thing in gc.get_objects() if isinstance(thing, App)]
            answer = {"apps": len(apps), "held by": holders(apps[0]) if apps else []}
            del apps
            gc.freeze()
        else:  # snapshot NAME live|as-is
            name, how = request[1], request[2]
            if how == "live":
                gc.unfreeze()
                gc.collect()
            snapshot = tracemalloc.take_snapshot()
            snapshot.dump(str(Path(args.scratch) / f"{name}.snapshot"))
            del snapshot
            answer = {**private_mib(), "traced": round(tracemalloc.get_traced_memory()[0] / KIB / KIB, 2)}
            gc.freeze()
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


def holders(target: object, depth: int = 6) -> list[str]:
    """A chain of referrers from ``target`` outwards (one each, skipping frames and this module's own lists): what
    keeps a departed player's app alive."""
    chain: list[str] = []
    seen = {id(target)}
    here = target
    for _ in range(depth):
        referrers = [
            thing for thing in gc.get_referrers(here)
            if id(thing) not in seen and not isinstance(thing, types.FrameType) and thing is not chain
        ]  # fmt: skip
        if not referrers:
            break
        here = next((thing for thing in referrers if not isinstance(thing, list)), referrers[0])
        seen.add(id(here))
        chain.append(f"{type(here).__module__}.{type(here).__qualname__}: {repr(here)[:120]}")
    return chain


def worker_main(args: argparse.Namespace) -> int:
    import nothanks_server.ssh.preload  # noqa: F401  (the forkserver's state: imports, first screen drawn, frozen)

    tracemalloc.start(args.frames)
    asyncio.run(serve(args))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    modes = parser.add_subparsers(dest="mode", required=True)
    run = modes.add_parser("measure", help="measure one tree")
    run.add_argument("--tree", default=str(ROOT), help="the source tree to measure (this one)")
    run.add_argument("--players", type=int, default=10)
    run.add_argument("--play-seconds", type=float, default=20.0)
    run.add_argument("--think", default="0.3,1.5", help="MIN,MAX seconds each player waits before a move")
    run.add_argument("--frames", type=int, default=12, help="frames kept per allocation (12: more slows the worker)")
    run.add_argument("--json", required=True, help="where to write the result")
    run.add_argument("--top", type=int, default=15)
    against = modes.add_parser("compare", help="two measurements side by side")
    against.add_argument("old")
    against.add_argument("new")
    against.add_argument("--snapshot", default="live", choices=("held", "live", "gone"))
    against.add_argument("--top", type=int, default=20)
    worker = modes.add_parser("_worker")  # run by measure, in the measured tree's environment
    worker.add_argument("--host-port", type=int, required=True)
    worker.add_argument("--scratch", required=True)
    worker.add_argument("--frames", type=int, default=30)
    args = parser.parse_args()
    return {"measure": measure, "compare": compare, "_worker": worker_main}[args.mode](args)


if __name__ == "__main__":
    raise SystemExit(main())
