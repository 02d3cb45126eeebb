"""The tools' side of runtimes: run a command where ``ctx.runtime`` says, with the terminal's contract."""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from engine.dispatch.context import CallContext, ToolFailure
from engine.policy.session_memory import MAX_PENDING, file_key, memory_of
from engine.runtime import ExecResult, ProcessHandle, Runtime, RuntimeFailure, RuntimeUnavailable

from ._env import child_env
from ._isolation import mark_host, spawn_isolated
from ._paths import resolve

T = TypeVar("T")


@contextlib.contextmanager
def runtime(ctx: CallContext) -> Iterator[Runtime]:
    """The call's runtime, started; its failures become clean tool failures.

    Raises:
        ToolFailure: the runtime is unavailable (not recoverable) or an operation failed.
    """
    ref = ctx.runtime
    if ref is None:
        message = f"tool {ctx.tool!r} names no runtime (add runtime: default to its manifest)"
        raise ToolFailure(message, recoverable=False)
    try:
        with ref.use() as live:
            yield live
    except RuntimeUnavailable as exc:
        message = f"runtime {ref.name!r} is unavailable: {exc.reason}"
        raise ToolFailure(message, recoverable=False, type="unavailable") from None
    except RuntimeFailure as exc:
        raise ToolFailure(str(exc)) from None


def time_limit(ctx: CallContext, timeout: float | None) -> float:
    limit = float(timeout or ctx.config.get("terminal", "timeout"))
    return min(limit, float(ctx.config.get("terminal", "max_timeout")))


def env(ctx: CallContext) -> dict[str, str]:
    return child_env(ctx.config.get("terminal", "env_allowlist"))


def shape(result: ExecResult, limit: float, *, with_cwd: bool) -> dict[str, Any]:
    """An exec result as the terminal reports it."""
    out: dict[str, Any] = {"exit_code": result.exit_code, "output": result.output}
    if result.timed_out:
        out["timed_out"] = True
        out["message"] = (
            f"command timed out after {limit:g}s and was stopped; "
            "use a longer timeout or background: true for long jobs"
        )
    elif result.exit_code < 0:
        out["message"] = f"command was killed by signal {-result.exit_code}"
    if result.omitted:
        out["output_omitted_bytes"] = result.omitted
        out.setdefault(
            "message",
            f"{result.omitted} bytes from the middle of the output were dropped (only the first and last "
            "parts are kept); redirect long output to a file and read parts of it",
        )
    if with_cwd and result.cwd:
        out["cwd"] = result.cwd
    return out


def run(ctx: CallContext, command: str, *, cwd: str | None = None, timeout: float | None = None) -> dict[str, Any]:
    """Run ``command`` in the call's runtime and wait for it."""
    limit = time_limit(ctx, timeout)
    with runtime(ctx) as live:
        result = _start(ctx, lambda: live.exec(command, cwd=cwd, env=env(ctx), timeout=limit))
        if result.left is not None:
            # (sess51) the line left processes running (`(sleep 1; sed -i … x.sh) >/dev/null 2>&1 &`): they write
            # on after the call, as a background process does
            place = file_key(cwd, str(ctx.workdir)) if cwd else None
            memory_of(ctx.shared).left_behind(
                ctx.session_id, str(ctx.workdir), command, place, ctx.programs, result.left
            )
        return shape(result, limit, with_cwd=not live.shares_host_files)


def _start(ctx: CallContext, start: Callable[[], T]) -> T:
    """Start a command so that it cannot read the engine's environment (see _isolation)."""
    if ctx.runtime is not None and ctx.runtime.is_local:
        return spawn_isolated(start)
    mark_host()  # a sandbox's pid namespace hides the engine; the mark costs nothing
    return start()


def files_elsewhere(ctx: CallContext) -> bool:
    """Files live somewhere other than the host's filesystem (container, ssh host)."""
    return ctx.runtime is not None and not ctx.runtime.shares_host_files


# -- background processes in a runtime ----------------------------------------------------


class _Job:
    def __init__(self, key: str, session: str, handle: ProcessHandle) -> None:
        self.id = key
        self.session = session
        self.handle = handle
        self.started = time.time()

    def status(self) -> dict[str, Any]:
        alive = self.handle.is_alive()
        info: dict[str, Any] = {
            "process_id": self.id,
            "pid": self.handle.pid,
            "command": self.handle.command,
            "status": "running" if alive else "exited",
            "runtime_s": round(time.time() - self.started, 1),
        }
        if not alive:
            info["exit_code"] = self.handle.exit_code
        return info

    def tail(self, lines: int) -> str:
        try:
            text = self.handle.log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])


