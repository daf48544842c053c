#!/usr/bin/env python3
"""What one ``ssh play@host`` costs in CPU until the first screen, phase by phase (issue 14's newcomer targets).

Wall-clock times on this shared machine move tenfold with the load; CPU time (``time.process_time``) of the process
doing the work moves less, though still with it (the same tree measured 32 to 55 ms a login at load 5: run the trees
to compare alternately, several times), and page faults not at all. So this script drives real SSH logins, one at a
time, and reports the CPU milliseconds and minor page faults each login cost, split into phases. Two modes:

- ``phases``: an SSH worker like the front's (``ssh/worker.py``: the forkserver's warm-up ``ssh/preload.py``
  imported first, the same patches, ``SessionServer`` with the game's app factory), in a child process listening on
  a TCP port of its own, with marks at each phase (wrappers installed in that child only). With ``--fresh`` every
  login gets a worker forked for it from the warmed process, as a newcomer to a quiet host does (a worker whose
  last player left is recycled); without, one worker serves every login, as during a crowd. Phases (each line
  the CPU of the worker between two marks):

  ``accept -> kex``        asyncssh's connection set up, version exchange, key exchange (to the first userauth)
  ``kex -> auth``          authentication (open door: keyboard-interactive with no questions)
  ``auth -> session``      the session channel, pty and shell requests
  ``app made``             ``SSHGameApp`` constructed (the app factory)
  ``to run_async``         the seat look-up and the session's preparation, to ``App.run_async``
  ``css + load``           Textual's prelude: every CSS source read and parsed, the Load event, the driver built
  ``app compose + mount``  from the driver's start to ``App._ready``: the app's compose, mount and styles
  ``welcome compose+mount`` from ``_ready`` to the welcome screen's ``on_mount`` (its widgets composed, mounted)
  ``first frame``          from there to the last write before the client saw the whole screen (layout, render)
  ``teardown``             from the client's disconnect to the connection closed (the app's exit)

  with the bytes of output until the first screen, the algorithms negotiated, the client's wall time to the
  screen, and the worker's memory. ``--together N`` then has N clients log in at once on the same worker (CPU and
  page faults per login, the worker loop's longest lateness). ``--try FILE`` runs a Python file in the worker
  first (a change to measure before making it); ``--kex ALG`` limits the asyncssh client to one key exchange.
  ``--profile FILE`` also runs cProfile in the worker over the logins (CPU then doubles or triples: use it for
  where, not how much) and prints the functions with the most cumulative time.
- ``host``: a real ``nothanks server`` (one SSH worker), logins one at a time; CPU per login of the host process
  (the front: accept, per-address counts, handover) and of its worker processes (forkserver children, from
  ``/proc``; a finished worker's CPU counts through its parent), minus what the host does idle meanwhile.

``--client asyncssh`` (the default; the loadgen's ``TerminalClient``) or ``--client ssh`` (OpenSSH's client in a
pty, as players connect). Run from the repository root:
``.venv/bin/python scripts/ssh_login_cost.py phases --logins 20 [--fresh] [--client ssh]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import gc
import multiprocessing
import os
import pty
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tools/ (the scripted SSH players) is not installed
FIRST_SCREEN = "Go to the tables"  # the welcome screen's button: drawn last of its widgets' text
TICKS = os.sysconf("SC_CLK_TCK")
PHASES = (
    ("accept -> kex", "accepted", "kex done"),
    ("kex -> auth", "kex done", "authenticated"),
    ("auth -> session", "authenticated", "session started"),
    ("app made", "session started", "app made"),
    ("to run_async", "app made", "run_async"),
    ("css + load", "run_async", "driver built"),
    ("app compose + mount", "driver built", "ready"),
    ("welcome compose+mount", "ready", "welcome mounted"),
    ("first frame", "welcome mounted", "screen written"),
)
TOTAL = ("accept -> screen", "accepted", "screen written")
TEARDOWN = ("teardown", "disconnect seen", "closed")


# The worker side (a child process) -------------------------------------------------------------------------------


class Marks:
    """CPU and wall time at each named point of the login being served (one login at a time)."""

    def __init__(self) -> None:
        self.points: dict[str, tuple[float, float, int]] = {}  # name -> (wall, CPU, minor page faults so far)
        self.writes: list[tuple[float, float, int, int]] = []  # (wall, CPU, bytes, faults) of each write to the channel
        self.extra: dict[str, Any] = {}

    def mark(self, name: str, again: bool = False) -> None:
        if again or name not in self.points:
            faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt  # a fresh worker's copy-on-write, mostly
            self.points[name] = (time.perf_counter(), time.process_time(), faults)


MARKS = Marks()


def _wrap(owner: Any, name: str, before: str | None = None, after: str | None = None) -> None:
    """Mark ``before`` as ``owner.name`` is called and ``after`` once it returned (or, for a coroutine function,
    once its coroutine finished)."""
    original = getattr(owner, name)
    if asyncio.iscoroutinefunction(original):

        @functools.wraps(original)  # Textual reads a handler's signature to know whether to pass the event
        async def wrapped_async(*args: Any, **kwargs: Any) -> Any:
            if before:
                MARKS.mark(before)
            result = await original(*args, **kwargs)
            if after:
                MARKS.mark(after)
            return result

        setattr(owner, name, wrapped_async)
    else:

        @functools.wraps(original)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            if before:
                MARKS.mark(before)
            result = original(*args, **kwargs)
            if after:
                MARKS.mark(after)
            return result

        setattr(owner, name, wrapped)


def _instrument() -> None:
    """Install the marks (in the measuring child only)."""
    from textual.app import App

    from nothanks_server.ssh import server as ssh_server
    from nothanks_server.ssh import session as ssh_session
    from nothanks_server.ssh.driver import ChannelDriver
    from nothanks_tui.client.screens.welcome import WelcomeScreen

    _wrap(ssh_server._Gate, "begin_auth", before="kex done")
    _wrap(ssh_server._Gate, "auth_completed", before="authenticated")
    _wrap(ssh_session.GameSession, "session_started", before="session started")
    _wrap(ssh_server.SessionServer, "app_starting", before="run_async")
    _wrap(ChannelDriver, "__init__", after="driver built")
    _wrap(App, "_ready", before="ready")
    _wrap(WelcomeScreen, "on_mount", before="welcome mounted")
    import asyncssh.connection

    get_kex = asyncssh.connection.get_kex

    def noted_kex(conn: Any, alg: bytes) -> Any:
        MARKS.extra["kex"] = alg
        return get_kex(conn, alg)

    asyncssh.connection.get_kex = noted_kex
    _wrap(ssh_session.GameSession, "connection_lost", before="disconnect seen")
    _wrap(ssh_session.GameSession, "eof_received", before="disconnect seen")
    send_output = ssh_session.GameSession.send_output

    def counted_send_output(self: Any, text: str) -> None:
        wall = time.perf_counter()  # before: the client (on another core) may have read it before this returns
        send_output(self, text)
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        MARKS.writes.append((wall, time.process_time(), len(text.encode("utf-8", "replace")), faults))

    ssh_session.GameSession.send_output = counted_send_output  # type: ignore[method-assign]
    gate_connection_made = ssh_server._Gate.connection_made

    def connection_made(self: Any, conn: Any) -> None:
        gate_connection_made(self, conn)
        MARKS.extra["conn"] = conn

    ssh_server._Gate.connection_made = connection_made  # type: ignore[method-assign]


def _algorithms(conn: Any) -> str:
    """The key exchange, host key, cipher and MAC negotiated (asyncssh's internals, read for this report only)."""
    kex = MARKS.extra.get("kex", b"?")
    host_key = getattr(conn, "_server_host_key_algs", None)
    chosen = getattr(conn, "_server_host_key", None)
    host_key_name = getattr(chosen, "algorithm", b"?") if chosen is not None else (host_key or [b"?"])[0]
    cipher = conn.get_extra_info("send_cipher")
    mac = conn.get_extra_info("send_mac")
    names = [kex, host_key_name, cipher, mac]
    return ", ".join(name.decode() if isinstance(name, bytes) else str(name) for name in names)


def _resident_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def _serve_logins(
    listener: socket.socket,
    pipe: Connection,
    logins: int | None,
    profile: str | None,
    per_login: bool,
    together: int = 0,
) -> None:
    """Serve logins one at a time on ``listener``, like a worker; after each, send its marks up the pipe."""
    import cProfile

    from nothanks_server.ssh import patches
    from nothanks_server.ssh.game import make_app_factory
    from nothanks_server.ssh.server import SessionServer
    from nothanks_server.ssh.settings import SSHSettings, WorkerPlan

    patches.install()
    directory = tempfile.mkdtemp(prefix="ssh-login-cost-")
    settings = SSHSettings(host_key_path=Path(directory) / "host_key", port=0, max_sessions=1000)
    plan = WorkerPlan(slot=0, ssh=settings, lobby_host="127.0.0.1", lobby_port=9, data_dir=Path(directory),
                      log_level=30)  # fmt: skip
    server = SessionServer(settings, make_app_factory(plan))
    await server.prepare()  # as worker.py does before it says it is ready (with the app factory's own warm-up)
    make_app = server.app_factory

    def marked_app_factory(player: Any) -> Any:
        app = make_app(player)
        MARKS.mark("app made")
        return app

    server.app_factory = marked_app_factory
    closed = asyncio.Event()
    server.tell = lambda message: closed.set() if message[:1] == b"x" else None
    loop = asyncio.get_running_loop()
    profiler = cProfile.Profile() if profile else None
    gc.collect()
    gc.freeze()  # as worker.py's _Freezer does before its first player
    listener.setblocking(False)
    served = 0
    while logins is None or served < logins:
        pipe.send(("ready", None))
        connection, _ = await loop.sock_accept(listener)
        MARKS.__init__()  # type: ignore[misc]  # (a fresh set of marks for this login)
        MARKS.mark("accepted")
        if profiler is not None:
            profiler.enable()
        closed.clear()
        server.serve(connection)
        seen = await _receive(pipe)  # the client's wall time when it saw the screen
        await closed.wait()
        MARKS.mark("closed")
        if profiler is not None:
            profiler.disable()
        gc.freeze()  # as the worker's periodic freeze does
        conn = MARKS.extra.pop("conn", None)
        written = [write for write in MARKS.writes if write[0] <= seen]
        if written:
            MARKS.points["screen written"] = (written[-1][0], written[-1][1], written[-1][3])
        pipe.send(
            (
                "login",
                {
                    "points": MARKS.points,
                    "bytes": sum(size for _, _, size, _ in written),
                    "writes": len(written),
                    "write_sizes": [size for _, _, size, _ in written],
                    "write_cpu": [round(1000 * (cpu - MARKS.points["accepted"][1]), 1) for _, cpu, _, _ in written],
                    "algorithms": _algorithms(conn) if conn is not None else "?",
                    "rss_kib": _resident_kib(),
                },
            )
        )
        served += 1
        if per_login:
            break
    if together:
        pipe.send(("together", await _serve_together(server, listener, pipe, together)))
    await server.close()
    if profiler is not None and profile:
        profiler.dump_stats(profile if not per_login else f"{profile}.{os.getpid()}")


async def _serve_together(server: Any, listener: socket.socket, pipe: Connection, count: int) -> dict[str, Any]:
    """Serve ``count`` logins arriving at once: the worker's CPU and page faults until every client saw its screen,
    and its event loop's longest lateness meanwhile (what every player of the worker waited)."""
    loop = asyncio.get_running_loop()
    closed = 0
    all_closed = asyncio.Event()

    def one_closed(message: bytes) -> None:
        nonlocal closed
        closed += message[:1] == b"x"
        if closed >= count:
            all_closed.set()

    server.tell = one_closed
    late = [0.0]

    async def watch() -> None:
        while True:
            due = loop.time() + 0.02
            await asyncio.sleep(0.02)  # the watch's period: what is measured is how late it wakes
            late[0] = max(late[0], loop.time() - due)

    async def accept_all() -> None:
        for _ in range(count):
            connection, _ = await loop.sock_accept(listener)
            server.serve(connection)

    pipe.send(("ready", None))
    cpu, faults = time.process_time(), resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    watching, accepting = loop.create_task(watch()), loop.create_task(accept_all())
    await _receive(pipe)  # every client saw its screen
    used = time.process_time() - cpu
    faulted = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    watching.cancel()
    await accepting
    await all_closed.wait()
    return {"cpu_ms": 1000 * used / count, "faults": faulted / count, "late_ms": 1000 * late[0]}


async def _receive(pipe: Connection) -> Any:
    """The next object on ``pipe``, waiting on the loop (no thread: its CPU would count as the login's)."""
    loop = asyncio.get_running_loop()
    readable = asyncio.Event()
    loop.add_reader(pipe.fileno(), readable.set)
    try:
        while not pipe.poll():
            readable.clear()
            await readable.wait()
    finally:
        loop.remove_reader(pipe.fileno())
    return pipe.recv()


def _worker_child(
    pipe: Connection, fresh: bool, logins: int, profile: str | None, trying: str | None, together: int = 0
) -> None:
    """The measuring worker: the forkserver's warm-up, then one worker for all logins, or one forked per login."""
    if trying:  # a change to measure before making it: run in the worker before anything is imported or drawn
        exec(compile(Path(trying).read_text(), trying, "exec"), {"__name__": "__trying__"})
    import nothanks_server.ssh.preload  # noqa: F401  (the forkserver's warm-up, exactly: imports, first screen, freeze)

    _instrument()
    listener = socket.create_server(("127.0.0.1", 0), backlog=64)
    pipe.send(("port", listener.getsockname()[1]))
    if not fresh:
        asyncio.run(_serve_logins(listener, pipe, logins, profile, per_login=False, together=together))
        return
    for _ in range(logins):
        child = os.fork()
        if child == 0:
            try:
                asyncio.run(_serve_logins(listener, pipe, 1, profile, per_login=True))
            finally:
                os._exit(0)
        os.waitpid(child, 0)


# The client side (this process) --------------------------------------------------------------------------------


async def _login_asyncssh(port: int, kex: str | None = None) -> float:
    """One login with asyncssh's client (the loadgen's terminal): seconds to the first screen; then hang up."""
    from tools.loadgen.terminal_client import TerminalClient

    client = TerminalClient(screen="fast")
    await client.connect(port, "play", **({"kex_algs": [kex]} if kex else {}))
    await client.wait_for(FIRST_SCREEN, timeout=60)
    seen = client.last_output_at
    await client.close()
    return seen


async def _logins_at_once(port: int, count: int, kex: str | None) -> list[float]:
    """``count`` asyncssh logins started together: each one's seconds to its screen (all hang up once all saw)."""
    from tools.loadgen.terminal_client import TerminalClient

    async def one() -> tuple[TerminalClient, float]:
        client = TerminalClient(screen="fast")
        started = time.perf_counter()
        await client.connect(port, "play", **({"kex_algs": [kex]} if kex else {}))
        await client.wait_for(FIRST_SCREEN, timeout=120)
        return client, client.last_output_at - started

    done = await asyncio.gather(*(one() for _ in range(count)))
    for client, _ in done:
        await client.close()
    return [wall for _, wall in done]


def _login_openssh(port: int) -> float:
    """One login with OpenSSH's ``ssh`` in a pty, 80x24, no keys: the wall time it showed the first screen."""
    primary, secondary = pty.openpty()
    import fcntl
    import struct
    import termios

    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    command = ["ssh", "-tt", "-p", str(port), "-F", "/dev/null", "-o", "StrictHostKeyChecking=no",
               "-o", "UserKnownHostsFile=/dev/null", "-o", "PubkeyAuthentication=no", "-o", "LogLevel=ERROR",
               "play@127.0.0.1"]  # fmt: skip
    process = subprocess.Popen(command, stdin=secondary, stdout=secondary, stderr=secondary, close_fds=True,
                               env={**os.environ, "TERM": "xterm-256color"})  # fmt: skip
    os.close(secondary)
    received = b""
    seen = 0.0
    try:
        deadline = time.monotonic() + 60
        while FIRST_SCREEN.encode() not in received:
            if time.monotonic() > deadline:
                raise RuntimeError("no first screen from ssh: " + received[-400:].decode(errors="replace"))
            try:
                received += os.read(primary, 65536)
            except OSError as error:
                raise RuntimeError("ssh ended: " + received[-400:].decode(errors="replace")) from error
            seen = time.perf_counter()
    finally:
        process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)
        os.close(primary)
    return seen


