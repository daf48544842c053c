"""Each default has one source (nothanks_tui/defaults.py): the command line, the host and the README agree with it."""

from __future__ import annotations

from pathlib import Path

from nothanks_server.lobby import LobbySettings
from nothanks_server.table import TableSettings
from nothanks_tui import defaults
from nothanks_tui.cli import build_parser
from nothanks_tui.link import NewTable

README = (Path(__file__).parents[1] / "README.md").read_text()


def test_the_command_line_takes_its_defaults_from_the_one_source():
    parser = build_parser()
    for command in (["server"], ["host"]):
        args = parser.parse_args(command)
        assert args.port == defaults.DEFAULT_PORT
        assert args.bot_pace == defaults.BOT_PACE
        assert args.turn_timer == defaults.TURN_TIMER
        assert args.bot == defaults.DEFAULT_BOT
    assert parser.parse_args(["play"]).bot == defaults.DEFAULT_BOT
    assert parser.parse_args(["server"]).turn_clock == defaults.SERVER_TURN_CLOCK == 120  # (a public host's)
    assert parser.parse_args(["host"]).turn_clock == parser.parse_args(["play"]).turn_clock == defaults.TURN_CLOCK
    assert parser.parse_args(["server", "--turn-clock", "off"]).turn_clock is None
    assert parser.parse_args(["simulate"]).bot is None  # then every seat plays defaults.DEFAULT_BOT


def test_the_host_takes_its_defaults_from_the_one_source():
    lobby, table = LobbySettings(), TableSettings()
    assert lobby.bot_delay == table.bot_delay == defaults.BOT_PACE
    assert lobby.turn_timer == table.turn_timer == defaults.TURN_TIMER
    assert lobby.turn_clock == table.turn_clock == defaults.TURN_CLOCK
    assert lobby.default_bot == table.default_bot == NewTable().bot == defaults.DEFAULT_BOT
    assert table.bot_delay_spread == defaults.BOT_PACE_SPREAD
    assert lobby.max_tables == defaults.MAX_TABLES


def test_the_readme_quotes_the_defaults():
    assert f"--port {defaults.DEFAULT_PORT}" in README
    assert f"--ssh-port {defaults.DEFAULT_SSH_PORT}" in README
    assert f"{defaults.BOT_PACE} by default" in README
    assert f"gives them **{defaults.SERVER_TURN_CLOCK:g} seconds**" in README
    assert f"waits **{defaults.TURN_TIMER:g} seconds**" in README
