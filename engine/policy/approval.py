"""The approval chain: what happens to a call the policy says to ask about.

session grant → yolo / mode off → smart judge → the human (a host callback or
the CLI prompt) → once, session, always, deny or timeout. A session or "always"
answer covers each match for its own target only (engine.policy.scope): approving
`rm -rf ../build_other` never approves `rm -rf ~/projects`; what cannot be read
for certain is approved once, whatever the answer. Nobody to ask means
deny, with a ``pending_approval`` payload the host can surface; a timeout is a
denial, never consent; a judge or callback that raises or hangs means deny.
Every decision is written to the HMAC-chained audit log (engine.policy.audit).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from engine.dispatch.invoke import CallTimeout, call_bounded
from engine.policy.allowlist import AllowlistError, append_allowlist
from engine.policy.audit import AuditLog, redact
from engine.policy.model import ALLOW, ASK, DENY, ApprovalSettings, Verdict
from engine.policy.programs import EMPTY, ProgramTable
from engine.policy.scope import Scoped, scope_matches

log = logging.getLogger("hermes_engine.approval")

OUTCOMES = ("once", "session", "always", "deny")
_SHORT = {
    "o": "once",
    "s": "session",
    "a": "always",
    "d": "deny",
    "y": "once",
    "yes": "once",
    "n": "deny",
    "no": "deny",
}


# A grant: (tool, pattern key, scope). See engine.policy.scope.
Grant = tuple[str, str, str]


class NobodyToAsk(Exception):
    """Raised by an approval callback that has no person to ask for this request (an MCP
    client without elicitation): the call is refused with its ``pending_approval`` payload."""


class GrantStore(Protocol):
    """Where session grants live: in memory by default; a file or a shared database when
    several processes serve the same sessions."""

    def granted(self, session_id: str, grants: set[Grant]) -> bool: ...

    def grant(self, session_id: str, grants: set[Grant]) -> None: ...


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """What a human (or a judge) is asked to decide."""

    tool: str
    args: Mapping[str, Any]
    command: str
    verdict: Verdict
    session_id: str | None
    task_id: str | None
    values: tuple[str, ...] = ()  # the guarded argument values, as the tool receives them
    workdir: str = "."
    # Each match with what a session or "always" grant of it would cover (filled by the chain).
    scoped: tuple[Scoped, ...] = ()
    # How programs read their arguments and what they run: the commands are read as the detector read them.
    programs: ProgramTable = EMPTY

    @property
    def pattern_keys(self) -> list[str]:
        return [m.key for m in self.verdict.matches]

    @property
    def description(self) -> str:
        return "; ".join(dict.fromkeys(m.description for m in self.verdict.matches)) or "approval required"

    @property
    def grantable(self) -> bool:
        """Whether "session" and "always" mean more than "once" for this request."""
        return bool(self.scoped) and all(s.scope is not None for s in self.scoped)

    @property
    def always_globs(self) -> list[str]:
        """What an "always" answer adds to approvals.command_allowlist (the rest is granted for the session)."""
        return list(dict.fromkeys(s.glob for s in self.scoped if s.glob is not None))

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": "pending_approval",
            "tool": self.tool,
            "command": self.command,
            "pattern_keys": self.pattern_keys,
            "description": self.description,
            "session_id": self.session_id,
            "grantable": self.grantable,
            "matches": [m.as_dict() for m in self.verdict.matches],
        }


@dataclass(frozen=True, slots=True)
class Resolution:
    allowed: bool
    outcome: str  # allow, once, session, always, deny, timeout, hardline, yolo, mode-off, judge-*, unattended, error
    message: str
    pending: dict[str, Any] | None = None
    note: str = ""  # recorded in the audit log (an answer narrowed, an allowlist not written)


def normalise_answer(answer: Any) -> str | None:
    """A callback's answer as one of OUTCOMES, or None when it is not an answer."""
    value = getattr(answer, "value", answer)
    if isinstance(value, bool):
        return "once" if value else "deny"
    if not isinstance(value, str):
        return None
    text = value.strip().lower()
    text = _SHORT.get(text, text)
    return text if text in OUTCOMES else None


