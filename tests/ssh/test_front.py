"""End-to-end: asyncssh clients with a pty against one worker's SSH sessions (in this process, fed the connections
of a socket on 127.0.0.1 as the front would hand them over), a probe app standing in for the game."""

from __future__ import annotations

import asyncio
import re
import stat
import webbrowser
from pathlib import Path

import asyncssh
import pytest

from nothanks_server.ssh.driver import LEAVE_SEQUENCES, MAX_SIZE
from nothanks_server.ssh.server import load_or_create_host_key
from nothanks_server.ssh.session import NO_PTY_MESSAGE, RESIZE_INTERVAL, SSHPlayer
from tools.loadgen.probe_app import ProbeApp
from tools.loadgen.terminal_client import TerminalClient


async def test_first_screen_shows_title_and_name_from_user(start_sessions):
    front = await start_sessions()
    client = await TerminalClient().connect(front.port, "alice")
    await client.wait_for("No Thanks!")
    await client.wait_for("name: alice")
    await client.close()


async def test_user_play_gets_no_suggested_name(start_sessions):
    front = await start_sessions()
    client = await TerminalClient().connect(front.port, "play")
    await client.wait_for("No Thanks!")
    assert re.search(r"name: *$", client.text(), re.MULTILINE)
    await client.close()


async def test_clean_exit_restores_the_terminal(start_sessions):
    front = await start_sessions()
    client = await TerminalClient().connect(front.port)
    await client.wait_for("No Thanks!")
    client.send("\x11")  # ctrl+q
    assert await client.wait_closed() == 0
    raw = bytes(client.raw)
    tail = raw[raw.rindex(b"\x1b[?1049h") :]
    assert tail.endswith(LEAVE_SEQUENCES.encode())
    leave = tail.rindex(b"\x1b[?1049l")
    assert tail.rindex(b"\x1b[2J") < leave  # erased first: a terminal without an alternate screen keeps no frame
    assert tail.rindex(b"\x1b[?25h") > leave  # cursor shown after leaving the alternate screen
    assert front.running_apps == 0


async def test_window_change_reaches_the_app(start_sessions):
    front = await start_sessions()
    client = await TerminalClient(80, 24).connect(front.port)
    await client.wait_for("size: 80x24")
    client.resize(100, 30)
    await client.wait_for("size: 100x30")
    client.resize(60, 20)
    await client.wait_for("size: 60x20")
    await client.close()


async def test_zero_size_pty_gets_80x24(start_sessions):
    front = await start_sessions()
    client = await TerminalClient(80, 24).connect(front.port, size=(0, 0))
    await client.wait_for("size: 80x24")
    await client.close()


async def test_a_huge_terminal_is_drawn_at_the_largest_size_we_draw(start_sessions):
    front = await start_sessions()
    client = await TerminalClient(*MAX_SIZE).connect(front.port, size=(100_000, 100_000))
    await client.wait_for(f"size: {MAX_SIZE[0]}x{MAX_SIZE[1]}")
    client.chan.change_terminal_size(60, 20)  # the requests only: the emulated screen stays at MAX_SIZE
    await client.wait_for("size: 60x20")
    client.chan.change_terminal_size(2**31 - 1, 500)
    await client.wait_for(f"size: {MAX_SIZE[0]}x{MAX_SIZE[1]}")
    await client.close()


async def test_a_flood_of_window_changes_reaches_the_app_as_a_few_sizes_ending_with_the_last(start_sessions):
    front = await start_sessions()
    client = await TerminalClient(*MAX_SIZE).connect(front.port)
    await client.wait_for(f"size: {MAX_SIZE[0]}x{MAX_SIZE[1]}")
    [app] = list(front._running_apps)
    before = app.resizes
    loop = asyncio.get_running_loop()
    started = loop.time()
    for step in range(60):  # a window being dragged: a new size every 10 ms for 0.6 s
        client.chan.change_terminal_size(60 + step % 40, 20 + step % 10)
        await asyncio.sleep(0.01)  # the pace of the drag, not a wait for anything
    client.chan.change_terminal_size(99, 33)
    await client.wait_for("size: 99x33")
    elapsed = loop.time() - started
    allowed = 2 + int(elapsed / RESIZE_INTERVAL)  # one at once, then at most one per interval
    assert app.resizes - before <= allowed, f"{app.resizes - before} layouts in {elapsed:.2f} s"
    await client.close()


async def test_lone_escape_key_arrives_through_the_timeout_tick(start_sessions):
    front = await start_sessions()
    client = await TerminalClient().connect(front.port)
    await client.wait_for("last: -")
    client.send("\x1b")  # nothing follows: only the parser's timeout decides it was the Escape key
    await client.wait_for("last: ESCAPE-BINDING")
    client.send("q")
    await client.wait_for("last: q")
    await client.close()