def _login(client: str, port: int, kex: str | None = None) -> float:
    if client == "ssh":
        return _login_openssh(port)
    return asyncio.run(_login_asyncssh(port, kex))


def _ms(values: list[float]) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    return f"{statistics.median(ordered):6.1f} {ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]:6.1f}"


def phases(args: argparse.Namespace) -> int:
    context = multiprocessing.get_context("fork")
    ours, theirs = context.Pipe()
    worker = context.Process(
        target=_worker_child,
        args=(theirs, args.fresh, args.logins, args.profile, args.trying, args.together),
        daemon=True,
    )
    worker.start()
    kind, port = ours.recv()
    assert kind == "port"
    load_before = Path("/proc/loadavg").read_text().split()[0]
    rows: list[dict[str, Any]] = []
    walls: list[float] = []
    for _ in range(args.logins):
        kind, _ = ours.recv()  # the worker serving the next login is ready
        assert kind == "ready"
        started = time.perf_counter()
        seen = _login(args.client, port, args.kex)
        walls.append(seen - started)
        ours.send(seen)
        kind, row = ours.recv()
        assert kind == "login"
        rows.append(row)
    crowd: dict[str, Any] | None = None
    if args.together:
        kind, _ = ours.recv()
        assert kind == "ready"
        crowd_walls = asyncio.run(_logins_at_once(port, args.together, args.kex))
        ours.send(max(crowd_walls))
        kind, crowd = ours.recv()
        assert kind == "together" and crowd is not None
        crowd["walls"] = crowd_walls
    worker.join(timeout=60)
    load_after = Path("/proc/loadavg").read_text().split()[0]
    print(f"phases: {args.logins} logins, {'a fresh worker each' if args.fresh else 'one worker'}, "
          f"client {args.client}; load {load_before} -> {load_after}")  # fmt: skip
    print(f"  negotiated: {rows[-1]['algorithms']}")
    print(f"  {'CPU ms of the worker':<24} {'p50':>6} {'p90':>6}   page faults p50")
    skip = 1 if not args.fresh and args.logins > 2 else 0  # a reused worker's first login is its warm-up
    measured = rows[skip:]
    for name, start, end in (*PHASES, TOTAL, TEARDOWN):
        values = [1000 * (row["points"][end][1] - row["points"][start][1]) for row in measured
                  if start in row["points"] and end in row["points"]]  # fmt: skip
        faults = [row["points"][end][2] - row["points"][start][2] for row in measured
                  if start in row["points"] and end in row["points"]]  # fmt: skip
        print(f"  {name:<24} {_ms(values)}   {statistics.median(faults) if faults else '-'}")
    print(f"  {'wall ms to the screen':<24} {_ms([1000 * wall for wall in walls[skip:]])}  (client's view)")
    print(f"  output to the first screen: {statistics.median(row['bytes'] for row in measured):.0f} bytes in "
          f"{statistics.median(row['writes'] for row in measured):.0f} writes (p50)")  # fmt: skip
    print(
        f"  writes (bytes, CPU ms since accept) of the last login: "
        f"{list(zip(measured[-1]['write_sizes'], measured[-1]['write_cpu']))}"
    )
    marks = sorted(measured[-1]["points"].items(), key=lambda item: item[1][1])
    print(
        "  marks of the last login (CPU ms since accept): "
        + ", ".join(f"{name} {1000 * (cpu - measured[-1]['points']['accepted'][1]):.1f}" for name, (_, cpu, _) in marks)
    )
    print(f"  worker RSS after the logins: {measured[-1]['rss_kib'] / 1024:.1f} MiB")
    if crowd is not None:
        print(f"  then {args.together} logins at once on that worker: CPU {crowd['cpu_ms']:.1f} ms and "
              f"{crowd['faults']:.0f} page faults per login; its loop up to {crowd['late_ms']:.0f} ms late; "
              f"wall ms to the screen p50 / p90 {_ms([1000 * wall for wall in crowd['walls']])}")  # fmt: skip
    if args.profile:
        _print_profile(args.profile, args.fresh, args.top)
    return 0


