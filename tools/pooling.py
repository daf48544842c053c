"""Tournament numbers pooled from reports played in parts (``scripts/bench-bots-pool``): benchmark tooling, kept out
of the installed package."""

from __future__ import annotations

import math
from collections.abc import Sequence

from nothanks_tui.tournament.stats import MeanCI, t95


def pooled_mean_ci(parts: Sequence[MeanCI]) -> MeanCI:
    """The mean and interval ``mean_ci`` would give over all the samples of ``parts`` (each a ``mean_ci`` of its
    own samples), recovered from the parts alone: a long tournament can be played in parts under other seeds and
    pooled exactly (``scripts/bench-bots-pool``)."""
    total = sum(part.samples for part in parts)
    if total == 0:
        raise ValueError("no samples")
    mean = sum(part.mean * part.samples for part in parts) / total
    if total < 2:
        return MeanCI(mean, None, total)
    squares = 0.0
    for part in parts:
        if part.samples >= 2:
            if part.half_width is None:
                raise ValueError("a part of two or more samples needs its interval")
            standard_error = part.half_width / t95(part.samples - 1)
            squares += (part.samples - 1) * standard_error * standard_error * part.samples
        squares += part.samples * (part.mean - mean) ** 2
    return MeanCI(mean, t95(total - 1) * math.sqrt(squares / (total - 1) / total), total)
