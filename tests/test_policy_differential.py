"""Differential test: the evaluator's shortcuts against a reference that takes none of them.

The shortcuts (the fast path that skips parsing a line without a trigger word, the index that
hands each command only the matchers its name or verb can meet, the prefilters of name-less
matchers, the class test of a command's words in one set operation, the reading of a line of
plain words without tokens) exist for speed only. The
reference judges the same texts with every one of them off: every line is parsed and every
matcher of every pattern is tried on every command, its name tested by the matcher itself.
Both must give the same verdict -- decision, hardline flag and the matched pattern keys with
the commands they name -- on the labelled corpus, every string in the red-team suite and
generated commands.

Abuse case: a shortcut that skips a matcher the command could meet lets a dangerous command
through as `allow` (a trigger list that misses a name, an index keyed on the wrong verb).
"""

from __future__ import annotations

import ast
import json
import os
import random
import re
from collections.abc import Iterator
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.bench_adversarial import SHAPES
from engine import Engine
from engine.policy import evaluate, lexer
from engine.policy.evaluate import Evaluator, _Index, _match_plan, _plain_grammar
from engine.policy.lexer import ShellSyntaxError
from engine.policy.matchers import compile_matcher
from engine.policy.model import CompiledPattern
from engine.policy.shell import _COMMAND_FIELDS, _NOT_PLAIN, Analyzer, Command, _plain_words
from tests.conftest import REPO, pure_build_only
from tests.redteam.conftest import make_home

CORPUS = REPO / "tests" / "data" / "commands-sample.jsonl"
REDTEAM = REPO / "tests" / "redteam"


def _every_matcher(
    self: _Index, command: Command, engine_names: Any = None, view: Any = None, engine_fragments: Any = None
) -> list[Any]:
    """The reference's candidates: every command matcher of the index, the name tested by each."""
    entries: dict[tuple[int, int], Any] = {}
    lists = [*self.by_name.values(), *self.by_subcommand.values()]
    lists += [self.generic, self.redirecting, self.globbed, self.dynamic, list(self.engine)]
    for found in lists:
        for i, pattern, matcher, _ in found:
            entries.setdefault((i, id(matcher)), (i, pattern, matcher, False))
    return list(entries.values())


def _key(verdict: Any) -> tuple[Any, ...]:
    matches = sorted((m.key, m.command, m.grantable) for m in verdict.matches)
    return verdict.decision, verdict.hardline, tuple(matches)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    root = tmp_path_factory.mktemp("differential")
    home = make_home(root)
    work = root / "work"
    work.mkdir()
    # On disk, so a glob or a remote spelling that names it (`x/../.en?`, `ab:/../.en?`) lands on it.
    (work / ".env").write_text("KEY=1\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(home))
        patch.chdir(work)
        assert os.environ["HOME"].startswith(str(root))
        engine = Engine.load(REPO, config={"workdir": str(work), "state_dir": str(root / "state")})
        yield engine
        engine.close()


def _evaluator(engine: Engine) -> Evaluator:
    evaluator = engine._evaluator(engine._snapshot)
    evaluator.parse_cache = 0  # every check parses (the reference shares no parse with the fast path)
    return evaluator


def _compare(engine: Engine, texts: list[str]) -> None:
    evaluator = _evaluator(engine)
    differ = _differing(evaluator, texts)
    # A long text judged past its CPU budget on a loaded machine is read by the flat scan (its matches then
    # differ from the reference's full reading): what differs is judged again, both ways, twice; a real
    # difference differs every time (the last CI of stop 39's head failed once so, at load 7 on 2 CPUs).
    for _ in range(2):
        if not differ:
            break
        differ = _differing(evaluator, [text for text, _, _ in differ])
    assert not differ, [(text, f, r, evaluator.check(text).reason) for text, f, r in differ[:5]]


def _differing(evaluator: Evaluator, texts: list[str]) -> list[tuple[str, object, object]]:
    """(text, fast verdict, reference verdict) for each text the two judge differently."""
    fast = [_key(evaluator.check(text)) for text in texts]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_Index, "candidates", _every_matcher)
        patch.setattr(Evaluator, "_can_skip", lambda self, text, view: False)
        patch.setattr(evaluator, "by_classes", False)
        patch.setattr(Analyzer, "plain_words", False)
        patch.setattr(Analyzer, "inert_recipes", False)
        patch.setattr(Analyzer, "repeated_writes", False)
        patch.setattr(evaluator, "skip_repeats", False)
        patch.setattr(lexer, "LOOK_AHEAD", False)
        patch.setattr(lexer.Lexer, "plain_substitutions", False)
        patch.setattr(Analyzer, "replay", False)
        reference = [_key(evaluator.check(text)) for text in texts]
    return [(text, f, r) for text, f, r in zip(texts, fast, reference, strict=True) if f != r]


