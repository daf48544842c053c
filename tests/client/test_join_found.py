"""The Join tab's list of hosts found on the LAN, and ``nothanks join`` with no address, with a browser the test
drives (the real one, over multicast: tests/test_lan_namespace.py)."""

from __future__ import annotations

from typing import ClassVar

from textual.widgets import Input, OptionList, Static, TabbedContent

from nothanks_tui.cli import build_parser
from nothanks_tui.client.app import NoThanksApp
from nothanks_tui.client.discovery import FoundHost, HostsChanged, sorted_hosts
from nothanks_tui.client.screens.lobby import LobbyScreen
from nothanks_tui.client.screens.net_forms import JoinForm
from nothanks_tui.commands.launchers import LocalLaunchers
from nothanks_tui.commands.net import join_found_app
from nothanks_tui.link.wire import PROTOCOL_VERSION

from ..net_helpers import live_host
from .ui_helpers import wait_until


class FakeBrowser:
    """A ``HostBrowser`` whose hosts the test announces."""

    made: ClassVar[list[FakeBrowser]] = []

    def __init__(self) -> None:
        self.on_change: HostsChanged | None = None
        self.closed = False
        FakeBrowser.made.append(self)

    async def start(self, on_change: HostsChanged) -> None:
        self.on_change = on_change

    async def close(self) -> None:
        self.closed = True

    def announce(self, *hosts: FoundHost) -> None:
        assert self.on_change is not None, "not started"
        self.on_change(sorted_hosts(hosts))


class BrokenBrowser(FakeBrowser):
    async def start(self, on_change: HostsChanged) -> None:
        raise OSError("no multicast here")


def found(name: str, port: int = 7777, protocol: int = PROTOCOL_VERSION, seats: int | None = 2) -> FoundHost:
    return FoundHost(f"{name}._nothanks._tcp.local.", name, "127.0.0.1", port, protocol, seats)


def join_form(app: NoThanksApp) -> JoinForm:
    return next(form for form in app.screen.forms if isinstance(form, JoinForm))


async def open_join_tab(app: NoThanksApp, pilot) -> JoinForm:
    await pilot.pause()  # the start screen's first focus (its first tab) is taken before we switch tabs
    form = join_form(app)
    app.screen.query_one("#start-modes", TabbedContent).active = f"mode-{app.screen.forms.index(form)}"
    await pilot.pause()
    return form


def in_lobby(app: NoThanksApp) -> bool:
    """At the host's lobby, its tables listed once (leaving before that would cut its first listing short)."""
    return isinstance(app.screen, LobbyScreen) and app.screen._listed


def lines(form: JoinForm) -> list[str]:
    listing = form.query_one("#found-hosts", OptionList)
    return [listing.get_option_at_index(index).prompt.plain for index in range(listing.option_count)]


