"""Pooling tournament parts: the parts' summaries alone give the interval of one run over all their deals."""

from __future__ import annotations

import random

import pytest

from nothanks_tui.tournament.stats import MeanCI, mean_ci
from tools.pooling import pooled_mean_ci


@pytest.mark.parametrize("sizes", [(5, 7), (2, 30, 1, 11), (40, 40, 45)])
def test_pooled_parts_give_the_interval_of_all_their_samples(sizes):
    rng = random.Random(len(sizes))
    parts = [[rng.gauss(50 + 10 * i, 12) for _ in range(n)] for i, n in enumerate(sizes)]
    pooled = pooled_mean_ci([mean_ci(part) for part in parts])
    whole = mean_ci([value for part in parts for value in part])
    assert pooled.samples == whole.samples
    assert pooled.mean == pytest.approx(whole.mean)
    assert pooled.half_width == pytest.approx(whole.half_width)


def test_one_part_pools_to_itself_and_nothing_is_an_error():
    part = mean_ci([1.0, 0.0, 0.5, 1.0])
    alone = pooled_mean_ci([part])
    assert (alone.mean, alone.samples) == (part.mean, part.samples)
    assert alone.half_width == pytest.approx(part.half_width)
    with pytest.raises(ValueError):
        pooled_mean_ci([])
    assert pooled_mean_ci([MeanCI(3.0, None, 1)]).half_width is None
