"""A host, a front or a directory never hangs while closing, whatever its clients do (a cluster's test once
hung in its teardown): a client that never reads is dropped, a task that lost its cancellation is cancelled again."""

from __future__ import annotations

import asyncio
import socket

from nothanks_server import LobbySettings
from nothanks_server.background import stop_task
from nothanks_server.lobby import Lobby
from nothanks_server.tcp import TcpHost

from .net_helpers import RawClient


async def test_a_port_closes_in_time_and_drops_a_client_that_never_reads_what_it_was_sent():
    host = TcpHost(Lobby(LobbySettings(bot_delay=0, turn_timer=None, seed=11)), "127.0.0.1", 0)
    await host.start()
    silent = await RawClient.connect(host.port)
    silent.writer.transport.pause_reading()  # it never reads again
    silent.writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    (session,) = host.sessions
    session.writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    session.writer.write(bytes(1 << 20))  # what it was sent and will never read: left in the host's buffer
    assert session.writer.transport.get_write_buffer_size() > 0
    async with asyncio.timeout(10):
        await host.close("test over")
    # Dropped, not left holding its socket (and, from Python 3.12 on, the port's ``wait_closed``) for ever.
    assert session.writer.get_extra_info("socket").fileno() == -1
    silent.writer.close()


async def test_stopping_a_task_that_lost_its_cancellation_cancels_it_again():
    done = asyncio.get_running_loop().create_future()

    async def beating() -> None:
        await asyncio.wait_for(done, 10)  # Python 3.11 drops a cancellation that comes as ``done`` ends
        while True:
            await asyncio.sleep(0.01)

    task = asyncio.get_running_loop().create_task(beating())
    await asyncio.sleep(0)
    done.set_result(None)
    async with asyncio.timeout(10):
        await stop_task(task)
    assert task.cancelled()
