"""An SSH front serving the probe app, as its own process: ``python -m tests.ssh.probe_host DIR``.

Prints ``SSH: players connect with `ssh -p PORT`` like ``nothanks server`` does, then serves until stdin closes.
scripts/bench_ssh.py uses it to measure the SSH front alone, without the game's screens.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from nothanks_server.ssh import SSHFront, SSHSettings

from .probe_app import ProbeApp


async def serve(directory: Path) -> None:
    front = SSHFront(
        SSHSettings(host_key_path=directory / "ssh_host_ed25519_key", port=0, max_sessions=1000),
        lambda player: ProbeApp(player, directory),
    )
    await front.start()
    sys.__stdout__.write(f"SSH: players connect with `ssh -p {front.port} play@<this host>`\n")
    sys.__stdout__.flush()
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await front.close()


if __name__ == "__main__":
    asyncio.run(serve(Path(sys.argv[1])))
