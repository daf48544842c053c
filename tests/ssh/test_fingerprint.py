"""The host key's fingerprint the server prints (ssh/front.py) is what a connecting ``ssh`` shows, read from
the ``.pub`` or, without one, from the private key's own header: the host process never imports asyncssh."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import asyncssh
import pytest

from nothanks_server.ssh.front import host_key_fingerprint, public_line_of_private_key


def test_a_key_without_its_pub_gives_the_fingerprint_ssh_shows(tmp_path: Path) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    path = tmp_path / "ssh_host_ed25519_key"
    key.write_private_key(str(path))
    assert not path.with_name(path.name + ".pub").exists()
    assert host_key_fingerprint(path) == f"256 {key.get_fingerprint('sha256')} (ED25519)"
    assert public_line_of_private_key(path.read_text()).split() == key.export_public_key().decode().split()[:2]


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs OpenSSH's ssh-keygen")
def test_a_passphrase_protected_key_without_its_pub_says_its_fingerprint_too(tmp_path: Path) -> None:
    path = tmp_path / "key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "secret", "-f", str(path)], check=True)
    shown = subprocess.run(["ssh-keygen", "-lf", str(path) + ".pub"], check=True, capture_output=True, text=True)
    Path(str(path) + ".pub").unlink()
    bits, fingerprint = shown.stdout.split()[:2]
    assert host_key_fingerprint(path) == f"{bits} {fingerprint} (ED25519)"


def test_a_key_with_its_pub_gives_the_same(tmp_path: Path) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    path = tmp_path / "key"
    key.write_private_key(str(path))
    key.write_public_key(str(path) + ".pub")
    assert host_key_fingerprint(path) == f"256 {key.get_fingerprint('sha256')} (ED25519)"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not a key at all",
        "-----BEGIN OPENSSH PRIVATE KEY-----\n!!!!\n-----END OPENSSH PRIVATE KEY-----\n",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----\n",
    ],
)
def test_anything_else_is_refused_with_a_value_error(text: str) -> None:
    with pytest.raises(ValueError, match="not an OpenSSH private key"):
        public_line_of_private_key(text)


def test_a_pem_key_is_refused_with_a_value_error(tmp_path: Path) -> None:
    key = asyncssh.generate_private_key("ssh-rsa")
    with pytest.raises(ValueError):
        public_line_of_private_key(key.export_private_key("pkcs8-pem").decode())
