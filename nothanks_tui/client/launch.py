"""What ``nothanks`` and ``nothanks play`` run: build the app (and for ``play`` a local table) and run it."""

from __future__ import annotations

from ..defaults import DEFAULT_BOT
from .app import NoThanksApp
from .local import DEFAULT_BOT_PACE, LocalConnection


def run_local_game(
    players: int = 4,
    bot: str = DEFAULT_BOT,
    seed: int | None = None,
    open_chips: bool = False,
    tactical: bool = False,
    name: str = "you",
    bot_pace: float = DEFAULT_BOT_PACE,
) -> int:
    """You against bots at one table in this terminal; returns the exit code."""

    def connect() -> LocalConnection:
        return LocalConnection.against_bots(
            players=players,
            bot=bot,
            seed=seed,
            open_chips=open_chips,
            tactical=tactical,
            human_name=name,
            bot_pace=bot_pace,
        )

    app = NoThanksApp(connection_factory=connect)
    result = app.run()
    return result if isinstance(result, int) else (app.return_code or 0)


def run_start_screen() -> int:
    """The start screen: choose how to play; returns the exit code."""
    app = NoThanksApp()
    result = app.run()
    return result if isinstance(result, int) else (app.return_code or 0)
