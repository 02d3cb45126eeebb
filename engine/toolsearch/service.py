"""Tool search for one engine: budgeted definitions, and the answers of the three meta-tools.

``tool_search`` and ``tool_describe`` only read the registry and are answered here.
``tool_call`` is answered with a :class:`Redirect`: the dispatcher then runs the
inner call through the whole pipeline (availability, validation against the full
schema, hooks, the policy and approvals), exactly as if the model had called that
tool directly. What a session may reach through ``tool_call`` is the toolsets it was
offered (the config's, or those passed with ``session_id`` to ``definitions``),
available tools only, and of those only the ones it found with ``tool_search`` or
was shown in a listing.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from difflib import get_close_matches
from time import perf_counter
from typing import Any, Protocol

from engine.definitions.budget import Entry, fit, matching, rank, tier_of
from engine.definitions.formats import FORMATS
from engine.definitions.tokens import counter_for, definition_text
from engine.dispatch.batch import parse_arguments
from engine.dispatch.results import ResultMetadata, ToolResult, failure
from engine.errors import UsageError
from engine.registry.availability import AvailabilityCache
from engine.registry.snapshot import Snapshot
from engine.toolsearch import meta
from engine.toolsearch.catalog import Scope, Sessions, scope_of
from engine.toolsearch.index import SearchIndex
from engine.toolsearch.meta import CALL, DESCRIBE, META_NAMES, SEARCH, Redirect


class SearchHost(Protocol):
    """What tool search needs from its owner (the Engine); it never imports ``engine.engine``."""

    _availability: AvailabilityCache

    def full_definitions(
        self, format: str, enabled: Iterable[str] | None = None, disabled: Iterable[str] | None = None
    ) -> list[dict[str, Any]]: ...


_SCOPES_KEPT = 256
_NAME_SHOWN = 100


class ToolSearch:
    """Owned by an :class:`~engine.engine.Engine`; every method is thread-safe."""

    def __init__(self, engine: SearchHost) -> None:
        self._engine = engine
        self.sessions = Sessions()
        self._lock = threading.Lock()
        self._index: tuple[int, SearchIndex] | None = None
        self._scopes: dict[tuple[int, Scope], frozenset[str]] = {}
        self._listed: dict[Scope, set[str]] = {}
        self._ranked: dict[tuple[Any, ...], tuple[list[dict[str, Any]], list[Entry], list[Entry]]] = {}
        self._meta_cache: dict[tuple[Any, ...], tuple[list[dict[str, Any]], int]] = {}

    # -- the index and the scopes ---------------------------------------------------

    def index(self, snap: Snapshot) -> SearchIndex:
        """The generation's index, built on first use (once per generation)."""
        cached = self._index
        if cached is not None and cached[0] == snap.generation:
            return cached[1]
        with self._lock:
            cached = self._index
            if cached is None or cached[0] != snap.generation:
                previous = None if cached is None else cached[1]
                cached = self._index = (snap.generation, SearchIndex(snap.tools, snap.toolsets, previous))
        return cached[1]

    def scope_names(self, snap: Snapshot, scope: Scope) -> frozenset[str]:
        """The tools of a scope, by the same rules as ``Engine.definitions``.

        Raises:
            UsageError: the scope names a toolset that no longer exists.
        """
        key = (snap.generation, scope)
        names = self._scopes.get(key)
        if names is None:
            enabled, disabled = scope
            if enabled is None:
                configured = snap.config.get("toolsets", "enabled")
                enabled = None if configured is None else tuple(configured)
                disabled = (*disabled, *snap.config.get("toolsets", "disabled"))
            names = snap.resolve_toolsets(enabled, disabled)
            with self._lock:
                if len(self._scopes) >= _SCOPES_KEPT:
                    self._scopes.clear()
                self._scopes[key] = names
        return names

    def bind(self, session_id: str | None, enabled: Sequence[str] | None, disabled: Sequence[str] | None) -> None:
        """Limit what ``session_id`` reaches through the meta-tools to these toolsets."""
        self.sessions.bind(session_id, scope_of(enabled, disabled))

    # -- budgeted definitions ---------------------------------------------------------

    def fit(
        self,
        snap: Snapshot,
        fmt: str,
        full: list[dict[str, Any]],
        budget: Any,
        enabled: tuple[str, ...] | None,
        disabled: tuple[str, ...],
    ) -> list[dict[str, Any]]:
        """The definitions of ``full`` (every available tool, sorted by name) that fit ``budget``.

        Raises:
            UsageError: the budget is not a positive integer or cannot hold the meta-tools;
                a tool of the project takes a meta-tool's name.
        """
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
            raise UsageError(f"budget_tokens must be a positive integer, not {budget!r}")
        taken = [n for n in meta.META_TOOLS if n in snap.tools]
        if taken:
            where = ", ".join(f"{n} ({snap.tools[n].source})" for n in taken)
            raise UsageError(f"tool search needs the names {', '.join(meta.META_TOOLS)}; taken by {where}")
        entries, ranked = self._entries(snap, fmt, full)
        fitted = fit(entries, ranked, budget, lambda deferred: self._meta(fmt, deferred))
        with self._lock:
            if len(self._listed) >= _SCOPES_KEPT:
                self._listed.clear()
            self._listed.setdefault((enabled, disabled), set()).update(fitted.listed)
        return fitted.definitions

    def _entries(self, snap: Snapshot, fmt: str, full: list[dict[str, Any]]) -> tuple[list[Entry], list[Entry]]:
        """``full`` as budget entries (tokens counted, tiers set) and ranked; cached per list."""
        key = (snap.generation, fmt, id(full))
        cached = self._ranked.get(key)
        if cached is not None and cached[0] is full:
            return cached[1], cached[2]
        _, counter = counter_for(fmt)
        settings = snap.config.get("tool_search")
        members = {name: ts.members for name, ts in snap.toolsets.items()}
        members.update({alias: snap.toolsets[target].members for alias, target in snap.toolset_aliases.items()})
        always = matching(settings["always"], snap.tools, members)
        defer = matching(settings["defer"], snap.tools, members)
        entries = []
        for definition in full:
            spec = snap.tools[_name_of(definition)]
            tokens = counter(definition_text(definition))
            entries.append(Entry(spec.name, spec.toolset, definition, tokens, tier_of(spec, always, defer)))
        ranked = rank(entries)
        with self._lock:
            if len(self._ranked) >= _SCOPES_KEPT:
                self._ranked.clear()
            self._ranked[key] = (full, entries, ranked)
        return entries, ranked

    def _meta(self, fmt: str, deferred: Sequence[Entry]) -> tuple[list[dict[str, Any]], int]:
        """The meta-tools' definitions for ``deferred``, and their tokens (memoised: their text
        depends only on how many tools were deferred and from which toolsets)."""
        toolsets = tuple(sorted({e.toolset for e in deferred}))
        key = (fmt, len(deferred), toolsets)
        cached = self._meta_cache.get(key)
        if cached is None:
            _, counter = counter_for(fmt)
            formatter = FORMATS[fmt]
            tools = [formatter(s, s.description, s.parameters) for s in meta.meta_specs(len(deferred), toolsets)]
            cached = (tools, sum(counter(definition_text(d)) for d in tools))
            with self._lock:
                if len(self._meta_cache) >= _SCOPES_KEPT:
                    self._meta_cache.clear()
                self._meta_cache[key] = cached
        return cached

    # -- the meta-tools -----------------------------------------------------------------

    def answer(
        self, snap: Snapshot, name: Any, args: Any, session_id: str | None, tool_call_id: str | None, started: float
    ) -> ToolResult | Redirect | None:
        """The answer to a meta-tool call; None when ``name`` is not a meta-tool."""
        if not isinstance(name, str) or name not in META_NAMES:
            return None
        reply = _Reply(snap, name, tool_call_id, started)
        if args is None:
            args = {}
        if not isinstance(args, Mapping):
            return reply.error("invalid_arguments", f"arguments must be a JSON object, not {type(args).__name__}")
        extra = sorted(str(k)[:_NAME_SHOWN] for k in args if k not in meta.PARAMETERS[name]["properties"])
        if extra:
            known = ", ".join(meta.PARAMETERS[name]["properties"])
            hint = " (put the tool's own arguments under 'arguments')" if name == CALL else ""
            return reply.error("invalid_arguments", f"{name} takes {known}; unexpected: {', '.join(extra)}{hint}")
        try:
            scope_key = self.sessions.scope(session_id)
            scope = self.scope_names(snap, scope_key)
        except UsageError as exc:
            return reply.error("unavailable", f"this session's toolsets cannot be resolved: {exc}", False)
        if name == SEARCH:
            return self._search(reply, args, session_id, scope)
        if name == DESCRIBE:
            return self._describe(reply, args, scope, scope_key)
        return self._call(reply, args, session_id, scope, scope_key)

    def _available(self, snap: Snapshot, scope: frozenset[str], name: str) -> bool:
        return name in scope and self._engine._availability.get(snap.tools[name]).available

    def _search(
        self, reply: _Reply, args: Mapping[str, Any], session_id: str | None, scope: frozenset[str]
    ) -> ToolResult:
        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            return reply.error("invalid_arguments", "query is empty: say in plain words what you want to do")
        if len(query) > meta.MAX_QUERY_CHARS:
            return reply.error(
                "invalid_arguments",
                f"query is {len(query)} characters long; at most {meta.MAX_QUERY_CHARS}: "
                "describe the task in a sentence",
            )
        limit = _integer(args.get("limit", meta.DEFAULT_LIMIT))
        if limit is None or not 1 <= limit <= meta.MAX_LIMIT:
            return reply.error("invalid_arguments", f"limit must be an integer from 1 to {meta.MAX_LIMIT}")
        snap = reply.snap
        index = self.index(snap)
        hits = index.search(query, limit, lambda n: self._available(snap, scope, n))
        limit_kept = int(snap.config.get("tool_search", "max_catalog"))
        self.sessions.add(session_id, (h.name for h in hits), limit_kept)
        tools = [
            {"name": h.name, "toolset": index.toolsets[h.name], "description": index.summaries[h.name]} for h in hits
        ]
        body: dict[str, Any] = {"tools": tools}
        if tools:
            body["next"] = "run one with tool_call(name, arguments); tool_describe(names) gives its parameters"
        else:
            body["next"] = "no tool matched: try other words, or a shorter query"
        return reply.ok(body)

    def _describe(self, reply: _Reply, args: Mapping[str, Any], scope: frozenset[str], scope_key: Scope) -> ToolResult:
        names = args.get("names")
        if isinstance(names, str):
            names = [names]
        if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
            return reply.error("invalid_arguments", "names must be a list of tool names, as tool_search returned them")
        if len(names) > meta.MAX_DESCRIBE:
            return reply.error(
                "invalid_arguments", f"{len(names)} names; describe at most {meta.MAX_DESCRIBE} tools at once"
            )
        snap = reply.snap
        listing = {d["name"]: d for d in self._engine.full_definitions("mcp", *scope_key)}
        described, unknown = [], []
        for raw in dict.fromkeys(names):
            canonical = snap.canonical_tool(raw)
            if canonical is None or canonical not in listing or not self._available(snap, scope, canonical):
                unknown.append(_unknown_entry(raw, scope))
                continue
            d = listing[canonical]
            spec = snap.tools[canonical]
            item = {"name": canonical, "toolset": spec.toolset, "description": d["description"]}
            item["parameters"] = d["inputSchema"]
            if "annotations" in d:
                item["annotations"] = d["annotations"]
            described.append(item)
        if not described:
            return reply.error("unknown_tool", "no such tool here: " + "; ".join(_unknown_text(u) for u in unknown))
        body: dict[str, Any] = {"tools": described}
        if unknown:
            body["unknown"] = unknown
        return reply.ok(body)

    def _call(
        self, reply: _Reply, args: Mapping[str, Any], session_id: str | None, scope: frozenset[str], scope_key: Scope
    ) -> ToolResult | Redirect:
        target = args.get("name")
        if not isinstance(target, str) or not target:
            return reply.error("invalid_arguments", "name must be the name of a tool found with tool_search")
        if target in META_NAMES:
            return reply.error("invalid_arguments", f"tool_call runs the tools tool_search finds, not {target} itself")
        arguments, problem = parse_arguments(args.get("arguments"))
        if problem is not None:
            return reply.error("invalid_arguments", f"arguments: {problem}")
        if not isinstance(arguments, Mapping):
            kind = type(arguments).__name__
            return reply.error("invalid_arguments", f"arguments must be a JSON object, not {kind}")
        snap = reply.snap
        canonical = snap.canonical_tool(target)
        if canonical is None:
            if self.sessions.has(session_id, target):
                self.sessions.forget(session_id, target)
                return reply.error(
                    "tool_removed",
                    f"tool {_shown(target)} no longer exists (the tools changed at generation {snap.generation}); "
                    "find another with tool_search",
                )
            return reply.error("unknown_tool", _unknown_text(_unknown_entry(target, scope)))
        if canonical not in scope:
            # Said the same way as an unknown name: a session learns nothing of toolsets it was not given.
            return reply.error("unknown_tool", _unknown_text(_unknown_entry(target, scope)))
        listed = self._listed.get(scope_key, ())
        if not (self.sessions.has(session_id, canonical) or canonical in listed):
            return reply.error(
                "not_found_yet",
                f"tool {_shown(canonical)} has not been found with tool_search in this session: "
                "search for it first, then call it",
            )
        return Redirect(canonical, dict(arguments))


