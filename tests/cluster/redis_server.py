"""A real ``redis-server`` for the cluster tests, on a Unix socket in a temporary directory (no TCP port to find
or to collide on), with nothing saved to disk. Skipped without the program, except in CI, whose .ci/run installs
it (Debian's ``redis-server``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from .conftest import WAIT


def binary() -> str | None:
    found = shutil.which("redis-server")
    if found is None and os.access("/usr/bin/redis-server", os.X_OK):
        found = "/usr/bin/redis-server"
    return found


def require() -> str:
    """The program, or the test is skipped (failed under ``CI``)."""
    found = binary()
    if found is None:
        missing = "redis-server is not installed (apt-get install redis-server; .ci/run installs it when missing)"
        if os.environ.get("CI"):
            pytest.fail(f"{missing}: CI must run these tests")
        pytest.skip(missing)
    return found


@contextmanager
def running_redis(directory: Path, *options: str) -> Iterator[str]:
    """Start redis-server (its files in ``directory``, nothing saved unless ``options`` say so, e.g.
    ``--appendonly yes``), wait until it answers a PING, yield its URL (``unix://...``); stop it after."""
    import redis  # the test extra installs it; the host imports it only with --redis

    program = require()
    sock = directory / "redis.sock"
    log = directory / "redis.log"
    process = subprocess.Popen(
        [
            program,
            "--port",
            "0",
            "--unixsocket",
            str(sock),
            "--unixsocketperm",
            "700",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(directory),
            "--logfile",
            str(log),
            *options,
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + WAIT
        while True:  # its socket appears, then it answers
            if process.poll() is not None:
                raise RuntimeError(f"redis-server exited: {log.read_text(errors='replace') if log.exists() else ''}")
            try:
                redis.Redis(unix_socket_path=str(sock)).ping()
                break
            except (redis.ConnectionError, FileNotFoundError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
        yield f"unix://{sock}"
    finally:
        process.kill()  # as a crash would: what it acknowledged must survive that (test_movelog.py)
        process.wait()
