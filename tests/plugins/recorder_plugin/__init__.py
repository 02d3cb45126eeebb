"""A plugin that adds a runtime type (as docs/runtimes.md describes)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.runtime import DirEntry, ExecResult, ProcessHandle, Runtime

RUNS: list[str] = []


class Recorder(Runtime):
    type_name = "recorder"

    @classmethod
    def check(cls, settings: Mapping[str, Any]) -> str | None:
        return None if settings.get("ready") else "not ready"

    def start(self) -> None:
        return None

    def exec(self, command: str, **kwargs: Any) -> ExecResult:
        RUNS.append(command)
        return ExecResult(0, f"{self.settings['prefix']}{command}\n")

    def spawn(self, command: str, **kwargs: Any) -> ProcessHandle:
        raise NotImplementedError

    def read_file(self, path: str, max_bytes: int) -> bytes:
        return b""

    def write_file(self, path: str, data: bytes) -> None:
        return None

    def list_dir(self, path: str) -> list[DirEntry]:
        return []

    def close(self) -> None:
        return None


SCHEMA = {
    "type": "object",
    "properties": {"prefix": {"type": "string"}, "ready": {"type": "boolean"}},
    "required": ["prefix"],
    "additionalProperties": False,
}


def register(ctx: Any) -> None:
    ctx.add_runtime_type("recorder", Recorder, schema=SCHEMA)
