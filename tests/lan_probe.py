"""A player's side of the LAN discovery test, run inside the test's network namespace (tests/test_lan_namespace.py).

``nothanks join`` with no address, headless: the Join tab lists the hosts its real (zeroconf) browser finds; the
probe chooses the first, lands in that host's lobby, opens a table of three, and then watches the host's advertised
free seats change. Each step prints one JSON line; any failure exits non-zero.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys

from textual.widgets import OptionList

from nothanks_tui.client.discovery import ZeroconfBrowser
from nothanks_tui.client.screens.lobby import LobbyScreen
from nothanks_tui.commands.net import join_found_app
from nothanks_tui.link import NewTable

WAIT = 30.0  # mDNS probing and announcing take a few seconds; a step that takes longer has failed


def say(step: str, **fields: object) -> None:
    print(json.dumps({"step": step, **fields}), flush=True)


async def until(predicate, pilot) -> None:  # type: ignore[no-untyped-def]
    async def poll() -> None:
        while not predicate():
            await pilot.pause(0.05)

    await asyncio.wait_for(poll(), WAIT)


async def main() -> int:
    app = join_found_app("probe", ZeroconfBrowser)
    async with app.run_test(size=(80, 24)) as pilot:
        form = app.screen.forms[0]
        await until(lambda: form.found, pilot)
        hosts = list(form.found.values())
        say("found", hosts=[dataclasses.asdict(host) for host in hosts])
        listing = form.query_one("#found-hosts", OptionList)
        listing.focus()
        listing.highlighted = 0
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, LobbyScreen) and app.screen._listed, pilot)
        lobby = app.screen.lobby
        say("joined", name=lobby.name, info=str(lobby.info))
        seats: list[int | None] = []
        watcher = ZeroconfBrowser()
        await watcher.start(lambda found: seats.extend(host.free_seats for host in found))
        try:
            await until(lambda: 0 in seats, pilot)  # no table yet: no free seat
            await lobby.create_table(NewTable(players=3, bots=0))
            await until(lambda: 2 in seats, pilot)  # three seats, ours taken: two free, announced
            say("seats", seen=seats)
        finally:
            await watcher.close()
        app.exit(0)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