def _corpus() -> list[str]:
    return [json.loads(line)["cmd"] for line in CORPUS.read_text().splitlines() if line.strip()]


def _redteam_strings() -> list[str]:
    found: dict[str, None] = {}
    for path in sorted(REDTEAM.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.strip():
                found[node.value] = None
    return list(found)


def test_the_reference_is_a_different_path(engine: Engine) -> None:
    """The reference takes no shortcut: a line the fast path skips is parsed, and a command meets
    matchers of other names (which their own name test then refuses)."""
    evaluator = _evaluator(engine)
    index = evaluator._index(evaluator.patterns_for("terminal", "command"))
    view = evaluator.classifier.view()
    assert evaluator._can_skip("whoami", view)  # the fast path is live for the shipped policy
    command = Command("ls", ("ls", "-la"), (False, False))
    assert len(_every_matcher(index, command)) > 10 * len(index.candidates(command, None, view))
    # Matchers whose `args` classes no positional holds are passed over (Evaluator.by_classes): `rm -rf
    # node_modules` meets several that need a critical or home path, and the reference calls each.
    assert evaluator.by_classes
    rm = Command("rm", ("rm", "-rf", "node_modules"), (False,) * 3, program=evaluator.policy.programs.get("rm"))
    needing = [e for e in index.candidates(rm, None, view) if e[2].arg_classes is not None]
    passed_over = [e for e in needing if e[2].arg_classes.isdisjoint(view.classify("node_modules"))]
    assert len(passed_over) >= 3
    # A line of plain words is read without tokens (Analyzer.plain_words); one with anything else is lexed.
    assert Analyzer.plain_words
    assert _plain_words("git push -f origin main") == ["git", "push", "-f", "origin", "main"]
    for lexed in ("rm -rf ~/$x", "X=1 rm -rf /", "for x", "ls; rm -rf /", "rm '-rf' /", "[[ a =~ b ]]", "a\nb"):
        assert _plain_words(lexed) is None, lexed


# What _plain_words matched before stop 33 (a full match of words and blanks): the character scan
# that replaced it (shell._NOT_PLAIN, plus a word) must take the same lines.
_PLAIN_COMMAND_BEFORE = re.compile(r"[ \t]*+(?:[A-Za-z0-9_@%+=:,./~^*?\[\]-]++[ \t]*+)++")


def test_the_plain_character_scan_takes_the_lines_the_full_match_took() -> None:
    rng = random.Random(33)
    alphabet = "aZ09_@%+=:,./~^*?[]- \t\n\r\x0b'\"\\$`;&|<>(){}#!é\u3000\x00"
    texts = [*_corpus(), *_redteam_strings(), "", " ", "\t", " \t ", "a", " a ", "a\u3000b"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(12))) for _ in range(3000)]
    for text in texts:
        assert (_NOT_PLAIN.search(text) is None and text.split() != []) == (
            _PLAIN_COMMAND_BEFORE.fullmatch(text) is not None
        ), text


def test_the_lexers_plain_line_scan_takes_the_lines_the_full_match_takes() -> None:
    rng = random.Random(9)
    alphabet = "ab1=-/.~*?+@!%: \t\n\r'\"\\$`;&|<>(){}#[]"
    texts = [*_corpus(), *_redteam_strings(), "", " ", ";;&|&&", "a;;&b", "|&&;"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(14))) for _ in range(4000)]
    for text in texts:
        if text.isascii():
            assert (lexer._NOT_PLAIN_LINE.search(text) is None) == (lexer._PLAIN_LINE.fullmatch(text) is not None), text


