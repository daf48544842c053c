"""What a client keeps (seat tokens, remembered choices, the daily book) is written for its user only, whole, and
never through a symlink someone planted at its name or its temporary name."""

from __future__ import annotations

import json
import stat

from nothanks_tui.paths import write_private


def test_a_private_file_is_the_users_alone_and_whole(tmp_path):
    path = tmp_path / "deep" / "tokens.json"
    write_private(path, {"a": 1})
    write_private(path, {"a": 2}, indent=1)
    assert json.loads(path.read_text()) == {"a": 2}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["tokens.json"]


def test_symlinks_planted_at_the_file_or_its_temporary_name_are_not_written_through(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("untouched")
    path = tmp_path / "tokens.json"
    path.with_suffix(".tmp").symlink_to(victim)
    write_private(path, {"a": 1})
    assert victim.read_text() == "untouched" and json.loads(path.read_text()) == {"a": 1}
    path.unlink()
    path.symlink_to(victim)
    write_private(path, {"b": 2})
    assert victim.read_text() == "untouched" and not path.is_symlink()
