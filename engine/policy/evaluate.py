"""Judging a call: danger patterns, then the approval policy's floors and rules.

Precedence: hardline > deny (policy floors and deny rules) > ask (ask rules,
unparseable input, dangerous matches not covered by the allowlist or an allow
rule) > allow. A command that cannot be parsed is never allowed by default.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.policy.lexer import ShellSyntaxError
from engine.policy.matchers import Matcher
from engine.policy.model import ALLOW, ASK, DENY, CompiledPattern, CompiledPolicy, Match, Rule, Verdict
from engine.policy.normalize import normalize
from engine.policy.paths import PathClassifier
from engine.policy.rulematch import Piece, hit_texts, pieces, strict_hit
from engine.policy.shell import Command, parse

# What hides words from the fast path (quotes, escapes, expansions, braces), or needs
# the parser to be judged at all (a here-document may be unterminated).
_OBFUSCATION = re.compile(r"[$`'\"\\{]|<<")
_WORDS = re.compile(r"[a-z0-9_.+-]+")
_QUOTES = re.compile(r"[\"'`]")
# Arguments rule globs read as shell commands (matched against each simple command too).
_COMMAND_ARGUMENTS = frozenset({"command", "cmd", "script", "shell_command", "input"})


_ALLOWED = Verdict(ALLOW, False)

# (pattern index, pattern, matcher, whether the command's name is already known to pass)
_Entry = tuple[int, CompiledPattern, Matcher, bool]


@dataclass(slots=True)
class _Index:
    """Which matchers can apply to a command of a given name, so each command meets only those."""

    by_name: dict[str, list[_Entry]]
    # (name, first subcommand word) -> matchers that require that subcommand (git push, docker rm ...)
    by_subcommand: dict[tuple[str, str], list[_Entry]]
    generic: list[_Entry]  # any command name
    redirecting: list[_Entry]  # any command name, but only judging its redirections
    globbed: list[_Entry]  # names given as globs (mkfs.*)
    dynamic: list[_Entry]  # those that also apply to names known only at run time
    regex_only: list[tuple[int, CompiledPattern]]  # patterns that are a bare regex over the text
    _names: dict[str, list[_Entry]]
    _sub_names: frozenset[str] = frozenset()  # names with entries in by_subcommand

    @classmethod
    def build(cls, patterns: tuple[CompiledPattern, ...]) -> _Index:
        by_name: dict[str, list[_Entry]] = {}
        by_subcommand: dict[tuple[str, str], list[_Entry]] = {}
        generic: list[_Entry] = []
        redirecting: list[_Entry] = []
        globbed: list[_Entry] = []
        dynamic: list[_Entry] = []
        regex_only: list[tuple[int, CompiledPattern]] = []
        for i, pattern in enumerate(patterns):
            if not pattern.matchers:
                if pattern.regex is not None:
                    regex_only.append((i, pattern))
                continue
            for matcher in pattern.matchers:
                if matcher.path is not None:
                    continue
                # Matchers found by their exact or glob name need no second name test; the
                # others (any name, names known only at run time, not_command lists) run it.
                unnamed: _Entry = (i, pattern, matcher, False)
                named: _Entry = (i, pattern, matcher, not matcher.not_names)
                if matcher.dynamic is not False:
                    dynamic.append(unnamed)
                if matcher.names is None and not matcher.name_globs:
                    only_redirects = (
                        (matcher.redirects is not None or matcher.reads is not None)
                        and not matcher.uses_shape
                        and not (matcher.text or matcher.code or matcher.code_paths or matcher.via or matcher.fed_by)
                    )
                    (redirecting if only_redirects else generic).append(unnamed)
                    continue
                firsts = {sub[0] for sub in matcher.subcommands if sub}
                for name in matcher.names or ():
                    if firsts and len(firsts) == len(matcher.subcommands):
                        for first in firsts:
                            by_subcommand.setdefault((name, first), []).append(named)
                    else:
                        by_name.setdefault(name, []).append(named)
                if matcher.name_globs:
                    globbed.append(named)
        sub_names = frozenset(name for name, _ in by_subcommand)
        return cls(by_name, by_subcommand, generic, redirecting, globbed, dynamic, regex_only, {}, sub_names)

    def candidates(self, command: Command) -> list[_Entry]:
        """Matchers that may apply to ``command``."""
        if command.is_dynamic:
            return self.dynamic
        name = command.name
        cached = self._names.get(name)
        if cached is None:
            globbed = [e for e in self.globbed if any(g.match(name) for g in e[2].name_globs)]
            cached = self._names[name] = [*self.by_name.get(name, ()), *globbed]
        if name in self._sub_names:
            first = _first_positional(command)
            if first is not None:
                specific = self.by_subcommand.get((name, first))
                if specific:
                    cached = [*cached, *specific]
        generic = self.generic
        if generic and command.cwd is None:
            # Name-less matchers look for paths: skip those whose path text is absent.
            lowered = command.text.lower()
            generic = [e for e in generic if e[2].prefilter is None or e[2].prefilter.search(lowered)]
        if command.redirects:
            return [*cached, *generic, *self.redirecting]
        return [*cached, *generic] if generic else cached


def _first_positional(command: Command) -> str | None:
    for word in command.argv[1:]:
        if word[:1] != "-":
            return word.lower()
    return None


class Evaluator:
    """Verdicts for one compiled policy and one working directory."""

    def __init__(self, policy: CompiledPolicy, cwd: str | None = None) -> None:
        self.policy = policy
        self.classifier = PathClassifier(policy.classes, cwd)
        self._by_target: dict[tuple[str, str], tuple[CompiledPattern, ...]] = {}
        self._indexes: dict[int, tuple[tuple[CompiledPattern, ...], _Index]] = {}
        self._substrings = _alternation(policy.trigger_substrings)
        for pattern in policy.patterns:
            for target in pattern.targets:
                key = (target.tool, target.argument)
                self._by_target[key] = (*self._by_target.get(key, ()), pattern)

    # -- detection ------------------------------------------------------------------

    def patterns_for(self, tool: str, argument: str) -> tuple[CompiledPattern, ...]:
        return self._by_target.get((tool, argument), ())

    def detect_command(
        self, value: str, patterns: Iterable[CompiledPattern], *, normalized: bool = False
    ) -> tuple[list[Match], str | None]:
        """Matches of ``patterns`` in a shell command, and why it could not be parsed (if so)."""
        text = value if normalized else normalize(value)
        patterns = tuple(patterns)
        index = self._index(patterns)
        matches: list[Match] = []
        if self._can_skip(text):
            for _, pattern in index.regex_only:
                if pattern.regex.search(text):  # type: ignore[union-attr]
                    matches.append(Match(pattern.key, pattern.description, pattern.severity, text.strip()))
            return matches, None
        unparseable: str | None = None
        try:
            commands = parse(text)
        except ShellSyntaxError as exc:
            unparseable = str(exc)
            try:  # judge what the words would do if the quoting were fixed
                commands = parse(_QUOTES.sub(" ", text))
            except ShellSyntaxError:
                commands = []
        classify = self.classifier.classify
        regex_ok: dict[int, bool] = {}
        hits: list[tuple[int, Match]] = []
        seen: set[tuple[int, str]] = set()
        for command in commands:
            shown = command.text
            for i, pattern, matcher, name_checked in index.candidates(command):
                # Every matching command is reported: an allow rule may cover one and not another.
                if seen and (i, shown) in seen:
                    continue
                regex = pattern.regex
                if regex is not None:
                    ok = regex_ok.get(i)
                    if ok is None:
                        ok = regex_ok[i] = regex.search(text) is not None
                    if not ok:
                        continue
                if matcher.matches_command(command, classify, name_checked):
                    seen.add((i, shown))
                    hits.append((i, Match(pattern.key, pattern.description, pattern.severity, shown, command.via)))
        for i, pattern in index.regex_only:
            if pattern.regex.search(text):  # type: ignore[union-attr]
                hits.append((i, Match(pattern.key, pattern.description, pattern.severity, text.strip())))
        if len(hits) > 1:
            hits.sort(key=_first)
        matches.extend(match for _, match in hits)
        return matches, unparseable

    def _index(self, patterns: tuple[CompiledPattern, ...]) -> _Index:
        # Keyed by the tuple's identity: the per-target tuples live as long as the evaluator,
        # and the entry keeps its tuple alive so the id cannot be reused.
        entry = self._indexes.get(id(patterns))
        if entry is None or entry[0] is not patterns:
            entry = self._indexes[id(patterns)] = (patterns, _Index.build(patterns))
        return entry[1]

    def detect_path(self, value: str, patterns: Iterable[CompiledPattern]) -> list[Match]:
        classify = self.classifier.classify
        return [
            Match(p.key, p.description, p.severity, value)
            for p in patterns
            if any(m.matches_path(value, classify) for m in p.matchers)
        ]

    def _can_skip(self, text: str) -> bool:
        """True when no pattern can possibly match: no trigger word or path fragment, nothing hidden."""
        policy = self.policy
        if policy.always_parse or _OBFUSCATION.search(text):
            return False
        lowered = text.lower()
        if self._substrings is not None and self._substrings.search(lowered):
            return False
        return policy.trigger_words.isdisjoint(_WORDS.findall(lowered))

    # -- verdicts ---------------------------------------------------------------------

    def verdict(self, tool: str, args: Mapping[str, Any]) -> Verdict:
        """The decision for a call to ``tool`` with ``args`` (before anyone is asked)."""
        policy = self.policy
        matches: list[Match] = []
        commands: list[str] = []  # values read as commands, with their simple commands
        unparseable: str | None = None
        for argument, mode in policy.targets.get(tool, ()):
            for value in _strings(args.get(argument)):
                patterns = self.patterns_for(tool, argument)
                if mode == "command":
                    text = normalize(value)
                    found, problem = self.detect_command(text, patterns, normalized=True)
                    matches.extend(found)
                    unparseable = unparseable or problem
                    commands.append(text)
                else:
                    matches.extend(self.detect_path(value, patterns))
        return self._decide(tool, args, matches, commands, unparseable)

    def check(self, value: str, tool: str = "terminal") -> Verdict:
        """Judge ``value`` as the first guarded argument of ``tool`` (a command for the terminal)."""
        targets = self.policy.targets.get(tool)
        if not targets:
            rules = self.policy.settings.rules.get(tool, {})
            argument = next((name for kind in rules.values() for rule in kind for name, _ in rule.globs), "command")
        else:
            argument = targets[0][0]
        return self.verdict(tool, {argument: value})

    def _decide(
        self,
        tool: str,
        args: Mapping[str, Any],
        matches: list[Match],
        commands: list[str],
        unparseable: str | None,
    ) -> Verdict:
        settings = self.policy.settings
        rules = settings.rules.get(tool)
        if not matches and unparseable is None and not rules and not settings.deny_globs:
            return _ALLOWED  # the common case: nothing matched, nothing to weigh
        rules = rules or {}
        hard = [m for m in matches if m.severity == "hardline"]
        if hard:
            return Verdict(DENY, True, tuple(hard + [m for m in matches if m not in hard]), "hardline pattern")
        parsed = _pieces(commands) if (settings.deny_globs or rules) else None
        floors: list[Match] = []
        if parsed is not None:
            lines, found = parsed
            floors = [
                Match(f"deny:{text}", f"denied by the policy: {text}", "deny", hit)
                for text, glob in settings.deny_globs
                for hit in hit_texts(glob, text, lines, found)
            ]
            floors += [
                Match(f"rule:deny:{r.text}", f"denied by the rule {r.text}", "deny", r.text)
                for r in rules.get("deny", ())
                if _rule_hits(r, args, parsed)
            ]
        if floors:
            return Verdict(DENY, False, tuple(floors + matches), "denied by the approval policy")
        if unparseable is not None:
            reason = f"the command cannot be parsed ({unparseable}); it is not allowed without approval"
            unread = Match("unparseable", reason, "dangerous", " ".join(commands), grantable=False)
            return Verdict(ASK, False, (unread, *matches), reason, tuple(commands))
        asks = [
            Match(f"rule:ask:{r.text}", f"the rule {r.text} asks for approval", "ask", r.text)
            for r in rules.get("ask", ())
            if parsed is not None and _rule_hits(r, args, parsed)
        ]
        allow_rules = rules.get("allow", ())
        plain_pieces = functools.cache(lambda: parsed[1] if parsed is not None else _pieces(commands)[1])
        pending = [m for m in matches if not self._covered(m, allow_rules, commands, plain_pieces)]
        if asks or pending:
            return Verdict(ASK, False, tuple(asks + pending), "approval required", tuple(commands))
        return Verdict(ALLOW, False, tuple(matches))

    def _covered(
        self, match: Match, allow_rules: Iterable[Rule], commands: list[str], found: Callable[[], list[Piece]]
    ) -> bool:
        """A dangerous match the allowlist or an allow rule has already approved.

        A pattern key in the allowlist approves the pattern; a glob or an allow rule approves
        a command only as written and only where its context does not change what it does.
        What the detector could not read for certain is never approved in advance.
        """
        if not match.grantable:
            return False
        settings = self.policy.settings
        if match.key in settings.allowlist_keys:
            return True
        if not settings.allowlist_globs and not allow_rules:
            return False
        if commands:
            same = [p for p in found() if p.text == match.command and p.via == match.via]
            if not same or not all(p.plain for p in same):
                return False
            spellings = [match.command]
        else:  # a path argument: the spelling given and the path it normalises to must both be covered
            spellings = [match.command, posixpath.normpath(match.command)]
        if any(all(glob.match(s) for s in spellings) for _, glob in settings.allowlist_globs):
            return True
        return any(all(glob.match(s) for _, glob in rule.globs for s in spellings) for rule in allow_rules)


def _first(hit: tuple[int, Match]) -> int:
    return hit[0]


def _alternation(texts: Iterable[str]) -> re.Pattern[str] | None:
    ordered = sorted(set(texts), key=len, reverse=True)
    return re.compile("|".join(re.escape(t) for t in ordered)) if ordered else None


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _pieces(commands: list[str]) -> tuple[list[str], list[Piece]]:
    """Each whole command and each of its simple commands, for glob rules."""
    return pieces(commands)


def _rule_hits(rule: Rule, args: Mapping[str, Any], parsed: tuple[list[str], list[Piece]]) -> bool:
    """Whether a deny or ask rule hits the call: every glob hits its argument (commands in any spelling)."""
    lines, found = parsed
    for i, (name, glob) in enumerate(rule.globs):
        source = rule.sources[i] if i < len(rule.sources) else ""
        if any(glob.match(v) for v in _strings(args.get(name))):
            continue
        if name in _COMMAND_ARGUMENTS and strict_hit(glob, source, lines, found):
            continue
        return False
    return True