def _print_profile(path: str, fresh: bool, top: int) -> None:
    import pstats

    files = [str(found) for found in Path(path).parent.glob(Path(path).name + ".*")] if fresh else [path]
    stats = pstats.Stats(*files)
    stats.sort_stats("cumulative").print_stats(top)


# A real host ---------------------------------------------------------------------------------------------------


def _tree(pid: int) -> list[int]:
    found = [pid]
    with contextlib.suppress(OSError):
        for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
            found += _tree(int(child))
    return found


def _cpu(pids: list[int], children: bool = True) -> float:
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(value) for value in fields[11 : 15 if children else 13]) / TICKS
    return total


def host(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory() as directory:
        command = [sys.executable, "-m", "nothanks_tui", "server", "--bind", "127.0.0.1", "--port", "0",
                   "--ssh-port", "0", "--data-dir", directory, "--ssh-workers", "1", "--no-advertise"]  # fmt: skip
        process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            assert process.stdout is not None
            port = 0
            for line in process.stdout:
                found = re.search(r"ssh -p (\d+)", line)
                if found:
                    port = int(found.group(1))
                    break
            _login(args.client, port)  # the first worker's first player (off the measured logins)
            time.sleep(2.0)  # the empty worker is recycled: a fresh one for the next newcomer, as on a quiet host
            idle_host = _cpu([process.pid], children=False)
            idle_started = time.perf_counter()
            time.sleep(3.0)  # what the host spends doing nothing, per second, to take off the logins' figures
            idle_seconds = time.perf_counter() - idle_started
            idle_host_rate = (_cpu([process.pid], children=False) - idle_host) / idle_seconds
            load_before = Path("/proc/loadavg").read_text().split()[0]
            host_before = _cpu([process.pid], children=False)
            workers_before = _cpu(_tree(process.pid), children=True) - _cpu([process.pid], children=False)
            started = time.perf_counter()
            walls = []
            for _ in range(args.logins):
                began = time.perf_counter()
                walls.append(_login(args.client, port) - began)
            took = time.perf_counter() - started
            time.sleep(1.0)  # the last worker's exit is accounted to its parent once it is reaped
            host_cpu = _cpu([process.pid], children=False) - host_before - idle_host_rate * (took + 1.0)
            workers_cpu = _cpu(_tree(process.pid), children=True) - _cpu([process.pid], children=False)
            workers_cpu -= workers_before
        finally:
            process.terminate()
            process.wait(timeout=60)
    load_after = Path("/proc/loadavg").read_text().split()[0]
    print(f"host: {args.logins} logins one at a time, client {args.client}; load {load_before} -> {load_after}")
    print(f"  host process (front) CPU per login: {1000 * host_cpu / args.logins:.1f} ms (idle rate taken off)")
    print(f"  workers' CPU per login (start, login, first screen, exit): {1000 * workers_cpu / args.logins:.1f} ms")
    print(f"  wall ms to the screen p50 / p90: {_ms([1000 * wall for wall in walls])}")
    return 0


MODES: dict[str, Callable[[argparse.Namespace], int]] = {"phases": phases, "host": host}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=sorted(MODES))
    parser.add_argument("--logins", type=int, default=20)
    parser.add_argument("--fresh", action="store_true", help="phases: a worker forked for each login")
    parser.add_argument("--client", choices=("asyncssh", "ssh"), default="asyncssh")
    parser.add_argument("--profile", help="phases: cProfile the worker into this file, print the top functions")
    parser.add_argument("--try", dest="trying", help="phases: a Python file run in the worker first (a change to try)")
    parser.add_argument("--together", type=int, default=0, help="phases: then this many logins at once (one worker)")
    parser.add_argument("--kex", help="asyncssh client: offer only this key exchange (e.g. curve25519-sha256)")
    parser.add_argument("--top", type=int, default=40, help="phases: functions printed with --profile (40)")
    args = parser.parse_args()
    return MODES[args.mode](args)


if __name__ == "__main__":
    raise SystemExit(main())
