"""terminal and process: shell commands through the ``sh`` library."""

from __future__ import annotations

import atexit
import contextlib
import itertools
import queue
import threading
import time
import weakref
from pathlib import Path
from typing import Any

import sh

from engine.dispatch.context import CallContext, ToolFailure

from . import _runtime
from ._env import child_env
from ._paths import resolve

TIMEOUT_EXIT = 124
_MAX_OUTPUT_BYTES = 5 * 1024 * 1024


def _shell(ctx: CallContext) -> Any:
    return sh.Command(str(ctx.config.get("terminal", "shell")))


def _settings(ctx: CallContext, cwd: str | None) -> tuple[Path, dict[str, str]]:
    run_dir = resolve(ctx, cwd) if cwd else ctx.workdir
    if not run_dir.is_dir():
        raise ToolFailure(f"cwd {cwd!r} is not a directory")
    env = child_env(ctx.config.get("terminal", "env_allowlist"))
    return run_dir, env


def _read_output(path: Path) -> str:
    size = path.stat().st_size
    with open(path, "rb") as handle:
        if size <= _MAX_OUTPUT_BYTES:
            return handle.read().decode("utf-8", errors="replace")
        half = _MAX_OUTPUT_BYTES // 2
        head = handle.read(half)
        handle.seek(size - half)
        tail = handle.read()
    skipped = size - 2 * half
    return (
        head.decode("utf-8", errors="replace")
        + f"\n[... {skipped} bytes of output omitted ...]\n"
        + tail.decode("utf-8", errors="replace")
    )


def terminal(
    command: str,
    ctx: CallContext,
    timeout: float | None = None,
    cwd: str | None = None,
    background: bool = False,
) -> dict[str, Any]:
    if _runtime.elsewhere(ctx):
        return _runtime.terminal(ctx, command, timeout, cwd, background)
    run_dir, env = _settings(ctx, cwd)
    if background:
        return processes(ctx).start(_shell(ctx), command, run_dir, env)
    limit = float(timeout or ctx.config.get("terminal", "timeout"))
    limit = min(limit, float(ctx.config.get("terminal", "max_timeout")))
    out_dir = ctx.state_dir / "terminal"
    out_dir.mkdir(parents=True, exist_ok=True)
    out_path = out_dir / f"run-{time.time_ns()}-{threading.get_ident()}.log"
    timed_out = False
    with open(out_path, "wb") as sink:
        proc = spawn(_shell(ctx), command, run_dir, env, sink, "")
        try:
            proc.wait(timeout=limit)
        except sh.TimeoutException:
            timed_out = True
            _kill(proc)
        except sh.SignalException:
            pass  # the command was killed by a signal; its exit code says which
    try:
        output = _read_output(out_path)
    finally:
        with contextlib.suppress(OSError):
            out_path.unlink()
    if timed_out:
        return {
            "exit_code": TIMEOUT_EXIT,
            "output": output,
            "timed_out": True,
            "message": f"command timed out after {limit:g}s and was stopped; "
            "use a longer timeout or background: true for long jobs",
        }
    code = proc.exit_code
    result: dict[str, Any] = {"exit_code": code, "output": output}
    if code is not None and code < 0:
        result["message"] = f"command was killed by signal {-code}"
    return result


def spawn(shell: Any, command: str, cwd: Path, env: dict[str, str], sink: Any, stdin: Any, **extra: Any) -> Any:
    """Start ``shell -c command`` in its own session (so a kill reaches its children), output to ``sink``."""
    return shell(
        "-c",
        command,
        _bg=True,
        _bg_exc=False,
        _new_session=True,
        _out=sink,
        _err_to_out=True,
        _ok_code=range(256),
        _in=stdin,
        _cwd=str(cwd),
        _env=env,
        **extra,
    )


def _kill(proc: Any) -> None:
    with contextlib.suppress(Exception):
        proc.kill_group()
    with contextlib.suppress(Exception):
        proc.wait(timeout=5)


