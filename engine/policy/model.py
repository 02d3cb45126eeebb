"""What the policy layer produces: matches, verdicts, and the compiled policy."""

from __future__ import annotations

from collections.abc import Mapping
from operator import attrgetter

from engine.policy.matchers import Matcher
from engine.policy.programs import EMPTY, ProgramTable
from engine.policy.regexes import Regex
from engine.records import MISSING, FrozenRecord, field_setters, fields_repr, native_record
from engine.registry.specs import Source

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any, ClassVar, Final, Literal, TypeAlias

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


_PATTERN_FIELDS = ("key", "description", "severity", "matchers", "regex", "targets", "source")
_NO_SOURCE = Source("", 0)


class CompiledPattern:
    """A danger pattern ready to match: its matchers or regex and the arguments it reads.

    A native class under mypyc (docs/compiled.md): a check reads the fields of each pattern a command
    meets (its severity, key, regex) as C struct members. It behaves as the frozen record it was
    (equality and hash by its fields, its repr; the guard's cache pickles it field by field:
    engine.records.NATIVE_RECORDS, so every ``__init__`` parameter has a default). Nothing assigns a
    field after ``__init__``."""

    __slots__ = _PATTERN_FIELDS
    _fields: ClassVar[tuple[str, ...]] = _PATTERN_FIELDS

    key: Final[str]
    description: Final[str]
    severity: Final[str]
    matchers: Final[tuple[Matcher, ...]]  # any may match; empty for a bare regex pattern
    regex: Final[Regex | None]
    targets: Final[tuple[Target, ...]]
    source: Final[Source]

    def __init__(
        self,
        key: str = "",
        description: str = "",
        severity: str = "",
        matchers: tuple[Matcher, ...] = (),
        regex: Regex | None = None,
        targets: tuple[Target, ...] = (),
        source: Source = _NO_SOURCE,
    ) -> None:
        self.key = key
        self.description = description
        self.severity = severity
        self.matchers = matchers
        self.regex = regex
        self.targets = targets
        self.source = source

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(_pattern_fields(self) == _pattern_fields(other))

    def __hash__(self) -> int:
        return hash(_pattern_fields(self))

    def __repr__(self) -> str:
        return fields_repr(self, _PATTERN_FIELDS)


_pattern_fields = attrgetter(*_PATTERN_FIELDS)
native_record(CompiledPattern)


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


_POLICY_FIELDS = (
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


class CompiledPolicy:
    """Every pattern, path class, rule and setting of a project, compiled for the evaluator.

    A native class under mypyc, as :class:`CompiledPattern` is (a check reads its programs, targets and
    trigger words a dozen times). Nothing assigns a field after ``__init__``."""

    __slots__ = _POLICY_FIELDS
    _fields: ClassVar[tuple[str, ...]] = _POLICY_FIELDS

    patterns: Final[tuple[CompiledPattern, ...]]
    classes: Final[Mapping[str, tuple[str, ...]]]
    settings: Final[ApprovalSettings]
    # tool -> [(argument, mode)] that patterns or rules look at
    targets: Final[Mapping[str, tuple[tuple[str, str], ...]]]
    trigger_words: Final[frozenset[str]]
    trigger_substrings: Final[tuple[str, ...]]
    always_parse: Final[bool]
    programs: Final[ProgramTable]  # how programs read their arguments and what they run
    # variable -> its usual folders (`variable_folders:`; engine.policy.paths.View._under_unknown)
    folders: Final[Mapping[str, tuple[str, ...]]]

    def __init__(
        self,
        patterns: tuple[CompiledPattern, ...] = (),
        classes: Mapping[str, tuple[str, ...]] = MISSING,
        settings: ApprovalSettings | None = None,
        targets: Mapping[str, tuple[tuple[str, str], ...]] = MISSING,
        trigger_words: frozenset[str] = frozenset(),
        trigger_substrings: tuple[str, ...] = (),
        always_parse: bool = False,
        programs: ProgramTable = EMPTY,
        folders: Mapping[str, tuple[str, ...]] = MISSING,
    ) -> None:
        self.patterns = patterns
        self.classes = {} if classes is MISSING else classes
        self.settings = ApprovalSettings() if settings is None else settings
        self.targets = {} if targets is MISSING else targets
        self.trigger_words = trigger_words
        self.trigger_substrings = trigger_substrings
        self.always_parse = always_parse
        self.programs = programs
        self.folders = {} if folders is MISSING else folders

    def is_guarded(self, tool: str) -> bool:
        return tool in self.targets or tool in self.settings.rules

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(_policy_fields(self) == _policy_fields(other))

    def __hash__(self) -> int:
        return hash(_policy_fields(self))

    def __repr__(self) -> str:
        return fields_repr(self, _POLICY_FIELDS)


_policy_fields = attrgetter(*_POLICY_FIELDS)
native_record(CompiledPolicy)
