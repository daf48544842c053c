"""What a table agrees on before the deal: player count, chips, open or hidden chips, variant.

The deck, the chips and every variant (``VARIANTS``, the one registry every layer reads) are here and nowhere else.
Adding a variant: one ``register(Variant(...))`` below and its two words in the catalogs (docs/architecture.md).
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


def N_(text: str) -> str:
    """Marks ``text`` for the catalogs (scripts/i18n.py extracts it); the client translates it where it shows it.
    The engine may not import nothanks_tui.i18n, so it has this marker of its own."""
    return text


@dataclass(frozen=True, slots=True)
class Variant:
    """A way of playing: what it always sets aside and how many chips it gives. ``name`` is what the wire, the
    records and ``--variant`` say (never changed once published); ``label`` and ``summary`` are what players read,
    marked with ``N_`` so the client translates them."""

    name: str
    label: str
    summary: str
    set_aside: tuple[int, ...] = ()  # always among the cards set aside; the rest of them are dealt at random
    chips_change: int = 0  # added to the published rules' starting chips for the player count

    def chips(self, players: int) -> int:
        """Chips each of ``players`` starts with in this variant: the published rules' 11 for 2-5 players, 9 for 6,
        7 for 7, and ``chips_change``."""
        return (11 if players <= 5 else 9 if players == 6 else 7) + self.chips_change


VARIANTS: dict[str, Variant] = {}  # by name, in the order players are offered them


def register(variant: Variant) -> Variant:
    """Add ``variant`` to the ones every table may play, after checking that it deals a game at every player
    count (a test may register one, and take it out of ``VARIANTS`` after)."""
    cards = variant.set_aside
    if not variant.name or variant.name in VARIANTS:
        raise ValueError(f"a variant needs a name of its own, not {variant.name!r}")
    if len(set(cards)) != len(cards) or not set(cards) <= set(ALL_CARDS) or len(cards) > CARDS_REMOVED:
        raise ValueError(f"{variant.name}: at most {CARDS_REMOVED} different cards of {LOWEST_CARD}..{HIGHEST_CARD}")
    for players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        if not 0 <= variant.chips(players) * players <= TOTAL_CHIPS:
            raise ValueError(f"{variant.name}: {variant.chips(players)} chips each does not fit {players} players")
    VARIANTS[variant.name] = variant
    return variant


def variant_of(name: object) -> Variant:
    """The registered variant called ``name``; IllegalMove bad_config if there is none."""
    if not isinstance(name, str) or name not in VARIANTS:
        raise IllegalMove(BAD_CONFIG, f"variant must be one of {', '.join(VARIANTS)}")
    return VARIANTS[name]


STANDARD = register(Variant("standard", N_("standard"), N_("the published rules"))).name
register(
    Variant(
        "tactical",
        N_("tactical"),
        N_("10, 20, 30 set aside, 1 chip fewer"),
        set_aside=(10, 20, 30),
        chips_change=-1,
    )
)


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
        rules = variant_of(self.variant)
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
            object.__setattr__(self, "chips_per_player", rules.chips(self.players))

    @property
    def chips(self) -> int:
        """Chips each player starts with."""
        assert self.chips_per_player is not None  # resolved in __post_init__
        return self.chips_per_player

    @property
    def rules(self) -> Variant:
        """The variant this table plays."""
        return VARIANTS[self.variant]
