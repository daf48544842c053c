"""Form fields shared by the start screen's tabs and the new-table dialog; a tick box that says its state in
characters, not only in colour (NO_COLOR, 16 colours, screen readers)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Label, Select

from ...engine import MAX_PLAYERS, MIN_PLAYERS, STANDARD, VARIANTS
from ...i18n import _, ngettext
from ...link import NewTable
from ...link.names import MAX_NAME

TABLE_PLAYERS = 3  # the "Players" field's first choice


class TickBox(Checkbox):
    """A checkbox drawn ``[✓]`` when on and ``[ ]`` when off, in the text colour (Textual's colours an X)."""

    def render(self) -> Content:
        label = self.label.pad(1, 1).stylize_before(self.get_visual_style("toggle--label"))
        return Content.assemble(Content.styled("[✓]" if self.value else "[ ]", "bold"), label)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """As many lines as its label takes at this width (Textual's is one line: 60 columns cut the label)."""
        return max(1, len(self.render().wrap(max(1, width))))


def form_row(label: str, *widgets: Widget, classes: str = "field", id: str | None = None) -> ComposeResult:
    with Horizontal(classes=classes, id=id):
        yield Label(label, classes="field-label")
        yield from widgets


def open_chips_box() -> TickBox:
    return TickBox(_("Open chips (everyone sees every chip count)"), id="open-chips", compact=True)


def name_field(default: str, compact: bool = False) -> ComposeResult:
    yield from form_row(_("Your name"), Input(value=default, max_length=MAX_NAME, id="name", compact=compact))


def bot_field(choices: Sequence[tuple[str, str]], default: str, *, compact: bool = False) -> ComposeResult:
    """The "Level" field: each bot the command line offers, with what it is like (nothing when none is offered)."""
    if not choices:
        return
    names = [name for name, _description in choices]
    options = [(f"{name}: {_(description)}", name) for name, description in choices]
    value = default if default in names else names[0]
    select = Select(options, value=value, allow_blank=False, id="bot", compact=compact)
    yield from form_row(_("Level"), select, id="bot-field")


def variant_field(*, compact: bool = False) -> ComposeResult:
    """The "Variant" field: every variant the engine registers, by its name and what it changes, translated."""
    options = [
        (_("{variant}: {summary}").format(variant=_(variant.label), summary=_(variant.summary)), name)
        for name, variant in VARIANTS.items()
    ]
    select = Select(options, value=STANDARD, allow_blank=False, id="variant", compact=compact)
    yield from form_row(_("Variant"), select, id="variant-field")


TURN_CLOCKS = (0, 15, 30, 60, 120)  # the new-table dialog's turn clocks, in seconds (0: off)


def turn_clock_field() -> ComposeResult:
    """The "Clock" field: seconds per move of a connected player, then a bot plays it (off by default)."""
    options = [(_("off") if s == 0 else _("{seconds} s per move").format(seconds=s), s) for s in TURN_CLOCKS]
    select = Select(options, value=0, allow_blank=False, id="turn-clock", compact=True)
    yield from form_row(_("Clock"), select, id="turn-clock-field")


def _bot_counts(players: int) -> list[tuple[str, int]]:
    """The "Bots" choices at a table of ``players``: none up to every seat but the creator's."""
    return [
        (_("none") if n == 0 else ngettext("{count} bot", "{count} bots", n).format(count=n), n) for n in range(players)
    ]


def table_size_fields() -> ComposeResult:
    """The "Players" and "Bots" fields; the form calls ``fit_bots_to_players`` when "Players" changes."""
    players = [
        (ngettext("{count} player", "{count} players", n).format(count=n), n)
        for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)
    ]
    yield from form_row(_("Players"), Select(players, value=TABLE_PLAYERS, allow_blank=False, id="players"))
    yield from form_row(_("Bots"), Select(_bot_counts(TABLE_PLAYERS), value=0, allow_blank=False, id="bots"))


def fit_bots_to_players(event: Select.Changed, form: Widget) -> None:
    """After "Players" changed: offer only as many bots as there are seats besides the creator's, keeping the
    choice where it still fits."""
    if event.select.id != "players" or not isinstance(event.value, int):
        return
    bots = form.query_one("#bots", Select)
    chosen = bots.value if isinstance(bots.value, int) else 0
    bots.set_options(_bot_counts(event.value))
    bots.value = min(chosen, event.value - 1)


def new_table(form: Widget) -> NewTable:
    """The table ``form``'s fields describe (sizes, bot, variant, turn clock, open chips, coach)."""
    players = form.query_one("#players", Select).value
    bots = form.query_one("#bots", Select).value
    if not isinstance(players, int) or not isinstance(bots, int):
        raise ValueError(_("choose the number of players"))
    table = NewTable(
        players=players,
        bots=min(bots, players - 1),
        open_chips=form.query_one("#open-chips", TickBox).value,
        variant=str(form.query_one("#variant", Select).value),
        coach=form.query_one("#coach", TickBox).value,
    )
    for bot in form.query("#bot").results(Select):  # none: the host's default bot
        table = dataclasses.replace(table, bot=str(bot.value))
    for private in form.query("#private").results(TickBox):  # (a host's table only)
        table = dataclasses.replace(table, private=private.value)
    for clock in form.query("#turn-clock").results(Select):  # none: the host's default clock
        table = dataclasses.replace(table, turn_clock=clock.value if isinstance(clock.value, int) else None)
    return table
