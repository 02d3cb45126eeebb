"""How `validate` prints a load result, chosen by name."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from engine.errors import Problem


class LoadResult(Protocol):
    """What a reporter reads of a load: a fresh ``engine.compile.loader.LoadResult`` or the report
    of a cached one (``engine.guard.cache.CachedReport``)."""

    @property
    def errors(self) -> list[Problem]: ...
    @property
    def warnings(self) -> list[Problem]: ...
    @property
    def counts(self) -> dict[str, int]: ...
    @property
    def files(self) -> int: ...


SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def _summary(result: LoadResult) -> str:
    c = result.counts
    what = f"{c['tools']} tools, {c['toolsets']} toolsets, {c['patterns']} patterns in {result.files} files"
    errors, warnings = len(result.errors), len(result.warnings)
    if errors:
        return f"invalid: {errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)} ({what})"
    return f"ok: {what}" + (f", {warnings} warning{'s' * (warnings != 1)}" if warnings else "")


def text(result: LoadResult, root: Path | None = None) -> str:
    lines = [p.format() for p in result.errors] + [p.format() for p in result.warnings]
    lines.append(_summary(result))
    return "\n".join(lines)


def as_json(result: LoadResult, root: Path | None = None) -> str:
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


def github(result: LoadResult, root: Path | None = None) -> str:
    lines = [_annotation("error", p) for p in result.errors]
    lines += [_annotation("warning", p) for p in result.warnings]
    lines.append(_summary(result))
    return "\n".join(lines)


def _sarif_result(p: Problem, rule_index: int) -> dict[str, Any]:
    from urllib.parse import quote  # noqa: PLC0415

    region: dict[str, Any] = {"startLine": max(1, p.line), "startColumn": max(1, p.column)}
    out: dict[str, Any] = {
        "ruleId": p.code,
        "ruleIndex": rule_index,
        "level": "error" if p.severity == "error" else "warning",
        "message": {"text": p.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": quote(p.file), "uriBaseId": "PROJECTROOT"},
                    "region": region,
                }
            }
        ],
    }
    if p.pointer:
        out["properties"] = {"pointer": p.pointer}
    return out


def sarif(result: LoadResult, root: Path | None = None) -> str:
    """SARIF 2.1.0 (what code scanning services read): one result per problem, paths relative
    to the project root (``PROJECTROOT``, given as a file URI when ``root`` is known)."""
    from engine import __version__  # noqa: PLC0415

    problems = [*result.errors, *result.warnings]
    codes = sorted({p.code for p in problems})
    index = {code: i for i, code in enumerate(codes)}
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "hermes-engine",
                "version": __version__,
                "informationUri": "https://example.invalid/hermes-engine",
                "rules": [{"id": code, "shortDescription": {"text": code}} for code in codes],
            }
        },
        "columnKind": "unicodeCodePoints",
        "results": [_sarif_result(p, index[p.code]) for p in problems],
    }
    if root is not None:
        run["originalUriBaseIds"] = {"PROJECTROOT": {"uri": root.resolve().as_uri() + "/"}}
    return json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2, ensure_ascii=False)


REPORTERS: dict[str, Callable[..., str]] = {"text": text, "json": as_json, "github": github, "sarif": sarif}
