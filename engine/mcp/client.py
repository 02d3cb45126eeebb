"""Connections to the MCP servers that McpServer manifests declare, owned by the engine.

One background thread runs one event loop holding every connection. A server that
connects, drops, or says its tool list changed makes the engine load the next generation
(``Engine.reload()``: the same swap as a file save), so a call always runs against one
consistent generation and a tool never vanishes from under a running call: a call whose
server died fails with an error result. A dead server is retried with backoff; three
failures in a row open a circuit for 60 s. Loading never waits for a server: until one
answers, its toolset is empty and ``list`` says why.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from engine.dispatch.context import ToolFailure
from engine.errors import Problem
from engine.mcp.calls import Waiter, cancelled, deliver, request
from engine.mcp.connection import CONNECTED, CONNECTING, DISABLED, Connection, describe_failure
from engine.mcp.manifest import ServerConfig, expand
from engine.registry.sources import Contribution
from engine.registry.specs import ManifestSpec, Source, ToolsetSpec, ToolSpec

if TYPE_CHECKING:
    from engine.engine import Engine
    from engine.reload.events import ReloadEvent

log = logging.getLogger("hermes_engine.mcp.client")

_CALL_GRACE = 5.0


@dataclass(frozen=True, slots=True)
class ServerStatus:
    name: str
    toolset: str
    state: str
    reason: str | None
    tools: int
    source: str


class McpClients:
    """The engine's MCP connections (a ToolSource); created by :func:`attach`."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self.root = engine.root
        self._state_dir = engine.state_dir
        self._servers: dict[str, Connection] = {}
        self._lock = threading.Condition()
        self._version = 0  # bumped on every state change
        self._applied = 0  # the version the engine's snapshot reflects
        self._closed = threading.Event()
        self._refresh = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="hermes-mcp", daemon=True)
        self._thread.start()
        self._refresher = threading.Thread(target=self._refresh_loop, name="hermes-mcp-refresh", daemon=True)
        self._refresher.start()
        engine.add_tool_source(self)
        self._unlisten = engine.on_reload(self._reloaded)
        self.reconcile(engine.snapshot.manifests)

    # -- what the engine sees -----------------------------------------------------------------

    def contribute(
        self, manifests: Sequence[ManifestSpec], tools: Collection[str], toolsets: Collection[str]
    ) -> Contribution:
        out_tools: dict[str, ToolSpec] = {}
        validators: dict[str, Any] = {}
        out_toolsets: dict[str, ToolsetSpec] = {}
        aliases: dict[str, str] = {}
        problems: list[Problem] = []
        reasons: dict[str, str] = {}
        with self._lock:
            servers = dict(self._servers)
        configs = [_config(m) for m in manifests if m.kind == "McpServer"]
        listings = {
            c.name: servers[c.name].listing for c in configs if c.name in servers and servers[c.name].config == c
        }
        # Two servers whose tools get the same engine name (server "a" tool "b__c" and server
        # "a__b" tool "c"): neither may stand in for the other, so both are skipped.
        claimed: dict[str, list[str]] = {}
        for server_name, listing in listings.items():
            for name in listing.specs:
                claimed.setdefault(name, []).append(server_name)
        for config in configs:
            server = servers.get(config.name)
            members: list[str] = []
            if config.name in listings:
                assert server is not None
                problems.extend(server.listing.problems)
                if server.state not in (CONNECTED, CONNECTING, DISABLED):
                    problems.append(
                        config.problem("mcp-server-unavailable", f"MCP server {config.name!r}: {server.reason}")
                    )
                for name, spec in server.listing.specs.items():
                    if name in tools:
                        problems.append(
                            config.problem(
                                "mcp-tool-skipped",
                                f"MCP server {config.name!r}: tool {name!r} skipped: a local tool has that name",
                            )
                        )
                        continue
                    if len(claimed[name]) > 1:
                        others = ", ".join(repr(n) for n in claimed[name] if n != config.name)
                        problems.append(
                            config.problem(
                                "mcp-tool-skipped",
                                f"MCP server {config.name!r}: tool {name!r} skipped: MCP server {others} "
                                "has a tool of that name too",
                            )
                        )
                        continue
                    out_tools[name] = spec
                    validators[name] = server.listing.validators[name]
                    members.append(name)
            if server is None or server.state != CONNECTED:
                state = "connecting" if server is None or config.name not in listings else server.state
                why = "connecting" if server is None or config.name not in listings else server.reason
                reasons[config.toolset] = f"MCP server {config.name!r} is {state}" + (
                    f": {why}" if why and why != state else ""
                )
            if config.toolset not in toolsets:
                out_toolsets[config.toolset] = ToolsetSpec(
                    name=config.toolset,
                    description=f"Tools of the MCP server {config.name}.",
                    source=Source(config.file, config.line, config.column),
                    tools=tuple(sorted(members)),
                    aliases=(config.name,) if config.name != config.toolset else (),
                    members=frozenset(members),
                )
                if config.name != config.toolset and config.name not in toolsets:
                    aliases[config.name] = config.toolset
        return Contribution(
            MappingProxyType(out_tools),
            MappingProxyType(validators),
            MappingProxyType(out_toolsets),
            MappingProxyType(aliases),
            tuple(problems),
            MappingProxyType(reasons),
        )

    def status(self) -> list[ServerStatus]:
        with self._lock:
            servers = list(self._servers.values())
        return [
            ServerStatus(
                s.config.name,
                s.config.toolset,
                s.state,
                s.reason,
                len(s.listing.specs) if s.session is not None else 0,
                f"{s.config.name} (mcp)",
            )
            for s in sorted(servers, key=lambda s: s.config.name)
        ]

    # -- keeping connections in line with the manifests --------------------------------------

    def reconcile(self, manifests: Sequence[ManifestSpec]) -> None:
        wanted = {c.name: c for c in (_config(m) for m in manifests if m.kind == "McpServer")}
        started: list[Connection] = []
        stopped: list[Connection] = []
        with self._lock:
            for name, server in list(self._servers.items()):
                if wanted.get(name) != server.config:
                    stopped.append(self._servers.pop(name))
            for name, config in wanted.items():
                if name not in self._servers:
                    server = Connection(self, config)
                    self._servers[name] = server
                    if config.enabled:
                        started.append(server)
        for server in stopped:
            self._loop.call_soon_threadsafe(server.stop)
        for server in started:
            self._loop.call_soon_threadsafe(self._start, server)
        if started or stopped:
            self.changed()

    def _start(self, server: Connection) -> None:
        server.task = self._loop.create_task(server.run(), name=f"mcp-{server.config.name}")

    def _reloaded(self, event: ReloadEvent) -> None:
        if event.ok and not self._closed.is_set():
            self.reconcile(self._engine.snapshot.manifests)

    def changed(self) -> None:
        """A server's state or listing changed: the engine loads the next generation."""
        with self._lock:
            self._version += 1
            self._lock.notify_all()
        self._refresh.set()

    def _refresh_loop(self) -> None:
        while True:
            self._refresh.wait()
            if self._closed.is_set():
                return
            self._refresh.clear()
            with self._lock:
                version = self._version
            try:
                self._engine.reload()
            except Exception:  # the watcher's rule: a reload never kills the thread that asked
                log.exception("reload after an MCP server change failed")
            with self._lock:
                self._applied = max(self._applied, version)
                self._lock.notify_all()

    def settle(self, timeout: float | None = None) -> bool:
        """Wait until every enabled server has connected or failed once and the engine shows it.

        Returns False when ``timeout`` (default: the longest connect_timeout, plus a margin) passed first.
        """
        with self._lock:
            if timeout is None:
                timeout = max((s.config.connect_timeout for s in self._servers.values()), default=0) + 5
            return self._lock.wait_for(
                lambda: all(s.settled for s in self._servers.values()) and self._applied >= self._version, timeout
            )

    # -- calls -----------------------------------------------------------------------------

    def call(self, server_name: str, tool: str, arguments: dict[str, Any]) -> Any:
        """Run one call on the server's connection and wait for it (a tool handler; any thread but
        the connection loop's).

        Over stdio the request goes past the SDK's session with one hand-off each way
        (engine.mcp.calls); over HTTP the session's ``call_tool`` runs as a task.

        Raises:
            ToolFailure: the server is not connected, failed, timed out or reported an error.
        """
        server = self._servers.get(server_name)
        session = None if server is None else server.session
        if server is None or session is None:
            reason = "it is not declared" if server is None else f"{server.state}: {server.reason}"
            raise ToolFailure(
                f"MCP server {server_name!r} is not connected ({reason})", recoverable=True, type="unavailable"
            )
        if threading.get_ident() == self._thread.ident:
            raise ToolFailure(f"MCP server {server_name!r}: a call cannot wait on the connection thread itself")
        writer, pending = server.writer, server.pending
        if writer is not None:
            request_id, waiter = pending.open()
            message = request(session, request_id, tool, arguments)
            if message is not None:
                return self._sent(server, tool, request_id, waiter, message)
            pending.take(request_id)
        return self._through_session(server, session, tool, arguments)

    def _sent(self, server: Connection, tool: str, request_id: str, waiter: Waiter, message: Any) -> Any:
        from mcp_types import CallToolResult, JSONRPCError  # noqa: PLC0415
        from pydantic import ValidationError  # noqa: PLC0415

        name, timeout, writer = server.config.name, server.config.timeout, server.writer
        self._loop.call_soon_threadsafe(deliver, writer, message, waiter)
        if not waiter.wait(timeout):
            if server.pending.take(request_id) is not None:  # still unanswered: the server is told
                self._loop.call_soon_threadsafe(deliver, writer, cancelled(request_id, "timed out"), Waiter())
                raise ToolFailure(f"MCP server {name!r} did not answer within {timeout:g}s", type="timeout")
            waiter.wait()  # answered as the wait ended
        if waiter.error is not None:
            raise ToolFailure(f"MCP server {name!r}: {waiter.error}", recoverable=True, type="unavailable")
        answer = waiter.message
        if isinstance(answer, JSONRPCError):
            raise ToolFailure(f"MCP server {name!r}: {answer.error.message[:2000]}", type="mcp_error")
        try:
            result = CallToolResult.model_validate(answer.result, by_name=False)
        except ValidationError as exc:
            problem = describe_failure(exc, server.config)
            raise ToolFailure(f"MCP server {name!r} sent an unusable result: {problem}", type="mcp_error") from None
        return self._result(server, tool, result)

    def _through_session(self, server: Connection, session: Any, tool: str, arguments: dict[str, Any]) -> Any:
        from mcp.shared.exceptions import MCPError  # noqa: PLC0415

        name, timeout = server.config.name, server.config.timeout
        waiter = Waiter()
        tasks: list[asyncio.Task[Any]] = []

        def start() -> None:
            task = self._loop.create_task(session.call_tool(tool, arguments, read_timeout_seconds=timeout))
            task.add_done_callback(waiter.resolve)
            tasks.append(task)

        self._loop.call_soon_threadsafe(start)
        if not waiter.wait(timeout + _CALL_GRACE):
            self._loop.call_soon_threadsafe(lambda: [t.cancel() for t in tasks])
            raise ToolFailure(f"MCP server {name!r} did not answer within {timeout:g}s", type="timeout")
        task = waiter.message
        try:
            result = task.result()
        except MCPError as exc:
            raise ToolFailure(f"MCP server {name!r}: {exc}", type="mcp_error") from None
        except asyncio.CancelledError:
            raise ToolFailure(f"MCP server {name!r}: the call was cancelled", type="unavailable") from None
        except Exception as exc:  # a malformed result, a claimed extension result
            raise ToolFailure(
                f"MCP server {name!r} sent an unusable result: {describe_failure(exc, server.config)}",
                type="mcp_error",
            ) from None
        return self._result(server, tool, result)

    @staticmethod
    def _result(server: Connection, tool: str, result: Any) -> Any:
        from engine.mcp.content import from_call_result  # noqa: PLC0415

        name = server.config.name
        if getattr(result, "result_type", None) not in (None, "complete"):
            raise ToolFailure(f"MCP server {name!r} asked for input the engine cannot give", type="mcp_error")
        output = server.listing.outputs.get(tool)
        structured = result.structured_content
        # What the SDK's call_tool checks: a declared output schema needs a matching structuredContent.
        if output is not None and not result.is_error and (structured is None or not output.is_valid(structured)):
            raise ToolFailure(
                f"MCP server {name!r} sent an unusable result: its structured content does not match "
                "the tool's output schema",
                type="mcp_error",
            )
        return from_call_result(result, name)

    # -- the child's environment and log -------------------------------------------------------

    def child_env(self, config: ServerConfig) -> dict[str, str]:
        """The secret-free environment of the builtin terminal plus what the manifest grants."""
        base = _terminal_child_env()
        base.update({k: expand(v)[0] for k, v in config.env.items()})
        return base

    def errlog(self, name: str, stack: contextlib.AsyncExitStack) -> Any:
        folder = self._state_dir / "mcp"
        folder.mkdir(parents=True, exist_ok=True)
        handle = open(folder / f"{name}.stderr.log", "a", encoding="utf-8")  # noqa: SIM115 - closed by the stack
        stack.callback(handle.close)
        return handle

    # -- shutting down --------------------------------------------------------------------------

    def close(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        self._refresh.set()
        self._unlisten()
        with self._lock:
            servers = list(self._servers.values())
            self._servers.clear()

        async def stop_all() -> None:
            for server in servers:
                server.stop()
            tasks = [s.task for s in servers if s.task is not None]
            if tasks:
                await asyncio.wait(tasks, timeout=10)

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(stop_all(), self._loop).result(15)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._refresher.join(10)
        if not self._thread.is_alive():
            self._loop.close()


def _config(manifest: ManifestSpec) -> ServerConfig:
    source = manifest.source
    return ServerConfig.from_data(manifest.data, source.file, source.line, source.column)


def _terminal_child_env() -> dict[str, str]:
    """The builtin terminal's child environment (handlers/_env.py): one definition of "no secrets"."""
    import importlib  # noqa: PLC0415

    from engine.compile.binding import install_builtin_package  # noqa: PLC0415
    from engine.source.project import BUILTIN_HANDLER_PACKAGE, builtin_pack_dir  # noqa: PLC0415

    install_builtin_package(Path(builtin_pack_dir()) / "handlers")
    module = importlib.import_module(f"{BUILTIN_HANDLER_PACKAGE}._env")
    env: dict[str, str] = module.child_env()
    return env


def attach(engine: Engine) -> McpClients:
    """The engine's MCP connections, created (and started) on first use."""
    clients: McpClients = engine.shared.get_or_create("mcp", lambda: McpClients(engine))
    return clients


def settle(engine: Engine, timeout: float | None = None) -> bool:
    """For one-shot commands: wait until declared servers have answered (or failed)."""
    if not any(m.kind == "McpServer" for m in engine.snapshot.manifests):
        return True
    return attach(engine).settle(timeout)


def check_connections(engine: Engine) -> list[Problem]:
    """``validate --connect``: connect every enabled server and list its tools; each that does not
    answer is an error located at its manifest (what its listing holds are warnings of the load)."""
    if not settle(engine):
        log.warning("some MCP servers were still connecting when validate --connect stopped waiting")
    problems: list[Problem] = []
    configs = {c.name: c for c in (_config(m) for m in engine.snapshot.manifests if m.kind == "McpServer")}
    for status in attach(engine).status() if configs else []:
        config = configs.get(status.name)
        if config is None or status.state in (CONNECTED, DISABLED):
            continue
        problems.append(
            Problem(
                config.file,
                config.line,
                config.column,
                "mcp-connect-failed",
                f"MCP server {status.name!r} is {status.state}: {status.reason}",
            )
        )
    return problems


def server_rows(engine: Engine) -> list[ServerStatus]:
    """The declared servers and their state ([] when the project declares none)."""
    if not any(m.kind == "McpServer" for m in engine.snapshot.manifests):
        return []
    return attach(engine).status()
