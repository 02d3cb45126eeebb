"""One call, in order: lookup → availability → aliases → coercion → validation →
pre hooks → policy → invocation → result contract → post/transform hooks → size cap.

Nothing a call sends or a handler does reaches the host as an exception: a failure
inside a handler becomes an error result the model can read; anything else that
escapes the pipeline (a bug in the engine, exhausted recursion or memory) becomes an
``internal_error`` result and is logged with its traceback. Only KeyboardInterrupt
(and, for ``acall``, the cancellation of the caller's own task) goes through.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from difflib import get_close_matches
from time import perf_counter
from typing import Any, Protocol

from engine.compile.binding import Bound
from engine.definitions.strict import Nulls, absent_if_null
from engine.dispatch.coercion import coerce_arguments
from engine.dispatch.context import CallContext, CallReporter, ToolFailure
from engine.dispatch.hooks import AskApproval, Block, HookRunner, HookTimeout, ModifyArgs, interpret_pre
from engine.dispatch.invoke import CallTimeout, run_async, run_coroutine, run_sync
from engine.dispatch.results import ResultMetadata, ToolResult, failure
from engine.dispatch.shape import BadResult, shape, spill
from engine.dispatch.workers import Overloaded, Workers
from engine.registry.availability import AvailabilityCache
from engine.registry.snapshot import Snapshot
from engine.registry.specs import ToolSpec
from engine.toolsearch.meta import CALL, Redirect

log = logging.getLogger("hermes_engine.dispatch")

_BUG_EXCEPTIONS = (AttributeError, NameError, AssertionError, ImportError, NotImplementedError, SyntaxError, SystemExit)
_NAME_SHOWN = 200  # characters of an unknown tool name repeated back to the model


class MetaTools(Protocol):
    """Answers the tool search meta-tools (engine.toolsearch.service.ToolSearch)."""

    def answer(
        self, snap: Snapshot, name: Any, args: Any, session_id: str | None, tool_call_id: str | None, started: float
    ) -> ToolResult | Redirect | None: ...


class CallHost(Protocol):
    """What the pipeline needs from its owner (the Engine), and nothing more.

    The pipeline depends on this, not on ``engine.engine``: the engine module imports the
    pipeline, never the other way round (tests/test_layout.py checks the import graph).
    ``_snapshot`` is read once per call, so it is a plain attribute, not a property.
    """

    _snapshot: Snapshot
    _hooks: HookRunner
    _availability: AvailabilityCache
    workers: Workers
    tool_search: MetaTools

    def provider_for(self, tool: str) -> Bound | None: ...
    def is_guarded(self, snap: Snapshot, tool: str) -> bool: ...
    def gate(self, prepared: Prepared, asked: Sequence[tuple[str, str]]) -> ToolResult | None: ...
    def context(self, tool: str, prepared: Prepared) -> CallContext: ...


@dataclass(slots=True)
class Plan:
    """Everything per-tool the hot path needs, computed once per generation."""

    spec: ToolSpec
    validator: Any
    properties: Mapping[str, Any]
    function: Callable[..., Any] | None
    is_async: bool
    accepts_ctx: bool
    accepted: frozenset[str] | None  # handler parameters, when undeclared arguments must be dropped
    cap: int
    timeout: float | None
    guarded: bool  # danger patterns or approval rules apply to this tool
    # Where a null argument means "absent" (optional, not nullable: what OpenAI strict mode sends).
    nulls: Nulls | None = None


@dataclass(slots=True)
class Prepared:
    plan: Plan
    args: dict[str, Any]
    started: float
    session_id: str | None
    task_id: str | None
    tool_call_id: str | None
    # The generation this call runs against, from start to end, whatever reloads happen meanwhile.
    snap: Snapshot
    reporter: CallReporter | None = None

    @property
    def generation(self) -> int:
        return self.snap.generation


class Dispatcher:
    def __init__(self, engine: CallHost) -> None:
        self.engine = engine

    # -- plans -------------------------------------------------------------------

    def plan(self, snap: Snapshot, name: Any) -> Plan | None:
        try:
            plan: Plan | None = snap.cache.get(name)
        except TypeError:  # an unhashable "name"
            return None
        if plan is not None:
            return plan
        if not isinstance(name, str):
            return None
        canonical = snap.canonical_tool(name)
        if canonical is None:
            return None
        plan = snap.cache.get(canonical) or self._build_plan(snap, snap.tools[canonical])
        snap.cache[canonical] = plan
        return plan

    def _build_plan(self, snap: Snapshot, spec: ToolSpec) -> Plan:
        bound: Bound | None = self.engine.provider_for(spec.name) or spec.handler
        params = spec.parameters
        properties: Mapping[str, Any] = params.get("properties") or {}
        closed = params.get("additionalProperties") is False
        accepted = None
        if bound is not None and not bound.var_kwargs and not closed:
            accepted = bound.params
        # A decision of the tool's source (an McpServer manifest, a destructive hint) is policy too.
        guarded = self.engine.is_guarded(snap, spec.name) or spec.approval is not None
        cap = spec.max_result_size_chars or int(snap.config["max_result_size_chars"])
        return Plan(
            spec=spec,
            validator=snap.validators[spec.name],
            properties=properties,
            function=bound.function if bound else None,
            is_async=bound.is_async if bound else False,
            accepts_ctx=bound.accepts_ctx if bound else False,
            accepted=accepted,
            cap=cap,
            timeout=spec.timeout,
            guarded=guarded,
            nulls=absent_if_null(params),
        )

    # -- the pipeline ------------------------------------------------------------

    def prepare(
        self,
        name: str,
        args: Any,
        session_id: str | None,
        task_id: str | None,
        tool_call_id: str | None,
    ) -> Prepared | ToolResult:
        started = perf_counter()
        snap = self.engine._snapshot
        plan = self.plan(snap, name)
        if plan is None:
            # The tool search meta-tools: tool_call names a call that runs this whole pipeline.
            answer = self.engine.tool_search.answer(snap, name, args, session_id, tool_call_id, started)
            if answer is None:
                return self._unknown(snap, name, started, tool_call_id)
            if isinstance(answer, Redirect):
                return self.prepare(answer.name, answer.args, session_id, task_id, tool_call_id)
            return answer
        spec = plan.spec
        if spec.requires_env or spec.check is not None or spec.runtime is not None:
            avail = self.engine._availability.get(spec)
            if not avail.available:
                message = f"tool {spec.name!r} is unavailable: {avail.reason}"
                return _refuse(snap, started, spec.name, tool_call_id, "unavailable", message, recoverable=False)
        if args is None:
            args = {}
        elif type(args) is not dict:
            if not isinstance(args, Mapping):
                message = f"arguments must be a JSON object, not {type(args).__name__}"
                return _refuse(snap, started, spec.name, tool_call_id, "invalid_arguments", message, recoverable=True)
            args = dict(args)
        if spec.argument_aliases:
            args = _rename(args, spec.argument_aliases)
        try:
            valid = plan.validator.is_valid(args)
        except ValueError:  # text jsonschema-rs cannot take (a lone surrogate), values nested too deeply
            valid = False
        if not valid:
            if plan.nulls is not None:
                # OpenAI strict mode sends null for an optional property (the strict definition
                # made it required and nullable): that is "absent", so the handler's default applies.
                args = plan.nulls.strip(args)
            args = coerce_arguments(args, plan.properties)
            problem = self._invalid(plan, args)
            if problem is not None:
                return _refuse(snap, started, spec.name, tool_call_id, "invalid_arguments", problem, recoverable=True)
        prepared = Prepared(plan, args, started, session_id, task_id, tool_call_id, snap)
        hooks = self.engine._hooks
        asked: list[tuple[str, str]] = []  # (hook, reason) of each hook that asked for approval
        if hooks.get("pre_tool_call"):
            outcome = self._pre_hooks(prepared, asked)
            if outcome is not None:
                return outcome
        if plan.guarded or asked:
            refused = self.engine.gate(prepared, asked)
            if refused is not None:
                return refused
        if plan.function is None:
            return failure(
                "host_required",
                f"tool {spec.name!r} is handled by the agent host, and the host registered no provider "
                f"for it (Engine.register_provider({spec.name!r}, fn))",
                recoverable=False,
                generation=snap.generation,
                started=started,
                now=perf_counter(),
                tool=spec.name,
                tool_call_id=tool_call_id,
            )
        return prepared

    def kwargs(self, prepared: Prepared) -> dict[str, Any]:
        plan = prepared.plan
        args = prepared.args
        if plan.accepted is not None:
            args = {k: v for k, v in args.items() if k in plan.accepted}
        elif plan.accepts_ctx:
            args = dict(args)
        if plan.accepts_ctx:
            args["ctx"] = self.engine.context(plan.spec.name, prepared)
        return args

    def call(
        self,
        name: str,
        args: Any = None,
        session_id: str | None = None,
        task_id: str | None = None,
        tool_call_id: str | None = None,
    ) -> ToolResult:
        try:
            prepared = self.prepare(name, args, session_id, task_id, tool_call_id)
            if prepared.__class__ is not Prepared:
                return prepared  # type: ignore[return-value]
            assert isinstance(prepared, Prepared)
            plan = prepared.plan
            kwargs = self.kwargs(prepared) if (plan.accepts_ctx or plan.accepted is not None) else prepared.args
            try:
                if plan.is_async:
                    coro = plan.function(**kwargs)  # type: ignore[misc]
                    value = run_coroutine(coro, plan.timeout, self.engine.workers, plan.spec.name)
                elif plan.timeout:
                    value = run_sync(plan.function, kwargs, plan.timeout, self.engine.workers, plan.spec.name)  # type: ignore[arg-type]
                else:
                    value = plan.function(**kwargs)  # type: ignore[misc]
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # sys.exit(), GeneratorExit, a bare BaseException: all the handler's
                return self._handler_failed(prepared, exc)
            return self.finish(prepared, value)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            return self.internal_failure(name, tool_call_id, exc)

    async def acall(
        self,
        name: str,
        args: Any = None,
        session_id: str | None = None,
        task_id: str | None = None,
        tool_call_id: str | None = None,
        reporter: CallReporter | None = None,
    ) -> ToolResult:
        try:
            plan = self.plan(self.engine._snapshot, name)
            if (plan is None and name == CALL) or (
                plan is not None and (plan.guarded or self.engine._hooks.get("pre_tool_call"))
            ):
                # Hooks and the approval chain may wait on a person: never on the caller's event loop.
                prepared = await asyncio.to_thread(self.prepare, name, args, session_id, task_id, tool_call_id)
            else:
                prepared = self.prepare(name, args, session_id, task_id, tool_call_id)
            if not isinstance(prepared, Prepared):
                return prepared
            prepared.reporter = reporter
            plan = prepared.plan
            try:
                value = await run_async(
                    plan.function,  # type: ignore[arg-type]
                    self.kwargs(prepared),
                    plan.is_async,
                    plan.timeout,
                    self.engine.workers,
                    plan.spec.name,
                )
            except KeyboardInterrupt:
                raise
            except BaseException as exc:
                if isinstance(exc, asyncio.CancelledError) and _being_cancelled():
                    raise
                return self._handler_failed(prepared, exc)
            return self.finish(prepared, value)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            if isinstance(exc, asyncio.CancelledError) and _being_cancelled():
                raise
            return self.internal_failure(name, tool_call_id, exc)

    def finish(self, prepared: Prepared, value: Any) -> ToolResult:
        plan = prepared.plan
        try:
            output, content = shape(value)
        except BadResult as exc:
            return self._fail(prepared, "bad_result", str(exc), recoverable=False)
        hooks = self.engine._hooks
        meta = ResultMetadata(0.0, prepared.generation, tool=plan.spec.name, tool_call_id=prepared.tool_call_id)
        result = ToolResult(True, output, None, meta, content)
        if hooks.get("post_tool_call") or hooks.get("transform_tool_result"):
            self._post_hooks(prepared, result)
        if len(result.output) > plan.cap:
            state_dir = prepared.snap.config.state_dir
            result.output, meta.spilled_to = spill(result.output, plan.cap, state_dir, plan.spec.name)
            meta.truncated = True
        meta.duration_ms = round((perf_counter() - prepared.started) * 1000, 3)
        return result

    # -- failures ----------------------------------------------------------------

    def _fail(
        self, prepared: Prepared, kind: str, message: str, *, recoverable: bool, pending: dict[str, Any] | None = None
    ) -> ToolResult:
        return failure(
            kind,
            message,
            recoverable=recoverable,
            generation=prepared.generation,
            started=prepared.started,
            now=perf_counter(),
            tool=prepared.plan.spec.name,
            tool_call_id=prepared.tool_call_id,
            pending=pending,
        )

    def _handler_failed(self, prepared: Prepared, exc: BaseException) -> ToolResult:
        name = prepared.plan.spec.name
        if isinstance(exc, ToolFailure):
            return self._fail(prepared, str(exc.type), str(exc.message), recoverable=bool(exc.recoverable))
        if isinstance(exc, CallTimeout):
            return self._fail(prepared, "timeout", f"tool {name!r} timed out: {exc}", recoverable=True)
        if isinstance(exc, Overloaded):
            return self._fail(prepared, "overloaded", f"tool {name!r} could not start: {exc}", recoverable=False)
        log.info("handler of %s raised", name, exc_info=exc)
        return self._fail(
            prepared, "handler_error", describe_exception(exc), recoverable=not isinstance(exc, _BUG_EXCEPTIONS)
        )

    def internal_failure(self, name: Any, tool_call_id: Any, exc: BaseException) -> ToolResult:
        """The result for a call the engine itself failed on: logged, never raised to the host."""
        log.error("the engine failed on a call to %s", _shown(name), exc_info=exc)
        now = perf_counter()
        return failure(
            "internal_error",
            f"the engine could not complete this call ({describe_exception(exc)})",
            recoverable=False,
            generation=self.engine._snapshot.generation,
            started=now,
            now=now,
            tool=name if isinstance(name, str) else None,
            tool_call_id=tool_call_id if isinstance(tool_call_id, str) else None,
        )

    def _unknown(self, snap: Snapshot, name: Any, started: float, tool_call_id: str | None) -> ToolResult:
        known = [*snap.tools, *snap.tool_aliases]
        close = get_close_matches(name, known, n=3, cutoff=0.5) if isinstance(name, str) else []
        if close:
            hint = f"; did you mean {', '.join(close)}?"
        else:
            names = sorted(snap.tools)
            hint = f"; available tools: {', '.join(names[:30])}{' …' if len(names) > 30 else ''}"
        what = "the call names no tool" if name is None or name == "" else f"unknown tool {_shown(name)}"
        return failure(
            "unknown_tool",
            f"{what}{hint}",
            recoverable=True,
            generation=snap.generation,
            started=started,
            now=perf_counter(),
            tool_call_id=tool_call_id,
        )

    @staticmethod
    def _invalid(plan: Plan, args: dict[str, Any]) -> str | None:
        try:
            if plan.validator.is_valid(args):
                return None
            lines = []
            for error in plan.validator.iter_errors(args):
                pointer = "/" + "/".join(str(p) for p in error.instance_path)
                lines.append(f"{pointer}: {(error.message.splitlines() or [''])[0][:500]}")
        except (ValueError, RecursionError) as exc:  # jsonschema-rs refuses values nested too deeply
            return f"invalid arguments for {plan.spec.name}: they cannot be checked ({exc})"
        return "invalid arguments for {}:\n{}".format(plan.spec.name, "\n".join(sorted(set(lines))))

    # -- hooks -------------------------------------------------------------------

    def _hook_kwargs(self, prepared: Prepared, **extra: Any) -> dict[str, Any]:
        return {
            "tool": prepared.plan.spec.name,
            "args": prepared.args,
            "session_id": prepared.session_id,
            "task_id": prepared.task_id,
            "tool_call_id": prepared.tool_call_id,
            "generation": prepared.generation,
            "spec": prepared.plan.spec,
            **extra,
        }

    def _pre_hooks(self, prepared: Prepared, asked: list[tuple[str, str]]) -> ToolResult | None:
        runner = self.engine._hooks
        for hook in runner.get("pre_tool_call"):
            try:
                outcome = interpret_pre(runner.invoke(hook, self._hook_kwargs(prepared)))
            except HookTimeout as exc:
                return self._fail(prepared, "blocked", f"blocked: {exc}", recoverable=False)
            except KeyboardInterrupt:
                raise
            except BaseException as exc:
                log.info("pre_tool_call hook %s raised", hook.name, exc_info=exc)
                return self._fail(
                    prepared,
                    "blocked",
                    f"blocked: pre_tool_call hook {hook.name} failed ({describe_exception(exc)})",
                    recoverable=False,
                )
            if isinstance(outcome, Block):
                return self._fail(prepared, "blocked", outcome.message, recoverable=False)
            if isinstance(outcome, ModifyArgs):
                args = dict(outcome.args)
                problem = self._invalid(prepared.plan, args)
                if problem is not None:
                    return self._fail(
                        prepared, "blocked", f"pre_tool_call hook {hook.name} produced {problem}", recoverable=False
                    )
                prepared.args = args
            elif isinstance(outcome, AskApproval):
                asked.append((hook.name, outcome.reason))
        return None

    def _post_hooks(self, prepared: Prepared, result: ToolResult) -> None:
        runner = self.engine._hooks
        for hook in runner.get("post_tool_call"):
            try:
                runner.invoke(hook, self._hook_kwargs(prepared, result=result))
            except KeyboardInterrupt:
                raise
            except BaseException as exc:
                log.warning("post_tool_call hook %s failed: %s", hook.name, describe_exception(exc))
        for hook in runner.get("transform_tool_result"):
            try:
                replaced = runner.invoke(hook, self._hook_kwargs(prepared, result=result, output=result.output))
            except KeyboardInterrupt:
                raise
            except BaseException as exc:
                log.warning("transform_tool_result hook %s failed: %s", hook.name, describe_exception(exc))
                continue
            if isinstance(replaced, str):
                result.output = replaced
            elif replaced is not None:
                log.warning(
                    "transform_tool_result hook %s returned %s, not str; ignored", hook.name, type(replaced).__name__
                )


def describe_exception(exc: BaseException) -> str:
    """``Type: message`` for any exception, even one whose ``__str__`` fails."""
    kind = type(exc).__name__
    try:
        text = str(exc)
    except KeyboardInterrupt:
        raise
    except BaseException:
        text = "(its message cannot be shown)"
    return f"{kind}: {text}" if text else kind


def _shown(name: Any) -> str:
    """A tool name as the model may see it back: quoted, bounded; a non-string says what it was."""
    if not isinstance(name, str):
        return f"(a tool name must be a string, not {type(name).__name__})"
    return repr(name[:_NAME_SHOWN] + ("…" if len(name) > _NAME_SHOWN else ""))


def _being_cancelled() -> bool:
    """Whether the running task itself is being cancelled (as opposed to a handler raising CancelledError)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _rename(args: dict[str, Any], aliases: Mapping[str, str]) -> dict[str, Any]:
    if not any(k in args for k in aliases):
        return args
    out = {}
    for key, value in args.items():
        target = aliases.get(key)
        if target is not None and target not in args:
            out[target] = value
        else:
            out[key] = value
    return out


def _refuse(
    snap: Snapshot,
    started: float,
    tool: str | None,
    tool_call_id: str | None,
    kind: str,
    message: str,
    *,
    recoverable: bool,
) -> ToolResult:
    """An error result for a call refused before its handler could run."""
    return failure(
        kind,
        message,
        recoverable=recoverable,
        generation=snap.generation,
        started=started,
        now=perf_counter(),
        tool=tool,
        tool_call_id=tool_call_id,
    )
