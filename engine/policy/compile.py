"""DangerPatterns and ApprovalPolicy manifests → a CompiledPolicy, with located problems.

Every pattern's examples are run here: a `match` example the pattern does not
match, or a `not_match` example it does, is a validation error at the example.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from engine.compile.binding import Binder, BindError
from engine.config import Config
from engine.errors import Problem
from engine.policy.arguments import COMMAND_ARGUMENTS
from engine.policy.commands import renamed
from engine.policy.evaluate import Evaluator
from engine.policy.matchers import PatternError, compile_matcher, compile_regex, triggers
from engine.policy.model import ApprovalSettings, CompiledPattern, CompiledPolicy, Rule, Target
from engine.policy.paths import (
    COMPUTED_CLASSES,
    EXAMPLE_PLACES,
    PARENTS_PREFIX,
    GlobError,
    fewest_fragments,
    glob_to_regex,
    literal_union,
    parent_globs,
)
from engine.policy.programs import ProgramTable, compile_programs, digest, examples_clean, remember_clean, table_digest
from engine.policy.regexes import Regex, RegexTimeout, compile_glob
from engine.policy.trees import FOLLOWERS
from engine.records import replace
from engine.registry.specs import Source
from engine.source.project import Pack
from engine.source.yamlfile import Document

# Shell commands reach the machine through the terminal, through a shell running in the
# background when the model writes to its stdin, and through execute_code (its program is
# read as the `python3 -c CODE` or `node -e CODE` line that runs it).
DEFAULT_TARGETS = (
    Target("terminal", "command", "command"),
    Target("process", "input", "command"),
    Target("execute_code", "code", "code"),
)


def command_glob(text: str, *, fold: bool = False) -> Regex:
    """A rule glob: `*` matches anything, spaces and slashes included.

    Deny and ask globs ``fold`` case (the strictest reading: hosts are case-insensitive);
    allow globs never do.
    """
    return compile_glob(text, ignore_case=fold)


def _classes(docs: list[Document], problems: list[Problem]) -> dict[str, tuple[str, ...]]:
    merged: dict[str, list[str]] = {}
    # A project may add to the builtin pack's classes, never carve an exception out of one:
    # `!/Users/bob` on home_top would turn a hardline delete into something askable.
    builtin = {name for doc in docs if doc.pack == "builtin" for name in doc.data.get("path_classes") or {}}
    # A plugin may not carve one out of the project's classes either.
    project = builtin | {name for doc in docs if doc.pack == "project" for name in doc.data.get("path_classes") or {}}
    for doc in docs:
        plugin = doc.pack.startswith("plugin:")
        guarded, owner = (project, "the project's or builtin") if plugin else (builtin, "the builtin")
        for name, globs in (doc.data.get("path_classes") or {}).items():
            if name in COMPUTED_CLASSES:
                problems.append(
                    doc.problem(
                        ["path_classes", name],
                        "pattern-invalid",
                        f"path class {name!r} is computed by the engine; pick another name",
                        key=True,
                    )
                )
                continue
            for i, glob in enumerate(globs):
                if glob.startswith("!") and name in guarded and doc.pack != "builtin":
                    message = (
                        f"{glob!r} excludes paths from {owner} path class {name!r}; "
                        "a project or plugin may add to such a class but not exclude from it"
                    )
                    problems.append(doc.problem(["path_classes", name, i], "class-exclusion", message))
                    continue
                try:
                    glob_to_regex(glob.lstrip("!"))
                except GlobError as exc:
                    problems.append(doc.problem(["path_classes", name, i], "pattern-invalid", str(exc)))
                    continue
                merged.setdefault(name, []).append(glob)
    return {k: tuple(_parents(k, v, merged, problems, docs)) for k, v in merged.items()}


def _folders(docs: list[Document]) -> dict[str, tuple[str, ...]]:
    """Each variable's usual folders (`variable_folders:`, checked by the schema), in pack order: a
    project or plugin adds a folder to a variable, never replaces the builtin pack's."""
    merged: dict[str, tuple[str, ...]] = {}
    for doc in docs:
        for name, folder in (doc.data.get("variable_folders") or {}).items():
            if folder not in merged.get(name, ()):
                merged[name] = (*merged.get(name, ()), folder)
    return merged


