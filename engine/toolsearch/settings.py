"""Checks of the config's ``tool_search`` section against what the load found."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.definitions.budget import matching
from engine.errors import Problem, Severity
from engine.registry.specs import ToolsetSpec, ToolSpec
from engine.source.yamlfile import Document
from engine.toolsearch.meta import META_TOOLS


def check_settings(
    config_doc: Document | None,
    data: Mapping[str, Any],
    tools: Mapping[str, ToolSpec],
    toolsets: Mapping[str, ToolsetSpec],
    toolset_aliases: Mapping[str, str],
) -> list[Problem]:
    """An ``always``/``defer`` entry that names nothing (a warning); a manifest tool taking a
    meta-tool's name while the config sets a budget (an error: every definitions call would fail)."""
    problems: list[Problem] = []
    settings = data.get("tool_search") or {}
    members = {name: ts.members for name, ts in toolsets.items()}
    members.update({alias: toolsets[target].members for alias, target in toolset_aliases.items() if target in toolsets})

    def report(pointer: list[str | int], code: str, message: str, severity: Severity = "warning") -> None:
        if config_doc is None:
            problems.append(Problem("<config>", 1, 1, code, message, severity=severity))
        else:
            problems.append(config_doc.problem(pointer, code, message, severity=severity))

    for key in ("always", "defer"):
        for i, entry in enumerate(settings.get(key) or []):
            if entry in members or matching([entry], tools, members):
                continue
            report(
                ["tool_search", key, i],
                "tool-search-unmatched",
                f"tool_search.{key}: {entry!r} names no tool or toolset (an MCP server's tools count once it has "
                "connected)",
            )
    if settings.get("budget_tokens") is not None:
        for name in META_TOOLS:
            if name in tools:
                report(
                    ["tool_search", "budget_tokens"],
                    "tool-name-reserved",
                    f"tool {name!r} ({tools[name].source}) takes the name of a tool search meta-tool, "
                    "which a budget needs: rename the tool",
                    "error",
                )
    return problems
