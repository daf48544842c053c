"""The app's forms offer the four levels with what each is like, locally, at a TCP host and over SSH."""

from __future__ import annotations

import argparse
from pathlib import Path
from types import SimpleNamespace

from nothanks_server.ssh.game import make_app_factory
from nothanks_server.ssh.settings import WorkerPlan
from nothanks_tui.bots import bot_names, offered_bots
from nothanks_tui.commands.launchers import LocalLaunchers
from nothanks_tui.commands.net import add_parsers
from nothanks_tui.commands.ssh_options import ssh_settings_from
from nothanks_tui.defaults import DEFAULT_BOT


def test_the_levels_are_offered_easiest_first_and_each_is_a_real_bot() -> None:
    offered = [name for name, _description in offered_bots(DEFAULT_BOT)]
    assert offered == ["easy", "medium", "hard", "expert"]
    assert set(offered) <= set(bot_names())
    assert DEFAULT_BOT in offered
    assert [name for name, _description in LocalLaunchers().bot_choices] == offered


def test_a_command_line_bot_that_is_not_a_level_is_offered_first() -> None:
    assert [name for name, _description in offered_bots("rules")][:2] == ["rules", "easy"]


def test_each_level_fits_an_80_column_form() -> None:
    # The new-table dialog's field shows 39 columns at 80x24 (seen in tmux over SSH).
    assert all(len(f"{name}: {description}") <= 38 for name, description in offered_bots("threshold"))


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    add_parsers(sub)
    return parser.parse_args(argv)


def test_the_ssh_new_table_dialog_offers_the_levels_and_the_servers_bot(tmp_path: Path) -> None:
    args = parse(["server", "--ssh-port", "0", "--bot", "hard", "--data-dir", str(tmp_path)])
    settings = ssh_settings_from(args)
    assert settings is not None
    assert settings.default_bot == "hard"
    assert [name for name, _description in settings.bot_choices] == ["easy", "medium", "hard", "expert"]
    plan = WorkerPlan(slot=0, ssh=settings, lobby_host="127.0.0.1", lobby_port=1, data_dir=tmp_path, log_level=0)
    app = make_app_factory(plan)(SimpleNamespace(language="en", suggested_name=""))  # type: ignore[arg-type]  (the player's language)
    assert app.bot_choices == settings.bot_choices and app.default_bot == "hard"
