"""``NO_COLOR`` over SSH (issue 29, defect 12): a client that sends it (``ssh -o SetEnv=NO_COLOR=1``, ``SendEnv
NO_COLOR``), or a monochrome TERM (``TERM=xterm-mono ssh ...``), gets no colour codes at all, as locally; the other
players of the same worker keep theirs, and the worker's own environment is never touched."""

from __future__ import annotations

import os

import pytest

from nothanks_server.ssh.driver import color_system_for
from nothanks_server.ssh.patches import KEPT_VARIABLES
from tools.loadgen.terminal_client import TerminalClient

from ..client.test_no_color import SGR, colour_codes


@pytest.mark.parametrize(
    ("term", "env", "expected"),
    [
        ("xterm-256color", {"NO_COLOR": "1"}, "none"),
        ("xterm-256color", {"NO_COLOR": "1", "COLORTERM": "truecolor"}, "none"),
        ("xterm-mono", {}, "none"),
        ("linux-m", {}, "none"),
        ("dumb", {}, "none"),
        ("xterm-256color", {}, "256"),
        ("xterm-256color", {"COLORTERM": "truecolor"}, "truecolor"),
    ],
)
def test_no_color_or_a_monochrome_term_means_no_colour_system(term, env, expected):
    assert b"NO_COLOR" in KEPT_VARIABLES
    assert color_system_for(term, env) == expected


async def test_each_ssh_session_without_colour_gets_no_colour_codes(game_sessions):
    plain = await TerminalClient().connect(game_sessions.port, "ada", env={"NO_COLOR": "1"})
    mono = await TerminalClient().connect(game_sessions.port, "bob", term="xterm-mono")
    coloured = await TerminalClient().connect(game_sessions.port, "cyd")
    for client in (plain, mono, coloured):
        await client.wait_for("Go to the tables")  # the whole first frame, down to its key bar
        client.send("\r")
        await client.wait_for("No tables yet")
    assert "NO_COLOR" not in os.environ  # the worker's environment: the other sessions share it
    for client in (plain, mono):
        output = bytes(client.raw)
        assert SGR.search(output), "bold and reverse still mark things"
        assert colour_codes(output) == []
    assert colour_codes(bytes(coloured.raw))
    for client in (plain, mono, coloured):
        await client.close()
