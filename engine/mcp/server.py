"""The protocol side of ``hermes-engine serve``: the engine's tools for any MCP client.

Everything here translates; the pipeline decides. ``tools/list`` is the live generation's
definitions (``--enable``/``--disable`` applied), a call runs through ``Engine.acall`` like
any other, and a reload that changes what is offered sends ``notifications/tools/list_changed``.
An ``ask`` verdict becomes an elicitation when the client supports it; otherwise the call is
refused with its pending-approval payload. Nothing is ever approved on the client's behalf.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import secrets
import threading
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

import jsonschema_rs
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from engine.dispatch.batch import parse_arguments
from engine.mcp import approval
from engine.mcp.content import error_result, to_call_result
from engine.policy.approval import ApprovalRequest, NobodyToAsk
from engine.toolsearch.meta import META_NAMES, inner_call

if TYPE_CHECKING:
    from engine.engine import Engine
    from engine.reload.events import ReloadEvent

log = logging.getLogger("hermes_engine.mcp.server")

_PROGRESS_FLUSH_SECONDS = 2.0


def _version() -> str:
    try:
        return version("hermes-engine")
    except PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
        return "0"


class _EngineServer(Server[Any]):
    """The SDK's low-level server, advertising ``tools.listChanged``."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True), experimental_capabilities, extensions
        )


