"""Small screens over the table: the rules and keys, the quit confirmation, the end of a connection, and the daily
deal's ranking."""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ...engine import STANDARD, VARIANTS
from ...i18n import LOCALE_DIR, N_, _, current_language, ngettext
from ...link import LobbyConnection, LobbyError
from ...link.daily import place_text, share_line
from ..error_sentences import error_sentence
from ..safe_text import clean_message, display_name
from ..widgets.keybar import KeyBar

DialogResult = TypeVar("DialogResult")
KEYS = (
    N_("Keys"),
    N_("  t          take the card (and its chips)"),
    N_("  n, space   No thanks! (pay one chip)"),
    N_("  ?, h       this help (q or Esc closes it, and every dialog)"),
    N_("  q          leave the table (asks first during a game)"),
    N_("  a, s       after the game: play again, show the scores (g there: the score chart)"),
    N_("  c, m       at a host: say something to the table; mute (or show) what is said"),
    N_("  b          the table's creator: a bot plays for away players until they are back"),
    N_("  i          the coach: what the hard bot would play, at tables that allow it"),
    N_("  l          the bell when it becomes your turn: on or off"),
)


LOBBY_KEYS = (
    N_("Keys in the lobby"),
    N_("  Enter, j   join the highlighted table (or take back your seat there)"),
    N_("  c          set up a new table: players, bots, options"),
    N_("  w          watch the highlighted table"),
    N_("  i          a private table: sit or watch with its invite code"),
    N_("  r          list the tables again (the list also refreshes by itself)"),
    N_("  h          this host's finished games: replays and statistics"),
    N_("  l          the leaderboard: players by rating, the bot levels among them"),
    N_("  d          the daily deal: today's ranking, and the same deal for everyone, once a day"),
    N_("  t          say a line to everyone in this lobby (where the host offers it)"),
    N_("  m          mute (or show) what is said in this lobby"),
    N_("  ?          this help (q or Esc closes it)"),
    N_("  q          leave this host"),
    "",
    N_("At a table, in its waiting room and during its game, c talks to that table only."),
)


def help_text(keys: tuple[str, ...] = KEYS, variant: str = STANDARD) -> str:
    """The help's text: the rules in short (locale/<lang>/rules.txt, else English), what the table's variant changes
    in them, then the keys (the table's by default)."""
    paths = [LOCALE_DIR / language / "rules.txt" for language in (current_language(), "en")]
    rules = [next((path.read_text(encoding="utf-8").strip() for path in paths if path.exists()), "")]
    if variant != STANDARD and (known := VARIANTS.get(variant)) is not None:  # (a newer host's: the title names it)
        changes = _("This table plays the {variant} variant: {changes}.")
        rules += ["", changes.format(variant=_(known.label), changes=_(known.summary))]
    return "\n".join([*rules, "", *(_(line) if line else "" for line in keys), ""])


class TextDialog(ModalScreen[DialogResult]):
    """A box over the screen below: a bold title (if any) over a text, then the keys. ``BOX``: its id (app.tcss),
    scrolled unless ``FIXED``; ``TEXT_ID``: the text's, for a dialog that fills it in later (``say``)."""

    BOX, TEXT_ID, FIXED = "help-box", "dialog-text", False

    def __init__(self, title: str = "", text: str = "") -> None:
        super().__init__()
        self.title_text, self.text = title, text

    def compose(self) -> ComposeResult:
        with (Vertical if self.FIXED else VerticalScroll)(id=self.BOX, classes="dialog"):
            if self.title_text:
                yield Static(Content.styled(self.title_text, "bold"))
            yield Static(Content(self.text), id=self.TEXT_ID)
        yield KeyBar()

    def say(self, text: str) -> None:
        self.query_one(f"#{self.TEXT_ID}", Static).update(Content(text))


class HelpScreen(TextDialog[None]):
    """The rules in short (with what the table's variant changes), and the keys."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q,escape", "dismiss", N_("Close"), key_display="q/Esc"),
        Binding("question_mark,h", "dismiss", N_("Close"), show=False),
    ]

    TEXT_ID = "help-text"

    def __init__(self, keys: tuple[str, ...] = KEYS, variant: str = STANDARD) -> None:
        super().__init__(text=help_text(keys, variant))


class ConfirmQuitScreen(TextDialog[bool]):
    """Leaving during a game (or stopping a host others play at) asks first, and says what it will do."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # q says yes, and shows it: a hidden q that left surprised players who closed every other dialog with q.
        Binding("y,q", "dismiss(True)", N_("Yes, leave"), key_display="y/q"),
        Binding("n", "dismiss(False)", N_("No, keep playing"), key_display="n/Esc"),
        Binding("escape", "dismiss(False)", N_("Back"), show=False),
    ]

    BOX, FIXED = "confirm-box", True

    def __init__(self, title: str | None = None, text: str | None = None) -> None:
        """``title`` and ``text`` in the player's language (by default: leave this game, which is not over)."""
        text = text or _("The game is not over. [y] leave, [n] keep playing.")
        super().__init__(title or _("Leave this game?"), text)


HOST_WARNING = N_(
    "You are the host: leaving stops it and ends the game for everyone who joined, at every table. "
    "[y] stop the host and leave, [n] keep playing."
)


class ClosedScreen(TextDialog[None]):
    """The table went away; say why, then any of the keys leaves."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q,escape", "dismiss", N_("Close"), key_display="q/Esc"),
        Binding("enter", "dismiss", N_("Close"), show=False),
    ]

    BOX, FIXED = "closed-box", True

    def __init__(self, reason: str) -> None:
        # (a host's fixed reasons are in the catalogs)
        super().__init__(_("The table closed"), clean_message(_(reason) if reason else ""))
        self.reason = reason


class DailyScreen(TextDialog[bool]):
    """Today's daily deal at this host: its ranking, your result to share, and ``p`` to play it (once a day).
    Dismissed True to play. Nothing here tells what the deal holds: the host sends names and scores only."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "dismiss(True)", N_("Play today's deal")),
        Binding("q,escape", "dismiss(False)", N_("Close"), key_display="q/Esc"),
    ]

    TEXT_ID = "daily-text"

    def __init__(self, lobby: LobbyConnection) -> None:
        super().__init__(text=_("Asking the host for today's ranking..."))
        self.lobby = lobby
        self.played = True  # until the host says otherwise: no p

    async def on_mount(self) -> None:
        try:
            ranking = await self.lobby.daily_ranking()
        except LobbyError as error:
            self.say(clean_message(error_sentence(error.code, error.message)))
            return
        self.played, day = ranking.played, clean_message(ranking.day, 20)  # (a host's words: literal, no escapes)
        self.refresh_bindings()
        lines = [
            _("The daily deal of {day} (UTC): everyone here plays the same deal against two medium bots.").format(
                day=day
            )
        ]
        if ranking.you is not None:
            lines += ["", _("Your result, to share:"), share_line(day, ranking.you, ranking.count)]
        elif ranking.played:
            lines += ["", _("You have started today's deal: your result shows once it is over.")]
        else:
            lines += ["", _("Press p to play it: once a day, and nobody sees it before playing it.")]
        finished = ngettext("{count} player has finished it:", "{count} players have finished it:", ranking.count)
        lines += ["", finished.format(count=ranking.count)]
        lines += [f"{place_text(line):>6}  {line.score:>4}  {display_name(line.name)}" for line in ranking.top]
        self.say("\n".join(lines))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (action == "dismiss" and parameters == (True,) and self.played)
