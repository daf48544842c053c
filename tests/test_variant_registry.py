"""A variant is data: one registered here, in the test, is dealt, played by a bot, advised, recorded and offered on
the command line with no other code knowing its name (docs/architecture.md, "Adding a variant")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nothanks_tui.advise import BadPosition, parse_position
from nothanks_tui.bots import make_bot
from nothanks_tui.bots.knowledge import info_from_view
from nothanks_tui.cli import build_parser
from nothanks_tui.engine import GameConfig, IllegalMove, from_deal, new_game, replay, to_record, view_for
from nothanks_tui.engine.config import VARIANTS, Variant, register
from nothanks_tui.simulate import play_game, simulate

ENDS = (3, 4, 34, 35)  # the throw-away variant sets the four ends of the deck aside


@pytest.fixture
def ends_variant():
    register(Variant("ends", "ends", "3, 4, 34, 35 set aside, 2 chips fewer", set_aside=ENDS, chips_change=-2))
    yield "ends"
    del VARIANTS["ends"]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_registered_variant_is_dealt_and_played_to_the_end_by_a_bot(ends_variant, players):
    config = GameConfig(players=players, variant=ends_variant)
    assert config.chips == 9  # the rules' 11, less 2
    for seed in range(5):
        state = play_game(config, seed, [make_bot("medium", seed=seat) for seat in range(players)])
        assert state.finished
        assert set(ENDS) <= set(state.removed) and len(state.removed) == 9
        assert sum(state.chips) == 9 * players
        assert replay(to_record(state, [f"p{seat}" for seat in range(players)])) == state  # records keep it


def test_a_bot_counts_the_variants_set_aside_cards_as_known(ends_variant):
    state = new_game(GameConfig(players=3, variant=ends_variant), seed=4)
    info = info_from_view(view_for(state, state.to_move))
    assert not set(ENDS) & set(info.unseen)
    assert len(info.unseen) == 33 - len(ENDS) - 1  # all but the face-up card and the ones set aside


def test_a_deal_that_keeps_the_variants_cards_in_play_is_refused(ends_variant):
    standard = next(s for s in (new_game(GameConfig(players=3), seed) for seed in range(50)) if 3 in s.deck)
    with pytest.raises(IllegalMove, match="3, 4, 34, 35") as refused:
        from_deal(GameConfig(players=3, variant=ends_variant), standard.deck, standard.removed, 0)
    assert refused.value.code == "bad_config"


def test_the_simulator_and_advise_take_the_variant_by_name(ends_variant):
    result = simulate(players=3, games=3, seed=1, bot_names=["rules"], variant=ends_variant)
    assert sum(tally.games for tally in result.tallies.values()) == 9
    position = {"players": 3, "seat": 0, "variant": "ends", "card": 20, "pot": 0, "deck_left": 23}
    position |= {"cards": [[], [], []], "chips": [9, None, None]}
    info, view = parse_position(json.loads(json.dumps(position)))
    assert view.chips_per_player == 9 and not set(ENDS) & set(info.unseen)
    with pytest.raises(BadPosition, match="the ends variant sets 3, 4, 34, 35 aside"):
        parse_position(position | {"card": 35})


def test_the_command_line_offers_every_registered_variant(ends_variant):
    for command in (["play"], ["host"], ["simulate"]):
        assert build_parser().parse_args([*command, "--variant", "ends"]).variant == "ends"
        assert build_parser().parse_args([*command, "--tactical"]).variant == "tactical"


def test_a_variant_that_cannot_deal_is_refused_when_registered():
    with pytest.raises(ValueError, match="chips"):
        register(Variant("rich", "rich", "", chips_change=1))  # 12 each: 5 players need 60 of the box's 55
    with pytest.raises(ValueError, match="different cards"):
        register(Variant("wide", "wide", "", set_aside=tuple(range(3, 13))))  # 10 set aside: only 9 are
    with pytest.raises(ValueError, match="name"):
        register(Variant("standard", "again", ""))
    assert list(VARIANTS) == ["standard", "tactical"]


def test_a_record_written_before_the_registry_replays():
    """tests/data/tactical_record.json was written by `simulate(..., variant="tactical")` before variants were data:
    its variant is its name, as records keep it."""
    record = json.loads((Path(__file__).parent / "data" / "tactical_record.json").read_text())
    state = replay(record)
    assert state.finished and state.config.variant == "tactical" and state.config.chips == 10
    assert {10, 20, 30} <= set(state.removed)


async def test_the_new_table_dialog_offers_it_and_it_goes_over_the_wire_to_the_lobbys_list(ends_variant):
    from textual.widgets import DataTable, Select

    from nothanks_tui.client.netlaunch import NetApp, first_screen_for
    from nothanks_tui.client.screens.lobby import LobbyScreen, NewTableScreen
    from nothanks_tui.client.screens.waiting import WaitingScreen
    from nothanks_tui.client.tcp import TcpLobby

    from .net_helpers import live_host
    from .test_net_screens import wait_for_screen, wait_until

    async with live_host() as host:
        ana = TcpLobby("127.0.0.1", host.port, "ana")
        await ana.start()
        app = NetApp(first_screen_for(ana, None))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for_screen(app, pilot, LobbyScreen)
            await pilot.press("c")
            dialog = await wait_for_screen(app, pilot, NewTableScreen)
            field = dialog.query_one("#variant", Select)
            assert [value for _prompt, value in field._options] == ["standard", "tactical", "ends"]
            field.value = "ends"
            await pilot.press("ctrl+s")
            waiting = await wait_for_screen(app, pilot, WaitingScreen)
            await wait_until(pilot, lambda: waiting.waiting is not None)
            assert waiting.waiting.variant == "ends"
        bo = TcpLobby("127.0.0.1", host.port, "bo")
        await bo.start()
        assert [summary.variant for summary in await bo.list_tables()] == ["ends"]
        app = NetApp(first_screen_for(bo, None))
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await wait_for_screen(app, pilot, LobbyScreen)
            await wait_until(pilot, lambda: len(screen.summaries) == 1)
            assert screen.query_one("#tables", DataTable).get_row_at(0)[1].plain == "3 ends"
        await bo.close()
        await ana.close()
