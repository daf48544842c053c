"""The host's side of LAN discovery, without a network: the plug-in hook, what is advertised, --no-advertise.
(Advertising for real, over multicast, is tests/test_lan_namespace.py.)"""

from __future__ import annotations

from nothanks_server import Lobby, LobbySettings
from nothanks_server.advertise import Advertiser, free_seats, instance_name
from nothanks_server.host import Host
from nothanks_tui.cli import build_parser
from nothanks_tui.commands.net import _plugins
from nothanks_tui.link import NewTable


class Plugin:
    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.events: list[str] = []

    async def start(self, host: Host) -> None:
        self.events.append(f"start {host.port}")
        if self.fail:
            raise OSError("no network")

    async def close(self) -> None:
        self.events.append("close")
        if self.fail:
            raise OSError("still no network")


async def test_plugins_start_once_the_host_listens_and_close_with_it_even_when_they_fail():
    good, bad = Plugin(), Plugin(fail=True)
    host = Host(LobbySettings(), "127.0.0.1", 0, plugins=[bad, good])
    await host.start()
    try:
        assert host.port > 0
        assert bad.events == [f"start {host.port}"] and good.events == [f"start {host.port}"]
    finally:
        await host.close()
    assert bad.events[-1] == "close" and good.events[-1] == "close"


def test_free_seats_count_the_empty_seats_of_tables_not_yet_started():
    lobby = Lobby(LobbySettings())
    assert free_seats(lobby) == 0
    lobby.create_table(NewTable(players=4, bots=1), creator=_Member())
    lobby.create_table(NewTable(players=3, bots=0), creator=_Member())
    assert free_seats(lobby) == 2 + 2
    lobby.create_table(NewTable(players=2, bots=1), creator=_Member())  # full: dealt at once, nothing free
    assert free_seats(lobby) == 4
    lobby.close()


def test_the_instance_name_is_one_dns_label_whatever_the_name():
    for name in ("alice", "é" * 60, "a.b.c", ""):
        label = instance_name(name, 7777)
        assert 0 < len(label.encode()) <= 63 and "." not in label


def test_no_advertise_leaves_the_host_unannounced():
    parser = build_parser()
    assert _plugins(parser.parse_args(["server", "--no-advertise"]), "box") == []
    assert [type(p) for p in _plugins(parser.parse_args(["server"]), "box")] == [Advertiser]
    assert _plugins(parser.parse_args(["host", "--no-advertise"]), "me") == []


class _Member:
    """The least a table needs of a member: somewhere to deliver (nothing is read here)."""

    name = "m"
    address = None

    def deliver(self, event: object) -> None:
        pass
