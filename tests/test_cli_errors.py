"""The command line's errors are one sentence in the user's language, with a non-zero exit code and no traceback
(issue 29, defect 11: ``join 127.0.0.1:abc`` said "invalid literal for int()", a busy port "[Errno 98] error while
attempting to bind on address ..."). Each case runs ``nothanks`` as a real process, as a user would."""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from .net_helpers import WAIT, local_server_process, nothanks_process

PYTHON_WORDS = ("Traceback", "Errno", "invalid literal", "int()", "attempting to bind", "Name or service")


@pytest.fixture
def busy() -> Iterator[int]:
    """A port something else listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


@pytest.fixture
def a_file(tmp_path) -> Path:
    path = tmp_path / "a-file"
    path.write_text("not a directory")
    return path


async def said(tmp_path: Path, *arguments: str) -> tuple[int, str]:
    """``nothanks ARGUMENTS`` with no terminal: (exit code, everything it printed, stdout and stderr)."""
    home = {f"XDG_{kind}_HOME": str(tmp_path / kind.lower()) for kind in ("STATE", "CONFIG", "DATA")}
    process = await nothanks_process(
        *arguments,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env={**os.environ, **home, "COLUMNS": "200"},
    )
    out, _ = await asyncio.wait_for(process.communicate(), WAIT * 2)
    return process.returncode, out.decode(errors="replace")


def one_sentence(code: int, text: str, *words: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    assert code != 0, text
    assert len(lines) == 1, text
    assert not any(word in text for word in PYTHON_WORDS), text
    for word in words:
        assert word in lines[0], text
    return lines[0]


@pytest.mark.parametrize(
    ("address", "english", "french"),
    [
        ("127.0.0.1:abc", "port", "port"),
        ("127.0.0.1:70000", "1 to 65535", "1 à 65535"),
        ("127.0.0.1:0", "1 to 65535", "1 à 65535"),
        ("[::1", "]", "]"),
        ("nosuch.invalid", "no machine of that name", "aucune machine"),
    ],
)
async def test_join_says_what_is_wrong_with_an_address(tmp_path, address, english, french):
    one_sentence(*await said(tmp_path, "--lang", "en", "join", address), "nothanks join:", english)
    one_sentence(*await said(tmp_path, "--lang", "fr", "join", address), "nothanks join", french)


@pytest.mark.parametrize("command", ["host", "server"])
async def test_a_busy_port_is_said_in_a_sentence(tmp_path, busy, command):
    data = str(tmp_path / "data")
    line = one_sentence(*await said(tmp_path, command, "--bind", "127.0.0.1", "--port", str(busy), "--data-dir", data))
    assert f"127.0.0.1:{busy}" in line and "another program is listening on that port" in line
    french = await said(
        tmp_path, "--lang", "fr", command, "--bind", "127.0.0.1", "--port", str(busy), "--data-dir", data
    )
    assert "un autre programme" in one_sentence(*french)


@pytest.mark.parametrize("command", ["host", "server"])
async def test_a_busy_ssh_port_names_the_ssh_port(tmp_path, busy, command):
    arguments = (command, "--bind", "127.0.0.1", "--port", "0", "--ssh-port", str(busy), "--ssh-workers", "1")
    line = one_sentence(*await said(tmp_path, *arguments, "--data-dir", str(tmp_path / "data")))
    assert f"SSH on 127.0.0.1:{busy}" in line and "another program" in line


@pytest.mark.parametrize("command", ["host", "server"])
async def test_a_bind_address_that_is_not_one_is_said_so(tmp_path, command):
    data = str(tmp_path / "data")
    line = one_sentence(*await said(tmp_path, command, "--bind", "nosuch.invalid", "--port", "0", "--data-dir", data))
    assert "no machine of that name" in line


@pytest.mark.parametrize("command", ["host", "server"])
@pytest.mark.parametrize("where", ["the file", "under the file", "in /proc"])
async def test_a_data_dir_that_cannot_be_one_is_said_so(tmp_path, a_file, command, where):
    data = {"the file": a_file, "under the file": a_file / "data", "in /proc": Path("/proc/1/data")}[where]
    line = one_sentence(*await said(tmp_path, command, "--bind", "127.0.0.1", "--port", "0", "--data-dir", str(data)))
    assert f"the data dir {data}" in line


async def test_an_ssh_authorized_keys_file_that_cannot_be_read_is_said_so(tmp_path):
    missing = tmp_path / "no-such-keys"
    arguments = ("server", "--port", "0", "--ssh-port", "0", "--ssh-authorized-keys", str(missing))
    code, text = await said(tmp_path, *arguments, "--data-dir", str(tmp_path / "data"))
    assert code != 0 and "Traceback" not in text and "exited while starting" not in text, text
    assert str(missing) in text and "there is no such file or directory" in text


@pytest.mark.parametrize("command", ["host", "server"])
async def test_a_data_dir_another_host_runs_on_is_said_so(tmp_path, command):
    data = tmp_path / "data"
    first = await local_server_process(data)
    try:
        await asyncio.wait_for(first.stdout.readline(), WAIT)  # (listening: its store is open, and locked)
        line = one_sentence(
            *await said(tmp_path, command, "--bind", "127.0.0.1", "--port", "0", "--data-dir", str(data))
        )
        assert f"another nothanks host is running on the data dir {data}" in line
    finally:
        first.terminate()
        await first.wait()


async def test_names_and_replays_are_refused_in_the_users_language(tmp_path, a_file):
    long = "x" * 30
    line = one_sentence(*await said(tmp_path, "--lang", "fr", "play", "--name", long), "nothanks play")
    assert "Ce nom n'est pas possible" in line
    data = str(tmp_path / "data")
    host = ("host", "--bind", "127.0.0.1", "--port", "0", "--data-dir", data, "--name", long)
    assert "Ce nom n'est pas possible" in one_sentence(*await said(tmp_path, "--lang", "fr", *host))  # (no "stopped")
    assert "todavía" in one_sentence(*await said(tmp_path, "--lang", "es", "replay", "--last", "--data-dir", data))
    line = one_sentence(*await said(tmp_path, "replay", str(a_file)))
    assert line == f"nothanks replay: {a_file} is not a game record: it is not JSON."
    line = one_sentence(*await said(tmp_path, "--lang", "fr", "replay", str(tmp_path / "none.json")))
    assert "n'existe pas" in line
