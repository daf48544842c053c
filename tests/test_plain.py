"""The plain front (``--plain``, ``TERM=dumb``) read as a screen reader gets it: a stream of lines, every byte checked
for escape sequences; keys one a line from a pipe, as ``yes t | nothanks play --plain`` sends them; locally, over
TCP against a real host, and in French and Spanish. (Over SSH: tests/ssh/test_plain.py.)"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from nothanks_tui.client.plain import PlainFront, PlainTable, safe
from nothanks_tui.engine import Action, GameConfig, apply, new_game, view_for
from nothanks_tui.link import ChatLine, Closed, SeatInfo, TableConnection, TableUpdate, TableWaiting

from .net_helpers import RawClient, live_host, nothanks_process, of_type

ESC = b"\x1b"


def environment(tmp_path: Path, **more: str) -> dict[str, str]:
    """A terminal that understands no escape sequence, and this test's own data and settings."""
    base = {key: value for key, value in os.environ.items() if not key.startswith(("LC_", "LANG"))}
    homes = {name: str(tmp_path / name) for name in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME")}
    return base | homes | {"TERM": "dumb", "LANG": "C.UTF-8"} | more


def play(tmp_path: Path, keys: str, *options: str, **env: str) -> subprocess.CompletedProcess[bytes]:
    command = [sys.executable, "-m", "nothanks_tui", "play", *options, "--players", "3", "--bot-pace", "0"]
    return subprocess.run(
        command, input=keys.encode(), capture_output=True, env=environment(tmp_path, **env), timeout=60, check=False
    )


def only_lines(output: bytes) -> list[str]:
    """The output as lines, failing on any byte a terminal would act on (ESC first)."""
    assert ESC not in output
    text = output.decode()
    assert all(char.isprintable() or char == "\n" for char in text), text
    return text.split("\n")


def test_a_whole_game_with_keys_from_a_pipe(tmp_path):
    done = play(tmp_path, "h\n" + "t\n" * 200, "--plain", "--seed", "4")  # `yes t`, one line a key
    assert done.returncode == 0, done.stderr
    lines = only_lines(done.stdout)
    assert lines[0] == "A new game: you, ana, bo."
    assert lines[1].startswith("New card: ")
    assert any(line.startswith("Your turn: card ") and "t take (" in line for line in lines)
    assert any(line.startswith("you took ") for line in lines)
    assert any(line.startswith("ana: ") and line.endswith("; chips hidden") for line in lines)  # what a seat sees
    assert any("winner" in line for line in lines)
    # The question parks the cursor after it; a key read from a pipe (not echoed) ends its line.
    assert lines[-2:] == ["Game over. a play again, any other key leaves. ", ""]
    assert done.stderr == b""


def test_term_dumb_alone_chooses_the_plain_lines_and_the_end_of_input_ends_cleanly(tmp_path):
    done = play(tmp_path, "p\n", "--turn-clock", "60")
    assert done.returncode == 0
    lines = only_lines(done.stdout)
    assert lines[0].startswith("A new game: ")
    assert any(re.match(r"Your turn: card \d+, .* chips\. \(\d+ s left\) t take", line) for line in lines)
    assert "End of input: leaving." in lines
    assert done.stderr == b""  # no traceback


def test_nothanks_alone_with_term_dumb_plays_in_plain_lines_not_on_the_start_screen(tmp_path):
    command = [sys.executable, "-m", "nothanks_tui"]
    done = subprocess.run(
        command, input=b"q\n", capture_output=True, env=environment(tmp_path), timeout=60, check=False
    )
    assert done.returncode == 0
    assert only_lines(done.stdout)[0].startswith("A new game: ")


def test_a_reader_that_stops_reading_ends_the_game_without_a_traceback(tmp_path):
    command = [sys.executable, "-m", "nothanks_tui", "play", "--bot-pace", "0"]
    env = environment(tmp_path)
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    ) as game:
        assert game.stdout is not None and game.stdin is not None
        assert game.stdout.readline().startswith(b"A new game: ")
        game.stdout.close()  # as `| head -1` does: the next line written finds nobody
        with contextlib.suppress(BrokenPipeError):
            game.stdin.write(b"t\n")
            game.stdin.close()
        assert game.wait(60) == 0
        assert game.stderr is not None and game.stderr.read() == b""


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("fr", ("Nouvelle partie : ", "À vous : carte ", "Partie finie.")),
        ("es", ("Nueva partida: ", "Tu turno: carta ", "Fin de la partida.")),
    ],
)
def test_plain_lines_in_french_and_spanish(tmp_path, language, words):
    done = play(tmp_path, "t\n" * 200, "--plain", "--lang", language)
    text = "\n".join(only_lines(done.stdout))
    assert all(word in text for word in words), text


