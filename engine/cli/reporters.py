"""How `validate` prints a load result, chosen by name."""

from __future__ import annotations

import json
from collections.abc import Callable

from engine.compile.loader import LoadResult
from engine.errors import Problem


def _summary(result: LoadResult) -> str:
    c = result.counts
    what = f"{c['tools']} tools, {c['toolsets']} toolsets, {c['patterns']} patterns in {result.files} files"
    errors, warnings = len(result.errors), len(result.warnings)
    if errors:
        return f"invalid: {errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)} ({what})"
    return f"ok: {what}" + (f", {warnings} warning{'s' * (warnings != 1)}" if warnings else "")


def text(result: LoadResult) -> str:
    lines = [p.format() for p in result.errors] + [p.format() for p in result.warnings]
    lines.append(_summary(result))
    return "\n".join(lines)


def as_json(result: LoadResult) -> str:
    return json.dumps(
        {
            "ok": not result.errors,
            "errors": [p.as_dict() for p in result.errors],
            "warnings": [p.as_dict() for p in result.warnings],
            "counts": result.counts,
        },
        indent=2,
    )


def _escape(value: str, *, prop: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def _annotation(level: str, p: Problem) -> str:
    return (
        f"::{level} file={_escape(p.file, prop=True)},line={p.line},col={p.column},"
        f"title={_escape(p.code, prop=True)}::{_escape(p.message)}"
    )


def github(result: LoadResult) -> str:
    lines = [_annotation("error", p) for p in result.errors]
    lines += [_annotation("warning", p) for p in result.warnings]
    lines.append(_summary(result))
    return "\n".join(lines)


REPORTERS: dict[str, Callable[[LoadResult], str]] = {"text": text, "json": as_json, "github": github}
