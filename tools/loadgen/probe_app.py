"""A small Textual app standing in for the game in SSH front tests: it shows what it was told and what it got."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import ClassVar

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from nothanks_server.ssh.session import AppFactory, SSHPlayer
from nothanks_server.ssh.settings import WorkerPlan


class ProbeApp(App[None]):
    """Title, the suggested name, the terminal size, the last key; F2 tries everything that would touch the host."""

    BINDINGS: ClassVar = [
        Binding("escape", "escaped", "Escape"),
        Binding("f2", "host_actions", "Host actions"),
        Binding("f3", "print", "Print"),
        Binding("f4", "crash", "Crash"),
        Binding("ctrl+q", "quit", "Quit"),
    ]
    CSS = "#title { color: #ff8000; background: #102040; }"

    def __init__(self, player: SSHPlayer, scratch: Path | None = None) -> None:
        super().__init__()
        self.player = player
        self.scratch = scratch

    def compose(self) -> ComposeResult:
        yield Static("No Thanks!", id="title")
        yield Static(f"name: {self.player.suggested_name}", id="name", markup=False)
        yield Static("size: ?", id="size")
        yield Static("last: -", id="last")
        yield Static("resizes: 0", id="resizes")

    def on_resize(self, event: events.Resize) -> None:
        self.resizes = getattr(self, "resizes", 0) + 1
        self.query_one("#size", Static).update(f"size: {event.size.width}x{event.size.height}")
        self.query_one("#resizes", Static).update(f"resizes: {self.resizes}")

    def on_key(self, event: events.Key) -> None:
        self.query_one("#last", Static).update(f"last: {event.key}")

    def action_escaped(self) -> None:
        self.query_one("#last", Static).update("last: ESCAPE-BINDING")

    def action_host_actions(self) -> None:
        scratch = self.scratch or Path(".")
        self.open_url("https://example.invalid/")
        self.action_suspend_process()
        self.save_screenshot(path=str(scratch), filename="shot.svg")
        self.action_screenshot(str(scratch / "shot2.svg"))
        self.deliver_text(Path(__file__), save_directory=scratch, save_filename="delivered.txt")
        self.query_one("#last", Static).update("last: HOST-ACTIONS-DONE")

    def action_print(self) -> None:
        print("printed by a session app")
        print("to stderr", file=sys.stderr)
        self.query_one("#last", Static).update("last: PRINTED")

    def action_crash(self) -> None:
        raise RuntimeError("probe crash")


def make_probe_factory(plan: WorkerPlan) -> AppFactory:
    """A worker's ``AppFactory`` serving ``ProbeApp`` (``SSHSettings(app="tools.loadgen.probe_app:
    make_probe_factory")``); F2's files go to the host key's directory (a test's temporary directory)."""
    scratch = plan.data_dir

    def make_app(player: SSHPlayer) -> ProbeApp:
        return ProbeApp(player, scratch)

    return make_app
