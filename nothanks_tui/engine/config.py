"""What a table agrees on before the deal: player count, chips, open or hidden chips, variant.

Kept apart from the game state so the host, the CLI and records can build and validate a config on their own.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import BAD_CONFIG, IllegalMove

LOWEST_CARD = 3
HIGHEST_CARD = 35
ALL_CARDS = tuple(range(LOWEST_CARD, HIGHEST_CARD + 1))  # 33 cards
CARDS_REMOVED = 9
CARDS_PLAYED = len(ALL_CARDS) - CARDS_REMOVED  # 24
TOTAL_CHIPS = 55
MIN_PLAYERS = 2  # 2 is a house variant allowed by one rule text; 3..7 is the published range
MAX_PLAYERS = 7

STANDARD = "standard"
TACTICAL = "tactical"
VARIANTS = (STANDARD, TACTICAL)
TACTICAL_REMOVED = (10, 20, 30)  # always among the 9 set aside in the tactical variant


def standard_chips(players: int) -> int:
    """Chips each player starts with under the published rules: 11 for 2-5 players, 9 for 6, 7 for 7."""
    if players <= 5:
        return 11
    if players == 6:
        return 9
    return 7


@dataclass(frozen=True, slots=True)
class GameConfig:
    """A table's settings. ``chips_per_player`` of ``None`` means the count the rules give for ``players``."""

    players: int = 3
    chips_per_player: int | None = None
    open_chips: bool = False
    variant: str = STANDARD

    def __post_init__(self) -> None:
        if not isinstance(self.players, int) or isinstance(self.players, bool):
            raise IllegalMove(BAD_CONFIG, "players must be a whole number")
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise IllegalMove(BAD_CONFIG, f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}, not {self.players}")
        if self.variant not in VARIANTS:
            raise IllegalMove(BAD_CONFIG, f"variant must be one of {', '.join(VARIANTS)}")
        if self.chips_per_player is not None:
            chips = self.chips_per_player
            if not isinstance(chips, int) or isinstance(chips, bool) or chips < 0:
                raise IllegalMove(BAD_CONFIG, "chips_per_player must be a whole number >= 0")
            if chips * self.players > TOTAL_CHIPS:
                raise IllegalMove(
                    BAD_CONFIG, f"{chips} chips for {self.players} players needs more than the box's {TOTAL_CHIPS}"
                )
        else:
            # Resolve the default now, so a config equals the same config with its chip count spelled out.
            standard = standard_chips(self.players)
            object.__setattr__(self, "chips_per_player", standard - 1 if self.variant == TACTICAL else standard)

    @property
    def chips(self) -> int:
        """Chips each player starts with."""
        assert self.chips_per_player is not None  # resolved in __post_init__
        return self.chips_per_player
