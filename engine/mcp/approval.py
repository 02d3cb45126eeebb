"""An ``ask`` verdict as an MCP question, and the answer back as a decision.

Two ways to ask: an ``elicitation/create`` request sent while the call waits (clients
on the handshake protocol), or, where the protocol forbids server-initiated requests
(2026-07-28), an ``input_required`` result that the client answers by retrying the call
with the user's response. The retry's answer only counts with the state token issued
for that tool and those arguments, and only for a while; anything else is a denial.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Mapping
from typing import Any

import mcp_types as types

from engine.policy.approval import ApprovalRequest

INPUT_KEY = "hermes-engine/approval"
_MAX_PROMPT_CHARS = 2000
_TOKEN_SECONDS = 600.0


def options(request: ApprovalRequest) -> list[str]:
    """once and deny always; session only where a session grant means something."""
    return ["once", "session", "deny"] if request.session_id and request.grantable else ["once", "deny"]


def question(request: ApprovalRequest) -> tuple[str, dict[str, Any]]:
    """The message shown to the user and the form schema of the answer."""
    reasons = "\n".join(f"- {m.description}" for m in request.verdict.matches) or "- approval required"
    command = request.command
    if len(command) > _MAX_PROMPT_CHARS:
        command = command[:_MAX_PROMPT_CHARS] + " …"
    message = f"Allow {request.tool} to run?\n\n{command}\n\nWhy it needs approval:\n{reasons}"
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "decision": {
                "type": "string",
                "title": "Decision",
                "enum": options(request),
                "description": "once: this call only; session: this and the same kind for the session; deny",
            }
        },
        "required": ["decision"],
    }
    return message, schema


def decision(answer: Any, allowed: list[str] | None = None) -> str:
    """An elicitation answer as once/session/deny; anything unexpected is deny."""
    if not isinstance(answer, types.ElicitResult) or answer.action != "accept" or not answer.content:
        return "deny"
    value = answer.content.get("decision")
    choices = allowed if allowed is not None else ["once", "session", "deny"]
    return value if isinstance(value, str) and value in choices else "deny"


def input_required(request: ApprovalRequest, state: str) -> types.InputRequiredResult:
    message, schema = question(request)
    ask = types.ElicitRequest(params=types.ElicitRequestFormParams(message=message, requested_schema=schema))
    return types.InputRequiredResult(input_requests={INPUT_KEY: ask}, request_state=state)


class AnswerTokens:
    """``request_state`` for an input_required question: bound to the tool and its arguments, expiring."""

    def __init__(self, key: bytes | None = None, clock: Any = time.time) -> None:
        self._key = key or secrets.token_bytes(32)
        self._clock = clock

    def _mac(self, expires: int, tool: str, arguments: Mapping[str, Any]) -> str:
        body = json.dumps([expires, tool, arguments], sort_keys=True, ensure_ascii=False, default=str)
        return hmac.new(self._key, body.encode(), hashlib.sha256).hexdigest()

    def issue(self, tool: str, arguments: Mapping[str, Any]) -> str:
        expires = int(self._clock() + _TOKEN_SECONDS)
        return f"{expires}.{self._mac(expires, tool, arguments)}"

    def verify(self, token: str | None, tool: str, arguments: Mapping[str, Any]) -> bool:
        if not token or "." not in token:
            return False
        head, mac = token.split(".", 1)
        if not head.isdigit() or int(head) < self._clock():
            return False
        return hmac.compare_digest(mac, self._mac(int(head), tool, arguments))
