"""glob34 (stop 34, issue 8): an extglob group naming a hidden name.

adv33 read a path component whose extglob group holds a dot as `..`; bash 5.2 (globskipdots, its
default) never matches `.` or `..` by a pattern, and matches a hidden name when the pattern's dot is
literal, inside the group or outside it: `cat ~/@(.ssh)/id_*` printed the key and was allowed. A group
is now read as the names it may match (paths.extglob_words: `@(a|b)` a and b, `?(a)` nothing or a,
`+(a)`/`*(a)` a and a run of more, `!(a)` anything), each judged as brace expansion's words are.

The reading is checked against what a real bash matches in a temporary HOME, with dotglob,
nocaseglob and GLOBIGNORE (which turns dotglob on) as well: the engine cannot see a setting made
before the line, so its reading must cover them all.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

from engine import Engine
from engine.policy.paths import extglob_words
from tests.redteam.harm import Case, assert_verdict, live_then_stopped, verdict_cases

X = "shopt -s extglob\n"

HIDDEN: dict[str, Case] = {
    "key folder": ({}, X + "cat ~/@(.ssh)/id_*"),
    ".env group": ({}, X + "cat @(.env)"),
    ".env dot outside": ({}, X + "cat .@(env)"),
    ".bashrc": ({}, X + "cp x ~/@(.bashrc)"),
    ".bashrc part": ({}, X + "cp x ~/@(.bash)rc"),
    # unseen spellings
    "dot outside, group inside the name": ({}, X + "cat ~/.@(ss)h/id_*"),
    "one of two": ({}, X + "cat ~/@(.aws|x)/credentials"),
    "hidden second": ({}, X + "cat @(x|.env)"),
    "*(.)": ({}, X + "cat ~/*(.)ssh/id_rsa"),
    "+(.)": ({}, X + "cat ~/+(.)ssh/id_rsa"),
    "?(.)": ({}, X + "cat ~/?(.)ssh/id_rsa"),
    "nested": ({}, X + "cat ~/@(x|@(y|.ssh))/id_rsa"),
    "two groups": ({}, X + "cat ~/@(.aws)/@(credentials|x)"),
    "nocaseglob": ({}, "shopt -s extglob nocaseglob\ncat ~/@(.SSH)/id_rsa"),
    "dotglob !()": ({}, "shopt -s extglob dotglob\ncat ~/!(x)/id_rsa"),
    "GLOBIGNORE !()": ({}, X + "GLOBIGNORE=x\ncat ~/!(x)/id_rsa"),
    "append": ({}, X + "echo x >> ~/@(.bashrc)"),
    "delete the key folder": ({}, X + "rm -rf ~/@(.ssh)"),
    "bash -O extglob": ({}, "bash -O extglob -c 'cat ~/@(.ssh)/id_*'"),
}
NEAR: dict[str, Case] = {
    "ls a group": ({}, X + "ls src/@(a|b)"),
    "cat a group": ({}, X + "cat src/@(a|b).py"),
    "rm object files": ({}, X + "rm -f *.@(o|a)"),
    "ls but one": ({}, X + "ls !(node_modules)"),
    "rm in a build folder": ({}, X + "rm -rf build/!(keep)"),
    "a hidden project file": ({}, X + "cat @(.gitignore|.editorconfig)"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(HIDDEN, NEAR))
def test_an_extglob_group_naming_a_hidden_name_is_judged_as_that_name(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


# (the pattern, bash options before it) for the reading against bash; ~ is the temporary HOME.
PATTERNS = [
    ("~/@(.ssh)/id_*", ""),
    ("@(.env)", ""),
    (".@(env)", ""),
    ("~/@(.bashrc)", ""),
    ("~/@(.bash)rc", ""),
    ("~/.@(ss)h/id_*", ""),
    ("~/@(.aws|x)/credentials", ""),
    ("~/*(.)ssh/id_*", ""),
    ("~/+(.)ssh/id_*", ""),
    ("~/?(.)ssh", ""),
    ("~/@(x|@(y|.ssh))", ""),
    ("~/.!(x)", ""),
    ("~/!(x)", ""),
    ("~/!(x)", "shopt -s dotglob"),
    ("~/!(x)/id_*", "GLOBIGNORE=x"),
    ("~/@(*ss*)", "shopt -s dotglob"),
    ("~/@(.SSH)", "shopt -s nocaseglob"),
    ("~/+(.)", "shopt -u globskipdots"),
    ("~/.!(ssh)", "shopt -u globskipdots"),
    ("src/@(..)", "shopt -u globskipdots"),
    ("src/*(..)", "shopt -u globskipdots"),
]


def _covered(name: str, words: list[str], nocase: bool) -> bool:
    """Whether a path bash matched is one a word of the reading names, component by component."""
    parts = name.split("/")
    for word in words:
        spelled = word.split("/")
        if len(spelled) == len(parts) and all(
            fnmatchcase(p.lower(), w.lower()) if nocase else fnmatchcase(p, w)
            for p, w in zip(parts, spelled, strict=True)
        ):
            return True
    return False


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
@pytest.mark.parametrize(("pattern", "options"), PATTERNS)
def test_the_reading_covers_what_bash_matches(tmp_path: Path, pattern: str, options: str) -> None:
    """Each path a real bash expands the pattern to (in a HOME holding hidden and plain names) is named
    by one of extglob_words' words; a pattern that matches nothing is left out of this check."""
    home = tmp_path / "home"
    for folder in (".ssh", ".aws", "x", "y"):
        (home / folder).mkdir(parents=True)
    for name in (".ssh/id_rsa", ".aws/credentials", ".bashrc", "notes.txt", "x/id_rsa"):
        (home / name).write_text("k\n")
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    (work / ".env").write_text("K=1\n")
    script = f"shopt -s extglob\n{options}\nfor p in {pattern}; do printf '%s\\n' \"$p\"; done\n"
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    done = subprocess.run(
        ["bash", "-c", script], cwd=work, env=env, capture_output=True, text=True, timeout=10, check=False
    )
    matched = [line.replace(str(home), "~", 1) for line in done.stdout.splitlines()]
    words = extglob_words(pattern)
    assert words is not None
    for name in matched:
        if name == pattern:
            continue  # nothing matched: bash leaves the word as it is
        assert _covered(name, words, "nocaseglob" in options), (pattern, options, name, words)