class Reporter:
    """A call's progress and cancellation (engine.dispatch.context.CallReporter) over MCP.

    Progress is sent only when the client asked for it (a progress token); a handler may
    report from any thread. ``flush`` waits for what was reported before the result goes out.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, session: ServerSession, token: Any) -> None:
        self._loop = loop
        self._session = session
        self._token = token
        self._cancelled = threading.Event()
        self._pending: list[concurrent.futures.Future[None]] = []

    def progress(self, done: float, total: float | None, message: str | None) -> None:
        if self._token is None or self._cancelled.is_set():
            return
        coro = self._session.report_progress(float(done), None if total is None else float(total), message)
        self._pending.append(asyncio.run_coroutine_threadsafe(coro, self._loop))

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def cancel(self) -> None:
        self._cancelled.set()

    async def flush(self) -> None:
        pending, self._pending = self._pending, []
        if pending:
            waits = [asyncio.wrap_future(f) for f in pending]
            await asyncio.wait(waits, timeout=_PROGRESS_FLUSH_SECONDS)


@dataclass(slots=True)
class _InFlight:
    tool: str
    arguments: dict[str, Any]
    session: ServerSession
    request_id: Any
    can_elicit: bool  # the client declared elicitation
    can_send: bool  # the server can send it a request while the call waits (handshake protocol)
    by_input: bool  # the protocol asks by input_required results instead (2026-07-28 and later)
    answer: str | None = None  # from a retry carrying the user's response (input_required)
    asked: ApprovalRequest | None = None  # the question to return as input_required


@dataclass(slots=True)
class _Offer:
    """What this server offers at one generation."""

    definitions: list[dict[str, Any]]
    result: types.ListToolsResult
    names: frozenset[str]
    validators: dict[str, Any] = field(default_factory=dict)


class McpService:
    """One engine served over MCP. Transports (engine.mcp.transports) run ``self.server``."""

    def __init__(
        self,
        engine: Engine,
        enabled: Iterable[str] | None = None,
        disabled: Iterable[str] | None = None,
        answer_key: bytes | None = None,
    ) -> None:
        """``answer_key`` signs input_required state tokens; processes serving the same clients
        (stateless HTTP behind a balancer) need the same key (see engine.mcp.grants)."""
        self.engine = engine
        self.stateless = False  # set by http_app: every request is a session of its own
        self.enabled = None if enabled is None else tuple(enabled)
        self.disabled = tuple(disabled or ())
        self.bus = InMemorySubscriptionBus()
        self.server = _EngineServer(
            "hermes-engine",
            version=_version(),
            title="hermes-engine",
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_subscriptions_listen=ListenHandler(self.bus),
        )
        self.server.middleware.append(self._track)
        self._offer_cache: _Offer | None = None
        self._offer_lock = threading.Lock()
        self._announced = self.offer().definitions
        self._connections: dict[int, tuple[ServerSession, str]] = {}
        self._inflight: dict[str, list[_InFlight]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tokens = approval.AnswerTokens(answer_key)
        engine.set_approval_callback(self._approve)
        self._unlisten = engine.on_reload(self._reloaded)

    # -- what is offered -----------------------------------------------------------

    def offer(self) -> _Offer:
        """The tools of the live generation, as MCP ``Tool`` objects (rebuilt when the definitions are).

        Raises:
            UsageError: an unknown toolset in --enable/--disable.
        """
        definitions = self.engine.definitions("mcp", self.enabled, self.disabled or None)
        with self._offer_lock:
            cached = self._offer_cache
            # The engine hands out the same list while nothing changed; holding it keeps its identity unique.
            if cached is not None and cached.definitions is definitions:
                return cached
            tools = [types.Tool.model_validate(d) for d in definitions]
            offer = _Offer(definitions, types.ListToolsResult(tools=tools), frozenset(d["name"] for d in definitions))
            self._offer_cache = offer
            return offer

    def _output_validator(self, offer: _Offer, name: str) -> Any:
        if name in offer.validators:
            return offer.validators[name]
        spec = self.engine.tools.get(name)
        schema = None if spec is None else spec.output_schema
        validator = None if schema is None else jsonschema_rs.validator_for(dict(schema))
        offer.validators[name] = validator
        return validator

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return self.offer().result

    # -- connections and sessions ----------------------------------------------------

    async def _track(self, ctx: ServerRequestContext[Any, Any], call_next: Callable[..., Awaitable[Any]]) -> Any:
        """Remember each connection (for list_changed) and give it a session id (for grants)."""
        connection = getattr(ctx.session, "_connection", None)
        key = id(connection if connection is not None else ctx.session)
        if key not in self._connections:
            self._connections[key] = (ctx.session, _session_id(ctx))
            stack = getattr(connection, "exit_stack", None)
            if stack is not None:
                stack.callback(self._connections.pop, key, None)
        return await call_next(ctx)

    def _session_of(self, ctx: ServerRequestContext[Any, Any]) -> str:
        connection = getattr(ctx.session, "_connection", None)
        entry = self._connections.get(id(connection if connection is not None else ctx.session))
        return entry[1] if entry is not None else _session_id(ctx)

    # -- calls -----------------------------------------------------------------------

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        offer = self.offer()
        name = params.name
        if name not in offer.names:
            return error_result(f"unknown tool {name!r}: this server offers {len(offer.names)} tools (tools/list)")
        self._loop = asyncio.get_running_loop()
        token = ctx.meta.get("progress_token") if ctx.meta else None
        reporter = Reporter(self._loop, ctx.session, token)
        session_id = self._session_of(ctx)
        caps = ctx.session.client_capabilities
        arguments = params.arguments or {}
        if name in META_NAMES:
            # tool_call reaches only the toolsets this server offers; approvals name the inner tool.
            self.engine.tool_search.bind(session_id, self.enabled, self.disabled or None, self.stateless)
        inner = inner_call(name, arguments)
        asked_tool, asked_args = name, arguments
        if inner is not None:  # a question about the call tool_call makes names that call
            parsed, _ = parse_arguments(inner[1])
            asked_tool = self.engine.snapshot.canonical_tool(inner[0]) or inner[0]
            asked_args = parsed if isinstance(parsed, dict) else {}
        inflight = _InFlight(
            asked_tool,
            asked_args,
            ctx.session,
            ctx.request_id,
            caps is not None and caps.elicitation is not None,
            ctx.session.can_send_request,
            ctx.session.protocol_version in MODERN_PROTOCOL_VERSIONS,
        )
        if params.input_responses and approval.INPUT_KEY in params.input_responses:
            valid = self._tokens.verify(params.request_state, name, arguments)
            inflight.answer = approval.decision(params.input_responses[approval.INPUT_KEY]) if valid else "deny"
        calls = self._inflight.setdefault(session_id, [])
        calls.append(inflight)
        try:
            result = await self.engine.acall(
                name,
                arguments,
                session_id=session_id,
                tool_call_id=None if ctx.request_id is None else str(ctx.request_id),
                reporter=reporter,
            )
        except asyncio.CancelledError:
            # An async handler was cancelled with us; a sync one runs on and sees ctx.cancelled.
            reporter.cancel()
            log.info("call %s of %s cancelled by the client", ctx.request_id, name)
            raise
        finally:
            calls.remove(inflight)
            if not calls:
                self._inflight.pop(session_id, None)
        await reporter.flush()
        if inflight.asked is not None and result.pending_approval is not None:
            return approval.input_required(inflight.asked, self._tokens.issue(name, arguments))
        return to_call_result(result, self._output_validator(offer, name))

    # -- approvals -------------------------------------------------------------------

    def _approve(self, request: ApprovalRequest) -> str:
        """The engine's approval callback (a worker thread): ask the client's user, or nobody."""
        loop = self._loop
        call = self._call_for(request)
        if loop is None or call is None:
            raise NobodyToAsk("no MCP request to attach the question to")
        if call.answer is not None:  # the user answered the input_required question of this call
            answer, call.answer = call.answer, None
            return answer if answer in approval.options(request) else "deny"
        if not call.can_elicit:
            raise NobodyToAsk("the MCP client does not support elicitation")
        if call.by_input:
            call.asked = request
            raise NobodyToAsk("asked the client with an input_required result")
        if not call.can_send:
            raise NobodyToAsk("this connection cannot carry a question to the client")
        future = asyncio.run_coroutine_threadsafe(self._elicit(call, request), loop)
        timeout = float(self.engine.snapshot.policy.settings.timeout)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            return "deny"

    def _call_for(self, request: ApprovalRequest) -> _InFlight | None:
        """The request this question belongs to: same session, tool and arguments; when the
        arguments were coerced, the only call of that tool in flight. Never a guess between two."""
        calls = [c for c in self._inflight.get(request.session_id or "", []) if c.tool == request.tool]
        exact = [c for c in calls if c.arguments == dict(request.args)]
        if len(exact) == 1 or (exact and all(c.answer is None for c in exact)):
            return exact[0]
        return calls[0] if len(calls) == 1 else None

    async def _elicit(self, call: _InFlight, request: ApprovalRequest) -> str:
        message, schema = approval.question(request)
        answer = await call.session.elicit_form(message, schema, related_request_id=call.request_id)
        return approval.decision(answer, approval.options(request))

    # -- reloads ---------------------------------------------------------------------

    def _reloaded(self, event: ReloadEvent) -> None:
        loop = self._loop
        if event.ok and loop is not None and not loop.is_closed():
            asyncio.run_coroutine_threadsafe(self.announce(), loop)

    async def announce(self) -> None:
        """Tell connected clients the tool list changed (only when what is offered did)."""
        try:
            definitions = self.offer().definitions
        except Exception as exc:  # a toolset named by --enable went away: keep the last list
            log.warning("cannot list the tools after a reload: %s", exc)
            return
        if definitions == self._announced:
            return
        self._announced = definitions
        for key, (session, _) in list(self._connections.items()):
            try:
                await session.send_tool_list_changed()
            except Exception as exc:
                log.info("dropping a connection that cannot be notified: %s", exc)
                self._connections.pop(key, None)
        await self.bus.publish(ToolsListChanged())

    def bind_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """Called by the transport once its event loop runs."""
        self._loop = loop

    def close(self) -> None:
        self._unlisten()
        self.engine.set_approval_callback(None)


def _session_id(ctx: ServerRequestContext[Any, Any]) -> str:
    """The transport's session id when it has one (streamable HTTP), else a fresh one per connection."""
    request = ctx.request
    headers = getattr(request, "headers", None)
    header = headers.get("mcp-session-id") if headers is not None else None
    if isinstance(header, str) and 0 < len(header) <= 128:
        return "mcp-" + header
    return "mcp-" + secrets.token_hex(16)
