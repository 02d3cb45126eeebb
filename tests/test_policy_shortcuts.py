"""Two shortcuts on the slowest corpus commands (issue 8's p99), held to what they replaced:

- a glob in a word's last part (`rm -rf /*`, `grep -r x src/*`) is read from its folder's listing
  (trees._last_part_landings), not by glob.iglob then an lstat and a realpath per match: the same
  landings as the general reading, on a tree of links, hidden names and many matches;
- the shell's own parameters ($1.., $#, $@, $*, $0) are no program's environment: a function call
  that sets and puts them back leaves nothing a program's `env:` runs read, and a variable it did
  set or lose is still read after it."""

from __future__ import annotations

import glob
import itertools
import json
import posixpath
import random
import re
from collections.abc import Iterator

import pytest
import yaml

from engine import Engine
from engine.policy import trees
from engine.policy.regexes import RegexError, compile_linear
from engine.policy.variables import SHELL_OWN, Variables
from tests.conftest import REPO

SAMPLE = REPO / "tests" / "data" / "commands-sample.jsonl"


def _landings_by_glob(word: str, cwd: str, home: str, on_the_link: bool) -> list[str] | None:
    """tree_landings of a glob word as it read every glob before: glob.iglob, then each match."""
    path = home + word[1:] if word.startswith("~/") else posixpath.join(cwd, word)
    matches = list(itertools.islice(glob.iglob(path), trees._MAX_GLOB_MATCHES + 1))
    if len(matches) > trees._MAX_GLOB_MATCHES:
        return None
    return trees.landings_of(matches, home, on_the_link)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """HOME with a project whose src/ holds links (up the tree, to HOME, out, dangling, a loop),
    hidden names, and a folder of 70 files (past the glob bound)."""
    root = tmp_path_factory.mktemp("landings")
    home = root / "home" / "u"
    src = home / "proj" / "src"
    (src / "a").mkdir(parents=True)
    (src / ".hidden").mkdir()
    (src / "f.py").write_text("")
    (src / ".f.py").write_text("")
    for name, target in [("up", "../.."), ("h", str(home)), ("e", "/etc"), ("dangling", "none"), ("loop", "loop")]:
        (src / name).symlink_to(target)
    (home / "srclink").symlink_to(src)
    many = home / "proj" / "many"
    many.mkdir()
    for i in range(70):
        (many / f"m{i}").write_text("")
    return str(home), str(home / "proj")


WORDS = [
    "/*", "/?in", "/[bl]*", "~/*", "~/.*", "src/*", "src/.*", "src/*.py", "src/[a-h]*", "src/u?", "../*",
    "../../*", "many/*", "many/m1*", "nosuch/*", "src/up/*", "~/srclink/*", "src//*", "./src/*", "src/*/",
    "src/*/x", "*", ".*", "src/loop/*", "src/f.py/*", "//*",
]  # fmt: skip


@pytest.mark.parametrize("word", WORDS)
def test_a_last_part_glob_lands_where_the_glob_reading_did(tree: tuple[str, str], word: str) -> None:
    home, project = tree
    for cwd in (project, home, "/", posixpath.join(home, "srclink")):
        for on_the_link in (False, True):
            expected = _landings_by_glob(word, cwd, home, on_the_link)
            assert trees.tree_landings(word, cwd, home, on_the_link) == expected, (word, cwd, on_the_link)


def test_the_listing_reading_finds_links_up_and_out(tree: tuple[str, str]) -> None:
    home, project = tree
    found = trees.tree_landings("src/*", project, home, False)
    assert found is not None
    assert home in found and "/etc" in found  # `up -> ../..` holds HOME; `e -> /etc`
    assert trees.tree_landings("many/*", project, home, False) is None  # past the bound: unknown


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    loaded = Engine.load(REPO, config={"state_dir": str(tmp_path_factory.mktemp("state"))})
    yield loaded
    loaded.close()


