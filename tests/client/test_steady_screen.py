"""``SteadyScreen``: a Resize to the size a screen already has does not lay it out again; another size does.

The plain ``Screen`` cases pin Textual's own behaviour: if Textual stops laying a screen out again for a Resize of
the same size, the first test fails and ``SteadyScreen`` has no work left to do.
"""

from __future__ import annotations

from textual import events
from textual.app import App
from textual.geometry import Size
from textual.screen import Screen

from nothanks_tui.client.screens.steady import SteadyScreen


class Plain(Screen[None]):
    pass


class Steady(SteadyScreen[None]):
    def __init__(self) -> None:
        super().__init__()
        self.resizes: list[Size] = []

    def on_resize(self, event: events.Resize) -> None:
        self.resizes.append(event.size)  # a subclass's own handler still sees every Resize


async def layouts_after(screen: Screen[None], size: Size) -> int:
    """How many times ``screen`` is laid out for one Resize to ``size``."""
    app = App[None]()
    async with app.run_test(size=(60, 20)) as pilot:
        await app.push_screen(screen)
        await pilot.pause()
        count = 0
        lay_out = screen._refresh_layout

        def counted(*args: object, **kwargs: object) -> None:
            nonlocal count
            count += 1
            lay_out(*args, **kwargs)  # type: ignore[arg-type]

        screen._refresh_layout = counted  # type: ignore[method-assign]
        screen.post_message(events.Resize(size, size))
        await pilot.pause()
        return count


async def test_textual_lays_a_plain_screen_out_again_for_its_own_size():
    assert await layouts_after(Plain(), Size(60, 20)) == 1


async def test_a_steady_screen_is_not_laid_out_again_for_its_own_size():
    screen = Steady()
    assert await layouts_after(screen, Size(60, 20)) == 0
    assert Size(60, 20) in screen.resizes


async def test_a_steady_screen_is_laid_out_for_a_new_size():
    assert await layouts_after(Steady(), Size(50, 15)) >= 1
