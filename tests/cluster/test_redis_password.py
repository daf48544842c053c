"""Redis's password can stay off the command line (which ``ps`` shows any local user): ``NOTHANKS_REDIS_PASSWORD``
fills it in when the ``--redis`` URL names none, a real redis-server with ``requirepass`` lets such a member in,
and an error naming the URL never prints the password."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from redis.connection import parse_url

from nothanks_server.cluster.directory import Directory
from nothanks_server.cluster.settings import DirectoryUnavailable
from nothanks_tui.cli import build_parser, main
from nothanks_tui.commands.cluster_options import REDIS_PASSWORD, cluster_settings_from

from .redis_server import running_redis

PASSWORD = "p@ss:/ word%"  # every character a URL would need quoted


@contextmanager
def redis_with_password(directory: Path) -> Iterator[str]:
    """A real redis-server that asks for ``PASSWORD`` (set once it answers: the helper's readiness ping has none)."""
    import redis

    with running_redis(directory) as url:
        redis.Redis.from_url(url).config_set("requirepass", PASSWORD)
        yield url


@pytest.fixture
def secret(tmp_path):
    path = tmp_path / "cluster-secret"
    path.write_text("sixteen characters and more\n")
    return path


def member(url: str, secret) -> list[str]:
    return ["server", "--redis", url, "--cluster-secret-file", str(secret)]


@pytest.mark.parametrize("url", ["redis://10.0.0.2:6379/0", "unix:///run/redis/redis.sock", "rediss://me@h:6380/1"])
def test_the_password_comes_from_the_environment_when_the_url_names_none(url, secret, monkeypatch):
    monkeypatch.setenv(REDIS_PASSWORD, PASSWORD)
    settings = cluster_settings_from(build_parser().parse_args(member(url, secret)))
    assert parse_url(settings.redis_url)["password"] == PASSWORD
    assert {key: value for key, value in parse_url(settings.redis_url).items() if key != "password"} == parse_url(url)


def test_a_url_with_its_own_password_is_kept_and_no_variable_changes_nothing(secret, monkeypatch):
    monkeypatch.setenv(REDIS_PASSWORD, PASSWORD)
    own = "redis://:its-own@10.0.0.2:6379/0"
    assert cluster_settings_from(build_parser().parse_args(member(own, secret))).redis_url == own
    monkeypatch.delenv(REDIS_PASSWORD)
    plain = "redis://10.0.0.2:6379/0"
    assert cluster_settings_from(build_parser().parse_args(member(plain, secret))).redis_url == plain


async def test_a_redis_with_requirepass_lets_in_the_member_given_the_variable(tmp_path, secret, monkeypatch):
    with redis_with_password(tmp_path) as url:
        monkeypatch.delenv(REDIS_PASSWORD, raising=False)
        without = cluster_settings_from(build_parser().parse_args(member(url, secret)))
        with pytest.raises(DirectoryUnavailable):
            await Directory.connect(without.redis_url)
        monkeypatch.setenv(REDIS_PASSWORD, PASSWORD)
        given = cluster_settings_from(build_parser().parse_args(member(url, secret)))
        directory = await Directory.connect(given.redis_url)
        await directory.close()


def test_a_wrong_password_stops_the_member_without_printing_it(tmp_path, secret, monkeypatch, capsys):
    wrong = "not-the-password-7f3a"
    with redis_with_password(tmp_path) as url:
        monkeypatch.setenv(REDIS_PASSWORD, wrong)
        options = ["--role", "table", "--bind", "127.0.0.1", "--port", "0", "--data-dir", str(tmp_path / "data")]
        code = main([*member(url, secret), *options])
    error = capsys.readouterr().err
    assert code == 1
    assert "cannot reach Redis at unix://:***@" in error
    assert wrong not in error and "not-the-password" not in error
