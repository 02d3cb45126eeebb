"""Cross-document checks: names, overrides, toolset references, include cycles."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from difflib import get_close_matches
from typing import Any

from engine.errors import Problem
from engine.registry.snapshot import ALL_TOOLSETS
from engine.source.yamlfile import Document


@dataclass(slots=True)
class Linked:
    tools: dict[str, Document] = field(default_factory=dict)
    toolsets: dict[str, Document] = field(default_factory=dict)
    tool_aliases: dict[str, str] = field(default_factory=dict)
    toolset_aliases: dict[str, str] = field(default_factory=dict)
    members: dict[str, frozenset[str]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


def _where(doc: Document) -> str:
    return f"{doc.file}:{doc.line}"


def _hint(name: str, known: Iterable[str]) -> str:
    names = sorted(known)
    close = get_close_matches(name, names, n=3)
    if close:
        return f"; did you mean {', '.join(close)}?"
    if not names:
        return ""
    shown = ", ".join(names[:20]) + (f" and {len(names) - 20} more" if len(names) > 20 else "")
    return f" (known: {shown})"


def _unknown(what: str, name: str, known: Iterable[str], aliases: Mapping[str, str], advice: str) -> str:
    """Why a referenced tool or toolset is not there: a legacy alias, or unknown (with a hint)."""
    alias_of = aliases.get(name)
    if alias_of:
        return f"{what} {name!r} is a legacy alias of {alias_of!r}; {advice}"
    return f"unknown {what} {name!r}{_hint(name, known)}"


def link(
    tool_docs: list[Document],
    toolset_docs: list[Document],
    broken_tools: set[str],
    broken_toolsets: set[str],
    later: frozenset[str] | set[str] = frozenset(),
) -> Linked:
    """Resolve names across documents. Documents come in load order (builtin first).

    ``later`` names toolsets that join after linking (an McpServer's): they may be included,
    and their tools are added to the including toolsets when they arrive.
    """
    out = Linked()
    problems = out.problems

    for doc in toolset_docs:
        name = doc.data["name"]
        if name in ALL_TOOLSETS:
            problems.append(doc.problem(["name"], "name-reserved", f"{name!r} is reserved: it means every tool"))
            continue
        first = out.toolsets.get(name)
        if first is not None:
            problems.append(
                doc.problem(
                    ["name"],
                    "toolset-duplicate",
                    f"toolset {name!r} is already defined at {_where(first)}",
                )
            )
            continue
        out.toolsets[name] = doc

    toolset_names = set(out.toolsets) | ALL_TOOLSETS
    for doc in toolset_docs:
        name = doc.data["name"]
        if out.toolsets.get(name) is not doc:
            continue
        _register_aliases(doc, name, "toolset", toolset_names, out.toolset_aliases, problems)

    known_toolsets = set(out.toolsets) | broken_toolsets
    for doc in tool_docs:
        name = doc.data["name"]
        home = doc.data["toolset"]
        if home not in known_toolsets:
            if home in out.toolset_aliases:
                message = (
                    f"toolset {home!r} is a legacy alias of {out.toolset_aliases[home]!r}; name the toolset itself"
                )
            else:
                message = f"toolset {home!r} is not declared by any Toolset manifest{_hint(home, out.toolsets)}"
            problems.append(doc.problem(["toolset"], "toolset-unknown", message))
        first = out.tools.get(name)
        if first is not None:
            same_home = first.data["toolset"] == home
            if same_home and first.pack == doc.pack:
                problems.append(
                    doc.problem(
                        ["name"],
                        "tool-duplicate",
                        f"tool {name!r} is defined twice in toolset {home!r}: first at {_where(first)}",
                    )
                )
                continue
            if doc.data.get("override") is not True:
                problems.append(
                    doc.problem(
                        ["name"],
                        "tool-override-required",
                        f"tool {name!r} is already defined in toolset {first.data['toolset']!r} at {_where(first)}; "
                        "set override: true to replace it",
                    )
                )
                continue
        out.tools[name] = doc

    tool_names = set(out.tools)
    for name, doc in out.tools.items():
        _register_aliases(doc, name, "tool", tool_names, out.tool_aliases, problems)

    known_tools = set(out.tools) | broken_tools
    home_members: dict[str, set[str]] = {name: set() for name in out.toolsets}
    for name, doc in out.tools.items():
        home_members.setdefault(doc.data["toolset"], set()).add(name)
    direct: dict[str, set[str]] = {}
    for name, doc in out.toolsets.items():
        members = set(home_members.get(name, ()))
        for i, tool in enumerate(doc.data.get("tools") or []):
            if tool not in known_tools:
                message = _unknown("tool", tool, out.tools, out.tool_aliases, "list the tool itself")
                problems.append(doc.problem(["tools", i], "tool-unknown", message))
            elif tool in out.tools:
                members.add(tool)
        for i, inc in enumerate(doc.data.get("includes") or []):
            if inc not in known_toolsets and inc not in later:
                message = _unknown("toolset", inc, out.toolsets, out.toolset_aliases, "include the toolset itself")
                problems.append(doc.problem(["includes", i], "toolset-unknown", message))
        direct[name] = members

    cyclic = _report_cycles(out.toolsets, problems)
    memo: dict[str, frozenset[str]] = {}

    def members_of(name: str) -> frozenset[str]:
        if name in memo:
            return memo[name]
        memo[name] = frozenset()  # guards against cycles already reported
        result = set(direct.get(name, ()))
        for inc in out.toolsets[name].data.get("includes") or []:
            if inc in out.toolsets and inc not in cyclic:
                result |= members_of(inc)
        memo[name] = frozenset(result)
        return memo[name]

    for name in out.toolsets:
        out.members[name] = members_of(name)
    return out


def _register_aliases(
    doc: Document,
    name: str,
    what: str,
    taken: set[str] | frozenset[str],
    aliases: dict[str, str],
    problems: list[Problem],
) -> None:
    """Record ``doc``'s legacy names for ``name``; a name already in use is an alias-conflict."""
    for i, alias in enumerate(doc.data.get("aliases") or []):
        if alias in taken:
            problems.append(doc.problem(["aliases", i], "alias-conflict", f"alias {alias!r} is the name of a {what}"))
        elif alias in aliases:
            message = f"alias {alias!r} already names {what} {aliases[alias]!r}"
            problems.append(doc.problem(["aliases", i], "alias-conflict", message))
        else:
            aliases[alias] = name


def _report_cycles(toolsets: dict[str, Document], problems: list[Problem]) -> set[str]:
    """Report every include cycle once, at the include that closes it."""
    state: dict[str, int] = {}  # 1 visiting, 2 done
    stack: list[str] = []
    cyclic: set[str] = set()
    reported: set[frozenset[str]] = set()

    def visit(name: str) -> None:
        state[name] = 1
        stack.append(name)
        doc = toolsets[name]
        for i, inc in enumerate(doc.data.get("includes") or []):
            if inc not in toolsets:
                continue
            if state.get(inc) == 1:
                cycle = [*stack[stack.index(inc) :], inc]
                key = frozenset(cycle)
                cyclic.update(cycle)
                if key not in reported:
                    reported.add(key)
                    problems.append(
                        doc.problem(["includes", i], "toolset-cycle", f"include cycle: {' -> '.join(cycle)}")
                    )
            elif state.get(inc) is None:
                visit(inc)
        stack.pop()
        state[name] = 2

    for name in toolsets:
        if state.get(name) is None:
            visit(name)
    return cyclic


def check_enabled_names(
    config_doc: Document | None, data: dict[str, Any], linked: Linked, broken: set[str]
) -> list[Problem]:
    """toolsets.enabled / disabled in the config must name toolsets."""
    problems: list[Problem] = []
    section = data.get("toolsets") or {}
    for key in ("enabled", "disabled"):
        for i, name in enumerate(section.get(key) or []):
            if name in ALL_TOOLSETS or name in linked.toolsets or name in linked.toolset_aliases or name in broken:
                continue
            message = f"unknown toolset {name!r}{_hint(name, linked.toolsets)}"
            if config_doc is None:
                problems.append(Problem("<config>", 1, 1, "toolset-unknown", message))
            else:
                problems.append(config_doc.problem(["toolsets", key, i], "toolset-unknown", message))
    return problems
