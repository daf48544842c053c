"""Types of the optional C search loop (_search_c.c): what ismcts.search calls when it was built."""

from collections.abc import Callable

def run(
    masks: list[int],
    chips: list[int],
    card: int,
    pot: int,
    seat: int,
    unseen: list[int],
    deck_left: int,
    iterations: int,
    exploration: float,
    score_weight: float,
    tables: tuple[object, ...] | None,
    rand: Callable[[], float],
    fill: Callable[[], list[int]] | None,
) -> tuple[int, int, float, float, int, int]: ...
def pub_run(
    masks: list[int],
    chips: list[int],
    card: int,
    pot: int,
    seat: int,
    unseen: list[int],
    deck_left: int,
    iterations: int,
    exploration: float,
    margin: float,
    rand: Callable[[], float],
) -> tuple[int, int, float, float, float, float]: ...
