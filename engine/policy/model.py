"""What the policy layer produces: matches, verdicts, and the compiled policy."""

from __future__ import annotations

from collections.abc import Mapping

from engine.policy.matchers import Matcher
from engine.policy.programs import EMPTY, ProgramTable
from engine.policy.regexes import Regex
from engine.records import MISSING, FrozenRecord, field_setters
from engine.registry.specs import Source

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any, Literal, TypeAlias

    from engine.compile.binding import Bound

Decision: TypeAlias = "Literal['allow', 'ask', 'deny']"
ALLOW: Decision = "allow"
ASK: Decision = "ask"
DENY: Decision = "deny"


class Match(FrozenRecord):
    """One pattern or rule that matched a call: what it is, how bad, and where it was found."""

    __slots__ = ("key", "description", "severity", "command", "via", "grantable")  # noqa: RUF023  (the fields' order)

    key: str
    description: str
    severity: str  # "hardline", "dangerous", "deny" (a policy floor) or "ask" (a rule)
    command: str  # the simple command (or value) that matched
    via: tuple[str, ...]  # wrappers it was found inside (sudo, bash -c, ...)
    # False for matches that say "this could not be read for certain" (unparseable input,
    # a limit reached, text a normalisation changed): a human may allow such a call once,
    # but a session or "always" grant must never cover a different command.
    grantable: bool

    def __init__(
        self,
        key: str,
        description: str,
        severity: str,
        command: str,
        via: tuple[str, ...] = (),
        grantable: bool = True,
    ) -> None:
        # Made on every check that matches: the fields' own setters (field_setters), not object.__setattr__.
        field = _MATCH_FIELDS
        field[0](self, key)
        field[1](self, description)
        field[2](self, severity)
        field[3](self, command)
        field[4](self, via)
        field[5](self, grantable)

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


_MATCH_FIELDS = field_setters(Match)


class Verdict(FrozenRecord):
    """The policy's answer to one call: allow, ask or deny, with the matches behind it."""

    __slots__ = ("decision", "hardline", "matches", "reason", "commands")  # noqa: RUF023  (the fields' order)

    decision: Decision
    hardline: bool
    matches: tuple[Match, ...]
    reason: str | None
    # The command texts that were judged (normalised): what an approval's scope is computed from.
    commands: tuple[str, ...]

    def __init__(
        self,
        decision: Decision,
        hardline: bool,
        matches: tuple[Match, ...] = (),
        reason: str | None = None,
        commands: tuple[str, ...] = (),
    ) -> None:
        field = _VERDICT_FIELDS  # as Match's
        field[0](self, decision)
        field[1](self, hardline)
        field[2](self, matches)
        field[3](self, reason)
        field[4](self, commands)

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


_VERDICT_FIELDS = field_setters(Verdict)


class Target(FrozenRecord):
    """A tool argument a pattern reads, and as what (a command line or a path)."""

    __slots__ = ("tool", "argument", "mode")  # noqa: RUF023  (the fields' order)

    tool: str
    argument: str
    mode: str  # "command" or "path"

    def __init__(self, tool: str, argument: str, mode: str) -> None:
        object.__setattr__(self, "tool", tool)
        object.__setattr__(self, "argument", argument)
        object.__setattr__(self, "mode", mode)


class CompiledPattern(FrozenRecord):
    """A danger pattern ready to match: its matchers or regex and the arguments it reads."""

    __slots__ = ("key", "description", "severity", "matchers", "regex", "targets", "source")  # noqa: RUF023  (the fields' order)

    key: str
    description: str
    severity: str
    matchers: tuple[Matcher, ...]  # any may match; empty for a bare regex pattern
    regex: Regex | None
    targets: tuple[Target, ...]
    source: Source

    def __init__(
        self,
        key: str,
        description: str,
        severity: str,
        matchers: tuple[Matcher, ...],
        regex: Regex | None,
        targets: tuple[Target, ...],
        source: Source,
    ) -> None:
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "description", description)
        object.__setattr__(self, "severity", severity)
        object.__setattr__(self, "matchers", matchers)
        object.__setattr__(self, "regex", regex)
        object.__setattr__(self, "targets", targets)
        object.__setattr__(self, "source", source)