@dataclass
class ApprovalChain:
    """Per-engine approval state: session grants and the registered approver."""

    callback: Callable[..., Any] | None = None
    grants: dict[str, set[Grant]] = field(default_factory=dict)
    # Approved "always" since the config was last loaded (the config holds their globs from then on).
    always: set[Grant] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)
    store: GrantStore | None = None

    def granted(self, request: ApprovalRequest) -> bool:
        """Whether earlier answers already cover every match of ``request``, each for its own target."""
        if not request.grantable:
            return False
        wanted = _grants(request)
        if self.store is not None and request.session_id is not None:
            with self.lock:
                rest = {g for g in wanted if g not in self.always}
            try:
                return not rest or self.store.granted(request.session_id, rest)
            except Exception as exc:  # a store that cannot be read grants nothing: ask again
                log.error("cannot read session grants (%s: %s); asking again", type(exc).__name__, exc)
                return False
        with self.lock:
            session = self.grants.get(request.session_id, set()) if request.session_id is not None else set()
            return all(g in self.always or g in session for g in wanted)

    def grant(self, request: ApprovalRequest) -> None:
        if request.session_id is None or not request.grantable:
            return
        if self.store is not None:
            try:
                self.store.grant(request.session_id, _grants(request))
            except Exception as exc:  # the answer still holds for this call
                log.error("cannot record a session grant (%s: %s); it covers this call only", type(exc).__name__, exc)
            return
        with self.lock:
            self.grants.setdefault(request.session_id, set()).update(_grants(request))

    def resolve(
        self,
        request: ApprovalRequest,
        settings: ApprovalSettings,
        config_path: Path,
        audit: AuditLog,
    ) -> Resolution:
        if request.verdict.decision == ASK and not request.scoped:
            cwd = request.args.get("cwd")
            where = cwd if isinstance(cwd, str) else None
            scoped = scope_matches(
                request.tool, request.verdict, request.values, request.workdir, where, request.programs
            )
            request = replace(request, scoped=scoped)
        resolution = self._resolve(request, settings, config_path)
        record = {
            "tool": request.tool,
            "session_id": request.session_id,
            "task_id": request.task_id,
            "decision": request.verdict.decision,
            "hardline": request.verdict.hardline,
            "outcome": resolution.outcome,
            "allowed": resolution.allowed,
            "keys": request.pattern_keys,
            "command": redact(request.command),
        }
        if resolution.note:
            record["note"] = resolution.note
        try:
            audit.append(record)
        except Exception as exc:  # an unwritable audit log must not let a risky call through
            log.error("cannot write the audit log %s: %s", audit.path, exc)
            if resolution.allowed and request.verdict.decision != ALLOW:
                return Resolution(False, "error", f"denied: the audit log cannot be written ({exc})")
        return resolution

    def _resolve(self, request: ApprovalRequest, settings: ApprovalSettings, config_path: Path) -> Resolution:
        verdict = request.verdict
        if verdict.decision == ALLOW:
            return Resolution(True, "allow", "")
        if verdict.decision == DENY:
            kind = "hardline" if verdict.hardline else "deny"
            why = "a hardline pattern, never allowed" if verdict.hardline else "denied by the approval policy"
            return Resolution(False, kind, f"refused ({why}): {request.description}")
        if self.granted(request):
            return Resolution(True, "session", "")
        if settings.yolo:
            return Resolution(True, "yolo", "")
        if settings.mode == "off":
            return Resolution(True, "mode-off", "")
        if settings.mode == "smart" and settings.judge is not None:
            verdict_of_judge = self._ask_judge(request, settings)
            if verdict_of_judge == "approve":
                return Resolution(True, "judge-approve", "")
            if verdict_of_judge == "deny":
                return Resolution(False, "judge-deny", f"denied by the approval judge: {request.description}")
        return self._ask_human(request, settings, config_path)

    def _ask_judge(self, request: ApprovalRequest, settings: ApprovalSettings) -> str:
        assert settings.judge is not None
        try:
            answer = call_bounded(settings.judge.function, {"request": request}, settings.timeout)
        except CallTimeout:
            log.warning("the approval judge timed out; denying")
            return "deny"
        except Exception as exc:
            log.warning("the approval judge raised %s; denying", exc)
            return "deny"
        text = str(getattr(answer, "value", answer)).strip().lower()
        return text if text in ("approve", "deny") else "escalate"

    def _ask_human(self, request: ApprovalRequest, settings: ApprovalSettings, config_path: Path) -> Resolution:
        pending = request.as_dict()
        if self.callback is None:
            return Resolution(
                False,
                "unattended",
                f"approval required and nobody can answer (unattended: deny): {request.description}",
                pending,
            )
        try:
            answer = normalise_answer(call_bounded(self.callback, {"request": request}, settings.timeout))
        except CallTimeout:
            return Resolution(False, "timeout", f"no answer within {settings.timeout:g}s; denied", pending)
        except NobodyToAsk as exc:
            message = f"approval required and nobody can answer ({exc or 'unattended'}: deny): {request.description}"
            return Resolution(False, "unattended", message, pending)
        except Exception as exc:
            log.warning("the approval callback raised %s; denying", exc)
            return Resolution(False, "error", f"the approval callback failed ({type(exc).__name__}); denied", pending)
        if answer is None or answer == "deny":
            return Resolution(False, "deny", f"denied by the user: {request.description}")
        if answer in ("session", "always") and not request.grantable:
            # What cannot be read for certain is approved for this call only, whatever the answer.
            return Resolution(True, "once", "", note=f"answered {answer}; this call cannot be granted beyond once")
        if answer == "session":
            self.grant(request)
        elif answer == "always":
            return self._always(request, config_path)
        return Resolution(True, answer, "")

    def _always(self, request: ApprovalRequest, config_path: Path) -> Resolution:
        """Record the globs the human saw in the config; what no glob can say is granted for the session."""
        self.grant(request)
        globs = request.always_globs
        note = ""
        if globs:
            try:
                append_allowlist(config_path, globs)
            except (AllowlistError, OSError, UnicodeError, TimeoutError) as exc:  # the file is left as it was
                log.warning("could not record the approval in %s: %s", config_path, exc)
                note = f"not recorded in {config_path}: {exc}"
            with self.lock:
                self.always.update(_grants(request, only_globbed=True))
        if any(s.glob is None for s in request.scoped):
            note = (note + "; " if note else "") + "approved for this session only where no glob says it exactly"
        return Resolution(True, "always", "", note=note)


def _grants(request: ApprovalRequest, *, only_globbed: bool = False) -> set[Grant]:
    return {
        (request.tool, s.match.key, s.scope)
        for s in request.scoped
        if s.scope is not None and (s.glob is not None or not only_globbed)
    }
