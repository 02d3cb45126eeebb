"""A tool call from the calling thread to a server's connection, with one thread hand-off each way.

A call sent through ``ClientSession.call_tool`` from another thread costs a coroutine
scheduled on the connection's loop, a task, a concurrent future chained to it and the
SDK's whole request machinery, each a wake-up or a lock round trip, and on a busy
machine each wake-up waits for a CPU. Here the calling thread builds the request itself
(with the session's own per-request stamp), hands the message to the transport's write
stream with one ``call_soon_threadsafe``, and sleeps on a plain lock; the connection's
read side hands the matching response back by releasing that lock. The SDK still owns
the transport, the handshake and every other message.

Request ids are strings with a per-connection random prefix, so they never collide with
the SDK's integer ids. A response is only taken for an id that is waiting; anything
else goes to the SDK as before.
"""

from __future__ import annotations

import _thread
import asyncio
import itertools
import secrets
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage


class Waiter:
    """One call's response, handed from the connection's loop to the thread that waits."""

    __slots__ = ("_lock", "done", "error", "message")

    def __init__(self) -> None:
        self._lock = _thread.allocate_lock()
        self._lock.acquire()
        self.done = False
        self.message: Any = None
        self.error: str | None = None

    def resolve(self, message: Any = None, error: str | None = None) -> None:
        """Called on the connection's loop only (or before the waiter is shared); the first answer counts."""
        if self.done:
            return
        self.done = True
        self.message, self.error = message, error
        self._lock.release()

    def wait(self, timeout: float | None = None) -> bool:
        return self._lock.acquire(timeout=-1 if timeout is None else timeout)


class PendingCalls:
    """The calls of one connection that wait for their response."""

    def __init__(self) -> None:
        self._prefix = f"hermes-{secrets.token_hex(4)}-"
        self._numbers = itertools.count(1)
        self._waiting: dict[str, Waiter] = {}
        self._closed: str | None = None

    def open(self) -> tuple[str, Waiter]:
        request_id = self._prefix + str(next(self._numbers))
        waiter = Waiter()
        if self._closed is not None:
            waiter.resolve(error=self._closed)
        else:
            self._waiting[request_id] = waiter
        return request_id, waiter

    def take(self, request_id: Any) -> Waiter | None:
        """The waiter of ``request_id``, removed (None: not ours, answered or given up)."""
        if type(request_id) is not str or not request_id.startswith(self._prefix):
            return None
        return self._waiting.pop(request_id, None)

    def intercept(self, message: Any) -> bool:
        """On the connection's loop: hand a response to its waiter; False for anything else."""
        if type(message) is not SessionMessage:
            return False
        inner = message.message
        if not isinstance(inner, types.JSONRPCResponse | types.JSONRPCError):
            return False
        waiter = self.take(inner.id)
        if waiter is None:
            return False
        waiter.resolve(inner)
        return True

    def close(self, reason: str) -> None:
        """The connection ended: every waiting call fails with ``reason``; later ones at once."""
        self._closed = reason
        while self._waiting:
            _, waiter = self._waiting.popitem()
            waiter.resolve(error=reason)


def request(session: Any, request_id: str, tool: str, arguments: dict[str, Any]) -> SessionMessage | None:
    """A tools/call request as the SDK would send it (None when the session cannot stamp one)."""
    stamp = getattr(session, "_stamp", None)  # the protocol version's per-request metadata
    if not callable(stamp):
        return None
    data: dict[str, Any] = {"method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    stamp(data, {})
    return SessionMessage(
        types.JSONRPCRequest(jsonrpc="2.0", id=request_id, method="tools/call", params=data["params"])
    )


def deliver(write_stream: Any, message: SessionMessage, waiter: Waiter) -> None:
    """On the connection's loop: put ``message`` on the transport's write stream."""
    try:
        write_stream.send_nowait(message)
    except anyio.WouldBlock:  # the writer is busy: wait for it in a task
        asyncio.get_running_loop().create_task(_send(write_stream, message, waiter))
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        waiter.resolve(error="the connection is closed")


async def _send(write_stream: Any, message: SessionMessage, waiter: Waiter) -> None:
    try:
        await write_stream.send(message)
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        waiter.resolve(error="the connection is closed")


def cancelled(request_id: str, reason: str) -> SessionMessage:
    params = {"requestId": request_id, "reason": reason}
    return SessionMessage(types.JSONRPCNotification(jsonrpc="2.0", method="notifications/cancelled", params=params))
