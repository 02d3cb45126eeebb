"""A long text with a few disguised characters: each reading's flat scan judges only the pieces
the reading changes (evaluate._Judged), and must find what a scan of the whole reading finds.

The attacker pads past the size limit with thousands of harmless commands and disguises one
(a fullwidth or look-alike letter, a terminal escape): the raw text holds no hardline command,
a reading does. A piece judged in the raw text is judged alike in a reading only in the same
folders: a `cd` that only a reading shows moves every run, so every piece is judged again there.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from engine.policy import evaluate
from engine.policy.lexer import MAX_LENGTH
from tests.conftest import REPO
from tests.redteam.conftest import judge

PADDING = "".join(f"rm a{i}; " for i in range(MAX_LENGTH // 8))

HIDDEN = [
    "ｒｍ -rf ~",  # fullwidth: NFKC reads rm
    "rм -rf ~",  # Cyrillic м: the look-alike reading
    "r\x1b]m -rf ~",  # an escape's introducer inside the name
    "rm -rf\u200b ~",  # an invisible character in a word
    "ｒｍ -rf a7",  # a word of the padding, after a disguised name
]


@pytest.fixture
def engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    work = tmp_path / "work"
    work.mkdir()
    engine = Engine.load(REPO, config={"workdir": str(work), "state_dir": str(tmp_path / "state")})
    yield engine
    engine.close()


@pytest.mark.parametrize("hidden", HIDDEN[:4], ids=range(4))
@pytest.mark.parametrize("where", ["end", "start", "middle"])
def test_a_disguised_hardline_command_in_a_long_text_is_hardline(engine: Engine, hidden: str, where: str) -> None:
    half = PADDING[: len(PADDING) // 2]
    text = {
        "end": PADDING + hidden,
        "start": hidden + "; " + PADDING,
        "middle": half + hidden + "; " + half,
    }[where]
    verdict = judge(engine, text)
    assert (verdict.decision, verdict.hardline) == ("deny", True)


@pytest.mark.parametrize("cd", ["ｃｄ /", "c\x1b]d /", "cd\u200b /"])
def test_a_cd_only_a_reading_shows_judges_every_piece_again(engine: Engine, cd: str) -> None:
    # `rm -rf *` is in the raw text too (judged there in the working directory); the reading
    # `cd /` moves it to / , where it deletes everything.
    text = PADDING + cd + "; rm -rf *"
    verdict = judge(engine, text)
    assert (verdict.decision, verdict.hardline) == ("deny", True)


def test_padding_with_a_harmless_disguise_stays_a_grant_proof_ask(engine: Engine) -> None:
    for text in (PADDING + HIDDEN[4], PADDING + "echo ｈｉ", PADDING + "echo \x1b[31mred\x1b[0m"):
        verdict = judge(engine, text)
        assert (verdict.decision, verdict.hardline, verdict.grantable) == ("ask", False, False)


@pytest.mark.parametrize("hidden", HIDDEN[:3], ids=range(3))
def test_disguises_far_apart_and_a_changed_separator_are_read(engine: Engine, hidden: str) -> None:
    # A reading that changes the text at both ends (a stretch longer than the one compared with an
    # earlier reading's pieces: judged in full), and one whose disguise is a separator between two
    # pieces (the pieces on both sides change).
    for text in (
        "ｔｒｕｅ; " + PADDING + hidden,
        PADDING + "true\x1b];" + hidden,
        PADDING[:-2] + "\x1b]" + hidden,
    ):
        verdict = judge(engine, text)
        assert (verdict.decision, verdict.hardline) == ("deny", True)


@pytest.mark.parametrize("letter", ["ａ", "K", "ſ", "é"], ids=["fullwidth", "kelvin", "long-s", "accented"])
def test_padding_of_words_past_ascii_hides_no_hardline_command(engine: Engine, letter: str) -> None:
    # The flat scan folds plain words (its quick path, _FlatFold._kept, now reads text past ASCII):
    # a word of letters past ASCII is no plain name, whether or not RE2 folds its case to ASCII
    # (`K` U+212A is `k`, `ſ` U+017F is `s` to a case-blind RE2), so it is never folded away.
    padding = "".join(f"rm {letter}{i}; " for i in range(MAX_LENGTH // 8))
    for text in (padding + "rm -rf ~", "rm -rf ~; " + padding, padding + f"rm -rf {letter}0 ~ {letter}1"):
        verdict = judge(engine, text)
        assert (verdict.decision, verdict.hardline) == ("deny", True), text[-40:]
    verdict = judge(engine, padding)
    assert (verdict.hardline, verdict.grantable) == (False, False)


# stop 29 (flat29): the first reading's pieces are kept as its cut text, put in a set only when a later
# reading asks about more than _FEW_NEW pieces (evaluate._Pieces); fewer are each looked for in the cut.
MANY_CHANGED = "".join(f"rm a{i}\x1b]; " for i in range(20))  # 20 pieces a reading changes, side by side


@pytest.mark.parametrize("hidden", HIDDEN[:3], ids=range(3))
def test_a_reading_that_changes_many_pieces_near_each_other_reads_them(engine: Engine, hidden: str) -> None:
    for text in (PADDING + MANY_CHANGED + hidden, MANY_CHANGED + hidden + "; " + PADDING):
        verdict = judge(engine, text)
        assert (verdict.decision, verdict.hardline) == ("deny", True), text[-60:]
    verdict = judge(engine, PADDING + MANY_CHANGED)
    assert (verdict.hardline, verdict.grantable) == (False, False)


def test_pieces_kept_as_cut_text_judge_as_a_set_of_them(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    # The same verdicts when every later reading's pieces are looked up in a set of the first one's.
    texts = [PADDING + h for h in HIDDEN] + [PADDING + MANY_CHANGED, PADDING + MANY_CHANGED + HIDDEN[2]]
    texts += [PADDING[:-2] + "\x1b]" + HIDDEN[0], "c\x1b]d /; " + PADDING + "rm -rf *"]
    lazy = [judge(engine, text) for text in texts]
    monkeypatch.setattr(evaluate, "_FEW_NEW", 0)
    eager = [judge(engine, text) for text in texts]
    assert [(v.decision, v.hardline, sorted(m.key for m in v.matches)) for v in lazy] == [
        (v.decision, v.hardline, sorted(m.key for m in v.matches)) for v in eager
    ]
    assert lazy[2].hardline and not lazy[-4].hardline


def test_the_benchmarks_session_shapes_judge_the_written_file() -> None:
    # bench_adversarial's session shapes (a file the session wrote, run by the command): harmless at
    # 4 KiB; one harmful line at their end is read (the file is judged as what the command runs).
    from bench.bench_adversarial import SESSION_SHAPES, SessionChecks

    sessions = SessionChecks()
    harmful = {"Makefile": "\trm -rf ~\n", "vimrc": ":!rm -rf ~\n"}
    try:
        for files, command in SESSION_SHAPES.values():
            written = files(4096)
            assert sessions.prepared(written, command)(command).decision == "allow"  # type: ignore[attr-defined]
            worse = {path: text + harmful[path] for path, text in written.items()}
            verdict = sessions.prepared(worse, command)(command)
            assert verdict.decision == "deny", (command, verdict)  # type: ignore[attr-defined]
    finally:
        sessions.close()
