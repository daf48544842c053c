"""The private panel grows and shrinks with its lines, though it re-lays the screen out only when they change."""

from __future__ import annotations

from dataclasses import replace

from textual.app import App, ComposeResult

from nothanks_tui.client.widgets.table import PrivatePanel
from nothanks_tui.engine import GameConfig, from_deal, view_for
from nothanks_tui.link import SeatInfo, TableUpdate


def update_with_hand(hand: tuple[int, ...]) -> TableUpdate:
    rest = [card for card in range(3, 36) if card not in hand]
    state = from_deal(GameConfig(players=2), list(hand) + rest[: 24 - len(hand)], rest[24 - len(hand) :], 0)
    state = replace(state, hands=(hand, ()), taken=len(hand))
    return TableUpdate(view_for(state, 0), (SeatInfo("me"), SeatInfo("bot", is_bot=True)))


class PanelApp(App[None]):
    CSS = "PrivatePanel { height: auto; }"

    def compose(self) -> ComposeResult:
        yield PrivatePanel()


async def test_the_private_panel_follows_its_line_count():
    app = PanelApp()
    async with app.run_test(size=(40, 20)) as pilot:
        panel = app.query_one(PrivatePanel)
        panel.table = update_with_hand((3,))
        await pilot.pause()
        short = panel.size.height
        panel.table = update_with_hand((3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31, 33))
        await pilot.pause()
        assert panel.size.height > short
        panel.table = update_with_hand((3,))
        await pilot.pause()
        assert panel.size.height == short
