"""What a hostile SSH client can send without harming the host: env requests by the thousand, keys by the megabyte."""

from __future__ import annotations

import re

from nothanks_server.ssh import environment, server
from nothanks_server.ssh.environment import KEPT_VARIABLES, MAX_VALUE, SessionEnvironment

from .terminal_client import TerminalClient


async def test_thousands_of_env_requests_keep_only_the_games_variables(start_front, monkeypatch):
    kept: list[SessionEnvironment] = []

    def recording(chan, peer="?"):
        kept.append(environment.limit_environment(chan, peer))
        return kept[-1]

    monkeypatch.setattr(server, "limit_environment", recording)
    front = await start_front()
    junk = {f"JUNK_{index}": "x" * 1000 for index in range(3000)}
    env = junk | {"COLORTERM": "truecolor", "LANG": "en_US.UTF-8", "LC_ALL": "y" * (MAX_VALUE + 1)}
    client = await TerminalClient().connect(front.port, env=env)
    await client.wait_for("No Thanks!")
    assert re.search(rb"\x1b\[[0-9;]*38;2;255;128;0", bytes(client.raw))  # COLORTERM=truecolor still counted
    client.send("z")
    await client.wait_for("last: z")
    [session_env] = kept
    assert session_env.requests == len(env)
    assert dict(session_env) == {b"COLORTERM": b"truecolor", b"LANG": b"en_US.UTF-8"}
    assert set(session_env) <= KEPT_VARIABLES
    await client.close()


def test_asyncssh_still_stores_env_requests_where_we_bound_them():
    environment.check_environment_internals()  # raises EnvironmentInternalsChanged otherwise
