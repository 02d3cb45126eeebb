"""Definitions under a token budget: which tools are listed, in what order, which are deferred.

Tools are ranked in tiers, then by name (a stable order, so a model's prompt cache
stays warm): tools named by ``tool_search.always``, then the builtin pack's (the
core toolsets), then the project's own manifests, then tools from other sources
(MCP servers). Tools named by ``tool_search.defer`` are never listed. Walking that
order, each tool that still fits is listed; the rest are deferred, and then the
meta-tools (``tool_search``, ``tool_describe``, ``tool_call``) are listed too, their
own tokens counted in the budget. When everything fits and nothing is deferred by
name, every tool is listed and no meta-tool is added.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.errors import UsageError
from engine.registry.specs import ToolSpec

ALWAYS, CORE, PROJECT, REMOTE = 0, 1, 2, 3
DEFERRED = None


@dataclass(frozen=True, slots=True)
class Entry:
    name: str
    toolset: str
    definition: dict[str, Any]
    tokens: int
    tier: int | None  # None: deferred by name


@dataclass(frozen=True, slots=True)
class Fitted:
    definitions: list[dict[str, Any]]
    listed: frozenset[str]
    deferred: tuple[str, ...]
    tokens: int


def matching(patterns: Iterable[str], tools: Mapping[str, ToolSpec], members: Mapping[str, frozenset[str]]) -> set[str]:
    """Tool names matched by ``patterns``: tool names, toolset names (every member), or globs of either."""
    found: set[str] = set()
    for pattern in patterns:
        if pattern in tools:
            found.add(pattern)
        if pattern in members:
            found |= members[pattern]
        if any(c in pattern for c in "*?["):
            found.update(fnmatch.filter(tools, pattern))
            for toolset in fnmatch.filter(members, pattern):
                found |= members[toolset]
    return found


def tier_of(spec: ToolSpec, always: set[str], defer: set[str]) -> int | None:
    """The tier a tool is listed in (``always`` overrides ``defer``)."""
    if spec.name in always:
        return ALWAYS
    if spec.name in defer:
        return DEFERRED
    if spec.source.line == 0 or (spec.check_path or "").startswith("mcp:"):
        return REMOTE  # not from a manifest file: another MCP server's tool
    return CORE if spec.pack == "builtin" else PROJECT


def rank(entries: Sequence[Entry]) -> list[Entry]:
    """The listable entries in listing order (tier, then name); deferred-by-name ones left out."""
    return sorted((e for e in entries if e.tier is not None), key=lambda e: (e.tier, e.name))


def fit(
    entries: Sequence[Entry],
    ranked: Sequence[Entry],
    budget: int,
    meta: Callable[[Sequence[Entry]], tuple[list[dict[str, Any]], int]],
) -> Fitted:
    """List what fits in ``budget`` tokens, meta-tools included when anything is deferred.

    ``ranked`` is :func:`rank` of ``entries``; ``meta(deferred)`` renders the meta-tools
    for the deferred entries and counts their tokens.

    Raises:
        UsageError: the budget cannot hold even the meta-tools.
    """
    if len(ranked) == len(entries):
        total = sum(e.tokens for e in ranked)
        if total <= budget:
            return Fitted([e.definition for e in ranked], frozenset(e.name for e in ranked), (), total)
    _, reserve = meta(entries)
    if reserve > budget:
        raise UsageError(
            f"budget_tokens {budget} cannot hold the tool search meta-tools ({reserve} tokens); "
            "raise the budget or list fewer tools"
        )
    listed: list[Entry] = []
    used = 0
    room = budget - reserve
    for entry in ranked:
        if used + entry.tokens <= room:
            listed.append(entry)
            used += entry.tokens
    while True:
        chosen = {e.name for e in listed}
        deferred = [e for e in entries if e.name not in chosen]
        tools, cost = meta(deferred)
        total = used + cost
        if total <= budget or not listed:
            break
        # The meta-tools name what was deferred, so their text can outgrow the reserve.
        used -= listed.pop().tokens
    return Fitted(
        [*(e.definition for e in listed), *tools],
        frozenset(chosen),
        tuple(sorted(e.name for e in deferred)),
        total,
    )