class _Process:
    def __init__(self, pid_key: str, command: str, proc: Any, log: Path, stdin: queue.Queue[Any]) -> None:
        self.id = pid_key
        self.command = command
        self.proc = proc
        self.log = log
        self.stdin = stdin
        self.started = time.time()

    def status(self) -> dict[str, Any]:
        alive = self.proc.is_alive()
        info: dict[str, Any] = {
            "process_id": self.id,
            "pid": self.proc.pid,
            "command": self.command,
            "status": "running" if alive else "exited",
            "runtime_s": round(time.time() - self.started, 1),
        }
        if not alive:
            info["exit_code"] = self.proc.exit_code
        return info


class ProcessManager:
    """Background processes of one engine; all are killed when the interpreter exits."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self._procs: dict[str, _Process] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        ref = weakref.ref(self)
        atexit.register(lambda: (m := ref()) is not None and m.close())

    def start(self, shell: Any, command: str, cwd: Path, env: dict[str, str]) -> dict[str, Any]:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        with self._lock:
            key = f"proc_{next(self._ids)}"
        log = self.log_dir / f"{key}-{time.time_ns()}.log"
        stdin: queue.Queue[Any] = queue.Queue()
        sink = open(log, "wb")  # noqa: SIM115 - owned by the process until it exits
        proc = spawn(shell, command, cwd, env, sink, stdin, _done=lambda *_: sink.close())
        with self._lock:
            self._procs[key] = _Process(key, command, proc, log, stdin)
        return {"process_id": key, "pid": proc.pid, "status": "running", "log": str(log)}

    def get(self, key: str | None) -> _Process:
        if not key:
            raise ToolFailure("process_id is required for this action")
        proc = self._procs.get(key)
        if proc is None:
            known = ", ".join(self._procs) or "none"
            raise ToolFailure(f"no background process {key!r} (known: {known})")
        return proc

    def list(self) -> list[dict[str, Any]]:
        return [p.status() for p in self._procs.values()]

    def tail(self, proc: _Process, lines: int) -> str:
        text = proc.log.read_text(encoding="utf-8", errors="replace") if proc.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def wait(self, proc: _Process, timeout: float) -> dict[str, Any]:
        try:
            proc.proc.wait(timeout=timeout)
        except sh.TimeoutException:
            return {**proc.status(), "message": f"still running after {timeout:g}s"}
        except sh.SignalException:
            pass
        return proc.status()

    def kill(self, proc: _Process) -> dict[str, Any]:
        if proc.proc.is_alive():
            _kill(proc.proc)
        return proc.status()

    def close(self) -> None:
        for proc in list(self._procs.values()):
            if proc.proc.is_alive():
                _kill(proc.proc)


def processes(ctx: CallContext) -> ProcessManager:
    return ctx.shared.get_or_create("terminal.processes", lambda: ProcessManager(ctx.state_dir / "processes"))


def process(
    action: str,
    ctx: CallContext,
    process_id: str | None = None,
    input: str | None = None,
    timeout: float = 30,
    lines: int = 200,
) -> Any:
    if _runtime.elsewhere(ctx):
        return _runtime.process(action, ctx, process_id, input, timeout, lines)
    manager = processes(ctx)
    if action == "list":
        return {"processes": manager.list()}
    proc = manager.get(process_id)
    if action == "poll":
        return {**proc.status(), "tail": manager.tail(proc, 20)}
    if action == "log":
        return manager.tail(proc, lines) or "(no output yet)"
    if action == "wait":
        return {
            **manager.wait(proc, min(timeout, float(ctx.config.get("terminal", "max_timeout")))),
            "tail": manager.tail(proc, 20),
        }
    if action == "kill":
        return manager.kill(proc)
    if action == "write":
        if input is None:
            raise ToolFailure("write needs input")
        if not proc.proc.is_alive():
            raise ToolFailure(f"{proc.id} has exited; it cannot read input")
        proc.stdin.put(input)
        return {"process_id": proc.id, "written": len(input)}
    raise ToolFailure(f"unknown action {action!r}")
