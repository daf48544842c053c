"""``nothanks tournament --jobs`` is bounded: a typo such as ``--jobs 100000`` once forked that many processes
(the pool starts them all), and the machine stalled instead of the command saying what is wrong."""

from __future__ import annotations

import pytest

from nothanks_tui.cli import main


@pytest.mark.parametrize("jobs", ["100000", "65", "0"])
def test_too_many_or_no_jobs_is_one_clear_sentence(capsys, jobs):
    with pytest.raises(SystemExit) as refused:  # refused before any game: a single deal would run in-process
        main(["tournament", "random", "--games", "1", "--jobs", jobs])
    assert refused.value.code == 2
    err = capsys.readouterr().err
    assert "argument --jobs: must be 1..64" in err
    assert "Traceback" not in err


def test_up_to_64_jobs_are_taken(capsys):
    assert main(["tournament", "random", "--games", "1", "--jobs", "64", "--format", "json"]) == 0
    assert '"jobs": 64' in capsys.readouterr().out
