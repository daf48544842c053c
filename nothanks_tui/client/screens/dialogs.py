"""Small screens over the table: the rules and keys, the quit confirmation, and the end of a connection."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ..safe_text import clean_message
from ..widgets.keybar import KeyBar

RULES = "\n".join(
    [
        'No Thanks! (Thorsten Gimmler, Amigo 2004)',
        '',
        (
            'Cards 3 to 35: nine are set aside unseen, the other 24 are played. Each player starts with chips: 11'
            ' for 2 to 5 players, 9 for 6, 7 for 7.'
        ),
        '',
        'On your turn, with the face-up card in front of you, either:',
        '• take it with every chip on it, then flip the next card and decide again; or',
        '• say "No thanks!": pay one chip onto it, and play goes on clockwise.',
        'With no chips left you must take.',
        '',
        (
            'The game ends when the 24th card is taken. Each unbroken run of cards counts only its lowest card '
            '(30-31-32 counts 30), a single card counts its value, and each chip you hold is −1. The lowest score'
            ' wins; ties share the win.'
        ),
        '',
        (
            'Chips are hidden from the others (shown as ?) unless the table plays with open chips; all chips are '
            'counted in the open at the end.'
        ),
        '',
        'Keys',
        '  t          take the card (and its chips)',
        '  n, space   No thanks! (pay one chip)',
        '  ?, h       this help (q or Esc closes it, and every dialog)',
        '  q          leave the table (asks first during a game)',
        '  a, s       after the game: play again, show the scores (g there: the score chart)',
        '  c, m       at a host: say something to the table; mute (or show) what is said',
        '  b          the table\'s creator: a bot plays for away players until they are back',
        '  i          the coach: what the hard bot would play, at tables that allow it',
        '  l          the bell when it becomes your turn: on or off',
        '',
    ]
)


class HelpScreen(ModalScreen[None]):
    """The rules in short, and the keys."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q,escape", "close", "Close", key_display="q/Esc"),
        Binding("question_mark", "close", "Close", show=False),
        Binding("h", "close", "Close", show=False),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box", classes="dialog"):
            yield Static(Content(RULES), id="help-text")
        yield KeyBar()

    def action_close(self) -> None:
        self.dismiss(None)


class ConfirmQuitScreen(ModalScreen[bool]):
    """Leaving during a game (or stopping a host others play at) asks first, and says what it will do."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes, leave"),
        Binding("n", "answer(False)", "No, keep playing", key_display="n/Esc"),
        Binding("escape", "answer(False)", "Back", show=False),
        Binding("q", "answer(True)", "Leave", show=False),
    ]

    def __init__(
        self,
        title: str = "Leave this game?",
        text: str = "The game is not over. [y] leave, [n] keep playing.",
    ) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box", classes="dialog"):
            yield Static(Content.styled(self.title_text, "bold"), id="confirm-title")
            yield Static(Content(self.text), id="confirm-text")
        yield KeyBar()

    def action_answer(self, leave: bool) -> None:
        self.dismiss(leave)


HOST_WARNING = (
    "You are the host: leaving stops it and ends the game for everyone who joined, at every table. "
    "[y] stop the host and leave, [n] keep playing."
)


class ClosedScreen(ModalScreen[None]):
    """The table went away; say why, then any of the keys leaves."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q,escape", "close", "Close", key_display="q/Esc"),
        Binding("enter", "close", "Close", show=False),
    ]

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason

    def compose(self) -> ComposeResult:
        with Vertical(id="closed-box", classes="dialog"):
            yield Static(Content.styled("The table closed", "bold"))
            yield Static(Content(clean_message(self.reason)))
        yield KeyBar()

    def action_close(self) -> None:
        self.dismiss(None)