async def test_the_join_tab_lists_hosts_as_they_appear(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    FakeBrowser.made.clear()
    app = NoThanksApp(launchers=LocalLaunchers(bot_pace=0), host_browser=FakeBrowser)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert FakeBrowser.made == []  # nobody looks for hosts before the Join tab is opened
        form = await open_join_tab(app, pilot)
        await wait_until(pilot, lambda: len(FakeBrowser.made) == 1 and FakeBrowser.made[0].on_change is not None)
        browser = FakeBrowser.made[0]
        status = form.query_one("#found-status", Static)
        assert "Looking for hosts" in str(status.render()) and status.display
        browser.announce(found("alice", 7001, seats=3))
        await pilot.pause()
        assert lines(form) == ["alice  127.0.0.1:7001  3 free seats"] and not status.display
        browser.announce(found("alice", 7001, seats=1), found("bob", 7002, seats=None), found("old", 7003, protocol=1))
        await pilot.pause()
        assert lines(form) == [
            "alice  127.0.0.1:7001  1 free seat",
            "bob  127.0.0.1:7002",
            "old  127.0.0.1:7003  another version of nothanks (protocol 1)",
        ]
        listing = form.query_one("#found-hosts", OptionList)
        assert listing.get_option_at_index(2).disabled  # shown, but cannot be chosen
        # the whole list and the Join button fit at 80x24
        assert form.query_one("#join").region.bottom <= 23
    assert browser.closed  # leaving the app stops looking


async def test_the_highlighted_host_stays_highlighted_when_the_list_changes():
    FakeBrowser.made.clear()
    app = NoThanksApp(launchers=LocalLaunchers(bot_pace=0), host_browser=FakeBrowser)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_join_tab(app, pilot)
        await wait_until(pilot, lambda: bool(FakeBrowser.made) and FakeBrowser.made[0].on_change is not None)
        browser = FakeBrowser.made[0]
        browser.announce(found("bob"), found("carol"))
        await pilot.pause()
        listing = form.query_one("#found-hosts", OptionList)
        listing.highlighted = 1  # carol
        browser.announce(found("alice"), found("bob"), found("carol"))
        await pilot.pause()
        assert listing.highlighted_option is not None and listing.highlighted_option.id == found("carol").key


async def test_a_hostile_host_name_is_shown_as_plain_text():
    FakeBrowser.made.clear()
    app = NoThanksApp(launchers=LocalLaunchers(bot_pace=0), host_browser=FakeBrowser)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_join_tab(app, pilot)
        await wait_until(pilot, lambda: bool(FakeBrowser.made) and FakeBrowser.made[0].on_change is not None)
        FakeBrowser.made[0].announce(found("[b red]x\x1b[2J" + "y" * 40))
        await pilot.pause()
        (line,) = lines(form)
        assert line.startswith("[b red]x") and "\x1b" not in line and "y" * 20 not in line  # literal, and cut


async def test_choosing_a_found_host_joins_its_lobby(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    FakeBrowser.made.clear()
    async with live_host() as host:
        app = NoThanksApp(launchers=LocalLaunchers(bot_pace=0), host_browser=FakeBrowser)
        async with app.run_test(size=(80, 24)) as pilot:
            form = await open_join_tab(app, pilot)
            form.query_one("#name", Input).value = "zoe"
            await wait_until(pilot, lambda: bool(FakeBrowser.made) and FakeBrowser.made[0].on_change is not None)
            FakeBrowser.made[0].announce(found("old", 1, protocol=1), found("party", host.port))
            await pilot.pause()
            listing = form.query_one("#found-hosts", OptionList)
            listing.focus()
            await pilot.press("home", "enter")
            await wait_until(pilot, lambda: in_lobby(app), "the host's lobby")
            assert app.screen.lobby.name == "zoe" and app.screen.lobby.info.description == f"127.0.0.1:{host.port}"
            await wait_until(pilot, lambda: FakeBrowser.made[0].closed, "the browser closed with the start screen")
            FakeBrowser.made[0].announce(found("late"))  # news after we left: ignored, never an error


async def test_typing_an_address_still_works_where_no_host_can_be_found(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    async with live_host() as host:
        app = NoThanksApp(launchers=LocalLaunchers(bot_pace=0), host_browser=BrokenBrowser)
        async with app.run_test(size=(80, 24)) as pilot:
            form = await open_join_tab(app, pilot)
            status = form.query_one("#found-status", Static)
            await wait_until(pilot, lambda: "Cannot look for hosts" in str(status.render()), "the reason shown")
            form.query_one("#address", Input).value = f"127.0.0.1:{host.port}"
            await app.screen.action_start()
            await wait_until(pilot, lambda: in_lobby(app), "the host's lobby")


async def test_an_app_given_no_browser_shows_no_list():
    app = NoThanksApp(launchers=LocalLaunchers(bot_pace=0))
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_join_tab(app, pilot)
        assert not form.query_one("#found-field").display and form.browser is None


async def test_join_with_no_address_opens_the_join_tab_alone_and_joins_the_host_chosen(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert build_parser().parse_args(["join"]).address is None
    assert build_parser().parse_args(["join", "box:7777"]).address == "box:7777"
    FakeBrowser.made.clear()
    async with live_host() as host:
        app = join_found_app("zoe", FakeBrowser)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            (form,) = app.screen.forms
            assert isinstance(form, JoinForm) and form.query_one("#name", Input).value == "zoe"
            await wait_until(pilot, lambda: bool(FakeBrowser.made) and FakeBrowser.made[0].on_change is not None)
            FakeBrowser.made[0].announce(found("party", host.port, seats=4))
            await pilot.pause()
            assert lines(form) == [f"party  127.0.0.1:{host.port}  4 free seats"]
            form.query_one("#found-hosts", OptionList).focus()
            await pilot.press("home", "enter")
            await wait_until(pilot, lambda: in_lobby(app), "the host's lobby")
            assert app.screen.lobby.name == "zoe"


async def test_start_with_no_address_typed_joins_the_host_highlighted(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    FakeBrowser.made.clear()
    async with live_host() as host:
        app = join_found_app("yan", FakeBrowser)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            (form,) = app.screen.forms
            await wait_until(pilot, lambda: bool(FakeBrowser.made) and FakeBrowser.made[0].on_change is not None)
            form.query_one("#address", Input).value = ""
            # the first host we can play at is highlighted, not the one of another version listed before it
            FakeBrowser.made[0].on_change([found("future", 1, protocol=99), found("party", host.port)])
            await pilot.pause()
            assert form.query_one("#found-hosts", OptionList).highlighted == 1
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: in_lobby(app), "the host's lobby")
            assert app.screen.lobby.info.description == f"127.0.0.1:{host.port}"


def test_the_join_command_without_an_address_opens_the_list_with_zeroconf(monkeypatch):
    from nothanks_tui.client.discovery import ZeroconfBrowser
    from nothanks_tui.commands import net

    opened: list[tuple[object, object]] = []

    class Stub:
        return_code = 0

        def run(self) -> int:
            return 0

    def stub_app(name, browser):
        opened.append((name, browser))
        return Stub()

    monkeypatch.setattr(net, "join_found_app", stub_app)
    assert net.run_join(build_parser().parse_args(["join", "--name", "kim"])) == 0
    assert opened == [("kim", ZeroconfBrowser)]


async def test_finding_nothing_says_so_after_a_while_and_a_host_found_later_still_shows(monkeypatch):
    """Issue 29, defect 18: with no host on the network, the tab said "Looking for hosts…" for ever."""
    monkeypatch.setattr(JoinForm, "NONE_FOUND_AFTER", 0.2)
    FakeBrowser.made.clear()
    app = NoThanksApp(launchers=LocalLaunchers(bot_pace=0), host_browser=FakeBrowser)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await open_join_tab(app, pilot)
        await wait_until(pilot, lambda: bool(FakeBrowser.made) and FakeBrowser.made[0].on_change is not None)
        status = form.query_one("#found-status", Static)  # ("Looking for hosts…" first: the test above)
        await wait_until(pilot, lambda: "No host found" in str(status.render()), "the word that none was found")
        assert "type the host's address" in str(status.render()) and status.display
        assert form.query_one("#join").region.bottom <= 23  # the sentence and the Join button fit at 80x24
        FakeBrowser.made[0].announce(found("alice", 7001))
        await pilot.pause()
        assert lines(form) == ["alice  127.0.0.1:7001  2 free seats"] and not status.display
