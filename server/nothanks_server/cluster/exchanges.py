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

import hashlib
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import redis
import redis.asyncio.retry
import redis.backoff
import redis.retry

Result = TypeVar("Result")
Command = tuple[Any, ...]  # ("HGETALL", key) or (lua, keys, args)
Exchange = Generator[list[Command], list[Any], Result]


@dataclass(frozen=True)
class Lua:
    """A script, called by its SHA-1 digest."""

    text: str
    sha: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sha", hashlib.sha1(self.text.encode()).hexdigest())

    def __call__(self, keys: Sequence[str], args: Sequence[Any]) -> Command:
        return (self, list(keys), list(args))


def reconnecting(asynchronous: bool) -> Any:
    """A client's ``retry``: a pooled connection Redis closed (it restarted) is opened again and its command sent
    once more, rather than failing its next use (each idle connection of a pool would). A timeout is not retried:
    a Redis that hangs is waited for once."""
    kind = redis.asyncio.retry.Retry if asynchronous else redis.retry.Retry
    return kind(redis.backoff.NoBackoff(), 1, supported_errors=(redis.ConnectionError,))


def call(lua: Lua, keys: Sequence[str], args: Sequence[Any]) -> Exchange[Any]:
    """One script call, alone in its round trip: its answer."""
    [answer] = yield [lua(keys, args)]
    return answer


def run(client: Any, exchange: Exchange[Result]) -> Result:
    """``exchange`` on a blocking client."""
    step = _step(exchange, None)
    while isinstance(step, list):
        step = _step(exchange, _sent(client, step))
    return step.value


async def run_async(client: Any, exchange: Exchange[Result]) -> Result:
    """``exchange`` on an asyncio client: the event loop goes on while Redis answers."""
    step = _step(exchange, None)
    while isinstance(step, list):
        step = _step(exchange, await _sent_async(client, step))
    return step.value


def _step(exchange: Exchange[Any], outcome: list[Any] | Exception | None) -> list[Command] | StopIteration:
    """The exchange's next commands, given the last ones' answers or error (None: its first); or its end."""
    try:
        return exchange.throw(outcome) if isinstance(outcome, Exception) else exchange.send(outcome)  # type: ignore[arg-type]
    except StopIteration as done:
        return done


def _sent(client: Any, commands: list[Command]) -> list[Any] | Exception:
    """The answers to ``commands``, sent in one pipeline (again, once their scripts are loaded, if Redis had lost
    them), or the first error."""
    try:
        answers = _piped(client, commands)
        if _lost_scripts(answers):
            for lua in _scripts(commands):
                client.script_load(lua.text)
            answers = _piped(client, commands)
    except redis.RedisError as error:
        return error
    return _first_error(answers)


async def _sent_async(client: Any, commands: list[Command]) -> list[Any] | Exception:
    try:
        answers = await _piped_async(client, commands)
        if _lost_scripts(answers):
            for lua in _scripts(commands):
                await client.script_load(lua.text)
            answers = await _piped_async(client, commands)
    except redis.RedisError as error:
        return error
    return _first_error(answers)


def _piped(client: Any, commands: list[Command]) -> list[Any]:
    with client.pipeline(transaction=False) as pipe:
        _queue(pipe, commands)
        return list(pipe.execute(raise_on_error=False))


async def _piped_async(client: Any, commands: list[Command]) -> list[Any]:
    async with client.pipeline(transaction=False) as pipe:
        _queue(pipe, commands)
        return list(await pipe.execute(raise_on_error=False))


def _queue(pipe: Any, commands: list[Command]) -> None:
    for command in commands:
        if isinstance(command[0], Lua):
            lua, keys, args = command
            pipe.execute_command("EVALSHA", lua.sha, len(keys), *keys, *args)
        else:
            pipe.execute_command(*command)


def _lost_scripts(answers: list[Any]) -> bool:
    return any(isinstance(answer, redis.exceptions.NoScriptError) for answer in answers)


def _scripts(commands: list[Command]) -> list[Lua]:
    return list({command[0].sha: command[0] for command in commands if isinstance(command[0], Lua)}.values())


def _first_error(answers: list[Any]) -> list[Any] | Exception:
    return next((answer for answer in answers if isinstance(answer, Exception)), answers)
