"""``NO_COLOR=1`` (no-color.org): the game writes no colour codes at all to the terminal, on the start screen and at
the table. Textual's own NO_COLOR filter only greyed the colours, still as 256-colour codes (issue 29, defect 12)."""

from __future__ import annotations

import re
import signal

from nothanks_tui.client.app import NoThanksApp

from ..test_terminal_signals import PtyGame

SGR = re.compile(rb"\x1b\[([0-9;:]*)m")
COLOUR = re.compile(rb"(^|[;:])(3[0-9]|4[0-9]|9[0-7]|10[0-7])([;:]|$)")  # foreground, background, bright: any form


def colour_codes(output: bytes) -> list[bytes]:
    return [params for params in SGR.findall(output) if COLOUR.search(params)]


async def test_no_color_writes_no_colour_codes(tmp_path):
    env = {"XDG_CONFIG_HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path), "NO_COLOR": "1"}
    for arguments in (("play", "--players", "3", "--seed", "1"), ()):
        game = PtyGame(*arguments, env=env)
        await game.wait_for(b"No thanks!")
        await game.wait_for(b"Quit")  # the whole first frame, down to its key bar
        game.process.send_signal(signal.SIGTERM)
        assert await game.finish() == 0
        output = game.seen()
        assert SGR.search(output), "bold and reverse still mark things"
        assert colour_codes(output) == [], arguments


def test_colour_stays_without_no_color(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert not any(type(line_filter).__name__ == "Colourless" for line_filter in NoThanksApp().get_line_filters())
    monkeypatch.setenv("NO_COLOR", "1")
    assert any(type(line_filter).__name__ == "Colourless" for line_filter in NoThanksApp().get_line_filters())