def _parents(
    name: str, globs: list[str], merged: Mapping[str, list[str]], problems: list[Problem], docs: list[Document]
) -> list[str]:
    """A class's globs with each `parents:OTHER` replaced by the folders above OTHER's paths."""
    out: list[str] = []
    for glob in globs:
        if not glob.startswith(PARENTS_PREFIX):
            out.append(glob)
            continue
        other = glob[len(PARENTS_PREFIX) :]
        source = merged.get(other)
        if source is None or any(g.startswith(PARENTS_PREFIX) for g in source):
            doc = next(d for d in docs if glob in ((d.data.get("path_classes") or {}).get(name) or ()))
            where: list[str | int] = ["path_classes", name, list(doc.data["path_classes"][name]).index(glob)]
            problems.append(
                doc.problem(where, "pattern-invalid", f"{glob!r}: no declared path class {other!r} without parents:")
            )
            continue
        out += parent_globs(source)
    return out


def _targets(data: Mapping[str, Any]) -> tuple[Target, ...]:
    applies = data.get("applies_to")
    if not applies:
        return DEFAULT_TARGETS
    out = []
    for item in applies:
        mode = item.get("as") or ("command" if item["argument"] in COMMAND_ARGUMENTS else "path")
        out.append(Target(item["tool"], item["argument"], mode))
    return tuple(out)


def compile_policy(
    pattern_docs: list[Document],
    policy_docs: list[Document],
    config: Config,
    config_doc: Document | None,
    binder: Binder,
    project_pack: Pack,
    tool_names: Iterable[str],
    skipped: Mapping[int, frozenset[int]] | None = None,
    program_docs: Iterable[Document] = (),
) -> tuple[CompiledPolicy, list[Problem]]:
    """Compile every policy manifest of the project (builtin pack first)."""
    program_list = list(program_docs)
    table_key = table_digest(program_list, skipped)
    programs, problems = compile_programs(program_list, skipped, table_key)
    classes = _classes(pattern_docs, problems)
    folders = _folders(pattern_docs)
    # What every pattern's examples depend on besides the pattern: the program table, the classes
    # and the variables' usual folders.
    examples_key = digest([table_key, sorted(classes.items()), sorted(folders.items())])
    known = frozenset(classes) | COMPUTED_CLASSES
    bare = CompiledPolicy((), classes, ApprovalSettings(), {}, frozenset(), (), True, programs, folders)
    examples = Evaluator(bare, places=EXAMPLE_PLACES)
    tools = set(tool_names)
    patterns: list[CompiledPattern] = []
    seen: dict[str, str] = {}  # pattern key -> where it was first defined
    words: set[str] = set()
    substrings: set[str] = set()
    always_parse = False
    for doc in pattern_docs:
        broken = (skipped or {}).get(id(doc), frozenset())
        for index, data in enumerate(doc.data.get("patterns") or ()):
            if index in broken:
                continue  # its structural problems are already reported
            base: list[str | int] = ["patterns", index]
            key = data["key"]
            if key in seen:
                message = f"pattern key {key!r} is already used at {seen[key]}"
                problems.append(doc.problem([*base, "key"], "pattern-duplicate", message))
                continue
            seen[key] = f"{doc.file}:{doc.locate([*base])[0]}"
            raw = data.get("match")
            specs = raw if isinstance(raw, list) else [raw] if raw else []
            try:
                specs = [
                    program_sets(spec, programs, ["match", i] if isinstance(raw, list) else ["match"])
                    for i, spec in enumerate(specs)
                ]
                matchers = tuple(
                    compile_matcher(spec, known, ["match", i] if isinstance(raw, list) else ["match"])
                    for i, spec in enumerate(specs)
                )
                regex = compile_regex(data["regex"], ["regex"]) if "regex" in data else None
            except PatternError as exc:
                problems.append(doc.problem([*base, *exc.pointer], "pattern-invalid", exc.message))
                continue
            targets = _targets(data)
            is_path = any(m.path is not None for m in matchers)
            if is_path and not data.get("applies_to"):
                problems.append(
                    doc.problem(
                        [*base, "match", "path"],
                        "pattern-invalid",
                        "a path matcher needs applies_to naming the tools and arguments it reads",
                    )
                )
                continue
            for i, target in enumerate(targets):
                # A glob, or another MCP server's tool, names tools that join after this compile.
                if data.get("applies_to") and target.tool not in tools and not _later(target.tool):
                    problems.append(
                        doc.problem(
                            [*base, "applies_to", i, "tool"],
                            "tool-unknown",
                            f"applies_to names tool {target.tool!r}, which this project does not have",
                            severity="warning",
                        )
                    )
            pattern = CompiledPattern(
                key,
                data["description"],
                data["severity"],
                matchers,
                regex,
                targets,
                Source(doc.file, *doc.locate([*base])),
            )
            example_key = (examples_key, digest(data))
            if not examples_clean(example_key):
                found_problems = _run_examples(examples, pattern, doc, base)
                if not found_problems:
                    remember_clean(example_key)
                problems.extend(found_problems)
            patterns.append(pattern)
            if not is_path and matchers and any(t.mode == "command" for t in targets):
                # A bare regex is checked on every command anyway; matchers need triggers.
                for spec, matcher in zip(specs, matchers, strict=True):
                    found = triggers(spec, classes)
                    if found is None:
                        always_parse = True
                    else:
                        words |= found[0]
                        substrings |= found[1]
                        # (a self-piped call's fragment is in the line, its definition, not in the call's words)
                        if matcher.names is None and not matcher.name_globs and found[1] and not matcher.self_piped:
                            ordered = fewest_fragments(found[1])
                            matcher.prefilter = re.compile(literal_union(ordered))
                            matcher.prefilter_fragments = tuple(ordered)
    settings, setting_problems = _settings(policy_docs, config, config_doc, binder, project_pack, set(seen))
    problems.extend(setting_problems)
    by_tool: dict[str, list[tuple[str, str]]] = {}

    def guard(tool: str, argument: str, mode: str) -> None:
        entries = by_tool.setdefault(tool, [])
        if (argument, mode) not in entries:
            entries.append((argument, mode))

    for pattern in patterns:
        for target in pattern.targets:
            guard(target.tool, target.argument, target.mode)
    for tool, kinds in settings.rules.items():
        for rules in kinds.values():
            for rule in rules:
                for name, _ in rule.globs:
                    guard(tool, name, "command" if name in COMMAND_ARGUMENTS else "path")
    if settings.deny_globs:
        for default in DEFAULT_TARGETS:
            guard(default.tool, default.argument, default.mode)
    policy = CompiledPolicy(
        patterns=tuple(patterns),
        classes=classes,
        settings=settings,
        targets={k: tuple(v) for k, v in by_tool.items()},
        # `cd` moves relative paths somewhere else: such lines are always parsed; so are readers that
        # follow a tree's links (`du -L src` with `src/k -> ~/.ssh` reads `~/.ssh`: links.FOLLOWERS).
        trigger_words=frozenset(_with_renamed(words | {"cd", "pushd", "popd"} | FOLLOWERS | programs.triggers()[0])),
        # Only those no other one is part of (the others say nothing more): the evaluator, built on
        # every start of a judging command, reduces a few instead of hundreds.
        trigger_substrings=tuple(sorted(fewest_fragments(substrings | programs.triggers()[1]))),
        always_parse=always_parse,
        programs=programs,
        folders=folders,
    )
    return policy, problems


