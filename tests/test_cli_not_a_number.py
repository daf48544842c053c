"""A number on the command line is a number: "nan" (which Python's float() reads) is refused in one sentence, as
"abc" is, where it passed ``>= 0`` checks (a comparison with nan is always false) and reached the bots' pace."""

from __future__ import annotations

import argparse

import pytest

from nothanks_tui.cli import main
from nothanks_tui.commands.argtypes import non_negative, number


@pytest.mark.parametrize("text", ["nan", "NaN", "abc"])
def test_nan_is_not_a_number(text):
    # (checked on the argument types: before this fix, `play --bot-pace nan` opened the game)
    for check in (number, non_negative):
        with pytest.raises(argparse.ArgumentTypeError, match="not a number"):
            check(text)
    assert number("inf") == float("inf") and non_negative("0.5") == 0.5


def test_bot_pace_nan_is_one_clear_sentence(capsys):
    with pytest.raises(SystemExit) as refused:
        main(["play", "--bot-pace", "nan"])
    assert refused.value.code == 2
    err = capsys.readouterr().err
    assert "argument --bot-pace: not a number: 'nan'" in err
    assert "Traceback" not in err