class RuntimeJobs:
    """Background processes started in runtimes, by id; each belongs to the session that started it."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self._jobs: dict[str, _Job] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def start(self, ctx: CallContext, command: str, cwd: str | None) -> dict[str, Any]:
        with self._lock:
            key = f"proc_{next(self._ids)}"
        log = self.log_dir / f"{key}-{time.time_ns()}.log"
        with _starting(ctx, command), runtime(ctx) as live:
            handle = _start(ctx, lambda: live.spawn(command, log=log, cwd=cwd, env=env(ctx)))
        ctx.runtime.track(handle)
        with self._lock:
            self._jobs[key] = _Job(key, ctx.session_id or "default", handle)
        # A shell or an interpreter reads its input as commands: writes to it are held by line.
        place = file_key(cwd, str(ctx.workdir)) if cwd else None
        memory_of(ctx.shared).started(ctx.session_id, key, command, place, ctx.programs, alive=handle.is_alive)
        return {"process_id": key, "pid": handle.pid, "status": "running", "runtime": ctx.runtime.name}

    def get(self, ctx: CallContext, key: str | None) -> _Job:
        if not key:
            raise ToolFailure("process_id is required for this action")
        job = self._jobs.get(key)
        if job is None or job.session != (ctx.session_id or "default"):
            known = ", ".join(k for k, j in self._jobs.items() if j.session == (ctx.session_id or "default")) or "none"
            raise ToolFailure(f"no background process {key!r} (known: {known})")
        return job

    def list(self, ctx: CallContext) -> list[dict[str, Any]]:
        return [j.status() for j in self._jobs.values() if j.session == (ctx.session_id or "default")]

    def close(self) -> None:
        for job in list(self._jobs.values()):
            if job.handle.is_alive():
                with contextlib.suppress(Exception):
                    job.handle.kill()


@contextlib.contextmanager
def _starting(ctx: CallContext, command: str) -> Iterator[None]:
    """(debt50) A background ``command`` the gate allowed is being started: when what is inside fails (its cwd
    refused, its runtime or its spawn failed), no process runs it, and the session forgets the markers its call left
    waiting for one (SessionMemory.not_started: a marker with no process stood for one about to start for the rest
    of the session, and every later listing of the tree asked)."""
    try:
        yield
    except BaseException:
        with contextlib.suppress(Exception):
            memory_of(ctx.shared).not_started(ctx.session_id, command)
        raise


def jobs(ctx: CallContext) -> RuntimeJobs:
    return ctx.shared.get_or_create("runtime.processes", lambda: RuntimeJobs(ctx.state_dir / "processes"))


def process(
    action: str, ctx: CallContext, process_id: str | None, input: str | None, timeout: float, lines: int
) -> Any:
    """The process tool for processes started in a runtime."""
    manager = jobs(ctx)
    if action == "list":
        return {"processes": manager.list(ctx)}
    job = manager.get(ctx, process_id)
    if action == "poll":
        return {**job.status(), "tail": job.tail(20)}
    if action == "log":
        return job.tail(lines) or "(no output yet)"
    if action == "wait":
        limit = min(timeout, float(ctx.config.get("terminal", "max_timeout")))
        if not job.handle.wait(limit):
            return {**job.status(), "message": f"still running after {limit:g}s", "tail": job.tail(20)}
        return {**job.status(), "tail": job.tail(20)}
    if action == "kill":
        job.handle.kill()
        return job.status()
    if action == "write":
        if input is None:
            raise ToolFailure("write needs input")
        memory = memory_of(ctx.shared)
        held = memory.process(ctx.session_id, job.id)
        data = input if held is None else memory.take(held, input)
        if data is None:
            raise ToolFailure(
                f"{job.id}: the input was not sent: another write changed its line while it was judged, "
                f"a line is longer than {MAX_PENDING} characters, or a line starts a program that reads "
                "the lines after it (`python3 -i`: send those in another write); write it again"
            )
        try:
            if data:
                job.handle.write(data)
        except RuntimeFailure as exc:
            raise ToolFailure(f"{job.id}: {exc}") from None
        out: dict[str, Any] = {"process_id": job.id, "written": len(data)}
        if held is not None and held.pending:
            out["held"] = len(held.pending)
            out["message"] = "the text after the last newline is held until its line ends (it is judged as a whole)"
        return out
    raise ToolFailure(f"unknown action {action!r}")


def terminal(ctx: CallContext, command: str, timeout: float | None, cwd: str | None, background: bool) -> Any:
    """The terminal tool: a command in the call's runtime, waited for or in the background."""
    if background:
        with _starting(ctx, command):
            if cwd and ctx.runtime.shares_host_files:
                cwd = str(resolve(ctx, cwd))  # the host's files: the host's confinement
        return jobs(ctx).start(ctx, command, cwd)
    if cwd and ctx.runtime.shares_host_files:
        cwd = str(resolve(ctx, cwd))  # the host's files: the host's confinement
    return run(ctx, command, cwd=cwd, timeout=timeout)