_GLOB_CHARS = frozenset("*?[")


# Tools only `hermes-engine guard` judges (engine.guard.hook.AGENT_SEARCH: an agent's own search).
GUARD_TOOLS = frozenset({"agent_search"})


# A matcher's `command:` may name a set of programs the Programs tables know, instead of a list by hand:
# `@sends` is every program with a `sends:` (policies/senders.yaml, and the executors' and printers' rows),
# so a sender added there is one of the project_exfiltration rows' programs too (debt38).
PROGRAM_SETS: Mapping[str, Callable[[ProgramTable], Iterable[str]]] = {"@sends": lambda table: table.senders}


def program_sets(spec: Mapping[str, Any], programs: ProgramTable, pointer: list[str | int]) -> Mapping[str, Any]:
    """``spec`` with each program set of its `command:` (`@sends`) replaced by the names it stands for.

    Raises:
    PatternError: a name starting with `@` that is no program set.
    """
    names: list[str] = list(spec.get("command") or ())
    if not any(name.startswith("@") for name in names):
        return spec
    expanded: list[str] = []
    for i, name in enumerate(names):
        if not name.startswith("@"):
            expanded.append(name)
        elif name in PROGRAM_SETS:
            expanded.extend(sorted(PROGRAM_SETS[name](programs)))
        else:
            known = ", ".join(sorted(PROGRAM_SETS))
            raise PatternError([*pointer, "command", i], f"unknown program set {name!r} (known: {known})")
    # a set with no program (a project without the builtin tables) names none: the set's own name, no program's,
    # keeps the matcher to nothing (an empty `command:` would be any program)
    return {**spec, "command": expanded or [names[0]]}


