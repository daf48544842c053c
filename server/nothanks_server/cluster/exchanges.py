"""Redis work written once and run on either client: redis-py's blocking one (scripts, tests, a shutdown's last
commit) or its asyncio one (a table host's event loop, which must never wait for Redis: issue 28).

An exchange is a generator: each ``yield`` is a list of commands sent together in one round trip (a pipeline),
and gets back their answers, in order; its return value is the result. ``run`` drives one on a blocking client,
``run_async`` on an asyncio client, so the store (redis_store.py) and the leases (leases.py) say what they send
and what the answers mean in one place. A script is a ``Lua`` (sent by its digest, loaded again if Redis lost it:
each call is safe to repeat). A command's error (or the connection's) is raised in the exchange where it yielded,
as a ``redis.RedisError``: it may handle it there.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
from collections.abc import Generator, Sequence
from typing import Any, TypeVar

import redis
import redis.asyncio
import redis.asyncio.retry
import redis.backoff
import redis.retry

from .settings import DirectoryUnavailable

Result = TypeVar("Result")
Command = tuple[Any, ...]  # ("HGETALL", key) or (lua, keys, args)
Exchange = Generator[list[Command], list[Any], Result]


class Lua(str):
    """A script's text, called by its SHA-1 digest."""

    @functools.cached_property
    def sha(self) -> str:
        return hashlib.sha1(self.encode()).hexdigest()


def connect(url: str, asynchronous: bool, **options: Any) -> Any:
    """A client (blocking or asyncio) of the Redis at ``url``, nothing sent yet; ``DirectoryUnavailable`` if it is
    not a Redis URL. A pooled connection Redis closed (it restarted) is opened again and its command sent once more,
    rather than failing its next use (each idle connection of a pool would); a timeout is not retried: a Redis that
    hangs is waited for once."""
    kind, retry = (redis.asyncio.Redis, redis.asyncio.retry.Retry) if asynchronous else (redis.Redis, redis.retry.Retry)
    try:
        return kind.from_url(url, retry=retry(redis.backoff.NoBackoff(), 1, (redis.ConnectionError,)), **options)
    except ValueError as error:
        raise DirectoryUnavailable(f"not a Redis URL: {url!r} ({error})") from None


def asked(commands: list[Command]) -> Exchange[list[Any]]:
    """``commands`` alone in their round trip: their answers."""
    return (yield commands)


def call(lua: Lua, keys: Sequence[str], args: Sequence[Any]) -> Exchange[Any]:
    """One script call, alone in its round trip: its answer."""
    [answer] = yield [(lua, list(keys), list(args))]
    return answer


def run(client: Any, exchange: Exchange[Result]) -> Result:
    """``exchange`` on a blocking client: ``run_async``'s code, whose awaits never wait on it."""
    driving = run_async(client, exchange)
    try:
        driving.send(None)
    except StopIteration as done:
        return done.value
    raise RuntimeError("a blocking Redis client's exchange awaited")


async def run_async(client: Any, exchange: Exchange[Result]) -> Result:
    """``exchange`` on an asyncio client (or a blocking one, through ``run``): the event loop goes on while Redis
    answers."""
    outcome: list[Any] | Exception | None = None
    while True:
        try:
            step = exchange.throw(outcome) if isinstance(outcome, Exception) else exchange.send(outcome)  # type: ignore[arg-type]
        except StopIteration as done:
            return done.value
        outcome = await _sent(client, step)


async def _sent(client: Any, commands: list[Command]) -> list[Any] | Exception:
    """The answers to ``commands``, sent in one pipeline (again, once their scripts are loaded, if Redis had lost
    them), or the first error."""
    try:
        answers = await _piped(client, commands)
        if any(isinstance(answer, redis.exceptions.NoScriptError) for answer in answers):
            for lua in {command[0] for command in commands if isinstance(command[0], Lua)}:
                await _done(client.script_load(str(lua)))
            answers = await _piped(client, commands)
    except redis.RedisError as error:
        return error
    return next((answer for answer in answers if isinstance(answer, Exception)), answers)


async def _piped(client: Any, commands: list[Command]) -> list[Any]:
    pipe = client.pipeline(transaction=False)  # (its ``execute`` gives its connection back, whatever happens)
    for command in commands:
        if isinstance(command[0], Lua):
            lua, keys, args = command
            pipe.execute_command("EVALSHA", lua.sha, len(keys), *keys, *args)
        else:
            pipe.execute_command(*command)
    return list(await _done(pipe.execute(raise_on_error=False)))


async def _done(result: Any) -> Any:
    """An asyncio client's answer, awaited; a blocking one's, as it is."""
    return await result if inspect.isawaitable(result) else result
