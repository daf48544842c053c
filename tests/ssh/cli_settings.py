"""The SSH front's settings as the command line would make them (``nothanks server``'s SSH options only)."""

from __future__ import annotations

import argparse

from nothanks_server.ssh.options import add_ssh_options, ssh_settings_from
from nothanks_server.ssh.server import SSHSettings


def ssh_settings_for(arguments: list[str]) -> SSHSettings | None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bind", default="127.0.0.1")
    parser.add_argument("--data-dir", default="/tmp/nothanks-test")
    add_ssh_options(parser)
    return ssh_settings_from(parser.parse_args(arguments))