# The Lexer's token regex before stop 33 (a word's run not possessive), read through `lastgroup`:
# Lexer.run now takes the kind from the token's first character.
_TOKEN_BEFORE = re.compile(
    r"(?P<word>[^ \t\n'\"\\$`;&|<>()#{}]+(?=[ \t\n;&|)]|[<>](?!\()|\Z|(?<![?*+@!])\())|(?P<ws>[ \t]+)"
    r"|(?P<op>" + "|".join(re.escape(op) for op in lexer._OPERATORS) + r")"
    r"|(?P<nl>\n)|(?P<comment>\#[^\n]*)"
)


def _kind_by_first(ch: str) -> str:
    if ch in " \t":
        return "ws"
    if ch == "#":
        return "comment"
    if ch == "\n":
        return "nl"
    return "op" if ch in lexer._OPERATOR_FIRST else "word"


def test_the_token_regex_and_its_kind_by_first_character_match_the_old_reading() -> None:
    rng = random.Random(8)
    alphabet = "ab1=-/.~*?+@! \t\n'\"\\$`;&|<>(){}#[]"
    texts = [*_corpus(), *_redteam_strings()]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(16))) for _ in range(3000)]
    for text in texts:
        for pos in range(min(len(text), 200)):
            old, new = _TOKEN_BEFORE.match(text, pos), lexer._TOKEN.match(text, pos)
            assert (old is None) == (new is None), (text, pos)
            if old is not None and new is not None:
                assert old.span() == new.span() and old.lastgroup == _kind_by_first(text[pos]), (text, pos)


def _analyzed(engine: Engine, text: str, plain: bool) -> Any:
    """Everything the analyzer read of ``text``: each command's fields, files it could not read, files written."""
    analyzer = Analyzer(_evaluator(engine).policy.programs)
    analyzer.plain_words = plain
    try:
        analyzer.analyze(text)
    except ShellSyntaxError as exc:
        return type(exc).__name__, str(exc)
    commands = [[getattr(c, f) for f in _COMMAND_FIELDS if f not in ("shape", "reading")] for c in analyzer.commands]
    files = {key: (w.writers, w.content) for key, w in analyzer.files.items()}
    return commands, analyzer.unread, files, analyzer.cwd


def test_plain_lines_read_as_the_lexer_reads_them(engine: Engine) -> None:
    """Every line of plain words in the corpus and the red-team suite gives the same commands, field by
    field, whether it is read without tokens or lexed (so a verdict cannot differ either)."""
    texts = [t for t in dict.fromkeys(_corpus() + _redteam_strings()) if _plain_words(t) is not None]
    assert len(texts) > 500
    differ = [t for t in texts if _analyzed(engine, t, True) != _analyzed(engine, t, False)]
    assert not differ, differ[:5]


