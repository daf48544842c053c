"""Waits a player notices (issue 17.13): the first ``scripts/play`` says what it does; bots at big local tables."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from nothanks_server.inprocess import SoloGame, solo_bot_pace, solo_table
from nothanks_tui import cli
from nothanks_tui.defaults import BOT_PACE, MIN_BOT_PACE

ROOT = Path(__file__).resolve().parent.parent


def test_at_a_big_local_table_the_bots_between_your_turns_are_quicker_but_each_move_stays_readable():
    six = solo_table(SoloGame(players=7, bot="random", seed=1))
    assert six.table.settings.bot_delay * 6 <= 2.5  # was 6 x 0.8 = 4.8 s on average
    assert six.table.settings.bot_delay >= MIN_BOT_PACE
    three = solo_table(SoloGame(players=4, bot="random", seed=1))
    assert three.table.settings.bot_delay == BOT_PACE  # small tables keep the usual pace
    assert solo_bot_pace(0, 6) == 0  # --bot-pace 0: at once
    assert solo_bot_pace(0.2, 6) == 0.2  # a pace asked for is never slowed down


def test_play_takes_a_bot_pace(monkeypatch):
    seen = {}
    monkeypatch.setattr("nothanks_tui.commands.launchers.run_local_game", lambda **options: seen.update(options) or 0)
    assert cli.main(["play", "--bot-pace", "0.3"]) == 0
    assert seen["bot_pace"] == 0.3


def tree_with_scripts_play(root: Path, imports: bool) -> Path:
    """A copy of scripts/play under ``root`` with a .venv whose python passes the import check or not, and
    "installs" instantly (it logs what it was asked to .venv/bin/log); returns .venv/bin."""
    (root / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "play", root / "scripts" / "play")
    bin_dir = root / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    python = bin_dir / "python"
    check = 0 if imports else 1
    python.write_text(f'#!/bin/sh\nif [ "$1" = "-c" ]; then exit {check}; fi\necho "pip $*" >> "$(dirname "$0")/log"\n')
    game = bin_dir / "nothanks"
    game.write_text('#!/bin/sh\necho "the game $*"\n')
    for path in (python, game):
        path.chmod(0o755)
    return bin_dir


def test_the_first_scripts_play_says_what_it_is_doing(tmp_path):
    """A copy of scripts/play in a tree whose .venv lacks the game: it must say so before the long install."""
    tree_with_scripts_play(tmp_path, imports=False)
    done = subprocess.run(
        ["bash", str(tmp_path / "scripts" / "play"), "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ},
    )
    assert done.returncode == 0, done.stderr
    assert "Installing nothanks" in done.stderr and "half a minute" in done.stderr
    assert done.stdout.strip() == "the game --version"


def test_scripts_play_installs_again_when_the_project_s_requirements_changed(tmp_path):
    """A clone updated with git pull whose .venv imports the old requirements but lacks a new one (msgspec came in
    with the session rewrite: scripts/play started the game, which died on ModuleNotFoundError)."""
    bin_dir = tree_with_scripts_play(tmp_path, imports=True)

    def play() -> str:
        done = subprocess.run(
            ["bash", str(tmp_path / "scripts" / "play")], capture_output=True, text=True, timeout=60, env=os.environ
        )
        assert done.returncode == 0 and done.stdout.strip() == "the game", done.stderr
        log = bin_dir / "log"
        installed = log.read_text() if log.exists() else ""
        log.unlink(missing_ok=True)
        return installed

    (tmp_path / "pyproject.toml").write_text("[project]\n")
    assert "install" in play()  # a .venv from before this check: installed once
    assert play() == ""  # nothing changed since: straight to the game
    later = (tmp_path / "pyproject.toml").stat().st_mtime + 10
    os.utime(tmp_path / "pyproject.toml", (later, later))  # git pull brought a new requirement
    assert "install" in play()
    stamp, before = tmp_path / ".venv" / ".nothanks-installed", later - 100
    for path in (tmp_path / "pyproject.toml", stamp):
        os.utime(path, (before, before))
    source = tmp_path / "nothanks_tui" / "bots" / "_search_c.c"
    source.parent.mkdir(parents=True)
    source.write_text("/* the bots' C loop */\n")  # git pull brought a new C loop: the built one is the old source's
    assert "install" in play()
    assert play() == ""
