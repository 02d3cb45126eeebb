"""What an MCP server's interactive process was sent before, across guard calls.

Desktop Commander's `start_process {command}` starts a shell (or an interpreter) and
`interact_with_process {pid, input}` types lines into it; each input reaches guard as a hook
event of its own. A `cd ~` sent before moves where `rm -rf .ssh` runs, so an input is judged
with the state the earlier inputs to the same process left (engine.policy.session_memory's
ShellState, as the engine's own `process write` is), kept per (agent session, pid) in guard's
state directory:

- A record holds the process's kind (a shell, or an interpreter's language), where it started
  (`cd -- DIR`) and the lines it was sent; the state is read again from them for each input
  (no pickled objects: the file is data). Bounded: 64 KiB of lines per process (past it, lost),
  256 processes (the oldest forgotten), 16 starts waiting for their pid per session.
- `start_process`'s command starts a record; the pid is known only after it runs, so an input
  to a pid guard has not seen takes the session's waiting start (with several, it is judged
  under each, and the process's state is lost when they differ).
- An input guard lets through is added; one it asks about (the person may or may not approve)
  makes the state lost: every later input to that process asks. One it refuses is not sent.
- Written atomically (a temporary file renamed over it) under a lock; a file that cannot be
  read or is not what guard writes makes every process lost (asks), never a traceback.
"""

from __future__ import annotations

import contextlib
import json
import os
import posixpath
import tempfile
from collections.abc import Iterator
from pathlib import Path

TYPE_CHECKING = False  # not typing's (a guard start does not import typing)
if TYPE_CHECKING:
    from typing import Any

    from engine.policy.programs import ProgramTable
    from engine.policy.session_memory import ShellState

FILE_NAME = "guard-processes.json"
MAX_PROCESSES = 256
MAX_STARTS = 16
_VERSION = 1
# An MCP tool input that types into a running process: its process key and its text.
PID_KEYS = ("pid", "process_id", "processid", "process")
INPUT_KEYS = ("input", "text", "keys", "data")


class Record:
    """One process as guard knows it (JSON-able)."""

    __slots__ = ("kind", "lines", "lost", "start")

    def __init__(self, kind: str, start: str = "", lines: list[str] | None = None, lost: str | None = None) -> None:
        self.kind = kind
        self.start = start
        self.lines = [] if lines is None else lines
        self.lost = lost

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "start": self.start, "lines": self.lines, "lost": self.lost}

    @classmethod
    def from_json(cls, data: Any) -> Record:
        if not isinstance(data, dict):
            raise ValueError("a process record is not an object")
        kind, start, lines, lost = data.get("kind"), data.get("start"), data.get("lines"), data.get("lost")
        if not isinstance(kind, str) or not isinstance(start, str) or not isinstance(lines, list):
            raise ValueError("a process record has the wrong shape")
        if not all(isinstance(line, str) for line in lines) or not (lost is None or isinstance(lost, str)):
            raise ValueError("a process record has the wrong shape")
        return cls(kind, start, lines, lost)

    def state(self, programs: ProgramTable) -> tuple[str, ShellState | None]:
        """(the kind reading the input now, a shell's state) after the lines it was sent."""
        from engine.policy.session_memory import MAX_STATE, _after, lost_state  # noqa: PLC0415

        if self.lost is not None:
            return "shell", lost_state(self.lost)
        if self.kind != "shell":
            return self.kind, None
        if sum(map(len, self.lines)) + len(self.start) > MAX_STATE:
            return "shell", lost_state(f"more than {MAX_STATE} characters sent to the process")
        kind, shell = "shell", _after(None, self.start, programs) if self.start else None
        for line in self.lines:
            if kind != "shell":
                break  # an interpreter replaced the shell: later lines are its program
            shell = _after(shell, line, programs)
            if shell.replaced:
                kind, shell = shell.replaced, None
        return kind, shell


def started(command: str, programs: ProgramTable) -> Record:
    """The record `start_process {command}` begins: a shell that reads its input starts where the
    command's `cd`s left it (only the directory: a new shell has none of the line's variables)."""
    from engine.policy.session_memory import _after, _tilde_word, reader_kind, table_reader_kind  # noqa: PLC0415

    # (fresh39b) a program no name says reads commands, read with the table (`script -q /dev/null`)
    kind = reader_kind(command, programs.command_readers) or table_reader_kind(command, programs) or "data"
    if kind != "shell":
        return Record(kind)
    moved = _after(None, command.rstrip("\n") + "\n", programs, readers=False)
    if moved.lost is not None:
        return Record("shell", lost=moved.lost)
    cwd = moved.cwd
    if cwd is None:
        return Record("shell")
    if cwd.startswith("$"):
        return Record("shell", lost="the process starts in a directory known only at run time")
    return Record("shell", f"cd -- {_tilde_word(posixpath.normpath(cwd))}\n")