def _later(tool: str) -> bool:
    return tool.startswith("mcp__") or tool in GUARD_TOOLS or not _GLOB_CHARS.isdisjoint(tool)


def apply_to_tools(policy: CompiledPolicy, names: Iterable[str]) -> CompiledPolicy:
    """``policy`` with the rules and pattern targets that name tools by glob (``mcp__git__*``)
    applied to each tool in ``names`` that the glob matches.

    The policy is compiled before other MCP servers' tools join a load; this runs after,
    on every tool, so a glob covers a server's tools whenever they arrive.
    """
    rule_globs = [t for t in policy.settings.rules if not _GLOB_CHARS.isdisjoint(t)]
    target_globs = {t.tool for p in policy.patterns for t in p.targets if not _GLOB_CHARS.isdisjoint(t.tool)}
    if not rule_globs and not target_globs:
        return policy
    names = [n for n in names if _GLOB_CHARS.isdisjoint(n)]
    rules = {tool: dict(kinds) for tool, kinds in policy.settings.rules.items()}
    targets = {tool: list(entries) for tool, entries in policy.targets.items()}

    def guard(tool: str, argument: str, mode: str) -> None:
        entries = targets.setdefault(tool, [])
        if (argument, mode) not in entries:
            entries.append((argument, mode))

    for glob in rule_globs:
        for name in (n for n in names if fnmatch.fnmatchcase(n, glob)):
            for kind, found in policy.settings.rules[glob].items():
                rules.setdefault(name, {})[kind] = (*rules.get(name, {}).get(kind, ()), *found)
                for rule in found:
                    for argument, _ in rule.globs:
                        guard(name, argument, "command" if argument in COMMAND_ARGUMENTS else "path")
    patterns = []
    for pattern in policy.patterns:
        extra = tuple(
            Target(name, t.argument, t.mode)
            for t in pattern.targets
            if t.tool in target_globs
            for name in names
            if fnmatch.fnmatchcase(name, t.tool)
        )
        for target in extra:
            guard(target.tool, target.argument, target.mode)
        patterns.append(replace(pattern, targets=(*pattern.targets, *extra)) if extra else pattern)
    settings = replace(policy.settings, rules=rules)
    return replace(
        policy, patterns=tuple(patterns), settings=settings, targets={k: tuple(v) for k, v in targets.items()}
    )


# How many times an example that ran past its time limit is judged again before that is an error:
# a catastrophic pattern runs past it every time, an ordinary one only when the machine interfered
# (under a loaded CI a 0.1 ms search once measured over 2 ms of CPU time and failed `validate`).
_EXAMPLE_TRIES = 4


def _judge_example(
    evaluator: Evaluator, pattern: CompiledPattern, example: str, as_path: bool, expected: bool
) -> tuple[bool, str | None]:
    """Whether ``pattern`` matches ``example``, and the problem that kept it from judging, if any."""
    hit, problem = not expected, None
    for _ in range(_EXAMPLE_TRIES):
        problem = None
        try:
            if as_path:
                hit = bool(evaluator.detect_path(example, [pattern]))
            else:
                found, problem = evaluator.detect_command(example, [pattern])
                hit = bool(found)
        except RegexTimeout as exc:
            hit, problem = not expected, str(exc)
        if problem is None or "took longer than" not in problem:
            break
    return hit, problem


def _run_examples(
    evaluator: Evaluator, pattern: CompiledPattern, doc: Document, base: list[str | int]
) -> list[Problem]:
    """Each example must (or must not) be matched by its own pattern."""
    examples = _examples(doc, base)
    problems: list[Problem] = []
    as_path = pattern.targets[0].mode == "path"
    for expected, key in ((True, "match"), (False, "not_match")):
        for i, example in enumerate(examples.get(key) or ()):
            hit, problem = _judge_example(evaluator, pattern, example, as_path, expected)
            if problem is not None and "took longer than" in problem:
                # The example runs under the limits every check has: past them it is an error,
                # whatever was expected (a catastrophic regex must not pass as "no match").
                message = f"pattern {pattern.key!r} cannot judge its {key} example {example!r} in time: {problem}"
                problems.append(doc.problem([*base, "examples", key, i], "pattern-example-failed", message))
                continue
            if hit == expected:
                continue
            verb = "does not match" if expected else "matches"
            note = f" (it cannot be parsed: {problem})" if problem and expected else ""
            problems.append(
                doc.problem(
                    [*base, "examples", key, i],
                    "pattern-example-failed",
                    f"pattern {pattern.key!r} {verb} its {key} example {example!r}{note}",
                )
            )
    return problems


