"""The command line's cluster options: ``--proxy-from`` is parsed strictly and never lets the host take its own
SSH workers for a load balancer; ``--redis`` and its companions make the host's ``ClusterSettings``."""

from __future__ import annotations

import pytest

from nothanks_server.cluster.settings import ClusterSettings
from nothanks_tui.cli import build_parser, main
from nothanks_tui.commands.cluster_options import cluster_settings_from


def test_proxy_from_takes_addresses_and_networks():
    args = build_parser().parse_args(["server", "--proxy-from", "10.0.0.5,192.168.0.0/24"])
    assert args.proxy_from.trusts("10.0.0.5") and args.proxy_from.trusts("192.168.0.77")
    assert build_parser().parse_args(["server"]).proxy_from is None


@pytest.mark.parametrize("bad", ["", "haproxy.example", "10.0.0.256"])
def test_proxy_from_refuses_what_is_not_an_address(bad, capsys):
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args(["server", "--proxy-from", bad])
    assert done.value.code == 2 and "--proxy-from" in capsys.readouterr().err


def test_a_balancer_at_the_workers_own_address_is_refused_before_anything_starts(capsys, tmp_path):
    code = main(
        ["server", "--bind", "127.0.0.1", "--port", "0", "--ssh-port", "0", "--data-dir", str(tmp_path),
         "--proxy-from", "127.0.0.0/8"]
    )  # fmt: skip
    assert code == 2
    assert "where this host's own SSH workers come from" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())  # nothing was started, not even the store


def test_redis_options_make_the_cluster_settings():
    args = build_parser().parse_args(["server", "--redis", "redis://10.0.0.9:6379/0", "--host-id", "eu-1"])
    assert cluster_settings_from(args) == ClusterSettings("redis://10.0.0.9:6379/0", host_id="eu-1")
    assert cluster_settings_from(build_parser().parse_args(["server"])) is None
    resolved = ClusterSettings("redis://r").resolved("10.0.0.3", 7777)
    assert resolved.address == "10.0.0.3:7777" and resolved.host_id.endswith(":7777")
