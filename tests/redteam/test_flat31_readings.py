"""Stop 31 (flat31, issue 10's speed target): the readings of a long disguised text made with fewer
scans of it. Each shortcut gives the readings the full way gave (the same texts, so the same verdicts):
the shapes of bench_adversarial that it speeds up keep their verdicts, and a hardline command hidden
in them by the disguise each shortcut reasons about is still a hardline deny.
"""

from __future__ import annotations

import random
import sys
import unicodedata

import pytest

from engine import Engine
from engine.policy import normalize
from tests.redteam.conftest import judge

KIB = 1024
ESCAPE_PADDING = "true \x1b]" * (64 * KIB // 7)  # bench: "ESC] ESC] ... (escapes, readings)"
FULLWIDTH_PADDING = "ｒｍ －ｒｆ " * (64 * KIB // 6)  # bench: "ｒｍ ｒｍ ... (fullwidth, readings)"
COMMANDS = "".join(f"rm a{i}; " for i in range(64 * KIB // 8))  # bench: "rm a1; ..." shapes

SHAPES = {
    "escapes": ESCAPE_PADDING,
    "fullwidth": FULLWIDTH_PADDING,
    "one escape": COMMANDS + "\x1b]",
    "one fullwidth": COMMANDS + "ｘ",
}

# A hardline command each shortcut's reasoning is about: an escape longer than ESC and one character
# (CSI, a string ended by BEL or `ESC \`, an nF sequence), a two-byte one, a fullwidth name, an
# invisible character (no NFKC-only fold), a look-alike letter (the reading of a fold past ASCII).
HIDDEN = {
    "csi": "r\x1b[0mm -rf /",
    "osc-bel": "r\x1b]0;t\x07m -rf /",
    "osc-st": "r\x1b]0;t\x1b\\m -rf /",
    "nf": "r\x1b(Bm -rf /",
    "two-byte": "r\x1bXm -rf /",
    "fullwidth": "ｒｍ -rf ~",
    "invisible": "rm -rf\u200b ~",
    "cyrillic": "rм -rf ~",
}


@pytest.mark.parametrize("shape", SHAPES)
def test_the_readings_shapes_stay_a_grant_proof_ask(engine: Engine, shape: str) -> None:
    verdict = judge(engine, SHAPES[shape])
    assert (verdict.decision, verdict.hardline, verdict.grantable) == ("ask", False, False)
    assert "disguised_text" in {m.key for m in verdict.matches}


@pytest.mark.parametrize("hidden", HIDDEN)
@pytest.mark.parametrize("shape", ["escapes", "fullwidth", "one escape"])
def test_a_hardline_command_hidden_in_a_readings_shape_is_denied(engine: Engine, shape: str, hidden: str) -> None:
    verdict = judge(engine, SHAPES[shape] + "; " + HIDDEN[hidden])
    assert (verdict.decision, verdict.hardline) == ("deny", True)


def _uniform_deletions(text: str) -> list[str]:
    """normalize._deletions's uniform readings of an ASCII text as stop 30 made them (three ways)."""
    if "\x1b" not in text:
        return [normalize._controls(text)]
    ways = (text, normalize._INTRODUCED.sub("", text), normalize._ESCAPES_ASCII.sub("", text))
    return list(dict.fromkeys(normalize._controls(t) for t in ways))


def test_ascii_escape_deletions_are_those_of_the_three_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(normalize, "_MIXED_LENGTH", -1)  # every text by the uniform way
    rng = random.Random(31)
    alphabet = ["\x1b", "\x1b", "[", "]", "\\", "\x07", " ", "/", "(", "P", "a", ";", "0", "\x00", "\x7f", "m", "\n"]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
        assert normalize._deletions(text) == _uniform_deletions(text), repr(text)


def test_suspicious_finds_what_the_regex_finds_in_long_and_short_text() -> None:
    for code in range(0x80):
        for text in (chr(code), "a" * 600 + chr(code), chr(code) + "b\tc\n" * 200):
            assert normalize.suspicious(text) == (normalize._SUSPECT.search(text) is not None), (code, len(text))
    assert normalize.suspicious("x" * 600 + "é")


def test_no_invisible_character_folds_to_ascii() -> None:
    """What lets an NFKC that is ASCII stand for the fold (normalize._folded_whole): every character
    _INVISIBLE deletes keeps one past ASCII in its compatibility decomposition."""
    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    invisible = normalize._INVISIBLE.findall(every)
    assert len(invisible) > 4000
    assert [c for c in invisible if unicodedata.normalize("NFKD", c).isascii()] == []


def test_every_look_alike_is_past_ascii() -> None:
    """What lets an ASCII fold skip the look-alike translation (normalize.readings)."""
    assert all(code > 0x7F for code in normalize._CONFUSABLES)


@pytest.mark.parametrize("text", ["rm -rf " * 8_000, COMMANDS[:60_000]])
@pytest.mark.parametrize("left", [1024, 700, 3])
def test_a_plain_line_past_the_budget_is_over_it_as_the_fast_path_said(
    monkeypatch: pytest.MonkeyPatch, text: str, left: int
) -> None:
    """The look-ahead now goes before the plain-line fast path in a long text: the same OverBudget."""
    from engine.policy import lexer

    said = []
    for look_ahead in (False, True):
        monkeypatch.setattr(lexer, "LOOK_AHEAD", look_ahead)
        token = lexer.BUDGET.set(lexer.Budget(left, 60.0))
        try:
            with pytest.raises(lexer.OverBudget) as raised:
                lexer.tokenize(text)
            said.append(str(raised.value))
        finally:
            lexer.BUDGET.reset(token)
    assert said[0] == said[1]
