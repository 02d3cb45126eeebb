"""How ``serve`` is reached: stdio, or streamable HTTP behind a guard.

The HTTP guard runs before anything else: a request with an Origin that is not allowed
gets 403, a request without the bearer token (when one is configured) gets 401, and in
both cases nothing reaches the MCP layer. Binding anywhere but loopback needs a token.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import os
import socket
import sys
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from engine.errors import UsageError

if TYPE_CHECKING:
    from engine.mcp.server import McpService

TOKEN_ENV = "HERMES_ENGINE_MCP_TOKEN"
MCP_PATH = "/mcp"

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def http_token(host: str, env_name: str = TOKEN_ENV) -> str | None:
    """The bearer token clients must send (None: no token, loopback only).

    Raises:
        UsageError: a non-loopback bind without a token, or a token too short to be a secret.
    """
    token = os.environ.get(env_name) or None
    if token is None and not is_loopback(host):
        raise UsageError(
            f"serving on {host} (not loopback) needs a bearer token: set {env_name} to a long random secret"
        )
    if token is not None and len(token) < 16:
        raise UsageError(f"{env_name} is too short to be a secret (at least 16 characters)")
    return token


class Guard:
    """ASGI middleware: Origin check, then bearer token, before the MCP app sees the request."""

    def __init__(self, app: ASGIApp, token: str | None, origins: Iterable[str] = (), on_start: Any = None) -> None:
        self.app = app
        self._token = None if token is None else f"Bearer {token}".encode()
        self._origins = frozenset(o.rstrip("/").lower() for o in origins)
        self._on_start = on_start

    def origin_allowed(self, origin: str) -> bool:
        if origin.rstrip("/").lower() in self._origins:
            return True
        parts = urlsplit(origin)
        return parts.scheme in ("http", "https") and is_loopback(parts.hostname or "")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._on_start is not None:
            on_start, self._on_start = self._on_start, None
            on_start(asyncio.get_running_loop())
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        origin = headers.get(b"origin")
        if origin is not None and not self.origin_allowed(origin.decode("latin-1")):
            await _refuse(send, 403, b"origin not allowed")
            return
        if self._token is not None:
            given = headers.get(b"authorization", b"")
            if not hmac.compare_digest(given, self._token):
                await _refuse(send, 401, b"missing or wrong bearer token", [(b"www-authenticate", b"Bearer")])
                return
        await self.app(scope, receive, send)


async def _refuse(send: Send, status: int, body: bytes, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    headers = [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode()), *(extra or [])]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def serve_stdio(service: McpService) -> None:
    from mcp.server.stdio import stdio_server  # noqa: PLC0415

    service.bind_loop(asyncio.get_running_loop())
    server = service.server
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def http_app(
    service: McpService, *, host: str, token: str | None, stateless: bool, origins: Iterable[str] = ()
) -> ASGIApp:
    """The streamable HTTP app at ``/mcp``, behind the guard."""
    service.stateless = stateless
    app = service.server.streamable_http_app(streamable_http_path=MCP_PATH, stateless_http=stateless, host=host)
    return Guard(app, token, origins, on_start=service.bind_loop)


def serve_http(
    service: McpService,
    *,
    host: str,
    port: int,
    stateless: bool,
    origins: Iterable[str] = (),
    token_env: str = TOKEN_ENV,
) -> None:
    """Serve until interrupted; prints the URL on stderr once the socket listens.

    Raises:
        UsageError: a non-loopback bind without a token.
        OSError: the address cannot be bound.
    """
    import uvicorn  # noqa: PLC0415

    token = http_token(host, token_env)
    app = http_app(service, host=host, token=token, stateless=stateless, origins=origins)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host.strip("[]"), port))
    sock.listen(128)
    bound = sock.getsockname()
    shown = f"[{bound[0]}]" if family == socket.AF_INET6 else bound[0]
    print(f"hermes-engine serve: listening on http://{shown}:{bound[1]}{MCP_PATH}", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


def serve(
    engine: Any,
    *,
    transport: str,
    host: str,
    port: int,
    enabled: Iterable[str] | None,
    disabled: Iterable[str],
    stateless: bool,
    origins: Iterable[str],
    grants: str | None,
    watch: bool = True,
) -> None:
    """Run ``hermes-engine serve`` until the client goes away (stdio) or a signal (HTTP).

    Raises:
        UsageError: an unknown toolset, or a non-loopback bind without a token.
    """
    from pathlib import Path  # noqa: PLC0415

    from engine.mcp.grants import SqliteGrantStore  # noqa: PLC0415
    from engine.mcp.server import McpService  # noqa: PLC0415

    store = SqliteGrantStore(Path(grants) if grants else engine.state_dir / "mcp-grants.sqlite")
    engine.set_grant_store(store)
    service = McpService(engine, enabled, disabled, answer_key=store.secret("input-required"))
    try:
        if watch:
            engine.watch().start()
        if transport == "stdio":
            asyncio.run(serve_stdio(service))
        else:
            serve_http(service, host=host, port=port, stateless=stateless, origins=origins)
    finally:
        service.close()
        engine.close()
        store.close()
