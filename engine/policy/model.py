"""What the policy layer produces: matches, verdicts, and the compiled policy."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from engine.policy.matchers import Matcher
from engine.policy.programs import EMPTY, ProgramTable
from engine.policy.regexes import Regex
from engine.registry.specs import Source

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any, Literal, TypeAlias

    from engine.compile.binding import Bound

Decision: TypeAlias = "Literal['allow', 'ask', 'deny']"
ALLOW: Decision = "allow"
ASK: Decision = "ask"
DENY: Decision = "deny"


@dataclass(frozen=True, slots=True)
class Match:
    """One pattern or rule that matched a call: what it is, how bad, and where it was found."""

    key: str
    description: str
    severity: str  # "hardline", "dangerous", "deny" (a policy floor) or "ask" (a rule)
    command: str  # the simple command (or value) that matched
    via: tuple[str, ...] = ()  # wrappers it was found inside (sudo, bash -c, ...)
    # False for matches that say "this could not be read for certain" (unparseable input,
    # a limit reached, text a normalisation changed): a human may allow such a call once,
    # but a session or "always" grant must never cover a different command.
    grantable: bool = True

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "key": self.key,
            "description": self.description,
            "severity": self.severity,
            "command": self.command,
        }
        if self.via:
            out["via"] = list(self.via)
        if not self.grantable:
            out["grantable"] = False
        return out


@dataclass(frozen=True, slots=True)
class Verdict:
    """The policy's answer to one call: allow, ask or deny, with the matches behind it."""

    decision: Decision
    hardline: bool
    matches: tuple[Match, ...] = ()
    reason: str | None = None
    # The command texts that were judged (normalised): what an approval's scope is computed from.
    commands: tuple[str, ...] = ()

    @property
    def grantable(self) -> bool:
        """Whether a session or "always" approval may cover this verdict's matches."""
        return all(m.grantable for m in self.matches)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "decision": self.decision,
            "hardline": self.hardline,
            "matches": [m.as_dict() for m in self.matches],
        }
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass(frozen=True, slots=True)
class Target:
    """A tool argument a pattern reads, and as what (a command line or a path)."""

    tool: str
    argument: str
    mode: str  # "command" or "path"


@dataclass(frozen=True, slots=True)
class CompiledPattern:
    """A danger pattern ready to match: its matchers or regex and the arguments it reads."""

    key: str
    description: str
    severity: str
    matchers: tuple[Matcher, ...]  # any may match; empty for a bare regex pattern
    regex: Regex | None
    targets: tuple[Target, ...]
    source: Source


@dataclass(frozen=True, slots=True)
class Rule:
    """Every listed argument's value must match its glob."""

    globs: tuple[tuple[str, Regex], ...]
    text: str  # as written, for messages
    sources: tuple[str, ...] = ()  # each glob as written (abbreviations are completed against its words)


@dataclass(frozen=True, slots=True)
class ApprovalSettings:
    """The project's approvals settings and rules, compiled."""

    mode: str = "manual"
    timeout: float = 60.0
    unattended: str = "deny"
    yolo: bool = False
    judge: Bound | None = None
    allowlist_keys: frozenset[str] = frozenset()
    allowlist_globs: tuple[tuple[str, Regex], ...] = ()
    deny_globs: tuple[tuple[str, Regex], ...] = ()
    rules: Mapping[str, Mapping[str, tuple[Rule, ...]]] = field(default_factory=dict)
    audit_log: str | None = None


@dataclass(frozen=True, slots=True)
class CompiledPolicy:
    """Every pattern, path class, rule and setting of a project, compiled for the evaluator."""

    patterns: tuple[CompiledPattern, ...]
    classes: Mapping[str, tuple[str, ...]]
    settings: ApprovalSettings
    # tool -> [(argument, mode)] that patterns or rules look at
    targets: Mapping[str, tuple[tuple[str, str], ...]]
    trigger_words: frozenset[str]
    trigger_substrings: tuple[str, ...]
    always_parse: bool
    programs: ProgramTable = EMPTY  # how programs read their arguments and what they run

    def is_guarded(self, tool: str) -> bool:
        return tool in self.targets or tool in self.settings.rules
