"""Types of the optional C search loop (_search_c.c): what ismcts.search and pubmcts.search call when it was built."""

from collections.abc import Callable

# masks, chips, card, pot, seat to move, unseen cards, cards still face down
Position = tuple[list[int], list[int], int, int, int, list[int], int]

def run(
    position: Position,
    iterations: int,
    exploration: float,
    score_weight: float,
    tables: tuple[object, ...] | None,
    rand: Callable[[], float],
    fill: Callable[[], list[int]] | None,
) -> tuple[int, int, float, float, int, int]: ...
def pub_run(
    position: Position,
    iterations: int,
    exploration: float,
    bonus: float,
    ruled: int,
    rand: Callable[[], float],
    odds: tuple[float, ...] | None = None,
    tables: tuple[object, ...] | None = None,
) -> tuple[int, int, float, float, float, float]: ...