async def join_plain(tmp_path: Path, port: int, keys: str, *more: str) -> tuple[int | None, bytes, bytes]:
    process = await nothanks_process(
        *("join", "--plain", "--name", "zoe", f"127.0.0.1:{port}", *more),
        **{"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE},
        env=environment(tmp_path),
    )
    out, err = await asyncio.wait_for(process.communicate(keys.encode()), 60)
    return process.returncode, out, err


async def test_a_whole_game_over_tcp_against_a_real_host(tmp_path):
    async with live_host() as host:
        # A new table against two bots, start, take every card; then the input ends.
        code, out, err = await join_plain(tmp_path, host.port, "n\ns\n" + "t\n" * 40)
    assert code == 0, (out, err)
    lines = only_lines(out)
    assert lines[0] == "No tables yet."
    assert "seat 1: zoe (you)" in lines
    assert any(line.startswith("zoe took ") for line in lines), out.decode()
    assert "winner" in out.decode()
    assert "End of input: leaving." in lines
    assert err == b""


async def test_join_plain_takes_back_the_seat_it_held(tmp_path):
    async with live_host(bot_delay=0.5) as host:
        code, out, _err = await join_plain(tmp_path, host.port, "n\ns\n")  # the input ends during the game
        assert code == 0 and "End of input: leaving." in only_lines(out)
        code, out, _err = await join_plain(tmp_path, host.port, "q\nq\n")
    lines = only_lines(out)
    assert lines[0].startswith("A new game: zoe (you), ")  # back at the table, before the lobby
    assert "No tables yet." not in lines


async def test_join_plain_with_a_code_sits_at_the_private_table_it_invites_to(tmp_path):
    from .test_creators_say import create, invite_of

    async with live_host() as host:
        ann = await RawClient.connect(host.port, "ann")
        table = (await create(ann, players=2, private=True))["table"]
        invite = invite_of(ann)
        zoe = asyncio.ensure_future(join_plain(tmp_path, host.port, "q\nq\n", "--code", invite.lower()))
        await ann.until(lambda frame: of_type("waiting")(frame) and frame["can_start"])  # zoe sat down
        await ann.send({"type": "start"})  # (her turn asks; her "q" leaves, the next quits the lobby)
        code, out, err = await zoe
        await ann.close()
    lines = only_lines(out)
    assert code == 0, (out, err)
    assert lines[:3] == [f"Table {table}: waiting for players", "seat 1: ~ann", "seat 2: zoe (you)"], lines
    assert lines[3] == f"Private table: others join with the invite code {invite}"  # (its players may invite others)
    _, out, _err = await join_plain(tmp_path, 1, "", "--code", "nope")
    assert "not an invite code" in out.decode()


async def test_join_plain_offers_a_free_name_when_its_name_is_another_players(tmp_path):
    from nothanks_tui.link.identity import Identity

    async with live_host() as host:
        owner = await RawClient.connect(host.port, "zoe", key=Identity.load(tmp_path / "owner.key"))
        code, out, _err = await join_plain(tmp_path, host.port, "")
        await owner.close()
    assert code == 1 and "how about zoe2?" in out.decode()


class ScriptedTable(TableConnection):
    """A table that says what the test gives it, then closes (``hold``: then says nothing more)."""

    def __init__(self, events: list[object], hold: bool = False) -> None:
        self.events = events
        self.hold = hold
        self.sent: list[object] = []

    async def start(self) -> None:
        return None

    async def next_event(self):
        if not self.events and self.hold:
            await asyncio.sleep(3600)
        return self.events.pop(0) if self.events else Closed("")

    async def close(self) -> None:
        return None

    async def send_action(self, action: Action, state_id: int) -> None:
        self.sent.append(action)


class Written:
    """The player's screen; ``keys``: the lines typed (then the input is over), none: nothing is typed."""

    def __init__(self, keys: list[str] | None = None, echoes: bool = False) -> None:
        self.text = ""
        self.keys = keys
        self.echoes = echoes

    def write(self, text: str) -> None:
        self.text += text

    async def readline(self) -> str | None:
        if self.keys is None:
            await asyncio.sleep(3600)  # (no key: the table closes first)
        return self.keys.pop(0) if self.keys else None


async def test_hostile_names_and_chat_lose_their_escapes():
    hostile = "\x1b]0;pwned\x07eve\x1b[2J"
    seats = (SeatInfo("zoe"), SeatInfo(hostile))
    events = [TableWaiting("t1", seats, 0, True), ChatLine(hostile, "hi \x1b[31mred\x1b[0m\r\nfake line", seat=1)]
    lines = Written()
    await PlainTable(PlainFront(lines), ScriptedTable(events)).run()
    assert "\x1b" not in lines.text and "\x07" not in lines.text and "\r" not in lines.text
    assert "eve" in lines.text and "red" in lines.text
    assert safe("a\x1b[31mb\x00c\u00a0d") == "a[31mbc d"


async def test_a_terminal_may_type_while_others_play_a_pipe_is_read_only_when_asked():
    state = apply(new_game(GameConfig(players=3), 7), Action.PASS)  # seat 1 to play: not us
    update = TableUpdate(view_for(state, 0), (SeatInfo("zoe"), SeatInfo("ana"), SeatInfo("bo")))
    typing = Written(["t"], echoes=True)
    assert not await PlainTable(PlainFront(typing), ScriptedTable([update], hold=True)).run()
    assert "It is not your turn yet.\n" in typing.text and "End of input: leaving." in typing.text
    piped = Written(["t"])
    table = ScriptedTable([update])
    await PlainTable(PlainFront(piped), table).run()
    assert piped.keys == ["t"] and table.sent == []  # never asked: never read


async def test_the_question_is_asked_again_below_a_line_that_comes_while_it_waits():
    state = new_game(GameConfig(players=2), 3)
    update = TableUpdate(view_for(state, state.to_move), (SeatInfo("zoe"), SeatInfo("ana")))  # our turn
    lines = Written()
    await PlainTable(PlainFront(lines), ScriptedTable([update, ChatLine("ana", "hi", seat=1)])).run()
    question = lines.text.split("\n")[2]
    assert question.startswith("Your turn: card ") and question.endswith("q leave: ")
    assert lines.text.endswith(f"{question}\n<ana> hi\n{question}\nThe table closed.\n")


def test_the_same_question_still_parked_is_not_written_again_another_is_below_it():
    lines = Written()
    front = PlainFront(lines)
    front.ask("Your turn: t take, p pass:")
    front.ask("Your turn: t take, p pass:")
    assert lines.text == "Your turn: t take, p pass: "
    front.ask("Play again? y/n:")
    assert lines.text == "Your turn: t take, p pass: \nPlay again? y/n: "