def _examples(doc: Document, base: list[str | int]) -> Mapping[str, list[str]]:
    node: Any = doc.data
    for part in base:
        node = node[part]
    examples: Mapping[str, list[str]] = node.get("examples") or {}
    return examples


def _settings(
    docs: list[Document],
    config: Config,
    config_doc: Document | None,
    binder: Binder,
    pack: Pack,
    pattern_keys: set[str],
) -> tuple[ApprovalSettings, list[Problem]]:
    """Builtin policy ← project policy ← the operator's config (approvals:)."""
    problems: list[Problem] = []
    merged: dict[str, Any] = {}
    allowlist: list[str] = []
    deny: list[str] = []
    rules: dict[str, dict[str, list[Rule]]] = {}
    by_pack: dict[str, Document] = {}
    for doc in docs:
        first = by_pack.get(doc.pack)
        if first is not None:
            problems.append(
                doc.problem(
                    [],
                    "policy-duplicate",
                    f"a second ApprovalPolicy in this pack (the first is at {first.file}:{first.line})",
                )
            )
            continue
        by_pack[doc.pack] = doc
        data = doc.data
        for key in ("mode", "timeout", "unattended", "yolo", "judge"):
            if key in data:
                merged[key] = "off" if key == "mode" and data[key] is False else data[key]
                merged[f"{key}@"] = (doc, [key])
        allowlist.extend(data.get("command_allowlist") or ())
        deny.extend(data.get("deny") or ())
        for tool, kinds in (data.get("rules") or {}).items():
            for kind, items in kinds.items():
                for item in items:
                    text = ", ".join(f"{k}: {v!r}" for k, v in item.items())
                    fold = kind != "allow"
                    globs = tuple((k, command_glob(v, fold=fold)) for k, v in item.items())
                    rule = Rule(globs, f"{tool}({text})", tuple(item.values()))
                    rules.setdefault(tool, {}).setdefault(kind, []).append(rule)
    operator = config.get("approvals")
    for key in ("mode", "timeout", "yolo", "judge"):
        if operator.get(key) is not None:
            merged[key] = operator[key]
            merged[f"{key}@"] = (config_doc, ["approvals", key])
    allowlist.extend(operator.get("command_allowlist") or ())
    judge = None
    if merged.get("judge"):
        try:
            judge = binder.bind(merged["judge"], pack)
        except BindError as exc:
            where_doc, pointer = merged["judge@"]
            message = f"judge {merged['judge']!r}: {exc.message}"
            problems.append(
                where_doc.problem(pointer, exc.code, message)
                if where_doc
                else Problem("<config>", 1, 1, exc.code, message)
            )
    if merged.get("mode") == "smart" and judge is None and not problems:
        where_doc, pointer = merged["mode@"]
        message = "mode: smart needs a judge (package.module:function)"
        problems.append(
            where_doc.problem(pointer, "policy-invalid", message)
            if where_doc
            else Problem("<config>", 1, 1, "policy-invalid", message)
        )
    # An entry naming a pattern key approves that pattern; anything else is a command glob.
    keys = frozenset(a for a in allowlist if a in pattern_keys)
    globs = tuple((a, command_glob(a)) for a in allowlist if a not in keys)
    settings = ApprovalSettings(
        mode=str(merged.get("mode", "manual")),
        timeout=float(merged.get("timeout", 60)),
        unattended=str(merged.get("unattended", "deny")),
        yolo=bool(merged.get("yolo", False)),
        judge=judge,
        allowlist_keys=keys,
        allowlist_globs=globs,
        deny_globs=tuple((d, command_glob(d, fold=True)) for d in deny),
        rules={tool: {kind: tuple(r) for kind, r in kinds.items()} for tool, kinds in rules.items()},
        audit_log=operator.get("audit_log"),
    )
    return settings, problems


def _with_renamed(words: set[str]) -> set[str]:
    """Trigger words with the other names of the same programs (`gcp` runs cp)."""
    return words | renamed(words)
