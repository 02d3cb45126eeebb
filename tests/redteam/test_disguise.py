"""Disguised text: terminal escapes, control and invisible characters, compatibility forms, look-alikes.

The shell runs the raw text; every folding is only an extra reading. A payload is
never allowed, a hardline command in any reading is denied, and the "could not read
it for certain" ask can never be covered by a session or always grant.
"""

from __future__ import annotations

import pytest

from engine import Engine
from engine.policy.normalize import _CONTROL, _controls
from tests.redteam.conftest import judge

ESC = "\x1b"

# Each is denied as hardline: `rm -rf ~` or `rm -rf /` runs, or appears in a reading.
HARDLINE = [
    f"true {ESC}]; rm -rf ~",  # unterminated OSC: the old normaliser ate the rest of the line
    f"true {ESC}P; rm -rf ~",  # unterminated DCS
    f"true {ESC}_; rm -rf ~",  # unterminated APC
    "true \x9b; rm -rf ~",  # 8-bit CSI
    "true \x9d; rm -rf ~",  # 8-bit OSC
    f"echo {ESC}]0;title{ESC}\\; rm -rf ~",
    f"{ESC}[31mrm{ESC}[0m -rf /",
    "echo ＂; rm -rf ~; echo ＂",  # fullwidth quotes are words to the shell, not quotes
    "echo ＇; rm -rf ~; echo ＇",
    "echo ok ＃; rm -rf ~",  # a fullwidth number sign starts no comment
    "echo ok ﹟; rm -rf ~",
    "echo ＼; rm -rf ~",
    "ｒｍ －ｒｆ ／",
    "r\u200bm -rf /",
    "rm\u00ad -rf /",
    "rm -rf /\u200d",
    "r\u0000m -rf ~",
    "rm\u0007 -rf ~",
    "echo hi\r\nrm -rf ~",
    "echo x\r# ; rm -rf ~",  # a carriage return is no blank: `#` after it is literal
    "echo x\u00a0# ; rm -rf ~",  # nor is a no-break space
    "echo x\u2003# ; rm -rf ~",  # nor an em space
    "echo x\u3000# ; rm -rf ~",
    "rm —rf ~",  # an em dash reads as `-` to PowerShell and to people
    "rm –rf /",
    "rм -rf /",  # Cyrillic м
    "sudo rm -rf ∕",
    "rm -rf ～",
    f"rm -rf ~{ESC}[0m",
    "rm -rf ~\x00",
]

# Disguised but not hardline: at least an ask that no grant covers.
DISGUISED = [
    "git push -f\x1b[0m",
    "git push ＋main",
    "echo \x1b[31mred\x1b[0m",  # colours are harmless, but nobody can read the line for certain
    "ls\u200b",
    "echo ｆｕｌｌｗｉｄｔｈ",
    "printf 'a\\n'\r",
    "echo '＂ is a fullwidth quote'",  # harmless, but NFKC changes it: read for certain it is not
]

NEAR_MISSES = [
    "echo 'rm -rf ~'",
    'echo "Привет, мир"',  # Cyrillic text is data
    "git commit -m 'Fix — the em dash stays'",
    "echo café résumé",
    "grep -r 'TODO' src/",
    "echo 'ü ß ø 日本語 中文'",  # letters NFKC leaves alone
    "ls -la # rm -rf ~",
    "printf '%s\\n' \"“smart quotes”\"",
]


@pytest.mark.parametrize("command", HARDLINE)
def test_a_hardline_command_in_any_reading_is_denied(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command


@pytest.mark.parametrize("command", DISGUISED)
def test_disguised_text_needs_approval_no_grant_covers(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert verdict.decision != "allow", command
    assert not verdict.grantable
    assert "disguised_text" in [m.key for m in verdict.matches]


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_near_misses_stay_allowed(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert verdict.decision == "allow", (command, verdict)


def test_a_match_only_another_reading_finds_is_not_grantable(engine: Engine) -> None:
    # Raw, the shell runs `ｇｉｔ` (not found); folded, it is a force push. Asked, never granted.
    verdict = judge(engine, "ｇｉｔ push --force")
    assert verdict.decision == "ask" and not verdict.grantable
    force = [m for m in verdict.matches if m.key == "git_force_push"]
    assert force and not force[0].grantable


def test_an_allow_rule_does_not_cover_a_disguised_command(tmp_path: object, write_project: object) -> None:
    root = write_project(  # type: ignore[operator]
        {
            "hermes-engine.yaml": "include_builtin: true\n",
            "policies/approve.yaml": """
                kind: ApprovalPolicy
                command_allowlist: ["git push *", git_force_push]
                rules:
                  terminal:
                    allow: [{command: "git *"}]
            """,
        }
    )
    engine = Engine.load(root)
    try:
        assert engine.check("git push -f origin main").decision == "allow"
        disguised = engine.check("git push -f origin main\x1b]; git push -f origin +main")
        assert disguised.decision == "ask" and not disguised.grantable
    finally:
        engine.close()


def test_control_deletion_by_translation_is_the_regex_reading() -> None:
    """The readings delete controls by a translation on ASCII text (speed): it must delete
    exactly what the regex does, C0, DEL and C1 alike, or a disguise would read differently."""
    every = "".join(map(chr, range(0x200)))
    samples = [every, every[:0x80], "rm\x1b -rf\x7f ~\r#", "ｒｍ\x9b\x00 -rf", "\t\n plain"]
    for text in samples:
        for replacement in ("", " "):
            assert _controls(text, replacement) == _CONTROL.sub(replacement, text), repr(text[:20])
