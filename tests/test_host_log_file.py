"""``nothanks host`` logs to DATA_DIR/host.log, never through a symbolic link planted there (issue 31)."""

from __future__ import annotations

import errno
import logging

import pytest

from nothanks_tui.commands.net import log_file_handler


def test_the_host_log_is_appended_to(tmp_path):
    path = tmp_path / "host.log"
    path.write_text("earlier\n")
    handler = log_file_handler(path)
    handler.emit(logging.makeLogRecord({"msg": "now"}))
    handler.close()
    assert path.read_text() == "earlier\nnow\n"
    assert handler.baseFilename == str(path)  # the SSH workers look for it there


def test_a_link_planted_at_the_host_log_is_refused_and_its_target_untouched(tmp_path):
    target = tmp_path / "victim"
    target.write_text("precious\n")
    (tmp_path / "host.log").symlink_to(target)
    with pytest.raises(OSError) as raised:
        log_file_handler(tmp_path / "host.log")
    assert raised.value.errno == errno.ELOOP
    assert target.read_text() == "precious\n"