def test_a_repeated_command_is_matched_once(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """Evaluator.skip_repeats is live: 40 equal commands on a line meet their matchers once; one
    that differs in any field (here its redirection) is judged on its own."""
    evaluator = _evaluator(engine)
    index = evaluator._index(evaluator.patterns_for("terminal", "command"))
    met: list[str] = []
    candidates = _Index.candidates

    def counted(self: _Index, command: Command, *args: Any) -> Any:
        met.append(command.text)
        return candidates(self, command, *args)

    monkeypatch.setattr(_Index, "candidates", counted)
    verdict = evaluator.check("echo " + "$(rm -rf x) " * 40 + "; rm -rf x > /dev/sda")
    assert index is evaluator._index(evaluator.patterns_for("terminal", "command"))
    assert met.count("rm -rf x") == 2 and verdict.decision == "deny"


# ~3,000 texts judged twice, the reference trying every matcher on every command: 58 s alone at
# load 11 on 2 CPUs, ~84 s of one worker in a full suite at load ~10 (stop 30), past the suite's old
# 120 s on a CI run beside four test suites. The bound is for hangs, not for this much work.
# Four shards, so that pytest-xdist's workers share them (one test was the suite's longest call).
@pytest.mark.timeout(900)
@pytest.mark.parametrize("shard", range(4))
def test_corpus_and_redteam_strings_judge_as_the_reference(
    engine: Engine, shard: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (stop 56) a comparison of the two readings, not of the clock: past the 0.5 s budget a loaded machine reads a long
    # text by the flat scan on one path and not the other (CI at stop 56, shard 0, on a redteam docstring)
    monkeypatch.setattr(evaluate, "BUDGET", 60.0)
    texts = _corpus() + _redteam_strings()
    assert len(texts) > 1000
    _compare(engine, texts[shard::4])


@pytest.mark.parametrize("size", [4096, 16384, 65536])
def test_adversarial_shapes_judge_alike_without_the_long_text_shortcuts(
    engine: Engine, size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lexer's look-ahead past the token budget (a text that starts with more plain tokens
    than the budget holds is past it without lexing them) and the tokens of a text lexed again
    under the budget, reused and charged again, on the benchmark's adversarial shapes and the same
    shapes with a hardline command after them: the same verdict, reason included."""
    texts = [build(size) for build in SHAPES.values()]
    texts += [text + "\nrm -rf ~" for text in texts] + ["'a' " * (size // 4) + "; rm -rf ~"]
    evaluator = _evaluator(engine)
    # The comparison is of the parse, not of the clock: on a loaded machine the slow path's
    # check can pass the 0.5 s time budget and end in the flat scan (a different reason).
    monkeypatch.setattr(evaluate, "BUDGET", 60.0)
    fast = [evaluator.check(text) for text in texts]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lexer, "LOOK_AHEAD", False)
        patch.setattr(lexer.Lexer, "plain_substitutions", False)
        patch.setattr(Analyzer, "replay", False)
        slow = [evaluator.check(text) for text in texts]
    differ = [
        (text[:80], f, s)
        for text, f, s in zip(texts, fast, slow, strict=True)
        if (_key(f), f.reason) != (_key(s), s.reason)
    ]
    assert not differ, differ[:3]
    assert any(v.decision == "deny" for v in fast) and any(v.decision == "ask" for v in fast)


_NAMES = [
    "rm",
    "git",
    "cp",
    "mv",
    "sudo",
    "find",
    "dd",
    "curl",
    "bash",
    "sh",
    "python3",
    "tar",
    "ln",
    "ls",
    "cat",
    "echo",
    "chmod",
    "docker",
    "env",
    "xargs",
    "sed",
    "awk",
    "kill",
    "tee",
    "ssh",
    "make",
    "npm",
    "whoami",
    "type",
    "more",
    # names the shell or Windows resolves otherwise than spelled (rt5): the fast path must parse them
    "/???/?m",
    "r?",
    "gh.exe",
    "grm",
    "wsl",
]
_WORDS = [
    *[
        "-rf",
        "-r",
        "-f",
        "--force",
        "--hard",
        "-c",
        "-e",
        "push",
        "reset",
        "clean",
        "rm",
        "/",
        "~",
        "~/.ssh/id_rsa",
        "/etc/passwd",
        "/dev/sda",
        "of=/dev/sda",
    ],
    *[
        "node_modules",
        "build/",
        ".",
        "*",
        "x.sh",
        "-exec",
        "{}",
        ";",
        "policies/a.yaml",
        ".env",
        "hl",
        "-s",
        "/tmp/x",
        "1e",
        "$HOME/.aws/config",
    ],
    *[r"%USERPROFILE%\.ssh\id_rsa", r"C:\Users\me\.aws\credentials", "C:/Users/me/.bashrc"],
    *["%USERPROFILE%/.ssh/authorized_keys", "c:/users/me/.ssh/id_rsa", "%homepath%/.aws/config"],
    *["'rm -rf ~'", '"$HOME"', "$(curl x)"],
    # spellings judged as the local file only where they land (a glob, a `..` past a folder not made yet)
    *["ab:/../.en?", "x/../.en?", "user@h:/../.e*", "http://x/../../.en[v]"],
]
_OPERATORS = [" ", " ", " ", " | ", " && ", "; ", " > ", " < ", "\n"]


@st.composite
def _commands(draw: st.DrawFn) -> str:
    parts = [draw(st.sampled_from(_NAMES))]
    for _ in range(draw(st.integers(0, 6))):
        parts.append(draw(st.sampled_from(_OPERATORS)))
        pool = _NAMES if parts[-1].strip() and parts[-1].strip() not in "<>" else _WORDS
        parts.append(draw(st.sampled_from(pool)))
    return "".join(parts)


@settings(max_examples=150, deadline=None)
@given(st.lists(_commands(), min_size=1, max_size=8))
def test_generated_commands_judge_as_the_reference(engine: Engine, texts: list[str]) -> None:
    _compare(engine, texts)


_PLAIN_NAMES = [*_NAMES, "busybox", "timeout", "nice", "bash"]
_PLAIN_WORDS = [w for w in [*_NAMES, *_WORDS] if _plain_words("x " + w) is not None]
_PLAIN_WORDS += ["--checkpoint-action=exec=sh", "-S", "x=1", "-lc"]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(_PLAIN_NAMES), min_size=1, max_size=3),
    st.lists(st.sampled_from(_PLAIN_WORDS), max_size=6),
    st.sampled_from([" ", "\t", "  "]),
)
def test_generated_plain_lines_read_as_the_lexer_reads_them(
    engine: Engine, names: list[str], words: list[str], blank: str
) -> None:
    text = blank.join([*names, *words])
    assert _plain_words(text) is not None
    assert _analyzed(engine, text, True) == _analyzed(engine, text, False)


@pure_build_only
def test_a_text_lexed_again_under_the_budget_reuses_its_tokens(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """Analyzer.replay is live: past 256 characters (a budget), `a` in 60 `$(a)` is lexed once, not
    three times each (what it prints, the names it runs, its commands); the budget is charged alike."""
    from engine.policy import shell

    lexed: list[str] = []
    tokenize = shell.tokenize

    def counted(text: str) -> Any:
        lexed.append(text)
        return tokenize(text)

    monkeypatch.setattr(shell, "tokenize", counted)
    text = "echo " + "$(a) " * 60 + "; rm -rf ~"
    evaluator = _evaluator(engine)
    assert evaluator.check(text).decision == "deny"
    assert lexed.count("a") == 1
    lexed.clear()
    monkeypatch.setattr(Analyzer, "replay", False)
    assert evaluator.check(text).decision == "deny"
    assert lexed.count("a") >= 120


# Plain names a matcher may tell apart from others though their only class here is `relative`:
# a landing (`cp gcloud ~/.config`), a subcommand, tar's dashless options, a DURATION, a glob
# or regex of a matcher (`.git` is no plain name; `HEAD`, `id_rsa`, `main` are), an engine name.
_TELLING = [
    "gcloud",
    "hosts.yml",
    "authorized_keys",
    "id_rsa",
    "push",
    "xzf",
    "cf",
    "5",
    "HEAD",
    "main",
    "policies",
    "hl",
    "rm",
    "sh",
]


def _long_line(commands: list[str], extra: list[str]) -> str:
    """``commands`` on one line, each also with plain words after it (new ones, and ``extra``), past
    the count where _match reads commands by their form."""
    parts = [f"ls pad{i}" for i in range(40)]
    for n, command in enumerate(commands):
        parts += [command, f"{command} new{n}", f"{command} new{n} other{n}"]
        parts += [f"{command} {word}" for word in extra]
        parts += [f"{command.split()[0]} new{n} {command}"]
    return "; ".join(parts)


def test_commands_alike_but_for_plain_names_are_judged_by_their_form(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Commands that differ only in plain names whose only class is `relative` meet their matchers once
    (Evaluator._match's forms: `rm n1; rm n2; ...`), each still reported with its own text; a name a
    matcher of that command tells apart (a landing, a subcommand, a glob) is judged on its own."""
    evaluator = _evaluator(engine)
    met: list[str] = []
    candidates = _Index.candidates

    def counted(self: _Index, command: Command, *args: Any) -> Any:
        met.append(command.text)
        return candidates(self, command, *args)

    monkeypatch.setattr(_Index, "candidates", counted)
    # (cfg49: every file of ~/.config is sensitive_dotfile now) the home's top: `~/n1` is not, `~/.npmrc` is
    text = "; ".join(f"shred -u n{i}" for i in range(100)) + "; cp n1 ~; cp .npmrc ~"
    verdict = evaluator.check(text)
    assert len([t for t in met if t.startswith("shred -u n")]) == 1
    assert "cp .npmrc ~" in met
    matched = {(m.key, m.command) for m in verdict.matches}
    assert {c for k, c in matched if k == "shred_files"} == {f"shred -u n{i}" for i in range(100)}
    assert ("write_sensitive_file", "cp .npmrc ~") in matched
    assert ("write_sensitive_file", "cp n1 ~") not in matched
    monkeypatch.setattr(_Index, "candidates", candidates)
    # Names a glob or regex of a matcher holds (`chmod 4755 x` asks, `chmod new0 x` does not).
    tested = [*_TELLING, "777", "4755", "o+w", "http.server", "engine"]
    heads = [("chmod", "x"), ("chmod -R", "~"), ("python3 -m", "-v"), ("shred", "~/.ssh/x"), ("rm -rf", "/")]
    words = "; ".join(f"{head} {word} {tail}" for head, tail in heads for word in ["new0", "new1", *tested])
    words += "".join(f"; ls pad{i}" for i in range(40))  # words enough to classify at once
    lines = [text, _long_line(["tar", "git", "timeout", "cp x ~/.config", "rm -rf"], _TELLING), words]
    _compare(engine, lines)


@settings(max_examples=40, deadline=None)
@given(st.lists(_commands(), min_size=1, max_size=6), st.lists(st.sampled_from(_TELLING), max_size=4))
def test_generated_long_lines_judge_as_the_reference(engine: Engine, commands: list[str], extra: list[str]) -> None:
    """Generated commands among many that differ from them only in plain names (new ones, and names a
    matcher may tell apart): the forms of _match judge as the reference, which reads each command."""
    _compare(engine, [_long_line(commands, extra)])


def test_a_form_is_made_only_where_each_word_is_read_alone(engine: Engine) -> None:
    """No form (_match_plan None) for a name one of whose matchers reads a word joined to another (`cp
    gcloud ~/.config` writes ~/.config/gcloud, a credential; `cp n1 ~/.config` does not), its text or a
    subcommand; none for a program whose grammar reads a plain name as options (`tar xzf`), a
    subcommand (`git push`) or a leading operand (`timeout 5`)."""

    def plan(data: dict[str, Any]) -> Any:
        matcher = compile_matcher(data, frozenset({"credential"}), [])
        pattern = CompiledPattern("k", "d", "dangerous", (matcher,), None, (), cast(Any, None))
        return _match_plan(_Index.build((pattern,)), "cpx")

    assert plan({"command": ["cpx"], "args": {"classes": ["credential"]}}) == ()
    assert plan({"command": ["cpx"], "args": {"glob": ["*.pem"]}}) != ()
    for spec in ({"position": "into"}, {"position": "inside"}):
        assert plan({"command": ["cpx"], "args": {"classes": ["credential"], **spec}}) is None
        assert plan({"command": ["cpx"], "options": {"t": {"classes": ["credential"], **spec}}}) is None
    assert plan({"command": ["cpx"], "text": "x"}) is None
    assert plan({"command": ["cpx"], "subcommand": ["a b"], "flags": ["-f"]}) is None
    programs = _evaluator(engine).policy.programs
    assert _plain_grammar(None) and _plain_grammar(programs.get("rm"))
    assert not any(_plain_grammar(programs.get(name)) for name in ("tar", "git", "timeout"))
