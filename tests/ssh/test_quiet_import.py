"""Starting the SSH front prints nothing to the host's stderr but what the host says itself: importing asyncssh
(as the workers' forkserver does) raised ten lines of cryptography's DSA deprecation warnings."""

import subprocess
import sys


def _stderr_of(code: str) -> str:
    done = subprocess.run([sys.executable, "-W", "default", "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_the_front_imports_asyncssh_without_a_warning() -> None:
    # -W default shows every warning once, as a host started by hand would, so this is the strictest setting.
    assert _stderr_of("import nothanks_server.ssh.patches, nothanks_server.ssh.server") == ""


def test_the_filter_hides_only_asyncssh_s_dsa_warning() -> None:
    stderr = _stderr_of(
        "import warnings, nothanks_server.ssh\nwarnings.warn('DSA is deprecated, from our own code', UserWarning)\n"
    )
    assert "DSA is deprecated, from our own code" in stderr


def test_no_dsa_key_is_offered_or_accepted() -> None:
    from asyncssh import public_key  # a dependency of the package: a missing one fails here, not skips

    assert not [alg for alg in public_key.get_default_public_key_algs() if b"dss" in alg]
    assert not [alg for alg in public_key.get_default_certificate_algs() if b"dss" in alg]
