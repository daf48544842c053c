"""A paste into the chat line arrives once: it came in twice ("good gamegood game"), seen over SSH. Textual calls
each class's own paste handler in turn, so the chat line's, which passed the paste on to ``Input``'s, was followed
by ``Input``'s own."""

from __future__ import annotations

from textual import events

from nothanks_tui.client.app import NoThanksApp
from nothanks_tui.client.widgets.chat import ChatInput

from .test_chat import playing, two_players
from .ui_helpers import table_screen, wait_until


async def test_a_short_paste_is_typed_once_and_a_long_one_cut_once():
    _, a, _b = await two_players()
    app = NoThanksApp(a)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: playing(app), "the table")
        await pilot.press("c")
        chat = table_screen(app).query_one(ChatInput)
        await wait_until(pilot, lambda: app.focused is chat, "the line")
        chat.post_message(events.Paste("good game"))
        await wait_until(pilot, lambda: bool(chat.value), "the paste")
        await pilot.pause()
        assert chat.value == "good game"
        chat.post_message(events.Paste("x" * 500))
        await wait_until(pilot, lambda: len(chat.value) > len("good game"), "the long paste")
        await pilot.pause()
        assert chat.value == "good game" + "x" * (200 - len("good game"))
