"""The package's exception root and the located problem record.

Two channels, never mixed:
- a mistake in a manifest or the project config becomes a :class:`Problem`
  (file, line, column, JSON Pointer, stable code); loading collects every one of
  them and raises :class:`ValidationFailed` carrying the whole list;
- a failure inside a tool handler becomes an error *result* for the model
  (see ``engine.dispatch``), never an exception in the host.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.records import OrderedRecord

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any, Literal, TypeAlias

Severity: TypeAlias = "Literal['error', 'warning']"

# Exit codes live here and nowhere else.
EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: the reader went away (`hermes-engine schema | head`)


class Problem(OrderedRecord, frozen=True, uncompared=("severity",)):
    """One located mistake. Orders by file, then line, then column."""

    __slots__ = ("file", "line", "column", "code", "message", "pointer", "severity")  # noqa: RUF023  (the fields' order)

    file: str
    line: int
    column: int
    code: str
    message: str
    pointer: str
    severity: Severity

    def __init__(
        self,
        file: str,
        line: int,
        column: int,
        code: str,
        message: str,
        pointer: str = "",
        severity: Severity = "error",
    ) -> None:
        object.__setattr__(self, "file", file)
        object.__setattr__(self, "line", line)
        object.__setattr__(self, "column", column)
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "message", message)
        object.__setattr__(self, "pointer", pointer)
        object.__setattr__(self, "severity", severity)

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "pointer": self.pointer,
            "code": self.code,
            "message": self.message,
        }

    def format(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.severity}[{self.code}]: {self.message}"


class HermesError(Exception):
    """Root of every exception the engine raises on purpose."""


class UsageError(HermesError):
    """The caller asked for something that cannot be done (bad root, bad option)."""


class ConfigurationError(HermesError):
    """The engine was set up wrongly at run time (a hook or provider misregistered)."""


class ValidationFailed(HermesError):
    """Loading found problems; ``problems`` holds every one of them, sorted."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: Sequence[Problem] = sorted(problems)
        errors = [p for p in self.problems if p.severity == "error"]
        head = "\n".join(p.format() for p in errors[:20])
        more = f"\n... and {len(errors) - 20} more" if len(errors) > 20 else ""
        super().__init__(f"{len(errors)} manifest error(s):\n{head}{more}")

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]