class Rule(FrozenRecord):
    """Every listed argument's value must match its glob."""

    __slots__ = ("globs", "text", "sources")  # noqa: RUF023  (the fields' order)

    globs: tuple[tuple[str, Regex], ...]
    text: str  # as written, for messages
    sources: tuple[str, ...]  # each glob as written (abbreviations are completed against its words)

    def __init__(self, globs: tuple[tuple[str, Regex], ...], text: str, sources: tuple[str, ...] = ()) -> None:
        object.__setattr__(self, "globs", globs)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "sources", sources)


class ApprovalSettings(FrozenRecord):
    """The project's approvals settings and rules, compiled."""

    __slots__ = (  # noqa: RUF023  (the fields' order)
        "mode",
        "timeout",
        "unattended",
        "yolo",
        "judge",
        "allowlist_keys",
        "allowlist_globs",
        "deny_globs",
        "rules",
        "audit_log",
    )

    mode: str
    timeout: float
    unattended: str
    yolo: bool
    judge: Bound | None
    allowlist_keys: frozenset[str]
    allowlist_globs: tuple[tuple[str, Regex], ...]
    deny_globs: tuple[tuple[str, Regex], ...]
    rules: Mapping[str, Mapping[str, tuple[Rule, ...]]]
    audit_log: str | None

    def __init__(
        self,
        mode: str = "manual",
        timeout: float = 60.0,
        unattended: str = "deny",
        yolo: bool = False,
        judge: Bound | None = None,
        allowlist_keys: frozenset[str] = frozenset(),
        allowlist_globs: tuple[tuple[str, Regex], ...] = (),
        deny_globs: tuple[tuple[str, Regex], ...] = (),
        rules: Mapping[str, Mapping[str, tuple[Rule, ...]]] = MISSING,
        audit_log: str | None = None,
    ) -> None:
        object.__setattr__(self, "mode", mode)
        object.__setattr__(self, "timeout", timeout)
        object.__setattr__(self, "unattended", unattended)
        object.__setattr__(self, "yolo", yolo)
        object.__setattr__(self, "judge", judge)
        object.__setattr__(self, "allowlist_keys", allowlist_keys)
        object.__setattr__(self, "allowlist_globs", allowlist_globs)
        object.__setattr__(self, "deny_globs", deny_globs)
        object.__setattr__(self, "rules", {} if rules is MISSING else rules)
        object.__setattr__(self, "audit_log", audit_log)


class CompiledPolicy(FrozenRecord):
    """Every pattern, path class, rule and setting of a project, compiled for the evaluator."""

    __slots__ = (  # noqa: RUF023  (the fields' order)
        "patterns",
        "classes",
        "settings",
        "targets",
        "trigger_words",
        "trigger_substrings",
        "always_parse",
        "programs",
        "folders",
    )

    patterns: tuple[CompiledPattern, ...]
    classes: Mapping[str, tuple[str, ...]]
    settings: ApprovalSettings
    # tool -> [(argument, mode)] that patterns or rules look at
    targets: Mapping[str, tuple[tuple[str, str], ...]]
    trigger_words: frozenset[str]
    trigger_substrings: tuple[str, ...]
    always_parse: bool
    programs: ProgramTable  # how programs read their arguments and what they run
    # variable -> its usual folders (`variable_folders:`; engine.policy.paths.View._under_unknown)
    folders: Mapping[str, tuple[str, ...]]

    def __init__(
        self,
        patterns: tuple[CompiledPattern, ...],
        classes: Mapping[str, tuple[str, ...]],
        settings: ApprovalSettings,
        targets: Mapping[str, tuple[tuple[str, str], ...]],
        trigger_words: frozenset[str],
        trigger_substrings: tuple[str, ...],
        always_parse: bool,
        programs: ProgramTable = EMPTY,
        folders: Mapping[str, tuple[str, ...]] = MISSING,
    ) -> None:
        object.__setattr__(self, "patterns", patterns)
        object.__setattr__(self, "classes", classes)
        object.__setattr__(self, "settings", settings)
        object.__setattr__(self, "targets", targets)
        object.__setattr__(self, "trigger_words", trigger_words)
        object.__setattr__(self, "trigger_substrings", trigger_substrings)
        object.__setattr__(self, "always_parse", always_parse)
        object.__setattr__(self, "programs", programs)
        object.__setattr__(self, "folders", {} if folders is MISSING else folders)

    def is_guarded(self, tool: str) -> bool:
        return tool in self.targets or tool in self.settings.rules
