"""One declared MCP server: its connection task on the engine's loop and what it last listed.

The task connects (stdio or streamable HTTP), initializes and lists within
``connect_timeout``, then waits for the peer to go away, for a ``list_changed``, or for
a stop. Failures are retried with backoff; three in a row open a circuit for 60 s
(then one try, half open). Every change of state asks the engine for a new generation.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any, Protocol

from engine.compile.binding import Bound, describe
from engine.mcp.calls import PendingCalls
from engine.mcp.manifest import ServerConfig, expand
from engine.mcp.tools import ServerTools, check_listing
from engine.registry.availability import Unavailable

FAILURES_TO_OPEN = 3
OPEN_SECONDS = 60.0
MAX_BACKOFF = 10.0
MAX_PAGES = 20

CONNECTING, CONNECTED, RETRYING, OPEN, FAILED, DISABLED = (
    "connecting",
    "connected",
    "retrying",
    "circuit open",
    "failed",
    "disabled",
)


class Owner(Protocol):
    """What a connection needs from the engine's set of connections (engine.mcp.client)."""

    root: Path

    def changed(self) -> None: ...

    def call(self, server_name: str, tool: str, arguments: dict[str, Any]) -> Any: ...

    def child_env(self, config: ServerConfig) -> dict[str, str]: ...

    def errlog(self, name: str, stack: contextlib.AsyncExitStack) -> Any: ...


class Watched:
    """A transport's read stream that sets ``closed`` when the peer goes away (EOF), and hands
    the responses to calls sent past the SDK (engine.mcp.calls) to their waiters."""

    def __init__(self, stream: Any, closed: asyncio.Event, pending: PendingCalls) -> None:
        self._stream = stream
        self._closed = closed
        self._pending = pending

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    async def __aenter__(self) -> Watched:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        self._closed.set()
        return await self._stream.__aexit__(*exc)

    def __aiter__(self) -> Watched:
        return self

    async def __anext__(self) -> Any:
        try:
            while True:
                message = await self._stream.__anext__()
                if not self._pending.intercept(message):
                    return message
        except BaseException:
            self._closed.set()
            raise

    async def receive(self) -> Any:
        try:
            while True:
                message = await self._stream.receive()
                if not self._pending.intercept(message):
                    return message
        except BaseException:
            self._closed.set()
            raise


