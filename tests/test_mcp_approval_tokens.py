"""The state token that makes an input_required answer count: bound, expiring, unforgeable."""

from __future__ import annotations

import mcp_types as types

from engine.mcp.approval import AnswerTokens, decision


def test_a_token_holds_for_its_tool_and_arguments_only() -> None:
    tokens = AnswerTokens()
    token = tokens.issue("risky", {"marker": "a"})
    assert tokens.verify(token, "risky", {"marker": "a"})
    assert not tokens.verify(token, "risky", {"marker": "b"})
    assert not tokens.verify(token, "other", {"marker": "a"})
    assert not AnswerTokens().verify(token, "risky", {"marker": "a"})  # another process's key
    assert not tokens.verify(None, "risky", {"marker": "a"})
    assert not tokens.verify("garbage", "risky", {"marker": "a"})


def test_a_token_expires() -> None:
    now = [1000.0]
    tokens = AnswerTokens(clock=lambda: now[0])
    token = tokens.issue("risky", {})
    now[0] += 599
    assert tokens.verify(token, "risky", {})
    now[0] += 2
    assert not tokens.verify(token, "risky", {})


def test_only_an_accepted_listed_decision_approves() -> None:
    accept = types.ElicitResult(action="accept", content={"decision": "session"})
    assert decision(accept) == "session"
    assert decision(accept, ["once", "deny"]) == "deny"
    assert decision(types.ElicitResult(action="decline")) == "deny"
    assert decision(types.ElicitResult(action="accept", content={"decision": "always"})) == "deny"
    assert decision(None) == "deny"