class Processes:
    """guard's records of MCP processes (see the module's docstring); use as a context manager:
    the file is locked from load to save."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / FILE_NAME
        self.records: dict[str, Record] = {}
        self.starts: dict[str, list[Record]] = {}
        self.broken: str | None = None  # why the file could not be read: every process is lost
        self._lock: Any = None

    @contextlib.contextmanager
    def locked(self) -> Iterator[Processes]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_suffix(".lock"), "a+b") as lock:
            try:
                import fcntl  # noqa: PLC0415

                fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            except (ImportError, OSError):
                pass  # no locking here: a lost update makes a state older, judged as it stands
            self._load()
            yield self

    def _load(self) -> None:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        except (OSError, UnicodeDecodeError) as exc:
            self.broken = f"guard's record of processes cannot be read ({exc})"
            return
        try:
            data = json.loads(text)
            if not isinstance(data, dict) or data.get("version") != _VERSION:
                raise ValueError("not a record guard writes")
            processes, starts = data.get("processes"), data.get("starts")
            if not isinstance(processes, dict) or not isinstance(starts, dict):
                raise ValueError("not a record guard writes")
            self.records = {str(k): Record.from_json(v) for k, v in processes.items()}
            for session, waiting in starts.items():
                if not isinstance(waiting, list):
                    raise ValueError("not a record guard writes")
                self.starts[str(session)] = [Record.from_json(v) for v in waiting]
        except (ValueError, RecursionError) as exc:
            self.records, self.starts = {}, {}
            self.broken = f"guard's record of processes is damaged ({exc})"

    def save(self) -> None:
        """Write the records atomically (bounded: the oldest processes go first). A damaged file
        is replaced only by records that hold what it made lost."""
        while len(self.records) > MAX_PROCESSES:
            self.records.pop(next(iter(self.records)))
        data = {
            "version": _VERSION,
            "processes": {k: v.to_json() for k, v in self.records.items()},
            "starts": {k: [r.to_json() for r in v[-MAX_STARTS:]] for k, v in self.starts.items() if v},
        }
        handle, temporary = tempfile.mkstemp(prefix=".guard-processes-", dir=self.path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(data, out)
            os.replace(temporary, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise

    # -- one process -------------------------------------------------------------------

    @staticmethod
    def key(session: str | None, pid: str) -> str:
        return f"{session or ''}\0{pid}"

    def candidates(self, session: str | None, pid: str) -> list[Record]:
        """The records an input to ``pid`` may be judged with: its own, or the session's starts
        waiting for their pid (a fresh shell when there are none)."""
        if self.broken is not None:
            return [Record("shell", lost=self.broken)]
        found = self.records.get(self.key(session, pid))
        if found is not None:
            return [found]
        return list(self.starts.get(session or "", ())) or [Record("shell")]

    def sent(self, session: str | None, pid: str, text: str | None, candidates: list[Record]) -> None:
        """``text`` was let through to ``pid`` (None: asked about, it may or may not have been)."""
        key = self.key(session, pid)
        known = [r.to_json() for r in candidates]
        if self.broken is not None or len({json.dumps(k, sort_keys=True) for k in known}) > 1:
            record = Record("shell", lost=self.broken or "it may be any of several processes the session started")
        else:
            record = Record.from_json(known[0])
        waiting = self.starts.get(session or "")
        if key not in self.records and waiting and len(waiting) == 1:
            waiting.clear()  # the one start waiting for its pid: this is it
        if text is None:
            record.lost = record.lost or "an input it was sent was asked about (sent or not: unknown)"
        elif record.lost is None:
            record.lines.append(text if text.endswith("\n") else text + "\n")
        self.records.pop(key, None)
        self.records[key] = record  # the most recently used last

    def start(self, session: str | None, record: Record) -> None:
        waiting = self.starts.setdefault(session or "", [])
        waiting.append(record)
        del waiting[:-MAX_STARTS]


def process_input(tool: str, tool_input: dict[str, Any]) -> tuple[str, str] | None:
    """(process key, text) when an MCP tool's input types ``text`` into a running process: the key
    is the server's name and the pid as the server reads it (`1`, `1.0`, `" 01"` are one process)."""
    lowered = {str(k).lower(): v for k, v in tool_input.items()}
    pid = next((lowered[k] for k in PID_KEYS if k in lowered), None)
    text = next((lowered[k] for k in INPUT_KEYS if isinstance(lowered.get(k), str)), None)
    if pid is None or isinstance(pid, (dict, list, bool)) or text is None:
        return None
    spelled = str(pid).strip()
    try:
        number = float(spelled)
        if number.is_integer():
            spelled = str(int(number))
    except (ValueError, OverflowError):
        pass
    server = tool.split("__")[1] if tool.count("__") >= 2 else ""
    return f"{server}\0{spelled}", text
