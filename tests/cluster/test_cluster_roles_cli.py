"""``nothanks server --redis``'s role options are checked before anything starts: a cluster needs its secret file
(16 characters at least), the role options need ``--redis``, a table host has no SSH front, and ``--table-port``
is for ``--role both``; ``--help`` says them all."""

from __future__ import annotations

import pytest

from nothanks_server.cluster.settings import ClusterSettings
from nothanks_tui.cli import build_parser, main
from nothanks_tui.commands.cluster_options import cluster_settings_from


@pytest.fixture
def secret(tmp_path):
    path = tmp_path / "cluster-secret"
    path.write_text("  sixteen characters and more\n")
    return path


def test_the_role_options_make_the_cluster_settings(secret):
    cluster = ["--redis", "redis://r", "--role", "both", "--table-port", "7800", "--cluster-secret-file", str(secret)]
    args = build_parser().parse_args(["server", *cluster])
    assert cluster_settings_from(args) == ClusterSettings(
        "redis://r", role="both", secret="sixteen characters and more", table_port=7800
    )
    args = build_parser().parse_args(["server", "--redis", "redis://r", "--cluster-secret-file", str(secret)])
    assert cluster_settings_from(args).role == "both"  # the default


@pytest.mark.parametrize(
    ("options", "complaint"),
    [
        (["--role", "front"], "--role is for a member of a cluster: give --redis URL too"),
        (["--table-port", "7800"], "--table-port is for a member of a cluster"),
        (["--redis", "redis://r"], "--redis needs --cluster-secret-file PATH"),
        (["--redis", "redis://r", "--cluster-secret-file", "SHORT"], "needs at least 16"),
        (["--redis", "redis://r", "--cluster-secret-file", "MISSING"], "cannot read the cluster secret file"),
        (["--redis", "redis://r", "--cluster-secret-file", "SECRET", "--role", "table", "--ssh-port", "0"],
         "--role table serves no players directly"),
        (["--redis", "redis://r", "--cluster-secret-file", "SECRET", "--role", "front", "--table-port", "1"],
         "--table-port is for --role both"),
    ],
)  # fmt: skip
def test_a_wrong_combination_is_said_before_anything_starts(options, complaint, secret, tmp_path, capsys):
    short = tmp_path / "short"
    short.write_text("too short\n")
    paths = {"SECRET": str(secret), "SHORT": str(short), "MISSING": str(tmp_path / "nowhere")}
    data = tmp_path / "data"
    code = main(["server", "--port", "0", "--data-dir", str(data), *(paths.get(o, o) for o in options)])
    assert code == 2
    assert complaint in capsys.readouterr().err
    assert not data.exists()  # nothing started, not even the store


def test_help_says_the_cluster_options(capsys):
    with pytest.raises(SystemExit):
        main(["server", "--help"])
    text = capsys.readouterr().out
    for option in ("--redis", "--role", "--cluster-secret-file", "--table-port", "--host-id", "--advertise"):
        assert option in text
