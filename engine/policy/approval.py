"""The approval chain: what happens to a call the policy says to ask about.

session grant → yolo / mode off → smart judge → the human (a host callback or
the CLI prompt) → once, session, always, deny or timeout. Nobody to ask means
deny, with a ``pending_approval`` payload the host can surface; a timeout is a
denial, never consent; a judge or callback that raises or hangs means deny.
Every decision is written to the hash-chained audit log.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.dispatch.invoke import CallTimeout, call_bounded
from engine.policy.allowlist import AllowlistError, append_allowlist
from engine.policy.audit import AuditLog, redact
from engine.policy.model import ALLOW, DENY, ApprovalSettings, Verdict

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


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """What a human (or a judge) is asked to decide."""

    tool: str
    args: Mapping[str, Any]
    command: str
    verdict: Verdict
    session_id: str | None
    task_id: str | None

    @property
    def pattern_keys(self) -> list[str]:
        return [m.key for m in self.verdict.matches]

    @property
    def description(self) -> str:
        return "; ".join(dict.fromkeys(m.description for m in self.verdict.matches)) or "approval required"

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": "pending_approval",
            "tool": self.tool,
            "command": self.command,
            "pattern_keys": self.pattern_keys,
            "description": self.description,
            "session_id": self.session_id,
            "matches": [m.as_dict() for m in self.verdict.matches],
        }


@dataclass(frozen=True, slots=True)
class Resolution:
    allowed: bool
    outcome: str  # allow, once, session, always, deny, timeout, hardline, yolo, mode-off, judge-*, unattended, error
    message: str
    pending: dict[str, Any] | None = None


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
    grants: dict[str, set[str]] = field(default_factory=dict)
    # Keys approved "always" since the config was last loaded (the config holds them from then on).
    always: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def granted(self, session_id: str | None, keys: list[str]) -> bool:
        if not keys:
            return False
        with self.lock:
            have = self.always | self.grants.get(session_id, set()) if session_id is not None else self.always
            return all(k in have for k in keys)

    def grant(self, session_id: str | None, keys: list[str]) -> None:
        if session_id is None:
            return
        with self.lock:
            self.grants.setdefault(session_id, set()).update(keys)

    def resolve(
        self,
        request: ApprovalRequest,
        settings: ApprovalSettings,
        config_path: Path,
        audit: AuditLog,
    ) -> Resolution:
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
        keys = request.pattern_keys
        if self.granted(request.session_id, keys):
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
        except Exception as exc:
            log.warning("the approval callback raised %s; denying", exc)
            return Resolution(False, "error", f"the approval callback failed ({type(exc).__name__}); denied", pending)
        if answer is None or answer == "deny":
            return Resolution(False, "deny", f"denied by the user: {request.description}")
        if answer == "session":
            self.grant(request.session_id, request.pattern_keys)
        elif answer == "always":
            keys = [
                m.key
                for m in request.verdict.matches
                if m.severity == "dangerous" and ":" not in m.key and m.key != "unparseable"
            ]
            try:
                append_allowlist(config_path, keys)
            except AllowlistError as exc:
                log.warning("could not record the approval in %s: %s", config_path, exc)
            with self.lock:
                self.always.update(keys)
            self.grant(request.session_id, request.pattern_keys)
        return Resolution(True, answer, "")