@pytest.mark.parametrize(
    ("term", "env", "expected", "absent"),
    [
        ("xterm", {}, rb"\x1b\[(?:\d+;)*(?:3[0-7]|9[0-7])(?:;\d+)*m", rb"\x1b\[[0-9;]*[34]8;[25];"),
        ("xterm-256color", {}, rb"\x1b\[[0-9;]*38;5;", rb"\x1b\[[0-9;]*[34]8;2;"),
        ("screen-256color", {}, rb"\x1b\[[0-9;]*38;5;", rb"\x1b\[[0-9;]*[34]8;2;"),
        ("tmux-256color", {}, rb"\x1b\[[0-9;]*38;5;", rb"\x1b\[[0-9;]*[34]8;2;"),
        ("xterm-256color", {"COLORTERM": "truecolor"}, rb"\x1b\[[0-9;]*38;2;255;128;0", None),
    ],
)
async def test_colours_follow_the_clients_terminal(start_sessions, term, env, expected, absent):
    front = await start_sessions()
    client = await TerminalClient().connect(front.port, term=term, env=env)
    await client.wait_for("No Thanks!")
    raw = bytes(client.raw)
    assert re.search(expected, raw), raw[:400]
    if absent is not None:
        assert not re.search(absent, raw)
    await client.close()


async def test_session_without_pty_is_refused_with_one_line(start_sessions):
    front = await start_sessions()
    client = await TerminalClient().connect(front.port, term=None)
    assert await client.wait_closed() == 1
    message = bytes(client.stderr).decode()
    assert message == NO_PTY_MESSAGE.format(command=f"ssh -p {front.port} play@127.0.0.1")
    assert "PORT" not in message and "HOST" not in message
    assert len(front.apps) == 0  # no app was ever made


async def test_commands_are_not_run(start_sessions, tmp_path):
    front = await start_sessions()
    marker = tmp_path / "ran"
    client = await TerminalClient().connect(front.port, command=f"touch {marker}")
    assert await client.wait_closed() == 1
    assert b"interactive terminal" in client.stderr
    assert not marker.exists()
    # even with a pty
    client = await TerminalClient().connect(front.port, command=f"touch {marker}", term="xterm")
    assert await client.wait_closed() == 1
    assert not marker.exists()


async def test_sftp_and_forwarding_are_refused(start_sessions):
    front = await start_sessions()
    async with asyncssh.connect(
        "127.0.0.1", front.port, username="eve", password="", known_hosts=None, client_keys=None, agent_path=None
    ) as conn:
        with pytest.raises(asyncssh.ChannelOpenError, match="Session request failed"):
            await conn.start_sftp_client()
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.open_connection("127.0.0.1", 22)
        with pytest.raises(asyncssh.ChannelListenError):
            await conn.forward_remote_port("127.0.0.1", 0, "127.0.0.1", 22)


async def test_one_game_session_per_connection(start_sessions):
    front = await start_sessions()
    client = await TerminalClient().connect(front.port)
    await client.wait_for("No Thanks!")
    assert client.conn is not None
    with pytest.raises(asyncssh.ChannelOpenError):
        await client.conn.create_session(asyncssh.SSHClientSession, term_type="xterm")
    await client.close()


async def test_session_cap_disconnects_with_a_clear_message(start_sessions):
    front = await start_sessions(max_sessions=2)
    first = await TerminalClient().connect(front.port)
    second = await TerminalClient().connect(front.port)
    await first.wait_for("No Thanks!")
    await second.wait_for("No Thanks!")
    with pytest.raises(asyncssh.DisconnectError) as refused:
        await TerminalClient().connect(front.port)
    assert refused.value.code == asyncssh.DISC_TOO_MANY_CONNECTIONS
    assert "full" in refused.value.reason and "2 players at once" in refused.value.reason
    await first.close()
    # a freed place can be taken again
    await front.wait_until(lambda: front.admitted == 1, timeout=5)
    third = await TerminalClient().connect(front.port)
    await third.wait_for("No Thanks!")
    await second.close()
    await third.close()


async def test_nothing_acts_on_the_host_machine(start_sessions, tmp_path, monkeypatch):
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *args, **kwargs: opened.append(url))
    front = await start_sessions()
    client = await TerminalClient().connect(front.port)
    await client.wait_for("No Thanks!")
    client.send("\x1bOQ")  # F2
    await client.wait_for("HOST-ACTIONS-DONE")
    assert opened == []
    assert sorted(path.name for path in tmp_path.iterdir()) == ["ssh_host_ed25519_key", "ssh_host_ed25519_key.pub"]
    await client.close()


