"""A player who comes in over SSH without a key is told, before sitting down, that a dropped connection loses their
seat for good, and how to have it kept (only a key finds a seat again: README, tests/test_join_away_seat.py)."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from nothanks_server.ssh.game import SSHDoorway
from nothanks_server.ssh.session import SSHPlayer
from nothanks_tui.client.netlaunch import NetApp
from nothanks_tui.client.screens.welcome import WelcomeScreen

from .test_welcome_quit import Door
from .ui_helpers import wait_until


class KeylessDoor(Door):
    keeps_seats = False


@pytest.mark.parametrize("door", [KeylessDoor(), Door()], ids=["without a key", "with a key"])
async def test_the_name_screen_says_a_seat_is_not_kept_without_a_key(door):
    app = NetApp(lambda: WelcomeScreen(door))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, WelcomeScreen), "the name screen")
        advice = app.screen.query("#welcome-no-key")
        assert bool(advice) == (door.__class__ is KeylessDoor)
        if advice:
            shown = advice.first(Static)
            assert "without an SSH key" in str(shown.render()) and "ssh-keygen" in str(shown.render())
            assert shown.region.bottom < 22  # all of it on the screen, in the box, above the key bar


def test_an_ssh_doorway_keeps_seats_only_for_a_key_login():
    def player(fingerprint):
        return SSHPlayer("ana", fingerprint, "127.0.0.1:5000", "xterm-256color", "truecolor")

    assert SSHDoorway(player("SHA256:abc"), "127.0.0.1", 1).keeps_seats
    assert not SSHDoorway(player(None), "127.0.0.1", 1).keeps_seats