def test_bash_matches_the_hidden_names_here() -> None:
    """The cases above are bash's reading, not the old one: a group naming `.ssh` names `.ssh`."""
    assert extglob_words("~/@(.ssh)/id_*") == ["~/.ssh/id_*"]
    assert extglob_words(".@(env)") == [".env"]
    assert extglob_words("src/@(..)/") == ["src/../"]  # globskipdots may be unset: `..` stays read
    assert extglob_words("build/!(keep)") == ["build/*"]
    assert extglob_words("plain/word") is None


def test_an_extglob_group_naming_the_key_folder_does_not_print_the_key(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    engine, home, _ = plain_harm
    live_then_stopped(tmp_path, engine, home, X + "cat ~/@(.ssh)/id_*")


def test_an_unseen_group_spelling_does_not_print_the_key(tmp_path: Path, plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, home, _ = plain_harm
    live_then_stopped(tmp_path, engine, home, X + "cat ~/*(.)ssh/id_* ~/@(x|.ssh)/id_*")


# -- find's name filter in a project holding the engine's own files (over-block, glob34) --------------

FIND_HARDLINE = [
    "find . -name '*.yaml' -exec rm {} \\;",
    "find . -iname '*.YAML' -exec rm {} +",
    "find . -name '*.py' -exec rm {} \\;",  # the handlers
    "find . -name 'hermes-engine.*' -exec rm {} \\;",  # the config, at the top: `**` may be no folder
    "find . -exec rm {} \\;",
    "find . -name '*.txt' -o -name '*.yaml' -exec rm {} \\;",
    "shopt -s globstar; rm ./**/*.yaml",
]
FIND_ASK = [
    "find . -name '*.yml' -exec rm {} \\;",  # (no manifest of the engine's is a .yml: judged by what it lists, fp47)
    "find . -name '*.txt' -exec rm {} \\;",
    "find . -name '*.txt' -exec rm -f {} +",
    "find . -type f -name '*.log' -exec rm {} \\;",
    "find . -name '*.md' -exec rm {} \\;",
]


@pytest.mark.parametrize("command", FIND_HARDLINE)
def test_a_find_that_may_delete_the_engines_files_stays_hardline(own_project: Engine, command: str) -> None:
    verdict = own_project.check(command)
    assert verdict.decision == "deny" and verdict.hardline, (command, verdict.decision)


@pytest.mark.parametrize("command", FIND_ASK)
def test_a_find_whose_name_filter_matches_none_of_the_engines_files_is_no_hardline(
    own_project: Engine, command: str
) -> None:
    """Its files are none of the engine's (none below its folders bears the name): not a hardline deny. Since fp47
    such a find is judged as `rm -f $(find . -name X)`, by what it lists: allowed, or asked where the listing is
    past what is read (a clone's .git, CI's node_modules)."""
    verdict = own_project.check(command)
    assert verdict.decision != "deny" and not verdict.hardline, (command, verdict.decision)


def test_a_name_filter_matching_a_file_in_an_engine_folder_stays_hardline(
    plain_harm: tuple[Engine, Path, Path],
) -> None:
    """The filter is read against what the engine's folders hold, checked afresh (not kept)."""
    engine, _, root = plain_harm
    command = "find . -name '*.txt' -exec rm {} \\;"
    assert not engine.check(command).hardline
    (root / "policies" / "notes.txt").write_text("x\n")
    verdict = engine.check(command)
    assert verdict.decision == "deny" and verdict.hardline


def test_a_find_deleting_the_policy_is_refused(tmp_path: Path, plain_harm: tuple[Engine, Path, Path]) -> None:
    """Unguarded, `find . -name '*.yaml' -exec rm {} \\;` deletes the project's policy and config; through the
    terminal it is refused and both stay."""
    engine, _, root = plain_harm
    live = tmp_path / "live"
    (live / "policies").mkdir(parents=True)
    (live / "policies" / "deny.yaml").write_text("kind: ApprovalPolicy\n")
    (live / "hermes-engine.yaml").write_text("workdir: .\n")
    command = "find . -name '*.yaml' -exec rm {} \\;"
    subprocess.run(["bash", "-c", command], cwd=live, capture_output=True, timeout=10, check=False)
    assert not (live / "policies" / "deny.yaml").exists() and not (live / "hermes-engine.yaml").exists()
    result = engine.call("terminal", {"command": command})
    assert not result.ok and result.error is not None and result.error.type == "denied"
    assert (root / "policies" / "deny.yaml").is_file() and (root / "hermes-engine.yaml").is_file()


# -- a credential folder by braces, by a glob and as spelled: one verdict (glob34) ---------------------
# `rm -rf ~/.s?h` was a hardline deny while `rm -rf ~/.{ssh,y}` and `rm -rf ~/.ssh` asked: any glob
# component met home_top's literal star (`~/\*`, the word `~/*`) by fnmatch both ways. Only a component
# with a star of its own may name every entry now (paths._component_meets).
KEY_FOLDER_SPELLINGS = ["rm -rf ~/.ssh", "rm -rf ~/.{ssh,y}", "rm -rf ~/.s?h", "rm -rf ~/[.]ssh", "rm -rf ~/.a?s"]
EVERY_ENTRY = [
    "rm -rf ~/*",
    "rm -rf ~/.*",
    "rm -rf ~/.[!.]*",
    "rm -rf ~/?*",
    "rm -rf ~/.s*",
    "rm -rf ~/{.,}*",
    "rm -rf /.*",
]


def test_a_credential_folder_has_one_verdict_in_every_spelling(engine: Engine) -> None:
    verdicts = {c: (engine.check(c).decision, engine.check(c).hardline) for c in KEY_FOLDER_SPELLINGS}
    assert set(verdicts.values()) == {("ask", False)}, verdicts


@pytest.mark.parametrize("command", EVERY_ENTRY)
def test_a_glob_that_may_name_every_entry_stays_hardline(engine: Engine, command: str) -> None:
    verdict = engine.check(command)
    assert verdict.decision == "deny" and verdict.hardline, command


def test_a_braced_credential_folder_is_not_deleted(tmp_path: Path, plain_harm: tuple[Engine, Path, Path]) -> None:
    """Unguarded, `rm -rf ~/.{ssh,y}` deletes the key folder; through the terminal it waits for a human."""
    engine, home, _ = plain_harm
    live = tmp_path / "live-home"
    (live / ".ssh").mkdir(parents=True)
    (live / ".ssh" / "id_ed25519").write_text("secret key\n")
    env = {"HOME": str(live), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    subprocess.run(["bash", "-c", "rm -rf ~/.{ssh,y}"], env=env, capture_output=True, timeout=10, check=False)
    assert not (live / ".ssh").exists()
    result = engine.call("terminal", {"command": "rm -rf ~/.{ssh,y}"})
    assert not result.ok and result.error is not None and result.error.type in ("denied", "pending_approval")
    assert (home / ".ssh" / "id_ed25519").is_file()
