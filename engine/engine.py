"""The Engine: the one object a host holds. It owns the current snapshot.

Readers take ``self._snapshot`` once per operation and work on that; a reload
builds a new snapshot and replaces the attribute in one assignment, so a reader
never sees a half-built state and never waits for a writer.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from time import perf_counter
from typing import TYPE_CHECKING, Any

from engine.compile.binding import Bound, describe, is_project_package
from engine.compile.loader import LoadResult, ProjectLoader
from engine.config import Config
from engine.definitions.build import (
    Renderer,
    Strict,
    StrictMemo,
    build_definitions,
    check_format,
    check_strict,
    static_render,
)
from engine.dispatch import adapters
from engine.dispatch.batch import BatchCall, BatchPool, run_batch
from engine.dispatch.context import CallContext, CallReporter, SharedState
from engine.dispatch.hooks import HookRunner, make_hook
from engine.dispatch.pipeline import Dispatcher, Prepared
from engine.dispatch.results import ToolResult, failure
from engine.dispatch.workers import RunningCall, Workers
from engine.errors import ConfigurationError, Problem, ValidationFailed
from engine.plugins.context import provider_problem
from engine.registry.availability import Availability, AvailabilityCache
from engine.registry.snapshot import Snapshot
from engine.registry.sources import ToolSource
from engine.registry.specs import ToolsetSpec, ToolSpec
from engine.reload.events import ReloadEvent, diff
from engine.reload.watcher import DEFAULT_DEBOUNCE_MS, DEFAULT_STEP_MS, Watcher
from engine.runtime import LOCAL, RuntimeManager, RuntimeRef, RuntimeTypes
from engine.runtime import Session as RuntimeSession
from engine.source.project import CONFIG_NAMES, resolved
from engine.templates import ToolTemplates, render_or_fallback
from engine.toolsearch.service import ToolSearch

if TYPE_CHECKING:
    from engine.policy.approval import GrantStore
    from engine.policy.evaluate import Evaluator
    from engine.policy.model import Verdict
    from engine.policy.session_memory import SessionMemory
    from engine.policy.views import SessionView

_DEFS_CACHE_LIMIT = 256
# In a definitions cache key, in place of a budget: every tool, whatever the config's budget.
_EVERY_TOOL = "every-tool"
log = logging.getLogger("hermes_engine")
# Builtin tools whose writes later calls of the session are judged with (engine.policy.session_memory).
_WRITERS = frozenset({"terminal", "write_file", "patch"})


@dataclass(frozen=True, slots=True)
class ToolInfo:
    name: str
    toolset: str
    available: bool
    reason: str | None
    source: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "toolset": self.toolset,
            "available": self.available,
            "reason": self.reason,
            "source": self.source,
        }


class Engine:
    """Holds a project's registry and answers definitions (and, later, calls)."""

    def __init__(self, loader: ProjectLoader, result: LoadResult) -> None:
        if result.snapshot is None:
            raise ValidationFailed(result.problems)
        self._loader = loader
        self._snapshot: Snapshot = result.snapshot
        self.last_result = result
        self._availability = AvailabilityCache(
            float(result.snapshot.config["check_ttl"]), runtime_reason=self._runtime_reason
        )
        self._runtimes: RuntimeManager | None = None
        self._defs_cache: dict[tuple[Any, ...], tuple[float, list[dict[str, Any]]]] = {}
        self._strict_memo = StrictMemo()
        self._reload_lock = threading.Lock()
        self._started_in = Path.cwd()
        self.shared = SharedState()
        self._providers: dict[str, Bound] = {}
        # Providers registered by plugins (engine.plugins), replaced with each generation.
        self._plugin_providers: Mapping[str, Bound] = result.plugins.providers if result.plugins else {}
        self.workers = Workers(int(result.snapshot.config["max_handler_threads"]))
        self._batch_pool = BatchPool()  # call_batch's threads, reused from batch to batch
        self._hooks = HookRunner(float(result.snapshot.config["hook_timeout"]), self.workers)
        self._hooks.set_config_hooks(result.snapshot.config_hooks)
        # The policy machinery is imported with the first engine, not with the package.
        from engine.policy.approval import ApprovalChain  # noqa: PLC0415

        self._approvals = ApprovalChain()
        self._listeners: list[Callable[[ReloadEvent], Any]] = []
        self._watchers: list[Watcher] = []
        # Watching engines wait for a refused change to be approved (hermes-engine trust), then reload.
        self._closing = threading.Event()
        self._awaiting_approval: threading.Thread | None = None
        self._dispatcher = Dispatcher(self)
        self.tool_search = ToolSearch(self)
        self._start_sources(result.snapshot)

    @classmethod
    def load(
        cls,
        root: Path | str = ".",
        *,
        include_builtin: bool | None = None,
        config: Mapping[str, Any] | None = None,
        runtime_types: RuntimeTypes | None = None,
        approve_changes: bool = False,
    ) -> Engine:
        """Load a project (the builtin pack included unless the config says otherwise).

        ``config`` overrides keys of ``hermes-engine.yaml`` (deep-merged). ``runtime_types``
        holds runtime types registered besides the builtin ones (see engine.runtime).

        Engine files that changed since they were last approved are refused (a tool call may
        have written them; see engine.compile.approved). ``approve_changes=True`` says this
        host vouches for every change it loads, on this load and each reload (what ``dev`` does).

        Raises:
            UsageError: ``root`` is not a project.
            ValidationFailed: the manifests have errors; ``.problems`` lists them all.
        """
        loader = ProjectLoader(
            root,
            include_builtin=include_builtin,
            config_overrides=config,
            runtime_types=runtime_types,
            pin="approve" if approve_changes else "enforce",
        )
        return cls(loader, loader.load(1))

    # -- the registry ------------------------------------------------------------

    @property
    def snapshot(self) -> Snapshot:
        return self._snapshot

    @property
    def generation(self) -> int:
        return self._snapshot.generation

    @property
    def tools(self) -> Mapping[str, ToolSpec]:
        return self._snapshot.tools

    @property
    def toolsets(self) -> Mapping[str, ToolsetSpec]:
        return self._snapshot.toolsets

    @property
    def config(self) -> Config:
        return self._snapshot.config

    @property
    def root(self) -> Path:
        return self._snapshot.root

    def availability(self, name: str) -> Availability:
        """Whether a tool (or legacy alias) can be used now.

        Raises:
            KeyError: no such tool.
        """
        snap = self._snapshot
        canonical = snap.canonical_tool(name)
        if canonical is None:
            raise KeyError(name)
        return self._availability.get(snap.tools[canonical])

    def invalidate_checks(self, name: str | None = None) -> None:
        """Forget cached availability (of one tool, or all) so checks run again."""
        self._availability.invalidate(name)
        self._defs_cache.clear()

    def list_tools(self, toolset: str | None = None) -> list[ToolInfo]:
        snap = self._snapshot
        names = sorted(snap.resolve_toolsets([toolset]) if toolset else snap.tools)
        out = []
        for name in names:
            spec = snap.tools[name]
            avail = self._availability.get(spec)
            out.append(ToolInfo(name, spec.toolset, avail.available, avail.reason, str(spec.source)))
        return out

    # -- definitions -------------------------------------------------------------

    def definitions(
        self,
        format: str = "openai",
        enabled: Iterable[str] | None = None,
        disabled: Iterable[str] | None = None,
        budget_tokens: int | None = None,
        session_id: str | None = None,
        strict: Strict | None = None,
    ) -> list[dict[str, Any]]:
        """Tool definitions for the model, available tools only, sorted by name.

        ``strict`` (default: the config's ``openai.strict``, ``auto``): in the ``openai`` and
        ``openai-responses`` formats, ``auto`` emits ``strict: true`` with the schema rewritten
        for OpenAI strict mode for every tool it can take (engine.definitions.strict), and
        ``strict: false`` with the schema as written for the others; ``True`` requires every
        tool to be strict; ``False`` never rewrites. Calls are validated against the full
        schema either way.

        With ``budget_tokens`` (or the config's ``tool_search.budget_tokens``), only the
        tools that fit are listed, in tier order, followed by the tool search meta-tools
        when anything was left out (see engine.definitions.budget). ``session_id`` limits
        what that session reaches through the meta-tools to ``enabled``/``disabled``. Pass
        both by keyword (they are not keyword-only because that costs the cached path ~20 ns).

        The returned list is cached and shared: copy it before changing it.

        Raises:
            UsageError: unknown format or toolset name; a budget that cannot hold the meta-tools.
        """
        snap = self._snapshot
        key = (
            snap.generation,
            snap.config.fingerprint,
            format if strict is None else (format, check_strict(strict)),
            None if enabled is None else tuple(enabled),
            () if disabled is None else tuple(disabled),
        )
        if budget_tokens is not None or session_id is not None:
            return self._definitions_for(snap, key, budget_tokens, session_id)
        entry = self._defs_cache.get(key)
        if entry is not None and entry[0] > time.monotonic():
            return entry[1]
        return self._build_definitions(snap, key)

    def _definitions_for(
        self, snap: Snapshot, key: tuple[Any, ...], budget: Any, session_id: str | None
    ) -> list[dict[str, Any]]:
        """:meth:`definitions` with an explicit budget or a session to bind."""
        if session_id is not None:
            self.tool_search.bind(session_id, key[3], key[4])
        if budget is not None:
            key = (*key, budget)
        entry = self._defs_cache.get(key)
        if entry is not None and entry[0] > time.monotonic():
            return entry[1]
        return self._build_definitions(snap, key)

    def full_definitions(
        self, format: str, enabled: Iterable[str] | None = None, disabled: Iterable[str] | None = None
    ) -> list[dict[str, Any]]:
        """Every available tool's definition, whatever the budget (cached like :meth:`definitions`)."""
        return self._full_definitions(format, enabled, disabled)

    def _full_definitions(
        self, format: str | tuple[str, Strict], enabled: Iterable[str] | None, disabled: Iterable[str] | None
    ) -> list[dict[str, Any]]:
        # format: a format name (strict mode from the config), or (name, strict mode).
        snap = self._snapshot
        key = (
            snap.generation,
            snap.config.fingerprint,
            format,
            None if enabled is None else tuple(enabled),
            () if disabled is None else tuple(disabled),
            _EVERY_TOOL,
        )
        entry = self._defs_cache.get(key)
        if entry is not None and entry[0] > time.monotonic():
            return entry[1]
        return self._build_definitions(snap, key)

    def _build_definitions(self, snap: Snapshot, key: tuple[Any, ...]) -> list[dict[str, Any]]:
        # key: (generation, config, format, enabled, disabled[, budget or _EVERY_TOOL]); without
        # a budget of its own, the config's applies.
        fmt_key, enabled, disabled = key[2:5]
        fmt, strict = fmt_key if isinstance(fmt_key, tuple) else (fmt_key, snap.config.get("openai", "strict"))
        budget = key[5] if len(key) > 5 else snap.config.get("tool_search", "budget_tokens")
        if budget is not None and budget != _EVERY_TOOL:
            full = self._full_definitions(fmt_key, enabled, disabled)
            expires = self._defs_cache.get((*key[:5], _EVERY_TOOL), (0.0,))[0]
            result = self.tool_search.fit(snap, fmt, full, budget, enabled, disabled)
            if len(self._defs_cache) >= _DEFS_CACHE_LIMIT:
                self._defs_cache.clear()
            self._defs_cache[key] = (expires, result)
            return result
        check_format(fmt)
        if enabled is None:
            configured = snap.config.get("toolsets", "enabled")
            enabled = None if configured is None else tuple(configured)
            disabled = (*disabled, *snap.config.get("toolsets", "disabled"))
        names = snap.resolve_toolsets(enabled, disabled)
        expires = float("inf")
        available: list[ToolSpec] = []
        for name in names:
            spec = snap.tools[name]
            if self._availability.get(spec).available:
                available.append(spec)
            expires = min(expires, self._availability.expires_at(spec))
        result = build_definitions(available, fmt, self._renderer(snap, available), strict, self._strict_memo)
        if len(self._defs_cache) >= _DEFS_CACHE_LIMIT:
            self._defs_cache.clear()
        self._defs_cache[key] = (expires, result)
        return result

    def _renderer(self, snap: Snapshot, available: list[ToolSpec]) -> Renderer:
        """Static text, or the tool's templates rendered for what is being offered."""
        templates: Mapping[str, ToolTemplates] = snap.templates or {}
        if not templates or not any(s.name in templates for s in available):
            return static_render
        names = {s.name for s in available}
        context = {
            "available_tools": sorted(names),
            "toolsets": sorted(n for n, t in snap.toolsets.items() if t.members & names),
            "config": dict(snap.config.data),
            "platform": sys.platform,
        }

        def render(spec: ToolSpec) -> tuple[str, Mapping[str, Any]]:
            compiled = templates.get(spec.name)
            if compiled is None:
                return spec.description, spec.parameters
            return render_or_fallback(spec.name, compiled, spec.description, spec.parameters, context)

        return render

    # -- calls -------------------------------------------------------------------

    def call(
        self,
        name: str,
        args: Mapping[str, Any] | None = None,
        *,
        session_id: str | None = None,
        task_id: str | None = None,
        tool_call_id: str | None = None,
    ) -> ToolResult:
        """Run one tool call. Failures come back as error results, never as exceptions
        (only KeyboardInterrupt goes through)."""
        return self._dispatcher.call(name, args, session_id, task_id, tool_call_id)

    async def acall(
        self,
        name: str,
        args: Mapping[str, Any] | None = None,
        *,
        session_id: str | None = None,
        task_id: str | None = None,
        tool_call_id: str | None = None,
        reporter: CallReporter | None = None,
    ) -> ToolResult:
        """:meth:`call` for async hosts: async handlers are awaited on the caller's loop,
        sync handlers run in a worker thread so they never block it. Cancelling the
        awaiting task cancels the call. ``reporter`` receives what the handler reports
        with ``ctx.progress(...)`` and tells it of a cancellation."""
        return await self._dispatcher.acall(name, args, session_id, task_id, tool_call_id, reporter)

    def handle_function_call(
        self,
        name: str,
        arguments: str | Mapping[str, Any] | None,
        *,
        session_id: str | None = None,
        task_id: str | None = None,
        tool_call_id: str | None = None,
    ) -> str:
        """Take the model's raw arguments (JSON text or a dict); return what the model should see."""
        return self._call_raw(BatchCall(name, arguments, tool_call_id), session_id, task_id).output

    def _raw_arguments(self, call: BatchCall) -> tuple[Any, ToolResult | None]:
        """(arguments, None) from the model's raw arguments, or (None, the error result)."""
        try:
            args, problem = adapters.parse_arguments(call.args)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # bytes-like objects that will not decode, and their like
            return None, self._dispatcher.internal_failure(call.name, call.tool_call_id, exc)
        if problem is not None:
            now = perf_counter()
            return None, failure(
                "invalid_arguments",
                problem,
                recoverable=True,
                generation=self.generation,
                started=now,
                now=now,
                tool=call.name,
                tool_call_id=call.tool_call_id,
            )
        return args, None

    def _call_raw(self, call: BatchCall, session_id: str | None, task_id: str | None) -> ToolResult:
        args, refused = self._raw_arguments(call)
        if refused is not None:
            return refused
        return self._dispatcher.call(call.name, args, session_id, task_id, call.tool_call_id)

    async def _acall_raw(self, call: BatchCall, session_id: str | None, task_id: str | None) -> ToolResult:
        """:meth:`_call_raw` for async hosts (the framework adapters)."""
        args, refused = self._raw_arguments(call)
        if refused is not None:
            return refused
        return await self._dispatcher.acall(call.name, args, session_id, task_id, call.tool_call_id)

    def call_batch(
        self,
        calls: Iterable[Any],
        *,
        session_id: str | None = None,
        task_id: str | None = None,
        max_workers: int = 8,
    ) -> list[ToolResult]:
        """Run several calls, concurrently where manifests allow; results in call order.

        Each call is ``(name, args)``, ``(name, args, id)``, ``{"name", "arguments", "id"}``
        or a :class:`BatchCall`; arguments may be JSON text. There is one result per
        item, and never an exception: an item that is not a call gets an error result.

        At most ``max_workers`` calls of the batch run at once: on the calling thread and on
        the engine's batch threads, which are kept from batch to batch (at most 64, shared by
        every batch) and stopped by :meth:`close`. When they are all busy, or closed, the
        calling thread runs the calls itself.
        """
        snap = self._snapshot
        try:
            return run_batch(
                snap,
                calls,
                snap.config.workdir(self._started_in),
                lambda c: self._call_raw(c, session_id, task_id),
                max_workers,
                self._batch_pool,
            )
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # `calls` itself could not be read
            return [self._dispatcher.internal_failure(None, None, exc)]

    def openai_tool_messages(
        self, tool_calls: Iterable[Any] | None, *, session_id: str | None = None
    ) -> list[dict[str, Any]]:
        """OpenAI chat-completions ``tool_calls`` → ``{"role": "tool", ...}`` messages (a Responses
        ``function_call`` item is read too; None is no call)."""
        return adapters.openai_tool_messages(tool_calls, lambda b: self.call_batch(b, session_id=session_id))

    def openai_response_outputs(
        self, items: Iterable[Any] | None, *, session_id: str | None = None
    ) -> list[dict[str, Any]]:
        """OpenAI Responses ``response.output`` → ``function_call_output`` items (other items skipped)."""
        return adapters.openai_response_outputs(items, lambda b: self.call_batch(b, session_id=session_id))

    def anthropic_tool_results(
        self, content: Iterable[Any] | None, *, session_id: str | None = None
    ) -> list[dict[str, Any]]:
        """Anthropic ``tool_use`` blocks → ``tool_result`` blocks (``is_error`` on failures)."""
        return adapters.anthropic_tool_results(content, lambda b: self.call_batch(b, session_id=session_id))

    # -- providers and hooks -------------------------------------------------------

    def register_provider(self, tool: str, function: Callable[..., Any]) -> None:
        """Let the host answer an agent-loop tool (clarify, delegate_task, ...).

        The provider is called like a handler: with the arguments as keywords (and
        ``ctx`` if it declares it); sync or async.

        Raises:
            ConfigurationError: the tool does not exist or is not marked agent_loop.
        """
        spec = self._snapshot.tools.get(tool)
        if spec is None or not spec.agent_loop:
            raise ConfigurationError(str(provider_problem(tool, spec, frozenset())))
        bound = describe(f"<provider for {tool}>", function)
        problem = provider_problem(tool, spec, bound.required)
        if problem is not None:
            raise ConfigurationError(problem)
        self._providers[tool] = bound
        self._snapshot.cache.clear()

    def unregister_provider(self, tool: str) -> None:
        self._providers.pop(tool, None)
        self._snapshot.cache.clear()

    def provider_for(self, tool: str) -> Bound | None:
        """The host's provider for ``tool``, else a plugin's."""
        return self._providers.get(tool) or self._plugin_providers.get(tool)

    def add_hook(self, point: str, function: Callable[..., Any], *, name: str | None = None) -> Callable[[], None]:
        """Register a hook (pre_tool_call, post_tool_call, transform_tool_result); returns its remover.

        Raises:
            ConfigurationError: unknown point or an unusable callable.
        """
        return self._hooks.add(make_hook(point, function, name))

    def hook(self, point: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator form of :meth:`add_hook`."""

        def register(function: Callable[..., Any]) -> Callable[..., Any]:
            self.add_hook(point, function)
            return function

        return register

    # -- policy ----------------------------------------------------------------------

    def _evaluator(self, snap: Snapshot) -> Evaluator:
        # One evaluator per generation: its caches (classified paths, matcher indexes) stay warm.
        evaluator: Evaluator | None = snap.cache.get("<policy>")
        if evaluator is None:
            from engine.policy.evaluate import Evaluator  # noqa: PLC0415
            from engine.policy.places import engine_places  # noqa: PLC0415

            workdir = snap.config.workdir(self._started_in)
            audit = self._audit_path(snap)
            places = engine_places(self._loader.all_packs(snap.config), snap.config, workdir, audit)
            evaluator = Evaluator(snap.policy, str(workdir), places)
            evaluator.prepare_flat_scan()  # with the evaluator, not by a check's first long text
            snap.cache["<policy>"] = evaluator
        return evaluator

    def is_guarded(self, snap: Snapshot, tool: str) -> bool:
        """Whether danger patterns or approval rules apply to ``tool``."""
        return snap.policy is not None and bool(snap.policy.is_guarded(tool))

    def check(self, command: str, tool: str = "terminal") -> Verdict:
        """Judge a command (or a path, for file tools) as a call to ``tool`` would be judged.

        Nobody is asked and nothing is logged: this is the policy's verdict alone. It never
        raises: a command the detector fails on gets a fail-closed verdict (ask, not grantable).
        """
        try:
            return self._evaluator(self._snapshot).check(command, tool)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            return _unjudged(command, exc)

    def set_approval_callback(self, callback: Callable[..., Any] | None) -> None:
        """Register who answers approval requests: ``callback(request) -> "once"|"session"|"always"|"deny"``.

        Sync or async; bounded by the policy's timeout (a timeout is a denial).
        Without a callback, a call that needs approval is denied with a pending_approval payload.
        """
        self._approvals.callback = callback

    def set_grant_store(self, store: GrantStore | None) -> None:
        """Keep session grants in ``store`` (``granted``/``grant``) instead of in memory, so
        several processes serving the same sessions share them (see engine.mcp.grants)."""
        self._approvals.store = store

    def gate(self, prepared: Prepared, asked: Sequence[tuple[str, str]]) -> ToolResult | None:
        """The policy seam: None lets the call run, a result refuses it.

        ``asked`` holds (hook name, reason) for each pre_tool_call hook that asked for approval.
        """
        from engine.policy.approval import ApprovalRequest  # noqa: PLC0415
        from engine.policy.audit import AuditLog  # noqa: PLC0415
        from engine.policy.model import ALLOW, ASK, DENY, Match, Verdict  # noqa: PLC0415
        from engine.policy.session_memory import WatchedKeys  # noqa: PLC0415

        snap = prepared.snap
        spec = prepared.plan.spec
        tool = spec.name
        if spec.approval is not None and spec.approval[0] == "deny":
            return failure(
                "blocked",
                f"{tool}: {spec.approval[1]}",
                recoverable=False,
                generation=prepared.generation,
                started=prepared.started,
                now=perf_counter(),
                tool=tool,
                tool_call_id=prepared.tool_call_id,
            )
        verdict = Verdict(ALLOW, False)
        args: Mapping[str, Any] = prepared.args
        held = None  # a background shell's input: what a write sends is judged with what it holds
        session: SessionView | None = None
        if prepared.plan.guarded:
            try:
                memory = self.session_memory
                session = memory.view(prepared.session_id, str(snap.config.workdir(self._started_in)))
                if tool == "process" and args.get("action") == "write" and isinstance(args.get("input"), str):
                    held = memory.process(prepared.session_id, args.get("process_id"))
                    if held is not None and not memory.resolve(
                        prepared.session_id, args["process_id"], held, snap.policy.programs
                    ):
                        held = None  # data: judged alone, sent at once
                    if held is not None:
                        held.guarded = True
                        args = {**args, "input": memory.to_judge(held, args["input"], snap.policy.programs) or ""}
                        session.shell = held.shell  # its lines are read from where the shell is
                elif tool == "terminal" and args.get("background") and isinstance(args.get("command"), str):
                    # (sess46) the files its reading reads as code are watched while its process runs
                    session.reads = WatchedKeys()
                verdict = self._evaluator(snap).verdict(tool, args, session)
                if (session.files.watches or session.files.expected) and tool in _WRITERS:
                    verdict = self._rewrites(snap, session, tool, args, verdict)
            except KeyboardInterrupt:
                raise
            except BaseException as exc:
                verdict = _unjudged(args, exc)
        if asked and verdict.decision != DENY:
            # Keyed by hook and reason: approving one hook's question answers no other.
            hooks = tuple(Match(f"hook:{name}", reason, "ask", tool) for name, reason in asked)
            reason = "a pre_tool_call hook asked for approval"
            verdict = Verdict(ASK, False, (*verdict.matches, *hooks), reason, verdict.commands)
        if spec.approval is not None and verdict.decision != DENY:
            # The source's question (keyed like a hook's: a grant covers this tool as defined now).
            asks = Match("hook:source", f"{tool}: {spec.approval[1]}", "ask", tool)
            verdict = Verdict(ASK, False, (*verdict.matches, asks), "approval required", verdict.commands)
        values = [v for argument, _ in snap.policy.targets.get(tool, ()) for v in _as_list(args.get(argument))]
        request = ApprovalRequest(
            tool,
            args,
            " ; ".join(values) or tool,
            verdict,
            prepared.session_id,
            prepared.task_id,
            tuple(values),
            str(snap.config.workdir(self._started_in)),
            programs=snap.policy.programs,
        )
        settings = snap.policy.settings
        audit = AuditLog(self._audit_path(snap))
        resolution = self._approvals.resolve(request, settings, snap.root / CONFIG_NAMES[0], audit)
        if resolution.allowed:
            if session is not None and session.reads is not None:
                self.session_memory.expect(prepared.session_id, args["command"], _cwd_of(args), session.reads)
            if held is not None:
                self.session_memory.judged(
                    held,
                    prepared.args["input"],
                    snap.policy.programs,
                    allowed=verdict.decision == ALLOW,
                    session=session,
                )
            elif tool in _WRITERS:
                # Remembered before it runs: a call judged meanwhile (another thread, a later
                # batch group) already sees what this one is about to write.
                self.remember(prepared)
            return None
        kind = "pending_approval" if resolution.pending is not None else "denied"
        return failure(
            kind,
            resolution.message,
            recoverable=False,
            generation=prepared.generation,
            started=prepared.started,
            now=perf_counter(),
            tool=tool,
            tool_call_id=prepared.tool_call_id,
            pending=resolution.pending,
        )

    def _rewrites(
        self, snap: Snapshot, session: SessionView, tool: str, args: Mapping[str, Any], verdict: Verdict
    ) -> Verdict:
        """(sess46) A call that rewrites a file a running background process of the session reads as code
        (`sleep 2; sh x.sh` running, then write_file x.sh): the strictest of its own verdict and the process's
        command judged again with the file's new text."""
        from engine.policy.model import ALLOW, DENY, Verdict  # noqa: PLC0415

        evaluator = self._evaluator(snap)
        for watched, view in self.session_memory.rewritten(session, tool, args, snap.policy.programs):
            call = (
                {"command": watched.command}
                if watched.cwd is None
                else {"command": watched.command, "cwd": watched.cwd}
            )
            again = evaluator.verdict("terminal", call, view)
            if again.decision == ALLOW:
                continue
            reason = f"it rewrites a file the running background command `{watched.command[:200]}` runs: {again.reason}"
            decision = DENY if DENY in (again.decision, verdict.decision) else again.decision
            verdict = Verdict(
                decision,
                verdict.hardline or again.hardline,
                (*verdict.matches, *again.matches),
                reason if decision == again.decision else verdict.reason,
                (*verdict.commands, *again.commands),
            )
        return verdict

    @property
    def session_memory(self) -> SessionMemory:
        """What each session wrote and holds for its processes (engine.policy.session_memory)."""
        from engine.policy.session_memory import memory_of  # noqa: PLC0415

        return memory_of(self.shared)

    def remember(self, prepared: Prepared) -> None:
        """The files an allowed call writes are remembered for its session (see session_memory)."""
        tool = prepared.plan.spec.name
        args = prepared.args
        snap = prepared.snap
        try:
            workdir = str(snap.config.workdir(self._started_in))
            path = args.get("path")
            if tool == "terminal" and isinstance(args.get("command"), str):
                cwd = args.get("cwd")
                programs = snap.policy.programs if snap.policy is not None else None
                self.session_memory.terminal_wrote(
                    prepared.session_id,
                    workdir,
                    args["command"],
                    cwd if isinstance(cwd, str) else None,
                    programs,
                    background=args.get("background") is True,
                )
            elif isinstance(path, str):
                content = args.get("content") if tool == "write_file" else None
                written = content if isinstance(content, str) else None
                self.session_memory.wrote(prepared.session_id, workdir, path, written)
        except Exception as exc:
            log.warning("could not remember what %s wrote: %s", tool, exc)

    def _audit_path(self, snap: Snapshot) -> Path:
        from engine.policy.audit import audit_path  # noqa: PLC0415

        return audit_path(snap.config)

    def overdue_calls(self) -> list[RunningCall]:
        """Handlers still running past their timeout (their calls were already reported as
        timed out), longest overdue first. Each holds a worker thread, or a task on a loop,
        until it returns; ``max_handler_threads`` bounds the threads."""
        return self.workers.overdue()

    # -- handler context -------------------------------------------------------------

    @property
    def state_dir(self) -> Path:
        return self._snapshot.config.state_dir

    @property
    def workdir(self) -> Path:
        return self._snapshot.config.workdir(self._started_in)

    def context(self, tool: str, prepared: Prepared) -> CallContext:
        snap = prepared.snap
        return CallContext(
            tool=tool,
            session_id=prepared.session_id,
            task_id=prepared.task_id,
            tool_call_id=prepared.tool_call_id,
            generation=prepared.generation,
            config=snap.config,
            root=snap.root,
            workdir=snap.config.workdir(self._started_in),
            state_dir=snap.config.state_dir,
            shared=self.shared,
            reporter=prepared.reporter,
            runtime=self._runtime_ref(snap, prepared.plan.spec, prepared.session_id),
            paths=self._evaluator(snap).classifier,
            programs=snap.policy.programs if snap.policy is not None else None,
        )

    # -- runtimes ----------------------------------------------------------------------

    @property
    def runtimes(self) -> RuntimeManager:
        """The live runtimes of this engine's sessions (containers, connections), started on first use."""
        if self._runtimes is None:
            with self._reload_lock:
                if self._runtimes is None:
                    self._runtimes = RuntimeManager(self._loader.runtime_types)
        return self._runtimes

    def _runtime_ref(self, snap: Snapshot, spec: ToolSpec, session_id: str | None) -> RuntimeRef | None:
        runtime = snap.runtime_of(spec)
        if runtime is None:
            return None
        return RuntimeRef(runtime, self._runtime_session(snap, session_id), self.runtimes)

    def _runtime_session(self, snap: Snapshot, session_id: str | None) -> RuntimeSession:
        places = snap.cache.get("<runtime-places>")
        if places is None:
            # What a runtime must not change (the files the loader reads) or see (the engine's state).
            protected = [snap.root / name for name in CONFIG_NAMES]
            for pack in self._loader.all_packs(snap.config):
                protected += [pack.root / folder for folder in ("manifests", "toolsets", "policies")]
                if pack.is_plugin:  # a plugin's folder and its code, whole
                    protected += [pack.root, *(pack.package_root / r.split(".", 1)[0] for r in pack.handler_roots)]
            protected += self.handler_dirs()
            hidden = [snap.config.state_dir]
            places = snap.cache["<runtime-places>"] = (tuple(protected), tuple(hidden))
        workdir = snap.config.workdir(self._started_in)
        return RuntimeSession(session_id or "default", workdir, snap.config.state_dir, places[0], places[1])

    def _runtime_reason(self, spec: ToolSpec) -> str | None:
        runtime = self._snapshot.runtime_of(spec)
        if runtime is None or runtime.type == LOCAL:
            return None
        reason = self.runtimes.check(runtime)
        return None if reason is None else f"runtime {runtime.name!r} ({runtime.type}) is unavailable: {reason}"

    # -- reload ----------------------------------------------------------------------

    def reload(self, changed: Iterable[Path | str] = (), *, approve: bool = False) -> ReloadEvent:
        """Load again and swap in the next generation; on errors the current one keeps serving.

        ``changed`` names the files that changed (only those are parsed again; with
        none, every file is checked by its size and mtime). Changed handler modules
        are imported again. Listeners registered with :meth:`on_reload` are told.
        A change to an engine file that was not approved is refused (``unapproved-change``)
        unless ``approve`` says the caller vouches for it (see :meth:`load`).
        """
        pin = self._loader.approved
        with self._reload_lock:
            mode = pin.mode if pin is not None else None
            if pin is not None and approve:
                pin.mode = "approve"
            try:
                event = self._reload_locked(changed)
            finally:
                if pin is not None and mode is not None:
                    pin.mode = mode
        return self._announce(event)

    def _announce(self, event: ReloadEvent) -> ReloadEvent:
        if event.ok:
            self._start_sources(self._snapshot)
        elif self._watchers and any(p.code in _AWAITS_APPROVAL for p in event.problems):
            self._await_approval(event)
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("an on_reload listener raised")
        return event

    def _await_approval(self, refused: ReloadEvent) -> None:
        """A watched reload was refused for unapproved files: reload them once the record of approved
        files changes (someone ran ``hermes-engine trust``), so a running host needs no restart."""
        if self._awaiting_approval is not None and self._awaiting_approval.is_alive():
            return
        from engine.compile.approved import record_stamp  # noqa: PLC0415

        pin = self._loader.approved
        files = [self.root / p.file for p in refused.problems if p.code == "unapproved-change"]

        def wait() -> None:
            while not self._closing.wait(APPROVAL_POLL_SECONDS):
                # Compared with the record as the refused load read it: an approval made at any
                # moment since then is seen.
                if pin is None or record_stamp(self.root) == pin.seen_record:
                    continue
                event = self._reload_after_approval(files)
                if event.ok or not any(p.code in _AWAITS_APPROVAL for p in event.problems):
                    return

        self._awaiting_approval = threading.Thread(target=wait, name="hermes-await-approval", daemon=True)
        self._awaiting_approval.start()

    def _reload_after_approval(self, files: list[Path]) -> ReloadEvent:
        with self._reload_lock:
            event = self._reload_locked(files)
        return self._announce(event)

    def _reload_locked(self, changed: Iterable[Path | str]) -> ReloadEvent:
        started = perf_counter()
        old = self._snapshot
        paths = [resolved(p) for p in changed]
        files = tuple(_display(p, old.root) for p in paths)
        try:
            event = self._swap(old, paths, files, started)
        except Exception as exc:  # a reload never raises into the watcher or the host
            log.debug("reload failed", exc_info=exc)
            where = files[0] if files else CONFIG_NAMES[0]
            problem = Problem(
                where,
                1,
                1,
                "reload-failed",
                f"the engine failed while loading ({type(exc).__name__}: {exc}); generation "
                f"{old.generation} keeps serving; this is a bug in hermes-engine, please report it",
            )
            ms = (perf_counter() - started) * 1000
            event = ReloadEvent(False, old.generation, old.generation, ms, problems=(problem,), files=files)
        return event

    def _swap(self, old: Snapshot, paths: list[Path], files: tuple[str, ...], started: float) -> ReloadEvent:
        modules = {p for p in paths if p.suffix == ".py"}
        if modules:
            for pack in self._loader.all_packs(old.config):
                self._loader.binder.reimport(pack, modules)
        result = self._loader.load(old.generation + 1, changed=paths)
        ms = (perf_counter() - started) * 1000
        new = result.snapshot
        if new is None:
            event = ReloadEvent(False, old.generation, old.generation, ms, problems=tuple(result.problems), files=files)
            self.last_result = result
        else:
            # Order matters: a reader takes the snapshot first, so everything it reaches
            # through the engine afterwards must already belong to the new generation.
            self._availability = AvailabilityCache(float(new.config["check_ttl"]), runtime_reason=self._runtime_reason)
            self._hooks.set_config_hooks(new.config_hooks)
            self._hooks.timeout = float(new.config["hook_timeout"])
            self.workers.limit = int(new.config["max_handler_threads"])
            self._plugin_providers = result.plugins.providers if result.plugins else {}
            self._snapshot = new
            self.last_result = result
            self._defs_cache = {k: v for k, v in self._defs_cache.items() if k[0] == new.generation}
            event = diff(old, new, ms, files)
        return event

    def add_tool_source(self, source: ToolSource) -> None:
        """Ask ``source`` for tools on every load (engine.registry.sources); the next reload shows them."""
        self._loader.sources.append(source)

    def _start_sources(self, snap: Snapshot) -> None:
        # Servers declared by McpServer manifests connect in the background; loading never waits.
        if any(m.kind == "McpServer" for m in snap.manifests):
            from engine.mcp.client import attach  # noqa: PLC0415

            attach(self)

    def on_reload(self, listener: Callable[[ReloadEvent], Any]) -> Callable[[], None]:
        """Call ``listener(event)`` after every reload attempt; returns a function that removes it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def watch(self, *, debounce_ms: int = DEFAULT_DEBOUNCE_MS, step_ms: int = DEFAULT_STEP_MS) -> Watcher:
        """Reload on save. Use as a context manager, or call ``.start()`` / ``.stop()``."""
        watcher = Watcher(self, debounce_ms=debounce_ms, step_ms=step_ms)
        self._watchers.append(watcher)
        return watcher

    def changed_since_load(self, candidates: Iterable[Path] = ()) -> list[Path]:
        """Files that changed since the serving generation was loaded: those it read, and any
        of ``candidates`` modified since (see ProjectLoader.changed_since_load). A watcher,
        once armed, reloads these: a save made before it was watching is not lost.

        Waits for a reload in progress: compared while one runs, a file it has begun to read
        would look served before the new generation is (stop 43: start() returned before a
        watch's reload of a new tool had swapped in, and the tool was unknown)."""
        with self._reload_lock:
            return self._loader.changed_since_load(candidates)

    def handler_dirs(self) -> list[Path]:
        """Folders of the project's handler packages (watched for changes)."""
        snap = self._snapshot
        dirs = []
        for pack in self._loader.packs(snap.config):
            if pack.root != snap.root:
                continue
            for prefix in pack.handler_roots:
                top = prefix.split(".", 1)[0]
                candidate = pack.root / top
                if is_project_package(top, pack.root) and candidate.is_dir():
                    dirs.append(candidate)
        return dirs

    def plugin_dirs(self) -> list[Path]:
        """Folders of the loaded plugins that are inside the project (watched for changes)."""
        root = self._snapshot.root
        dirs = {p.root for p in self._loader.all_packs(self._snapshot.config) if p.is_plugin}
        return sorted(d for d in dirs if d.is_relative_to(root))

    def close(self) -> None:
        """Stop what the engine started (background processes, watchers, containers, connections)."""
        self._closing.set()
        for watcher in self._watchers:
            watcher.stop()
        self._batch_pool.close()
        for item in self.shared.values():
            closer = getattr(item, "close", None)
            if callable(closer):
                with contextlib.suppress(Exception):
                    closer()
        if self._runtimes is not None:
            self._runtimes.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# Problems of a reload refused because engine files await approval (engine.compile.approved).
_AWAITS_APPROVAL = frozenset({"unapproved-change", "approval-record-invalid"})
APPROVAL_POLL_SECONDS = 0.25


def _unjudged(value: Any, exc: BaseException) -> Verdict:
    """Fail closed: what the detector could not judge is asked about, once, never granted wider."""
    from engine.policy.model import ASK, Match, Verdict  # noqa: PLC0415

    log.error("the policy check failed", exc_info=exc)
    reason = f"the command could not be judged ({type(exc).__name__}); it is not allowed without approval"
    shown = value[:1000] if isinstance(value, str) else "(the call's arguments)"
    match = Match("unjudged", reason, "dangerous", shown, grantable=False)
    return Verdict(ASK, False, (match,), reason)


def _cwd_of(args: Mapping[str, Any]) -> str | None:
    cwd = args.get("cwd")
    return cwd if isinstance(cwd, str) else None


def _as_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(v) for v in value]
    return []


def _display(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