async def test_a_crashing_app_ends_only_its_session(start_sessions):
    front = await start_sessions()
    crasher = await TerminalClient().connect(front.port)
    bystander = await TerminalClient().connect(front.port)
    await crasher.wait_for("No Thanks!")
    await bystander.wait_for("No Thanks!")
    crasher.send("\x1bOS")  # F4
    assert await crasher.wait_closed() == 1
    assert b"Sorry" in crasher.stderr
    bystander.send("z")
    await bystander.wait_for("last: z")
    await bystander.close()


async def test_host_key_is_made_once_and_reused(tmp_path, start_sessions):
    path = tmp_path / "data" / "ssh_host_ed25519_key"
    front = await start_sessions(host_key_path=path)
    first_key = front_key = load_or_create_host_key(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert first_key.algorithm == b"ssh-ed25519"
    async with asyncssh.connect(
        "127.0.0.1", front.port, username="x", password="", known_hosts=None, client_keys=None, agent_path=None
    ) as conn:
        served = conn.get_server_host_key()
    assert served is not None and served.public_data == front_key.public_data
    await front.close()
    again = await start_sessions(host_key_path=path)
    async with asyncssh.connect(
        "127.0.0.1", again.port, username="x", password="", known_hosts=None, client_keys=None, agent_path=None
    ) as conn:
        assert conn.get_server_host_key().public_data == first_key.public_data


async def test_shared_password(start_sessions):
    front = await start_sessions(password="sesame")
    with pytest.raises(asyncssh.PermissionDenied):
        await TerminalClient().connect(front.port, password="wrong")
    client = await TerminalClient().connect(front.port, password="sesame")
    await client.wait_for("No Thanks!")
    await client.close()


def _write_authorized(path: Path, *keys: asyncssh.SSHKey) -> Path:
    path.write_bytes(b"".join(key.export_public_key("openssh") for key in keys))
    return path


async def test_authorized_keys_file_lets_listed_keys_in_and_names_them(start_sessions, tmp_path):
    alice = asyncssh.generate_private_key("ssh-ed25519")
    mallory = asyncssh.generate_private_key("ssh-ed25519")
    seen: list[SSHPlayer] = []

    def factory(player: SSHPlayer) -> ProbeApp:
        seen.append(player)
        return ProbeApp(player, tmp_path)

    front = await start_sessions(factory, authorized_keys=_write_authorized(tmp_path / "authorized_keys", alice))
    with pytest.raises(asyncssh.PermissionDenied):
        await TerminalClient().connect(front.port, client_keys=[mallory])
    with pytest.raises(asyncssh.PermissionDenied):  # no key, no entry: no password way in either
        await TerminalClient().connect(front.port, password="anything")
    client = await TerminalClient().connect(front.port, "alice", client_keys=[alice])
    await client.wait_for("name: alice")
    assert [player.key_fingerprint for player in seen] == [alice.get_fingerprint("sha256")]
    await client.close()


async def test_open_door_recognises_a_key_but_never_an_unproven_one(start_sessions, tmp_path):
    key = asyncssh.generate_private_key("ssh-ed25519")
    seen: list[SSHPlayer] = []

    def factory(player: SSHPlayer) -> ProbeApp:
        seen.append(player)
        return ProbeApp(player, tmp_path)

    front = await start_sessions(factory)
    with_key = await TerminalClient().connect(front.port, client_keys=[key])
    await with_key.wait_for("No Thanks!")
    without = await TerminalClient().connect(front.port)
    await without.wait_for("No Thanks!")
    assert [player.key_fingerprint for player in seen] == [key.get_fingerprint("sha256"), None]
    await with_key.close()
    await without.close()


async def test_dropped_connections_end_their_apps(start_sessions):
    front = await start_sessions()
    clients = [await TerminalClient().connect(front.port) for _ in range(5)]
    for client in clients:
        await client.wait_for("No Thanks!")
    assert front.running_apps == 5
    for client in clients:
        client.send("abc")
        await client.close()
    await front.wait_until(lambda: front.running_apps == 0 and front.connections == 0, timeout=10)


async def test_stopping_the_host_tells_every_player_why(start_sessions):
    front = await start_sessions()
    client = await TerminalClient().connect(front.port)
    await client.wait_for("No Thanks!")
    await front.close("the host is shutting down")
    assert await client.wait_closed() == 0
    assert bytes(client.raw).endswith(b"No Thanks!: the host is shutting down.\r\n")


async def test_a_player_is_told_why_even_when_leaving_the_tables_outlasts_the_servers_wait(start_sessions, tmp_path):
    """When the whole host stops, an app's leaving its tables (over the host's TCP port, itself closing) can take
    longer than the server waits for its sessions: the farewell used to come after it, and the player read a bare
    disconnect."""
    leaving = asyncio.Event()

    class SlowToLeave(ProbeApp):
        async def ssh_session_ended(self) -> None:
            leaving.set()
            await asyncio.Event().wait()  # never done: the server gives up on it

    front = await start_sessions(lambda player: SlowToLeave(player, tmp_path))
    client = await TerminalClient().connect(front.port)
    await client.wait_for("No Thanks!")
    await front.close("the host is restarting")
    assert leaving.is_set()
    await client.wait_closed()
    assert b"No Thanks!: the host is restarting.\r\n" in bytes(client.raw)


async def test_a_closing_server_leaves_the_client_to_close_the_connection_after_the_goodbye(
    start_sessions, monkeypatch
):
    """OpenSSH closes its connection itself once the session channel has closed and it has shown what came
    before. A server that disconnected at once could overtake the goodbye on its way to the player's terminal
    ("Disconnected by application" and nothing else, in 1 of 4 restarts)."""
    from nothanks_server.ssh import server as ssh_server

    monkeypatch.setattr(ssh_server, "CLIENT_CLOSE_WAIT", 60.0)  # (the test's client closes well before)
    front = await start_sessions()
    client = await TerminalClient().connect(front.port)
    await client.wait_for("No Thanks!")
    closing = asyncio.get_running_loop().create_task(front.close("the host is restarting"))
    assert await client.wait_closed() == 0  # the session's channel: the goodbye came with it
    assert b"No Thanks!: the host is restarting.\r\n" in bytes(client.raw)
    assert client.conn is not None
    assert not client.conn.is_closed()  # no disconnect from the server right behind it...
    assert not closing.done()  # ...which waits for the client to close the connection
    client.conn.close()
    await asyncio.wait_for(closing, 10)  # ...and is done once it has


async def test_a_client_that_stops_answering_is_reaped_by_keepalives(start_sessions):
    front = await start_sessions(keepalive_interval=0.2, keepalive_count_max=2)
    client = await TerminalClient().connect(front.port)
    await client.wait_for("No Thanks!")
    assert front.admitted == 1
    assert client.conn is not None
    client.conn._transport.pause_reading()  # the client hangs: it never reads the keepalives
    await front.wait_until(lambda: front.admitted == 0 and front.running_apps == 0, timeout=10)
    client.conn.abort()


async def test_a_connection_that_never_logs_in_is_closed(start_sessions):
    front = await start_sessions(login_timeout=0.5)
    reader, writer = await asyncio.open_connection("127.0.0.1", front.port)
    banner = await asyncio.wait_for(reader.readline(), 5)
    assert banner.startswith(b"SSH-2.0-")
    # say nothing more: the server gives up after the login timeout and closes the connection
    rest = await asyncio.wait_for(reader.read(), 10)
    assert reader.at_eof()
    assert len(rest) < 100_000
    writer.close()


@pytest.mark.parametrize("system", ["256", "standard"])
def test_colours_brought_down_are_the_codes_rich_writes_for_that_terminal(system):
    from rich.color import Color, ColorSystem
    from rich.style import Style

    from nothanks_server.ssh.driver import downgrade_colors

    rich_system = {"256": ColorSystem.EIGHT_BIT, "standard": ColorSystem.STANDARD}[system]
    for red, green, blue in [(255, 128, 0), (16, 32, 64), (0, 0, 0), (250, 250, 250), (30, 200, 90)]:

        def style(red: int = red, green: int = green, blue: int = blue) -> Style:  # a new one each time: a style
            # keeps the codes it was first rendered with (the very cache that leaked colours between sessions)
            return Style(bold=True, color=Color.from_rgb(red, green, blue), bgcolor=Color.from_rgb(blue, red, green))

        drawn = style().render("x", color_system=ColorSystem.TRUECOLOR)
        wanted = style().render("x", color_system=rich_system)
        assert downgrade_colors(drawn, system) == wanted
    assert (
        downgrade_colors("\x1b[38;5;208mx", "standard")
        == Style(color=Color.from_ansi(208)).render("x", color_system=ColorSystem.STANDARD)[: -len("\x1b[0m")]
    )
    assert downgrade_colors("\x1b[38;2;1;2;3mx", "truecolor") == "\x1b[38;2;1;2;3mx"