class _Reply:
    """Builds a meta-tool's results, all with the same generation, tool and timing."""

    def __init__(self, snap: Snapshot, tool: str, tool_call_id: str | None, started: float) -> None:
        self.snap = snap
        self.tool = tool
        self.tool_call_id = tool_call_id
        self.started = started

    def ok(self, body: dict[str, Any]) -> ToolResult:
        elapsed = round((perf_counter() - self.started) * 1000, 3)
        metadata = ResultMetadata(elapsed, self.snap.generation, tool=self.tool, tool_call_id=self.tool_call_id)
        return ToolResult(True, json.dumps(body, ensure_ascii=False), None, metadata)

    def error(self, kind: str, message: str, recoverable: bool = True) -> ToolResult:
        return failure(
            kind,
            message,
            recoverable=recoverable,
            generation=self.snap.generation,
            started=self.started,
            now=perf_counter(),
            tool=self.tool,
            tool_call_id=self.tool_call_id,
        )


def _name_of(definition: Mapping[str, Any]) -> str:
    function = definition.get("function")
    return str(function["name"] if isinstance(function, Mapping) else definition["name"])


def _integer(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit() and len(value) < 6:
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _shown(name: str) -> str:
    return repr(name[:_NAME_SHOWN] + ("…" if len(name) > _NAME_SHOWN else ""))


def _unknown_entry(name: str, scope: frozenset[str]) -> dict[str, Any]:
    close = get_close_matches(name[:_NAME_SHOWN], scope, n=3, cutoff=0.6) if len(name) <= _NAME_SHOWN else []
    return {"name": name[:_NAME_SHOWN], "did_you_mean": close}


def _unknown_text(entry: Mapping[str, Any]) -> str:
    close = entry["did_you_mean"]
    hint = f"; did you mean {', '.join(close)}?" if close else "; find tools with tool_search"
    return f"no tool named {_shown(entry['name'])}{hint}"
