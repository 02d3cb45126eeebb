"""The load pipeline: files → documents → checked → linked → bound → Snapshot.

Parsing and per-document checks are cached per file (by stat), so a reload
re-reads only what changed; everything that spans documents is recomputed.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from engine import config as config_mod
from engine.compile.approved import ApprovedFiles, code_files
from engine.compile.binding import Binder, BindError, Bound, is_project_package
from engine.compile.link import Linked, check_enabled_names, link
from engine.compile.structure import check_parameters, check_structure, document_kind
from engine.config import Config
from engine.definitions.lint import STRICT_LINTS, lint_gemini
from engine.digests import digest
from engine.errors import Problem, UsageError
from engine.plugins.context import provider_problem
from engine.plugins.manager import PluginManager, PluginSet, grant_problem, remap_problems
from engine.records import replace
from engine.registry.snapshot import Snapshot
from engine.registry.sources import ToolSource
from engine.registry.specs import Annotations, ManifestSpec, Source, ToolsetSpec, ToolSpec
from engine.runtime.manifest import check_references, check_runtimes
from engine.runtime.registry import RuntimeTypes
from engine.source.project import (
    CONFIG_NAMES,
    Pack,
    builtin_pack,
    check_project_root,
    is_builtin_root,
    manifest_files,
    resolved,
)
from engine.source.yamlfile import Document, ParsedFile, parse_file, stat_key
from engine.templates import ToolTemplates, compile_tool, sample_context
from engine.toolsearch.settings import check_settings

if TYPE_CHECKING:
    from engine.policy.model import CompiledPolicy


@dataclass(slots=True)
class _Checked:
    """A document with the checks that depend on it alone."""

    doc: Document
    kind: str | None
    problems: list[Problem]
    validator: Any = None
    # Gemini's schema warnings of a valid Tool: found the first time a load targets gemini (most
    # never do: the lint walks every schema and locates a warning for most tools), then kept.
    gemini: list[Problem] | None = None
    # DangerPatterns (Programs) whose only problems sit inside some patterns (programs): the others
    # are still compiled, so one bad entry does not hide the mistakes in the rest.
    broken_patterns: frozenset[int] | None = None

    @property
    def ok(self) -> bool:
        return self.kind is not None and not any(p.severity == "error" for p in self.problems)

    @property
    def usable(self) -> bool:
        return self.ok or self.broken_patterns is not None

    def gemini_warnings(self) -> list[Problem]:
        if self.gemini is None:
            self.gemini = lint_gemini(self.doc)
        return self.gemini


@dataclass(slots=True)
class _FileEntry:
    stat: tuple[int, int, int, int]
    parsed: ParsedFile
    checked: list[_Checked]
    max_bytes: int  # the size limit it was read under (a config setting)
    # Wall clock (as file times are) when it was read, or last found the same byte for byte: while
    # the file was changed less than _SETTLED_NS before that, its stat cannot vouch for it (a save
    # in the same clock tick, at the same size, keeps the stat: see _unchanged).
    read_ns: int = 0


@dataclass(slots=True)
class LoadResult:
    """What a load found. ``snapshot`` is ``None`` when there are errors."""

    snapshot: Snapshot | None
    problems: list[Problem]
    counts: dict[str, int]
    documents: dict[str, Document] = field(default_factory=dict)  # tool name -> its document
    files: int = 0
    plugins: PluginSet | None = None  # the plugins of this load (engine.plugins)
    # The BLAKE2b-256 of each file the load parsed, by path: the content the compiled-project cache
    # keys an entry of this load with (engine.guard.cache.project_key), not whatever is there later.
    fingerprints: dict[str, bytes] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.snapshot is not None

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "warning"]


# Manifest files parsed by any loader of this process, shared with the others: every project
# includes the builtin pack, and a host or a test run loads the same project many times (each
# Engine.load parsed and checked the same ~130 files again). Keyed by path and how it was read, and
# used only while the file's stat is the one it was read with. Only a file settled when it was read
# (its mtime and ctime older than _SETTLED_NS: timestamps are only as fine as the kernel's clock
# tick, so a save within it could keep the stat) is shared; the config is never shared (each loader
# normalises its own with its own overrides). The approval check compares what a load parsed with
# the bytes it hashed (ApprovedFiles.verify_parsed): a stale parse is refused there too.
_SHARED_FILES: dict[tuple[Path, str, str, int], _FileEntry] = {}
_SHARED_FILES_LIMIT = 4096
_SETTLED_NS = 2_000_000_000
_CLOCK_TICK_NS = 50_000_000  # more than a kernel clock tick (1-10 ms) behind time.time_ns()
_NO_STAT = (0, 0, 0, 0)


def _settled(stat: tuple[int, int, int, int], now_ns: int) -> bool:
    return now_ns - max(stat[0], stat[3]) >= _SETTLED_NS


def _unchanged(path: Path, entry: _FileEntry) -> bool:
    """Whether ``path`` still holds what ``entry`` parsed: its stat is the one read and, unless the
    file had settled when it was read, its bytes are too (stop 30: a policy saved again within the
    clock tick of the load that read it, at the same size, kept its stat, and a reload, or the
    watcher's check of what changed, served the first save's parse). Once the bytes are found the
    same after the file settled, the stat alone vouches for it again."""
    stat = _stat_key(path) or (0, 0, 0, 0)
    if stat != entry.stat:
        return False
    if _settled(stat, entry.read_ns):
        return True
    if not entry.parsed.fingerprint:
        return False  # nothing of it was read (too large): read again, as cheap
    now = time.time_ns()
    try:
        with open(path, "rb") as handle:
            if stat_key(os.fstat(handle.fileno())) != entry.stat:
                return False
            data = handle.read(entry.max_bytes + 1)
    except OSError:
        return False
    if digest(data).digest() != entry.parsed.fingerprint:
        return False
    if _settled(stat, now):
        entry.read_ns = now
    return True


# Compiled policies shared by loaders of this process, by the very documents they were compiled
# from (all of them shared through _SHARED_FILES) and what else compile_policy reads: the config's
# approvals section, the tool names, the skipped entries. Only a policy compiled without errors and
# without a judge (a bound function of one project's handlers) is shared.
_SHARED_POLICIES: dict[tuple[Any, ...], tuple[tuple[Document, ...], tuple[CompiledPolicy, list[Problem]]]] = {}
_SHARED_POLICIES_LIMIT = 16


def _stat_key(path: Path) -> tuple[int, int, int, int] | None:
    try:
        return stat_key(path.stat())
    except OSError:
        return None


class ProjectLoader:
    """Loads one project (plus the builtin pack) into snapshots, reusing unchanged files."""

    def __init__(
        self,
        root: Path | str,
        *,
        include_builtin: bool | None = None,
        config_overrides: Mapping[str, Any] | None = None,
        binder: Binder | None = None,
        runtime_types: RuntimeTypes | None = None,
        pin: str = "enforce",
    ) -> None:
        self.root = check_project_root(Path(root))
        # Approved engine files (engine.compile.approved): "enforce" refuses what changed since the
        # last approval, "approve" approves what it loads (the dev loop), "off" checks nothing
        # (validate: a static check that writes no state).
        self.approved = ApprovedFiles(self.root, pin) if pin != "off" else None
        self.include_builtin = include_builtin
        self.config_overrides = dict(config_overrides or {})
        self.binder = binder or Binder()
        # Runtime types Runtime manifests may name (plugins register more before loading).
        self.runtime_types = runtime_types or RuntimeTypes()
        # Sources of tools other than files (engine.registry.sources), asked on every load.
        self.sources: list[ToolSource] = []
        self._files: dict[Path, _FileEntry] = {}
        self.load_started_ns = 0  # wall clock (as file mtimes are) when the last load began
        # The handler modules and plugin files of the project, each with the stat it had when a load
        # last imported it (or first listed it): what changed_since_load compares them with.
        self._code: dict[Path, tuple[int, int, int, int]] = {}
        self._template_cache: dict[int, tuple[Document, ToolTemplates | None, list[Problem]]] = {}
        self._template_fingerprint: tuple[Any, ...] | None = None
        # Work reused across reloads while its inputs are the very same objects.
        self._listing_cache: tuple[Any, list[tuple[Pack, list[Path]]]] | None = None
        self._spec_cache: dict[int, tuple[Document, Bound | None, Bound | None, ToolSpec]] = {}
        self._config_cache: tuple[Document | None, Config, list[Problem]] | None = None
        self._policy_cache: tuple[Any, tuple[CompiledPolicy, list[Problem]]] | None = None
        # The documents of this loader's files that are shared (_SHARED_FILES): a policy compiled
        # from those alone is shared (_SHARED_POLICIES); one with a document of its own is not.
        self._shared_docs: set[int] = set()
        self.is_builtin_project = is_builtin_root(self.root)
        # Plugins named in the config (engine.plugins); their packs join the load.
        self.plugins = PluginManager(self.root)

    # -- files -------------------------------------------------------------------

    def _entry(
        self, path: Path, display: str, pack: str, max_bytes: int, force: bool, *, manifests: bool = True
    ) -> _FileEntry:
        cached = self._files.get(path)
        if cached is not None and cached.max_bytes == max_bytes and not force and _unchanged(path, cached):
            return cached
        shared_key = (path, display, pack, max_bytes)
        if manifests and not force:
            shared = _SHARED_FILES.get(shared_key)
            if shared is not None and shared.stat == _stat_key(path):
                self._files[path] = shared
                self._shared_docs.update(id(c.doc) for c in shared.checked)
                return shared
        read_ns = time.time_ns()  # before the read: a change during it is after this
        parsed = parse_file(path, display, pack=pack, max_bytes=max_bytes)
        # The stat of the file read (a file first seen is stat'ed once, by the read).
        key = parsed.stat or _stat_key(path) or (0, 0, 0, 0)
        # The config is no manifest: checking it as one would only make problems nobody reads
        # (and locate them, composing its nodes).
        checked = [self._check(doc) for doc in parsed.documents] if manifests else []
        entry = _FileEntry(key, parsed, checked, max_bytes, read_ns)
        self._files[path] = entry
        if manifests and parsed.stat is not None and _settled(parsed.stat, read_ns):
            if len(_SHARED_FILES) >= _SHARED_FILES_LIMIT:
                _SHARED_FILES.clear()
            _SHARED_FILES[shared_key] = entry
            self._shared_docs.update(id(c.doc) for c in checked)
        return entry

    @staticmethod
    def _check(doc: Document) -> _Checked:
        kind, problem = document_kind(doc)
        if problem is not None:
            return _Checked(doc, None, [problem])
        assert kind is not None
        problems = check_structure(doc, kind)
        validator = None
        gemini: list[Problem] | None = []
        if kind == "Tool" and not problems:
            validator, problems = check_parameters(doc)
            if not problems:
                gemini = None  # linted when a load asks for them
        broken: frozenset[int] | None = None
        if kind in ("DangerPatterns", "Programs") and problems:
            indexes = [_pattern_index(p.pointer) for p in problems]
            if all(i is not None for i in indexes):
                broken = frozenset(i for i in indexes if i is not None)
        return _Checked(doc, kind, problems, validator, gemini, broken)

    def _config(self, force: set[Path]) -> tuple[Config, Document | None, list[Problem]]:
        problems: list[Problem] = []
        path = self.root / CONFIG_NAMES[0]
        other = self.root / CONFIG_NAMES[1]
        if other.exists():
            problems.append(
                Problem(
                    CONFIG_NAMES[1],
                    1,
                    1,
                    "config-misnamed",
                    f"the config file must be called {CONFIG_NAMES[0]}; {CONFIG_NAMES[1]} is not read",
                )
            )
        doc: Document | None = None
        if not path.exists():
            self._files.pop(path, None)  # deleted since it was read: nothing of it is served
        else:
            entry = self._entry(path, CONFIG_NAMES[0], "project", 1024 * 1024, path in force, manifests=False)
            problems.extend(entry.parsed.problems)
            docs = entry.parsed.documents
            if len(docs) > 1:
                problems.append(docs[1].problem([], "config-invalid", f"{CONFIG_NAMES[0]} must hold a single document"))
            doc = docs[0] if docs else None
            if entry.parsed.problems and doc is None:
                config = config_mod.default_config(self.root)
                return config, None, problems
        cached = self._config_cache
        if cached is not None and cached[0] is doc and doc is not None:
            config, config_problems = cached[1], cached[2]
        else:
            config, config_problems = config_mod.normalise(doc, self.root, self.config_overrides or None)
            self._config_cache = (doc, config, config_problems)
        problems.extend(config_problems)
        return config, doc, problems

    def changed_since_load(self, candidates: Iterable[Path]) -> list[Path]:
        """Which files differ from what the last load read.

        A file the load parsed (manifests, the config) is compared by the (mtime, size, inode)
        it had when it was read, so any save since shows, and so does its removal; a handler module
        or plugin file by the stat it had when a load imported it. Any other of ``candidates`` (a
        file that is new) counts when it was modified after the last load began (its mtime is past
        ``load_started_ns``, less a clock tick). Call it while no load runs (Engine.changed_since_load
        holds the reload lock): a load in progress has begun to replace what it compares with.
        """
        changed: set[Path] = set()
        for path, entry in list(self._files.items()):
            if path.is_relative_to(self.root) and not _unchanged(path, entry):
                changed.add(path)
        for path, stamp in list(self._code.items()):
            if (_stat_key(path) or _NO_STAT) != stamp:
                changed.add(path)
        # A file's mtime is the kernel's coarse clock, up to a tick behind time.time_ns(): a file made
        # just after the load began (and after its listing) can show an mtime before it.
        since = self.load_started_ns - _CLOCK_TICK_NS
        for path in candidates:
            if path in self._files or path in self._code:
                continue
            with contextlib.suppress(OSError):
                if path.stat().st_mtime_ns > since:
                    changed.add(path)
        return sorted(changed)

    def _stamp_code(self, packs: list[Pack], plugin_folders: Iterable[str], force: set[Path]) -> None:
        """Keep the stat of each code file as this load imports it: a file first listed now, or named
        as changed (its module was dropped, so the load imports it again), is stamped before any import;
        any other keeps the stamp of the load that imported it, so a save a later reload did not name
        still differs (stop 43: a reload of another file hid a handler saved while the watches armed)."""
        code: dict[Path, tuple[int, int, int, int]] = {}
        for path in code_files(self.root, packs, plugin_folders):
            stamp = self._code.get(path)
            code[path] = stamp if stamp is not None and path not in force else (_stat_key(path) or _NO_STAT)
        self._code = code

    def packs(self, config: Config) -> list[Pack]:
        if self.is_builtin_project:
            pack = builtin_pack()
            return [Pack("builtin", self.root, pack.handler_roots, pack.module_alias, "")]
        include = config["include_builtin"] if self.include_builtin is None else self.include_builtin
        project = Pack("project", self.root, tuple(config["handler_roots"]))
        return [builtin_pack(), project] if include else [project]

    def engine_inputs(self) -> tuple[list[Pack], list[str]]:
        """The packs and plugin folders whose files the record of approved files covers."""
        config, _doc, _problems = self._config(set())
        return self.packs(config), list(config["plugins"]["folders"])

    def all_packs(self, config: Config) -> list[Pack]:
        """The packs of the config plus those of the plugins the engine serves now."""
        return [*self.packs(config), *(p for plugin in self.plugins.committed for p in plugin.packs)]

    # -- the pipeline ------------------------------------------------------------

    def load(
        self,
        generation: int = 1,
        *,
        changed: Iterable[Path] = (),
        strict: Sequence[str] = (),
        targets: Sequence[str] | None = None,
    ) -> LoadResult:
        """Load the project. Never raises for bad manifests: they become problems.

        ``targets`` (default: the config's ``targets``) are the providers warned about:
        Gemini's schema warnings only when ``gemini`` is one of them.

        Raises:
            UsageError: the root stopped being a project, or an unknown strict target or target.
        """
        for target in strict:
            if target not in STRICT_LINTS:
                raise UsageError(f"unknown --strict target {target!r} (known: {', '.join(STRICT_LINTS)})")
        for target in targets or ():
            if target not in config_mod.TARGETS:
                raise UsageError(f"unknown target {target!r} (known: {', '.join(config_mod.TARGETS)})")

        self.load_started_ns = time.time_ns()
        # The cyclic GC finds nothing to free while thousands of small containers are
        # being built, but its passes over them cost about a third of a cold load.
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            return self._load(generation, {resolved(p) for p in changed}, strict, targets)
        finally:
            if gc_was_enabled:
                gc.enable()

    def _listing(self, packs: list[Pack], force: set[Path]) -> list[tuple[Pack, list[Path]]]:
        """Every manifest file, by pack. When the changed files are known and are all files
        we already track, the previous listing is reused instead of walking the folders."""
        key = tuple((p.name, p.root) for p in packs)
        cached = self._listing_cache
        if (
            cached is not None
            and cached[0] == key
            and force
            and all(p in self._files and p.is_file() for p in force if p.name not in CONFIG_NAMES)
        ):
            # Paired with the packs of this load: a config edit may change their handler roots.
            return [(pack, paths) for pack, (_, paths) in zip(packs, cached[1], strict=True)]
        listing = [(pack, manifest_files(pack)) for pack in packs]
        self._listing_cache = (key, listing)
        return listing

    def _load(
        self, generation: int, force: set[Path], strict: Sequence[str], targets: Sequence[str] | None = None
    ) -> LoadResult:
        config, config_doc, problems = self._config(force)
        packs = self.packs(config)
        max_bytes = int(config["max_manifest_bytes"])
        if self.approved is not None:
            # Before any plugin or handler code is imported: a file a tool call wrote is never run.
            refused = self.approved.check(
                packs, config["plugins"]["folders"], config["integrity"] == "off", force, generation
            )
            if any(p.severity == "error" for p in refused):
                return LoadResult(None, sorted([*problems, *refused]), {"tools": 0, "toolsets": 0, "patterns": 0})
            problems.extend(refused)
        self._stamp_code(packs, config["plugins"]["folders"], force)
        plugins = self.plugins.resolve(config, config_doc, self.runtime_types)
        problems.extend(plugins.problems)
        plugin_of = {pack.name: plugin for plugin in plugins.loaded for pack in plugin.packs}

        seen: set[Path] = set()
        checked: list[tuple[_Checked, Pack]] = []
        trust_stat = bool(force)  # the watcher named what changed: the rest needs no stat()
        for pack, paths in self._listing([*packs, *plugins.packs], force):
            for path in paths:
                seen.add(path)
                cached = self._files.get(path)
                if trust_stat and cached is not None and path not in force and cached.max_bytes == max_bytes:
                    entry = cached
                else:
                    entry = self._entry(path, pack.display(path), pack.name, max_bytes, path in force)
                problems.extend(entry.parsed.problems)
                checked.extend((c, pack) for c in entry.checked)
        for plugin in plugins.loaded:
            # Tools a plugin declared in Python are manifests like any other from here on.
            checked.extend((self._check(doc), plugin.packs[0]) for doc in plugin.tool_docs)
        config_path = self.root / CONFIG_NAMES[0]
        for path in list(self._files):
            if path not in seen and path != config_path:
                del self._files[path]
        if self.approved is not None:
            # What was parsed must be the very content just approved: a file flipped between the
            # check and the parse, or a stale parse kept by its stat, is refused.
            used = [(p, e.parsed.file, e.parsed.digest) for p, e in self._files.items()]
            stale = self.approved.verify_parsed(used)
            if stale:
                return LoadResult(None, sorted([*problems, *stale]), {"tools": 0, "toolsets": 0, "patterns": 0})

        tool_docs: list[Document] = []
        toolset_docs: list[Document] = []
        policy_docs: list[Document] = []
        broken_tools: set[str] = set()
        broken_toolsets: set[str] = set()
        validators: dict[int, Any] = {}
        pack_of: dict[int, Pack] = {}
        warnings: list[Problem] = []
        gemini = "gemini" in (targets if targets is not None else config["targets"])
        skipped_patterns: dict[int, frozenset[int]] = {}
        for item, pack in checked:
            problems.extend(item.problems)
            doc = item.doc
            if item.broken_patterns is not None:
                skipped_patterns[id(doc)] = item.broken_patterns
            if not item.usable:
                name = doc.data.get("name") if isinstance(doc.data, dict) else None
                if isinstance(name, str):
                    (broken_tools if item.kind == "Tool" else broken_toolsets).add(name)
                continue
            if pack.is_plugin and item.kind in _PROJECT_ONLY_KINDS:
                problems.append(doc.problem(["kind"], "plugin-kind-refused", _PROJECT_ONLY_KINDS[str(item.kind)]))
                continue
            pack_of[id(doc)] = pack
            if item.kind == "Tool":
                tool_docs.append(doc)
                validators[id(doc)] = item.validator
                if gemini and (pack.name == "project" or self.is_builtin_project):
                    warnings.extend(item.gemini_warnings())
            elif item.kind == "Toolset":
                toolset_docs.append(doc)
            else:
                policy_docs.append(doc)

        if plugins.loaded:
            tool_docs = _granted(tool_docs, pack_of, plugin_of, problems)
        servers = [d for d in policy_docs if d.data["kind"] == "McpServer"]
        # An McpServer's toolset (and its alias, the server's name) may be included by a Toolset.
        later = {str(d.data.get("toolset") or f"mcp-{d.data['name']}") for d in servers}
        later |= {str(d.data["name"]) for d in servers}
        linked = link(tool_docs, toolset_docs, broken_tools, broken_toolsets, later)
        problems.extend(linked.problems)
        declared: set[str] = set()
        if servers:
            from engine.mcp.manifest import check_servers  # noqa: PLC0415

            server_problems, declared = check_servers(servers, linked.toolsets, linked.toolset_aliases)
            problems.extend(server_problems)
        problems.extend(check_enabled_names(config_doc, dict(config.data), linked, broken_toolsets | declared))
        if not self.is_builtin_project:
            problems.extend(_outside_handler_roots(config_doc, config, self.root))
        runtime_docs = [d for d in policy_docs if d.data["kind"] == "Runtime"]
        # The types of this load's plugins, not those of the generation serving now.
        runtime_types = self.runtime_types.staged(plugins.runtime_types())
        runtimes, runtime_problems = check_runtimes(runtime_docs, runtime_types, self.root)
        problems.extend(runtime_problems)
        broken_runtimes = broken_toolsets | ({str(d.data["name"]) for d in runtime_docs} - set(runtimes))
        terminal_runtime = str(config.get("terminal", "runtime"))
        problems.extend(
            check_references(list(linked.tools.values()), runtimes, terminal_runtime, config_doc, broken_runtimes)
        )

        tools: dict[str, ToolSpec] = {}
        tool_validators: dict[str, Any] = {}
        for name, doc in linked.tools.items():
            spec, spec_problems = self._tool_spec(doc, pack_of[id(doc)])
            problems.extend(spec_problems)
            if spec is not None:
                tools[name] = spec
                tool_validators[name] = validators[id(doc)]
        live = {id(doc) for doc in linked.tools.values()}
        self._spec_cache = {k: v for k, v in self._spec_cache.items() if k in live}
        if config["openai"]["strict"] is True and "openai" not in strict:
            strict = [*strict, "openai"]  # every tool must be strict: one that cannot is an error
        for target in strict:
            for doc in linked.tools.values():
                problems.extend(STRICT_LINTS[target](doc))

        toolsets = self._toolsets(linked, pack_of)
        templates, template_problems = self._templates(linked, tools, toolsets, config)
        problems.extend(template_problems)
        manifests = tuple(
            ManifestSpec(
                d.data["kind"],
                str(d.data.get("name") or Path(d.file).stem),
                MappingProxyType(d.data),
                Source(d.file, d.line, d.column),
                d.pack,
            )
            for d in policy_docs
        )
        policy, policy_problems = self._policy(policy_docs, tools, config, config_doc, packs[-1], skipped_patterns)
        problems.extend(policy_problems)
        config_hooks, hook_problems = self._config_hooks(config, config_doc, packs[-1])
        problems.extend(hook_problems)
        if plugins.loaded:
            problems.extend(
                _plugin_contributions(plugins, plugin_of, pack_of, linked, policy_docs, tools, config_hooks, self.root)
            )

        tool_aliases, toolset_aliases = dict(linked.tool_aliases), dict(linked.toolset_aliases)
        reasons: dict[str, str] = {}
        for source in self.sources:
            # After the policy is compiled: a source's tools change often and must not recompile it.
            extra = source.contribute(manifests, tools, {*toolsets, *toolset_aliases})
            warnings.extend(extra.problems)
            for name, spec in extra.tools.items():
                if name not in tools and name not in tool_aliases:
                    tools[name] = spec
                    tool_validators[name] = extra.validators[name]
            for name, toolset in extra.toolsets.items():
                toolsets.setdefault(name, toolset)
            for alias, target in extra.toolset_aliases.items():
                if alias not in toolsets:
                    toolset_aliases.setdefault(alias, target)
            reasons.update(extra.reasons)
        if later and any(t.includes for t in toolsets.values()):
            toolsets, include_problems = _include_later(linked, toolsets, toolset_aliases, later, reasons)
            warnings.extend(include_problems)

        from engine.policy.compile import apply_to_tools  # noqa: PLC0415

        policy = apply_to_tools(policy, tools)  # globs naming tools (MCP servers' tools arrive just now)
        problems.extend(check_settings(config_doc, config.data, tools, toolsets, toolset_aliases))
        all_problems = sorted(problems + warnings)
        failing: dict[int, Problem] = {}
        if plugins.loaded:
            for problem in all_problems:
                owner = plugins.owner(problem.file) if problem.severity == "error" else None
                if owner is not None:
                    failing.setdefault(id(owner), problem)
            all_problems = sorted(remap_problems(all_problems, plugins, self.root))
        counts = {
            "tools": len(tools),
            "toolsets": len(toolsets),
            "patterns": _count_patterns(policy_docs),
        }
        errors = [p for p in all_problems if p.severity == "error"]
        snapshot = None
        if not errors:
            snapshot = Snapshot(
                generation=generation,
                root=self.root,
                config=config,
                tools=MappingProxyType(tools),
                toolsets=MappingProxyType(toolsets),
                tool_aliases=MappingProxyType(tool_aliases),
                toolset_aliases=MappingProxyType(toolset_aliases),
                manifests=manifests,
                warnings=tuple(p for p in all_problems if p.severity == "warning"),
                validators=MappingProxyType(tool_validators),
                policy=policy,
                templates=MappingProxyType(templates),
                config_hooks=MappingProxyType(config_hooks),
                runtimes=MappingProxyType(runtimes),
            )
            self.plugins.commit(plugins, self.runtime_types)
        else:
            located = remap_problems(list(failing.values()), plugins, self.root)
            for plugin in plugins.loaded:
                if id(plugin) in failing:
                    first = located[list(failing).index(id(plugin))]
                    plugin.report.state, plugin.report.reason = "failed", first.format()
                    self.plugins.discard(plugin)
        fingerprints = {str(p): e.parsed.fingerprint for p, e in self._files.items() if e.parsed.fingerprint}
        return LoadResult(snapshot, all_problems, counts, dict(linked.tools), len(seen), plugins, fingerprints)

    # -- specs -------------------------------------------------------------------

    def _bind(self, doc: Document, field_name: str, pack: Pack) -> tuple[Bound | None, Problem | None]:
        dotted = doc.data.get(field_name)
        if dotted is None:
            return None, None
        try:
            return self.binder.bind(dotted, pack), None
        except BindError as exc:
            what = "check" if field_name == "check" else "handler"
            return None, doc.problem([field_name], exc.code, f"{what} {dotted!r}: {exc.message}")

    def _tool_spec(self, doc: Document, pack: Pack) -> tuple[ToolSpec | None, list[Problem]]:
        problems: list[Problem] = []
        handler, problem = self._bind(doc, "handler", pack)
        if problem:
            problems.append(problem)
        check, problem = self._bind(doc, "check", pack)
        if problem:
            problems.append(problem)
        cached = self._spec_cache.get(id(doc))
        if not problems and cached is not None and cached[0] is doc and cached[1] is handler and cached[2] is check:
            return cached[3], []  # same document, same bound functions: the same spec
        spec, found = self._new_tool_spec(doc, pack, handler, check, problems)
        if spec is not None:
            self._spec_cache[id(doc)] = (doc, handler, check, spec)
        return spec, found

    def _new_tool_spec(
        self, doc: Document, pack: Pack, handler: Bound | None, check: Bound | None, problems: list[Problem]
    ) -> tuple[ToolSpec | None, list[Problem]]:
        data = doc.data
        if "handler" not in data and not data.get("agent_loop"):
            problems.append(
                doc.problem(
                    [],
                    "handler-missing",
                    f"tool {data['name']!r} needs handler: (or agent_loop: true when the host provides it)",
                )
            )
        params = data["parameters"]
        properties = params.get("properties") or {}
        required = set(params.get("required") or [])
        if "ctx" in properties:
            problems.append(
                doc.problem(
                    ["parameters", "properties", "ctx"],
                    "handler-signature",
                    "'ctx' is reserved for the call context; rename the argument",
                    key=True,
                )
            )
        if handler is not None:
            problems.extend(_signature_problems(doc, handler, properties, required))
        if check is not None and (check.is_async or check.required or check.accepts_ctx):
            problems.append(
                doc.problem(
                    ["check"],
                    "handler-signature",
                    f"check {check.path!r}: must be a synchronous function taking no arguments",
                )
            )
        for i, arg in enumerate(data.get("path_arguments") or []):
            if arg not in properties:
                problems.append(
                    doc.problem(["path_arguments", i], "argument-unknown", f"{arg!r} is not an argument of this tool")
                )
        for old, new in (data.get("argument_aliases") or {}).items():
            if new not in properties:
                problems.append(
                    doc.problem(
                        ["argument_aliases", old], "argument-unknown", f"{new!r} is not an argument of this tool"
                    )
                )
            if old in properties:
                problems.append(
                    doc.problem(
                        ["argument_aliases", old],
                        "alias-conflict",
                        f"{old!r} is a current argument name, it cannot also be an alias",
                        key=True,
                    )
                )
        if problems:
            return None, problems
        ann = data.get("annotations") or {}
        spec = ToolSpec(
            name=data["name"],
            toolset=data["toolset"],
            description=data["description"],
            parameters=params,
            source=Source(doc.file, doc.line, doc.column),
            pack=pack.name,
            emoji=data.get("emoji"),
            handler_path=data.get("handler"),
            check_path=data.get("check"),
            requires_env=tuple(data.get("requires_env") or ()),
            max_result_size_chars=data.get("max_result_size_chars"),
            timeout=data.get("timeout"),
            override=bool(data.get("override", False)),
            annotations=Annotations(
                **{k: ann.get(k) for k in ("title", "read_only", "destructive", "idempotent", "open_world")}
            ),
            tags=tuple(data.get("tags") or ()),
            aliases=tuple(data.get("aliases") or ()),
            argument_aliases=MappingProxyType(dict(data.get("argument_aliases") or {})),
            parallel_safe=bool(data.get("parallel_safe", False)),
            path_arguments=tuple(data.get("path_arguments") or ()),
            agent_loop=bool(data.get("agent_loop", False)),
            template_env=tuple(data.get("template_env") or ()),
            runtime=data.get("runtime"),
            overrides=MappingProxyType(dict(data.get("overrides") or {})),
            title=data.get("title") or ann.get("title"),
            output_schema=data.get("output_schema"),
            handler=handler,
            check=check,
        )
        return spec, []

    @staticmethod
    def _toolsets(linked: Linked, pack_of: dict[int, Pack]) -> dict[str, ToolsetSpec]:
        out: dict[str, ToolsetSpec] = {}
        for name, doc in linked.toolsets.items():
            data = doc.data
            out[name] = ToolsetSpec(
                name=name,
                description=data["description"],
                source=Source(doc.file, doc.line, doc.column),
                pack=pack_of[id(doc)].name,
                tools=tuple(data.get("tools") or ()),
                includes=tuple(data.get("includes") or ()),
                aliases=tuple(data.get("aliases") or ()),
                members=linked.members.get(name, frozenset()),
            )
        return out

    def _templates(
        self, linked: Linked, tools: dict[str, ToolSpec], toolsets: dict[str, ToolsetSpec], config: Config
    ) -> tuple[dict[str, ToolTemplates], list[Problem]]:
        """Compile and test-render every tool's Jinja templates (cached per document and context)."""
        fingerprint = (tuple(sorted(tools)), tuple(sorted(toolsets)), config.fingerprint)
        # Compared once per load, not once per tool: the names are a thousand long.
        same_context = fingerprint == self._template_fingerprint
        self._template_fingerprint = fingerprint
        context: dict[str, Any] | None = None
        out: dict[str, ToolTemplates] = {}
        problems: list[Problem] = []
        cache: dict[int, tuple[Document, ToolTemplates | None, list[Problem]]] = {}
        for name, doc in linked.tools.items():
            if name not in tools:
                continue
            cached = self._template_cache.get(id(doc)) if same_context else None
            if cached is not None and cached[0] is doc:
                compiled, found = cached[1], cached[2]
            else:
                if context is None:
                    context = sample_context(list(tools), list(toolsets), config.data)
                compiled, found = compile_tool(doc, context)
            cache[id(doc)] = (doc, compiled, found)
            problems.extend(found)
            if compiled is not None:
                out[name] = compiled
        self._template_cache = cache
        return out, problems

    def _config_hooks(
        self, config: Config, config_doc: Document | None, pack: Pack
    ) -> tuple[dict[str, tuple[Bound, ...]], list[Problem]]:
        """Bind the hooks named in the config, under the project's handler roots."""
        problems: list[Problem] = []
        out: dict[str, tuple[Bound, ...]] = {}
        for point, paths in (config.get("hooks") or {}).items():
            bound: list[Bound] = []
            for i, dotted in enumerate(paths or ()):
                try:
                    bound.append(self.binder.bind(dotted, pack))
                except BindError as exc:
                    message = f"hook {dotted!r}: {exc.message}"
                    if config_doc is None:
                        problems.append(Problem("<config>", 1, 1, exc.code, message))
                    else:
                        problems.append(config_doc.problem(["hooks", point, i], exc.code, message))
            out[point] = tuple(bound)
        return out, problems

    def _policy(
        self,
        docs: list[Document],
        tools: dict[str, ToolSpec],
        config: Config,
        config_doc: Document | None,
        project: Pack,
        skipped: dict[int, frozenset[int]],
    ) -> tuple[CompiledPolicy, list[Problem]]:
        # The policy machinery (shell parser, matchers) is imported with the first load.
        from engine.policy.compile import compile_policy  # noqa: PLC0415

        patterns = [d for d in docs if d.data["kind"] == "DangerPatterns"]
        policies = [d for d in docs if d.data["kind"] == "ApprovalPolicy"]
        programs = [d for d in docs if d.data["kind"] == "Programs"]
        # Compiling runs every example; skip it when nothing it depends on changed.
        key = (
            tuple(id(d) for d in docs),
            config.fingerprint,
            frozenset(tools),
            tuple(sorted(skipped.items())),
            project.root,
        )
        if self._policy_cache is not None and self._policy_cache[0] == key:
            return self._policy_cache[1]
        approvals = json.dumps(config.get("approvals"), sort_keys=True, default=repr)
        shared_key = (key[0], approvals, key[2], key[3])
        shared = _SHARED_POLICIES.get(shared_key)
        if shared is not None and all(a is b for a, b in zip(shared[0], docs, strict=True)):
            result = shared[1]
        else:
            result = compile_policy(
                patterns, policies, config, config_doc, self.binder, project, tools, skipped, program_docs=programs
            )
            policy, problems = result
            all_shared = all(id(d) in self._shared_docs for d in docs)
            if all_shared and policy.settings.judge is None and not any(p.severity == "error" for p in problems):
                if len(_SHARED_POLICIES) >= _SHARED_POLICIES_LIMIT:
                    _SHARED_POLICIES.clear()
                _SHARED_POLICIES[shared_key] = (tuple(docs), result)
        self._policy_cache = (key, result)
        return result


def _include_later(
    linked: Linked,
    toolsets: dict[str, ToolsetSpec],
    aliases: dict[str, str],
    later: set[str],
    reasons: dict[str, str],
) -> tuple[dict[str, ToolsetSpec], list[Problem]]:
    """Toolsets with the tools of the McpServer toolsets they include (directly or through
    another), which joined after linking; an include of one that holds no tools now says why,
    as a warning located at the include."""
    problems: list[Problem] = []
    memo: dict[str, frozenset[str]] = {}

    def members(name: str, seen: frozenset[str]) -> frozenset[str]:
        name = name if name in toolsets else aliases.get(name, name)
        spec = toolsets.get(name)
        if spec is None or name in seen:
            return frozenset()
        if name not in memo:
            found = set(spec.members)
            for inc in spec.includes:
                found |= members(inc, seen | {name})
            memo[name] = frozenset(found)
        return memo[name]

    out = dict(toolsets)
    for name, doc in linked.toolsets.items():
        spec = toolsets.get(name)
        if spec is None or not spec.includes:
            continue
        out[name] = replace(spec, members=members(name, frozenset()))
        for i, inc in enumerate(spec.includes):
            target = inc if inc in toolsets else aliases.get(inc, inc)
            if inc in later and target in reasons:
                message = f"toolset {name!r} includes {inc!r}, which holds no tools now: {reasons[target]}"
                problems.append(doc.problem(["includes", i], "toolset-unavailable", message, severity="warning"))
    return out, problems


def _outside_handler_roots(config_doc: Document | None, config: Config, root: Path) -> list[Problem]:
    """handler_roots written in the config must be packages of the project: naming `subprocess`
    or an installed package would let a manifest bind code the project does not hold."""
    written = (
        config_doc.data.get("handler_roots") if config_doc is not None and isinstance(config_doc.data, dict) else None
    )
    if config_doc is None or written != list(config["handler_roots"]):  # not written, or invalid (reported)
        return []
    problems = []
    for i, prefix in enumerate(config["handler_roots"]):
        top = prefix.split(".", 1)[0]
        if not is_project_package(top, root):
            problems.append(
                config_doc.problem(
                    ["handler_roots", i],
                    "handler-root-outside",
                    f"handler root {prefix!r} is not a package of this project (no {top}/ or {top}.py here); "
                    "handlers must be the project's own code, not a standard or installed module",
                )
            )
    return problems


_PROJECT_ONLY_KINDS = {
    "ApprovalPolicy": "a plugin cannot ship an ApprovalPolicy: approval settings are the project's and the operator's",
    "Programs": "a plugin cannot ship Programs: they change how every command is read; only the project may",
}


def _granted(
    tool_docs: list[Document], pack_of: dict[int, Pack], plugin_of: Mapping[str, Any], problems: list[Problem]
) -> list[Document]:
    """A plugin's tool that replaces one already defined (builtin, project or another plugin's)
    needs ``plugins.grants: {NAME: [override]}``; without it the tool is refused, the first kept."""
    first: dict[str, Document] = {}
    out: list[Document] = []
    for doc in tool_docs:
        name = doc.data["name"]
        plugin = plugin_of.get(pack_of[id(doc)].name)
        if plugin is not None and name in first and first[name].pack != doc.pack:
            problem = grant_problem(plugin, doc, first[name])
            if problem is not None:
                problems.append(problem)
                continue
        first.setdefault(name, doc)
        out.append(doc)
    return out


def _plugin_contributions(
    plugins: PluginSet,
    plugin_of: Mapping[str, Any],
    pack_of: dict[int, Pack],
    linked: Linked,
    policy_docs: list[Document],
    tools: Mapping[str, ToolSpec],
    config_hooks: dict[str, tuple[Bound, ...]],
    root: Path,
) -> list[Problem]:
    """Hooks and providers of the plugins, checked; what each plugin added, for its report."""
    problems: list[Problem] = []
    for plugin in plugins.loaded:
        for key in ("tools", "toolsets", "manifests"):
            plugin.report.added[key] = []
        plugin.report.state, plugin.report.reason = "loaded", None
    for what, docs in (("tools", linked.tools), ("toolsets", linked.toolsets)):
        for name, doc in docs.items():
            owner = plugin_of.get(pack_of[id(doc)].name) if id(doc) in pack_of else None
            if owner is not None:
                owner.report.added[what].append(name)
    for doc in policy_docs:
        owner = plugin_of.get(pack_of[id(doc)].name) if id(doc) in pack_of else None
        if owner is not None:
            owner.report.added["manifests"].append(f"{doc.data['kind']} {doc.data.get('name') or doc.file}")
    plugins.providers = {}
    for plugin in plugins.loaded:
        for point, items in plugin.hooks.items():
            config_hooks[point] = (*config_hooks.get(point, ()), *items)
        for tool, (bound, where) in plugin.providers.items():
            message = provider_problem(tool, tools.get(tool), bound.required)
            if message is None and tool in plugins.providers:
                message = f"another plugin already provides {tool!r}"
            if message is not None:
                file = where.file
                with contextlib.suppress(ValueError, OSError):
                    file = Path(file).resolve().relative_to(root).as_posix()
                message = f"plugin {plugin.name!r}: {message}"
                problems.append(Problem(file, where.line, 1, "plugin-provider-invalid", message))
            else:
                plugins.providers[tool] = bound
    return problems


def load_reporting(loader: ProjectLoader, generation: int = 1) -> LoadResult:
    """:meth:`ProjectLoader.load` for long-running commands (``dev``): a failure of the engine
    itself becomes a problem to report (on the config file), never an exception that ends it."""
    try:
        return loader.load(generation)
    except Exception as exc:
        message = f"the engine failed while loading ({type(exc).__name__}: {exc}); this is a bug in hermes-engine"
        return LoadResult(None, [Problem(CONFIG_NAMES[0], 1, 1, "load-failed", message)], {})


def _signature_problems(doc: Document, bound: Bound, properties: dict[str, Any], required: set[str]) -> list[Problem]:
    problems: list[Problem] = []
    if bound.refused_return is not None:
        problems.append(
            doc.problem(
                ["handler"],
                "handler-signature",
                f"{bound.path} is declared to return {bound.refused_return}; a handler must return str, "
                "dict, list or multimodal content parts (return str(value) or a dict)",
            )
        )
    for param in sorted(bound.required):
        if param not in required:
            where = ["parameters", "properties", param] if param in properties else ["handler"]
            problems.append(
                doc.problem(
                    where,
                    "handler-signature",
                    f"{bound.path} requires argument {param!r} but the schema "
                    + ("does not require it" if param in properties else "does not declare it")
                    + "; give the parameter a default or list it in required",
                    key=param in properties,
                )
            )
    if not bound.var_kwargs:
        for prop in properties:
            if prop not in bound.params and prop != "ctx":
                problems.append(
                    doc.problem(
                        ["parameters", "properties", prop],
                        "handler-signature",
                        f"argument {prop!r} is not a parameter of {bound.path}",
                        key=True,
                    )
                )
    return problems


def _pattern_index(pointer: str) -> int | None:
    parts = pointer.split("/")
    if len(parts) >= 3 and parts[1] in ("patterns", "programs") and parts[2].isdigit():
        return int(parts[2])
    return None


def _count_patterns(docs: list[Document]) -> int:
    return sum(len(d.data.get("patterns") or []) for d in docs if d.data.get("kind") == "DangerPatterns")
