"""Players' statistics from the history: games, wins, win share, mean and best (lowest) score. A player is a name
locally; at a host an SSH key or a seat token."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Static

from ...i18n import N_, _
from ...link import LobbyError
from ...link.history import HistorySource, PlayerStats
from ..presentation import number
from ..safe_text import clean_message, display_name
from ..widgets.keybar import KeyBar
from .steady import SteadyScreen

KINDS = {"bot": N_("bot"), "key": N_("SSH key"), "seat": N_("seat")}  # a name needs no tag


def player_cell(row: PlayerStats) -> Text:
    """The name, then what it is: "ana (bot)", "carol (SSH key, you)"."""
    tags = [_(KINDS[row.kind])] if row.kind in KINDS else []
    if row.you:
        tags.append(_("you"))
    text = Text(display_name(row.name, 16), style="bold" if row.you else "")
    if tags:
        text.append(f" ({', '.join(tags)})", style="dim")
    return text


def stats_cells(row: PlayerStats) -> tuple[Text, ...]:
    """One row of the table: player, games, wins, win share, mean (to one decimal, a real minus sign), best."""
    mean = f"{abs(row.mean):.1f}"
    mean = f"−{mean}" if row.mean < 0 and mean != "0.0" else mean
    numbers = (str(row.games), str(row.wins), f"{row.win_share:.0%}", mean, number(row.best))
    return (player_cell(row), *(Text(cell, justify="right") for cell in numbers))


class StatsScreen(SteadyScreen[None]):
    """Each player's games, wins, win share, mean and best score, most games first."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "reload", N_("Refresh")),
        Binding("q,escape", "close", N_("Back"), key_display="q/Esc"),
    ]

    def __init__(self, source: HistorySource) -> None:
        super().__init__()
        self.source = source
        self.rows: list[PlayerStats] = []

    def compose(self) -> ComposeResult:
        yield Static(Text(_("Statistics"), style="bold"), classes="screen-title")
        yield Static(_("Loading…"), classes="screen-note", id="stats-note")
        table: DataTable[Text] = DataTable(id="stats", cursor_type="row", zebra_stripes=True)
        for label, key in (
            (_("Player"), "player"),
            (_("Games"), "games"),
            (_("Wins"), "wins"),
            (_("Win share"), "share"),
            (_("Mean"), "mean"),
            (_("Best"), "best"),
        ):
            table.add_column(label, key=key)
        yield table
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#stats", DataTable).focus()
        self.action_reload()

    def action_reload(self) -> None:
        self.load()

    @work(exclusive=True, group="stats", exit_on_error=False)
    async def load(self) -> None:
        note = self.query_one("#stats-note", Static)
        try:
            rows = await self.source.player_stats()
        except LobbyError as error:
            note.update(Text(_("The statistics cannot be read: {reason}").format(reason=clean_message(error.message))))
            return
        self.rows = rows
        table = self.query_one("#stats", DataTable)
        table.clear()
        for row in rows:
            table.add_row(*stats_cells(row))
        if rows:
            note.update(Text(_("Most games first. Lower scores are better: best is the lowest final score.")))
        else:
            note.update(Text(_("No finished game yet.")))
