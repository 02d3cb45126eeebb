"""Judging a call: danger patterns, then the approval policy's floors and rules.

Precedence: hardline > deny (policy floors and deny rules) > ask (ask rules,
unparseable input, dangerous matches not covered by the allowlist or an allow
rule) > allow. A command that cannot be parsed is never allowed by default.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from engine.policy.lexer import ShellSyntaxError
from engine.policy.model import ALLOW, ASK, DENY, CompiledPattern, CompiledPolicy, Match, Verdict
from engine.policy.normalize import normalize
from engine.policy.paths import PathClassifier
from engine.policy.shell import parse

# Characters that hide words from the fast path (quotes, escapes, expansions, braces).
_OBFUSCATION = re.compile(r"[$`'\"\\{]")
_WORDS = re.compile(r"[a-z0-9_.+-]+")
_QUOTES = re.compile(r"[\"'`]")


class Evaluator:
    """Verdicts for one compiled policy and one working directory."""

    def __init__(self, policy: CompiledPolicy, cwd: str | None = None) -> None:
        self.policy = policy
        self.classifier = PathClassifier(policy.classes, cwd)
        self._by_target: dict[tuple[str, str], tuple[CompiledPattern, ...]] = {}
        for pattern in policy.patterns:
            for target in pattern.targets:
                key = (target.tool, target.argument)
                self._by_target[key] = (*self._by_target.get(key, ()), pattern)

    # -- detection ------------------------------------------------------------------

    def patterns_for(self, tool: str, argument: str) -> tuple[CompiledPattern, ...]:
        return self._by_target.get((tool, argument), ())

    def detect_command(self, value: str, patterns: Iterable[CompiledPattern]) -> tuple[list[Match], str | None]:
        """Matches of ``patterns`` in a shell command, and why it could not be parsed (if so)."""
        text = normalize(value)
        patterns = tuple(patterns)
        matches: list[Match] = []
        if self._can_skip(text):
            for pattern in patterns:
                if not pattern.matchers and pattern.regex is not None and pattern.regex.search(text):
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
        shapes: dict[int, Any] = {}
        for pattern in patterns:
            if pattern.regex is not None and not pattern.regex.search(text):
                continue
            if not pattern.matchers:
                matches.append(Match(pattern.key, pattern.description, pattern.severity, text.strip()))
                continue
            for command in commands:
                if any(m.matches_command(command, classify, shapes) for m in pattern.matchers):
                    matches.append(Match(pattern.key, pattern.description, pattern.severity, command.text, command.via))
                    break
        return matches, unparseable

    def detect_path(self, value: str, patterns: Iterable[CompiledPattern]) -> list[Match]:
        classify = self.classifier.classify
        return [
            Match(p.key, p.description, p.severity, value)
            for p in patterns
            if any(m.matches_path(value, classify) for m in p.matchers)
        ]

    def _can_skip(self, text: str) -> bool:
        policy = self.policy
        if policy.always_parse or _OBFUSCATION.search(text):
            return False
        lowered = text.lower()
        if any(s in lowered for s in policy.trigger_substrings):
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
                    found, problem = self.detect_command(value, patterns)
                    matches.extend(found)
                    unparseable = unparseable or problem
                    commands.append(normalize(value))
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
        hard = [m for m in matches if m.severity == "hardline"]
        if hard:
            return Verdict(DENY, True, tuple(hard + [m for m in matches if m not in hard]), "hardline pattern")
        rules = settings.rules.get(tool, {})
        pieces = _pieces(commands) if (settings.deny_globs or rules) else []
        floors = [
            Match(f"deny:{text}", f"denied by the policy: {text}", "deny", piece)
            for text, glob in settings.deny_globs
            for piece in pieces
            if glob.match(piece)
        ]
        floors += [
            Match(f"rule:deny:{r.text}", f"denied by the rule {r.text}", "deny", r.text)
            for r in rules.get("deny", ())
            if _rule_hits(r, args, pieces)
        ]
        if floors:
            return Verdict(DENY, False, tuple(floors + matches), "denied by the approval policy")
        if unparseable is not None:
            reason = f"the command cannot be parsed ({unparseable}); it is not allowed without approval"
            return Verdict(
                ASK, False, (Match("unparseable", reason, "dangerous", " ".join(commands)), *matches), reason
            )
        asks = [
            Match(f"rule:ask:{r.text}", f"the rule {r.text} asks for approval", "ask", r.text)
            for r in rules.get("ask", ())
            if _rule_hits(r, args, pieces)
        ]
        allow_rules = rules.get("allow", ())
        pending = [m for m in matches if not self._covered(m, tool, args, allow_rules)]
        if asks or pending:
            return Verdict(ASK, False, tuple(asks + pending), "approval required")
        return Verdict(ALLOW, False, tuple(matches))

    def _covered(self, match: Match, tool: str, args: Mapping[str, Any], allow_rules: Iterable[Any]) -> bool:
        """A dangerous match the allowlist or an allow rule has already approved."""
        settings = self.policy.settings
        if match.key in settings.allowlist_keys:
            return True
        if any(glob.match(match.command) for _, glob in settings.allowlist_globs):
            return True
        return any(
            _rule_hits(rule, {**args, **{n: match.command for n, _ in rule.globs}}, [match.command])
            for rule in allow_rules
        )


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _pieces(commands: list[str]) -> list[str]:
    """Each whole command and each of its simple commands, for glob rules."""
    out: list[str] = []
    for command in commands:
        out.append(command.strip())
        try:
            out.extend(c.text for c in parse(command) if c.name)
        except ShellSyntaxError:
            continue
    return out


def _rule_hits(rule: Any, args: Mapping[str, Any], pieces: list[str]) -> bool:
    for name, glob in rule.globs:
        values = _strings(args.get(name))
        candidates = values + (pieces if name == "command" else [])
        if not any(glob.match(v) for v in candidates):
            return False
    return True
