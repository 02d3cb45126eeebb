"""Property: disguising a command never makes its verdict more lenient.

Random commands are built from words the patterns care about; then control
characters, terminal escapes, invisible characters, fullwidth forms or look-alike
letters are inserted or substituted. Every such disguise has a reading that undoes
it, and the verdict is the strictest over all readings: it can only get stricter.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Engine
from tests.redteam.conftest import RANK, judge

WORDS = [
    "rm", "-rf", "-r", "-f", "/", "~", "/etc", "./build", "*", "git", "push", "--force", "-f", "origin",
    "main", "reset", "--hard", "echo", "hello", "ls", "-la", "sudo", "curl", "https://x.example/i.sh",
    "sh", "bash", "-c", "chmod", "777", "kill", "-9", "-1", "dd", "of=/dev/sda", "mkfs.ext4", "/dev/sda1",
    "cat", "~/.ssh/id_rsa", "find", ".", "-delete", "python3", "'rm -rf /'", "\"x\"", "$HOME", "shutdown",
]  # fmt: skip
OPERATORS = [" ", " ", " ", " ; ", " && ", " | ", " || ", "\n"]

CONTROLS = [chr(c) for c in (*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0))]
ESCAPES = ["\x1b[31m", "\x1b[0m", "\x1b]", "\x1b]0;t\x07", "\x1bP", "\x9b", "\x1b_"]
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u202e", "\u2066"]
# Characters the readings fold back: fullwidth forms (NFKC) and look-alikes.
LOOKALIKE = {"-": "—", "a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "/": "∕", "~": "∼", "'": "’"}


@st.composite
def commands(draw: st.DrawFn) -> str:
    words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=8))
    out = words[0]
    for word in words[1:]:
        out += draw(st.sampled_from(OPERATORS)) + word
    return out


@st.composite
def disguised(draw: st.DrawFn) -> tuple[str, str]:
    text = draw(commands())
    chars = list(text)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        kind = draw(st.sampled_from(["control", "escape", "invisible", "fullwidth", "lookalike"]))
        at = draw(st.integers(min_value=0, max_value=len(chars)))
        if kind == "control":
            chars.insert(at, draw(st.sampled_from(CONTROLS)))
        elif kind == "escape":
            chars.insert(at, draw(st.sampled_from(ESCAPES)))
        elif kind == "invisible":
            chars.insert(at, draw(st.sampled_from(INVISIBLE)))
        else:
            spots = [i for i, ch in enumerate(chars) if (ch in LOOKALIKE if kind == "lookalike" else "!" <= ch <= "~")]
            if spots:
                i = draw(st.sampled_from(spots))
                chars[i] = LOOKALIKE[chars[i]] if kind == "lookalike" else chr(ord(chars[i]) + 0xFEE0)
    return text, "".join(chars)


def rank(engine: Engine, text: str) -> tuple[int, bool]:
    verdict = judge(engine, text)
    return RANK[verdict.decision], verdict.hardline


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(disguised())
def test_a_disguise_never_makes_a_verdict_more_lenient(engine: Engine, pair: tuple[str, str]) -> None:
    plain, hidden = pair
    assert rank(engine, hidden) >= rank(engine, plain), (plain, hidden)


# Disguises the property test found: each must judge at least as strictly as its plain command.
FOUND = [
    # An unterminated OSC introducer and an 8-bit CSI that a terminal reads as `CSI m`: only the
    # reading that deletes the introducers, and not what follows them, is the plain command.
    ("/ -r rm", "/\x1b] -r r\x9bm"),
    ("rm -rf /", "rm\x1b -rf \x1b]/"),  # a lone ESC before a blank, and an OSC introducer
    ("rm -rf /", "\x1b[31mrm \x9b-rf /"),  # a whole colour sequence, and a CSI before `-rf`
    ("rm -rf ~", "rm -rf \x9d~\x07"),  # an 8-bit OSC "terminated" around the target
    # A fullwidth quote the shell does not read as one leaves the raw text's `'` unbalanced: the
    # compiled build failed on it (an exception name bound to two types, docs/compiled.md).
    ("/etc https://x.example/i.sh ; 'rm -rf /' rm rm", "/etc https://x.example/i.sh ; \uff07rm -rf /' rm rm"),
]


@pytest.mark.parametrize(("plain", "hidden"), FOUND)
def test_disguises_found_before_stay_at_least_as_strict(engine: Engine, plain: str, hidden: str) -> None:
    assert rank(engine, hidden) >= rank(engine, plain), (plain, hidden)


def test_a_failing_detector_falls_back_to_every_reading(engine: Engine) -> None:
    # When the detector itself fails, the flat scan decides alone: it must read the disguise too.
    evaluator = engine._evaluator(engine._snapshot)
    plain = evaluator._failed("terminal", {"command": "rm -rf /"}, TypeError("a detector bug"))
    hidden = evaluator._failed("terminal", {"command": "\uff52m -rf /"}, TypeError("a detector bug"))
    assert (plain.decision, plain.hardline) == ("deny", True)
    assert (hidden.decision, hidden.hardline) == ("deny", True)  # only the folded reading is `rm`
    assert any(m.key == "unparseable" and not m.grantable for m in hidden.matches)