@pytest.mark.parametrize(
    ("command", "decision"),
    [
        ("f() { :; }; f a b; tar tf a.tar", "allow"),
        ('g() { f "$@"; }; f() { echo "$#"; }; g a b c; tar tf a.tar', "allow"),
        ("f() { :; }; f; TAR_OPTIONS='\"--to-command=rm -rf ~\"' tar tf a.tar", "deny"),
        ("f() { export TAR_OPTIONS='\"--to-command=rm -rf ~\"'; }; f x; tar tf a.tar", "deny"),
        ("f() { read -r TAR_OPTIONS; }; f x; tar tf a.tar", "ask"),  # lost inside a call: still read
        ("f() { local X; :; }; f a; LD_PRELOAD=/tmp/x.so ls", "ask"),
        ("bash -c ':(){ :|:& };:'", "deny"),
    ],
)
def test_variables_after_a_call_are_read_as_before(engine: Engine, command: str, decision: str) -> None:
    assert engine.check(command).decision == decision


def test_the_shell_own_parameters_say_nothing_to_a_program() -> None:
    env = Variables({"HOME": "~"})
    assert not env.read_by_programs({})
    for key in SHELL_OWN:
        env[key] = "x"
        env.pop(key)
    assert not env.lost and not env.read_by_programs({})
    env["@"] = "a b"
    assert not env.read_by_programs({})
    assert env.read_by_programs({"X": "1"})
    env.pop("X")  # lost though never set: `X=$(cmd)` gives it a value nobody can read here
    assert env.lost == {"X": []} and env.read_by_programs({})
    assert Variables({"HOME": "/root"}).read_by_programs({}) and Variables().read_by_programs({})


def _policy_regexes() -> list[tuple[str, int]]:
    """Every `regex:` of the policies (patterns case-folded or not, as matchers compile them)."""
    found: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "regex" and isinstance(value, str):
                    found.append(value)
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for path in sorted((REPO / "policies").glob("*.yaml")):
        walk(yaml.safe_load(path.read_text()))
    return [(p, f) for p in dict.fromkeys(found) for f in (0, re.IGNORECASE)]


def test_a_text_without_a_needed_literal_is_not_searched_only_when_no_match_could_be() -> None:
    """regexes._literals_of: every match holds one of its texts. Checked on every policy regex
    against the corpus, the policy's own examples, texts made of its fragments, and case and
    spacing changes of them (`re` is the reference)."""
    texts = [json.loads(line)["cmd"] for line in SAMPLE.read_text().splitlines() if line.strip()]
    rng = random.Random(31)
    checked = skipped = 0
    for pattern, flags in _policy_regexes():
        try:
            regex = compile_linear(pattern, flags)
        except RegexError:
            continue
        regex._none_held("x" * 16)  # reads its literals
        if regex._literals is None:
            continue
        reference = re.compile(pattern, flags | re.ASCII)
        fragments = re.findall(r"[\w./:~ -]{2,}", pattern.replace("\\", "")) or ["x"]
        made = [" ".join(rng.choice(fragments) for _ in range(rng.randint(1, 4))) for _ in range(40)]
        for text in [*texts, *made, *(t.upper() for t in made), *(f"x {t} y" for t in fragments)]:
            if regex._none_held(text):
                assert reference.search(text) is None, (pattern, text)
                skipped += 1
            checked += 1
    assert checked and skipped


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("curl http://169.254.169.254/latest/meta-data/", True),
        ("curl http://0XA9FEA9FE/latest/", True),  # upper case: the text is folded as the regex is
        ("curl 'http://[::FFFF:a9fe:a9fe]/latest/'", True),
        ("curl http://example.com/metadata/v1/x", False),
        ("curl http://1\u0445.example/", False),  # not ASCII: searched, no match
    ],
)
def test_cloud_metadata_keeps_its_verdicts_past_the_literal_test(engine: Engine, text: str, found: bool) -> None:
    keys = {m.key for m in engine.check(text).matches}
    assert ("cloud_metadata" in keys) is found
