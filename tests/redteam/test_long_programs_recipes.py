"""Long inline programs and long makefiles, read faster (stop 31, issue 10) and judged as before:

- a makefile's plain `echo WORDS` recipe lines are counted toward the command budget, not read
  (shell.Analyzer.inert_recipe): the verdicts are those of reading every line (Analyzer.inert_recipes
  off), a payload at line 500 is still found, past the budget the check still asks;
- code_paths reads a program's string literals past the runs that cannot hold a path
  (matchers._code_strings): the same paths as reading every literal;
- the code matchers' searches of a long program are prefiltered by one pass of their literals
  (regexes.search_among): the same answers as each regex's own search;
- a file an inline program writes again is read once (Analyzer.repeat): the verdicts of reading each."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from bench.bench_adversarial import SessionChecks
from engine.policy import matchers
from engine.policy.regexes import search_among
from engine.policy.shell import MAX_COMMANDS, Analyzer


@pytest.fixture(scope="module")
def sessions() -> Iterator[SessionChecks]:
    checks = SessionChecks()
    yield checks
    checks.close()


def _makefile(lines: int, at: int | None = None, payload: str = "", head: str = "") -> str:
    recipe = [f"\techo a{i} b-{i}:c" for i in range(lines)]
    if at is not None:
        recipe[at] = "\t" + payload
    return "all:\n" + (f"\t{head}\n" if head else "") + "\n".join(recipe) + "\n"


def _verdicts(sessions: SessionChecks, text: str, monkeypatch: pytest.MonkeyPatch) -> list[tuple[object, ...]]:
    """The check of `make` after the session wrote ``text`` as its Makefile: with inert recipe lines
    skipped, and read line by line (the reference)."""
    out = []
    for skip in (True, False):
        monkeypatch.setattr(Analyzer, "inert_recipes", skip)
        verdict = sessions.prepared({"Makefile": text}, "make")("make")
        out.append(
            (
                verdict.decision,  # type: ignore[attr-defined]
                verdict.hardline,  # type: ignore[attr-defined]
                tuple((m.key, m.command, m.grantable) for m in verdict.matches),  # type: ignore[attr-defined]
            )
        )
    return out


# Lines that change what a later `echo` does when the analyzer reads it, or that run something.
_HEADS = [
    "alias echo='rm -rf ~'",
    "echo() { rm -rf ~; }",
    "exec > >(sh)",
    "PS4='$(rm -rf ~)'; set -x",
    "cd ..",
    "X=1",
    "set -k",
    "hash -p /bin/rm echo",
]
_PAYLOADS = ["rm -rf ~", "echo hi > ~/.bashrc", "curl x | sh", "echo a; rm -rf /"]


@pytest.mark.parametrize("lines", [20, MAX_COMMANDS, MAX_COMMANDS + 1, 2500])
def test_inert_recipe_lines_judge_as_read(sessions: SessionChecks, lines: int, monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [_makefile(lines)]
    texts += [_makefile(lines, head=head) for head in _HEADS]
    for at in sorted({0, lines // 2, min(500, lines - 1), lines - 1}):
        texts += [_makefile(lines, at, payload) for payload in _PAYLOADS]
    for text in texts:
        skipped, read = _verdicts(sessions, text, monkeypatch)
        assert skipped == read, text[:200]


def test_a_payload_at_line_500_of_a_long_makefile_is_found(
    sessions: SessionChecks, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain, _ = _verdicts(sessions, _makefile(2500), monkeypatch)
    assert plain[0] == "ask" and [key for key, _, _ in plain[2]] == ["unparseable"]  # past the budget
    found, _ = _verdicts(sessions, _makefile(2500, 499, "rm -rf ~"), monkeypatch)
    assert found[0] == "deny" and found[1] is True
    short, _ = _verdicts(sessions, _makefile(100), monkeypatch)
    assert short[0] == "allow"


def test_code_paths_reads_every_literal_that_may_hold_a_path() -> None:
    rng = random.Random(31)
    pieces = [*"\"'\\/~.hHomeOMEx a\n", "home", "HOME", "$HOME", "a/b", ".bashrc", "os.environ['HOME']"]
    fillers = ['open("x", "w");', "x = 1\n", "''", '"', "'", 'f("h")', "ｘ = 1\n"]

    def every_literal(code: str) -> list[str]:
        matchers._LAST_CODE[0] = None
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(matchers, "_code_strings", matchers._CODE_STRINGS.findall)
            return matchers.code_paths(code)

    for n in range(1500):
        code = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 40)))
        if n % 3:  # long (past _LONG_CODE: the RE2 run for an ASCII one), the literals before or after
            filler = rng.choice(fillers) * (4200 // 2 + rng.randrange(200))
            code = filler + code if n % 2 else code + filler
        matchers._LAST_CODE[0] = None
        assert matchers.code_paths(code) == every_literal(code), code[-120:]


def test_prefiltered_code_searches_answer_as_each_search(sessions: SessionChecks) -> None:
    evaluator = sessions.engine._evaluator(sessions.engine._snapshot)
    patterns = evaluator.patterns_for("terminal", "command")
    regexes = [m.code for p in patterns for m in p.matchers if m.code is not None]
    regexes += [p.regex for p in patterns if p.regex is not None]
    words = [
        "os.system(",
        "shutil.rmtree('/')",
        "exec(base64.b64decode(x))",
        "socket.socket(); pty.spawn('/bin/sh')",
        "while True: os.fork()",
        "open('x', 'w')",
        "getattr(os, 'sys' + 'tem')",
        "ZipFile(x).extractall()",
        "/inet/tcp/",
        "from engine import cli",
        "Write",
        "FORK",
        "x = 1",
        "ｘ",
    ]
    rng = random.Random(131)
    found = 0
    for _ in range(150):
        code = " ".join(rng.choice(words) for _ in range(rng.randrange(1, 6)))
        filler = rng.choice(["x = 1\n", 'open("x", "w");', "ｘ"]) * 600
        text = filler + code if rng.random() < 0.5 else code + filler
        for regex in regexes:
            expected = regex.search_text(text) is not None
            assert (search_among(regex, text) is not None) == expected, (regex.pattern, code)
            found += expected
    assert found  # (some searches find something)


def test_a_failed_atom_pass_searches_every_regex(sessions: SessionChecks, monkeypatch: pytest.MonkeyPatch) -> None:
    # The binding reads a failed atom pass (RE2::Set out of memory) as "no atom": without the canary,
    # every filtered regex would be skipped (fail open). A pass that finds nothing is such a failure.
    from engine.policy import regexes

    evaluator = sessions.engine._evaluator(sessions.engine._snapshot)
    patterns = evaluator.patterns_for("terminal", "command")
    code = [m.code for p in patterns for m in p.matchers if m.code is not None]
    text = "x = 1\n" * 1000 + "import shutil; shutil.rmtree(p); open(p, 'w')"
    hits = [regex for regex in code if search_among(regex, text) is not None]
    assert len(hits) >= 2  # (the program's calls are found with the pass working)

    class Failed:
        def __init__(self, real: object) -> None:
            self.real = real

        def Match(self, data: bytes, potential: bool) -> list[int]:
            return []

    monkeypatch.setattr(regexes._PREFILTER, "filter", Failed(regexes._PREFILTER.filter))
    monkeypatch.setattr(regexes._PREFILTER, "last", (None, None, frozenset()))
    assert [regex for regex in code if search_among(regex, text) is not None] == hits


@pytest.mark.parametrize("calls", [2, 300, MAX_COMMANDS + 1])
def test_a_file_written_again_judges_as_each_write_read(
    sessions: SessionChecks, calls: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `open("x", "w")` N times is read once as `tee x`, then counted and charged as that reading
    # (Analyzer.repeat): the verdicts, reason included, are those of reading each write.
    texts = []
    for unit in ['open("x", "w");', 'open("x", "w"); open("y", "w");', 'open("~/.bashrc", "w");', 'open(p, "w");']:
        body = unit * calls
        texts += [f"python3 -c '{body}'", f"python3 -c '{body}' && rm -rf ~", f"cd /; python3 -c '{body}'"]
        texts.append(f'python3 -c \'{body}; open("/etc/passwd", "w")\'')
    evaluator = sessions.engine._evaluator(sessions.engine._snapshot)
    for text in texts:
        verdicts = []
        for repeat in (True, False):
            monkeypatch.setattr(Analyzer, "repeated_writes", repeat)
            v = evaluator.check(text)
            verdicts.append(
                (v.decision, v.hardline, v.reason, tuple((m.key, m.command, m.grantable) for m in v.matches))
            )
        assert verdicts[0] == verdicts[1], text[:100]
    assert evaluator.check("python3 -c '" + 'open("~/.bashrc", "w");' * calls + "'").decision != "allow"
