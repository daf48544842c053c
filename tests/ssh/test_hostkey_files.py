"""The host key files are never written through a symbolic link planted before the first start."""

from __future__ import annotations

import pytest

from nothanks_server.ssh.server import HostKeyError, load_or_create_host_key


def test_a_link_planted_at_the_public_key_is_refused_and_its_target_untouched(tmp_path):
    target = tmp_path / "victim"
    target.write_text("precious\n")
    (tmp_path / "ssh_host_ed25519_key.pub").symlink_to(target)
    with pytest.raises(HostKeyError, match="symbolic link"):
        load_or_create_host_key(tmp_path / "ssh_host_ed25519_key")
    assert target.read_text() == "precious\n"


@pytest.mark.parametrize("name", ["ssh_host_ed25519_key.pub", "ssh_host_ed25519_key"])
def test_a_dangling_link_at_a_key_file_is_refused_not_followed(tmp_path, name):
    (tmp_path / name).symlink_to(tmp_path / "made_by_the_host")
    with pytest.raises(HostKeyError, match="symbolic link"):
        load_or_create_host_key(tmp_path / "ssh_host_ed25519_key")
    assert not (tmp_path / "made_by_the_host").exists()


def test_a_link_to_an_existing_key_is_read(tmp_path):
    key = load_or_create_host_key(tmp_path / "real" / "ssh_host_ed25519_key")
    (tmp_path / "ssh_host_ed25519_key").symlink_to(tmp_path / "real" / "ssh_host_ed25519_key")
    assert load_or_create_host_key(tmp_path / "ssh_host_ed25519_key").public_data == key.public_data
    assert (tmp_path / "real" / "ssh_host_ed25519_key.pub").read_bytes() == key.export_public_key("openssh")
