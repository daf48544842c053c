"""Form widgets that say their state in characters, not only in colour (NO_COLOR, 16 colours, screen readers)."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Checkbox, Label, Select

from ...engine import MAX_PLAYERS, MIN_PLAYERS, STANDARD, VARIANTS
from ...i18n import _, ngettext


class TickBox(Checkbox):
    """A checkbox drawn ``[✓]`` when on and ``[ ]`` when off, in the text colour (Textual's colours an X)."""

    @property
    def _button(self) -> Content:
        return Content.styled("[✓]" if self.value else "[ ]", "bold")

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """As many lines as its label takes at this width (Textual's is one line: 60 columns cut the label)."""
        return max(1, len(self.render().wrap(max(1, width))))


def bot_field(choices: Sequence[tuple[str, str]], default: str) -> ComposeResult:
    """The "Level" field: each bot the command line offers, with what it is like (nothing when none is offered)."""
    if not choices:
        return
    names = [name for name, _description in choices]
    with Horizontal(classes="field"):
        yield Label(_("Level"), classes="field-label")
        yield Select(
            [(f"{name}: {_(description)}", name) for name, description in choices],
            value=default if default in names else names[0],
            allow_blank=False,
            id="bot",
        )


def variant_field(*, compact: bool = False) -> ComposeResult:
    """The "Variant" field: every variant the engine registers, by its name and what it changes, translated."""
    with Horizontal(classes="field", id="variant-field"):
        yield Label(_("Variant"), classes="field-label")
        yield Select(
            [
                (_("{variant}: {summary}").format(variant=_(variant.label), summary=_(variant.summary)), name)
                for name, variant in VARIANTS.items()
            ],
            value=STANDARD,
            allow_blank=False,
            id="variant",
            compact=compact,
        )


TABLE_PLAYERS = 3  # the "Players" field's first choice


def _bot_counts(players: int) -> list[tuple[str, int]]:
    """The "Bots" choices at a table of ``players``: none up to every seat but the creator's."""
    return [
        (_("none") if n == 0 else ngettext("{count} bot", "{count} bots", n).format(count=n), n) for n in range(players)
    ]


def table_size_fields() -> ComposeResult:
    """The "Players" and "Bots" (how many, seated at once) fields of every form that sets up a table (lobby dialog,
    host tab). The form calls ``fit_bots_to_players`` when "Players" changes."""
    with Horizontal(classes="field"):
        yield Label(_("Players"), classes="field-label")
        yield Select(
            [
                (ngettext("{count} player", "{count} players", n).format(count=n), n)
                for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)
            ],
            value=TABLE_PLAYERS,
            allow_blank=False,
            id="players",
        )
    with Horizontal(classes="field"):
        yield Label(_("Bots"), classes="field-label")
        yield Select(_bot_counts(TABLE_PLAYERS), value=0, allow_blank=False, id="bots")


def fit_bots_to_players(event: Select.Changed, form: Widget) -> None:
    """After the "Players" field of ``form`` changed: offer only as many bots as there are seats besides the
    creator's (a 3-player table offered 6, and quietly made 2 of them), keeping the choice where it still fits."""
    if event.select.id != "players" or not isinstance(event.value, int):
        return
    bots = form.query_one("#bots", Select)
    chosen = bots.value if isinstance(bots.value, int) else 0
    bots.set_options(_bot_counts(event.value))
    bots.value = min(chosen, event.value - 1)