class Connection:
    """One declared server: its connection task and what it last listed."""

    def __init__(self, clients: Owner, config: ServerConfig) -> None:
        self.clients = clients
        self.config = config
        self.state = DISABLED if not config.enabled else CONNECTING
        self.reason: str | None = "enabled: false" if not config.enabled else "connecting"
        self.session: Any = None
        # While connected over stdio: the transport's write stream and the calls sent past the SDK.
        self.writer: Any = None
        self.pending = PendingCalls()
        self.listing = ServerTools()
        self.failures = 0
        self.settled = not config.enabled
        self.task: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._relist: asyncio.Event | None = None
        # Bound once per server so that specs built from equal listings compare equal.
        self.check = describe(f"mcp:{config.name}", self.available)

    # -- state ----------------------------------------------------------------------------

    def available(self) -> bool:
        if self.session is None:
            raise Unavailable(f"MCP server {self.config.name!r} is {self.state}: {self.reason}")
        return True

    def _set(self, state: str, reason: str | None, *, settled: bool = True) -> None:
        self.state, self.reason = state, reason
        self.settled = self.settled or settled
        self.clients.changed()

    # -- the connection loop -----------------------------------------------------------------

    async def run(self) -> None:
        self._stop = asyncio.Event()
        self._relist = asyncio.Event()
        config = self.config
        while not self._stop.is_set():
            missing = config.missing_env()
            if missing:
                self._set(
                    FAILED, f"missing environment variable{'s' if len(missing) > 1 else ''}: {', '.join(missing)}"
                )
                return  # nothing to retry until the environment or the manifest changes
            try:
                await self._connect_once()
                reason = "the server closed the connection"
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # a hostile server may raise anything through the SDK
                reason = describe_failure(exc, config)
            self.session = self.writer = None
            if self._stop.is_set():
                return
            self.failures += 1
            if self.failures >= FAILURES_TO_OPEN:
                until = time.strftime("%H:%M:%S", time.localtime(time.time() + OPEN_SECONDS))
                self._set(OPEN, f"{reason}; {self.failures} failures in a row, next try at {until}")
                await self._pause(OPEN_SECONDS)
                self.failures = FAILURES_TO_OPEN - 1  # half open: one more failure opens it again
            else:
                delay = min(MAX_BACKOFF, 0.5 * 2 ** (self.failures - 1))
                self._set(RETRYING, f"{reason}; retrying in {delay:g}s")
                await self._pause(delay)

    async def _pause(self, seconds: float) -> None:
        assert self._stop is not None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stop.wait(), seconds)

    async def _connect_once(self) -> None:
        from mcp import ClientSession  # noqa: PLC0415

        assert self._stop is not None and self._relist is not None
        config = self.config
        pending = PendingCalls()
        async with contextlib.AsyncExitStack() as stack:
            stack.callback(pending.close, "the server closed the connection")
            closed = asyncio.Event()
            async with asyncio.timeout(config.connect_timeout):
                read, write = await stack.enter_async_context(self._transport(stack))
                session = await stack.enter_async_context(
                    ClientSession(Watched(read, closed, pending), write, message_handler=self._on_message)
                )
                await session.initialize()
                listing = await self._list(session)
            self.listing = listing
            self.pending, self.writer = pending, (write if config.transport == "stdio" else None)
            self.session = session
            self.failures = 0
            self._set(CONNECTED, None)
            while True:
                waits = [asyncio.ensure_future(e.wait()) for e in (closed, self._stop, self._relist)]
                try:
                    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for w in waits:
                        w.cancel()
                if closed.is_set() or self._stop.is_set():
                    self.session = self.writer = None
                    return
                self._relist.clear()
                async with asyncio.timeout(config.connect_timeout):
                    self.listing = await self._list(session)
                self.clients.changed()

    def _transport(self, stack: contextlib.AsyncExitStack) -> Any:
        config = self.config
        if config.transport == "stdio":
            from mcp import StdioServerParameters, stdio_client  # noqa: PLC0415

            params = StdioServerParameters(
                command=config.command or "",
                args=list(config.args),
                env=self.clients.child_env(config),
                cwd=config.working_dir(self.clients.root),
            )
            return stdio_client(params, errlog=self.clients.errlog(config.name, stack))
        import httpx2  # noqa: PLC0415
        from mcp.client.streamable_http import streamable_http_client  # noqa: PLC0415

        headers = {k: expand(v)[0] for k, v in config.headers.items()}
        client = httpx2.AsyncClient(headers=headers, timeout=config.timeout)
        stack.push_async_callback(client.aclose)
        return streamable_http_client(config.url or "", http_client=client)

    async def _list(self, session: Any) -> ServerTools:
        tools: list[Any] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            from mcp_types import PaginatedRequestParams  # noqa: PLC0415

            page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return check_listing(self.config, tools, self._handler, self.check)

    def _handler(self, tool: str) -> Bound:
        server = self.config.name
        clients = self.clients

        def call(**arguments: Any) -> Any:
            return clients.call(server, tool, arguments)

        return describe(f"mcp:{server}:{tool}", call)

    async def _on_message(self, message: Any) -> None:
        from mcp_types import ToolListChangedNotification  # noqa: PLC0415

        if isinstance(message, ToolListChangedNotification) and self._relist is not None:
            self._relist.set()

    def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()


def describe_failure(exc: BaseException, config: ServerConfig) -> str:
    if isinstance(exc, TimeoutError):
        return f"no answer within connect_timeout ({config.connect_timeout:g}s)"
    if isinstance(exc, FileNotFoundError):
        return f"cannot start {config.command!r}: not found"
    if isinstance(exc, BaseExceptionGroup):
        inner = exc.exceptions[0] if exc.exceptions else exc
        return describe_failure(inner, config)
    text = str(exc).splitlines()[0][:300] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
