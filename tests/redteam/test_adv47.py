"""stop 47, adv47 (issue 8): the adversary against planted option names (test_fix47) and sess46's watch.

A. Planted option names: bash globs `find . -del*` to `-delete` when a file so named is in the folder, and the
program reads it as an option. Found (each allowed before, each deleting a folder or the fake home live below):

1. The matcher was Python's fnmatch, not bash's glob: `find . -[[:alpha:]]elete` (a POSIX class), `find .
   -del[^x]te` (`^` negates in bash), `shopt -s nocaseglob; find . -DEL*`, and an extglob group (`shopt -s
   extglob` on a line before `find . @(-delete)`, which held no `*?[` and was not read as a glob at all). Now
   shell._bash_glob widens: a bracket expression is any one character, an extglob group any text, case is
   ignored; the evaluator reads the folder for a line holding `@(`, `+(`, `!(` too.
2. An unquoted expansion's glob: `x='-del*'; find . $x`, `find . $(echo -del*)`, `for f in *; do find . $f;
   done` (the loop's word is `*`, globbed when `$f` is). Now the known texts of unquoted expansions holding a
   glob character are globbed as a literal glob word is (shell._expanded_globs).
3. Names another program on the line creates: `touch ./-delete; find . -del*`, `touch -- -delete`, `mkdir
   ./-delete` (only a redirection's file counted). Now a word an earlier command names where its program
   cannot read it as an option (spelled with a folder, or after `--`) is a name of that folder
   (Analyzer._dash_operands).
4. A planted option's value: with `-c` and `core.fsmonitor=rm -rf ~` planted in a folder of a repository,
   `cd sub && git * status` was allowed (the engine inserted `-c` and left `*` as its value) and deleted the
   home. Now when a glob word matches a planted name, every name it matches there is inserted, in bash's
   (C) order, so `-c` reads its real value (View.dash_names(cwd, every=True)).

B. sess46's watch. Found (allowed before; the rewritten script deleted the fake home when the process ran it):
5. A write through a link made earlier: `ln -s x.sh l.sh` or `ln x.sh h.sh`, then `sleep 3; sh x.sh` in the
   background, then write_file l.sh / h.sh or `echo 'rm -rf ~' > l.sh`. Now a written key that is a symbolic
   link or has hard links on disk is also judged as the watched file it is (session_memory._aliased).
6. A folder or a glob copied over the watched file: `cp -r e/. d/`, `cp -rT e d`, `cp e/* d/` while `sh d/x.sh`
   runs. Now a written folder holding a watched file, or a written glob matching it, is a rewrite of unknown
   text (approval) (session_memory._covers).

Open (strict xfails below): `a=(*); find . ${a[@]}` (an array's elements are globbed at the assignment, not read
here); `git checkout evil; find . -del*` (a branch's files are not known); a background program writing the
watched file with a committed text (`git checkout -- x.sh` while `sh x.sh` runs: allowed, and it runs the
committed `rm -rf ~`).
Noticed, not fixed: `find . $(ls)` / `ls | xargs find .` pass the folder's names through a program's output
(the general reading of stored output, not a glob).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import RM_HOME, home_intact
from tests.redteam.harm import Case, assert_verdict, policy_project, run_confined, verdict_cases


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "adv47", "kind: ApprovalPolicy\n") as project:
        yield project


_PLANTED = {"-delete": "", "a.txt": "x\n"}
PAYLOADS: dict[str, Case] = {
    "posix-class": (_PLANTED, "find . -[[:alpha:]]elete"),
    "caret-negation": (_PLANTED, "find . -del[^x]te"),
    "nocaseglob": (_PLANTED, "shopt -s nocaseglob; find . -DEL*"),
    "extglob": (_PLANTED, "shopt -s extglob\nfind . @(-delete)"),
    "extglob-star": (_PLANTED, "shopt -s extglob\nfind . +(-del*)"),
    "expansion": (_PLANTED, "x='-del*'; find . $x"),
    "substitution": (_PLANTED, "find . $(echo -del*)"),
    "for-loop": (_PLANTED, "for f in *; do find . $f; done"),
    "for-loop-in-sub": ({"sub/-delete": "", "sub/a.txt": "x\n"}, "cd sub && for f in -*; do find . $f; done"),
    "touch-dotted": ({"a.txt": "x\n"}, "touch ./-delete; find . -del*"),
    "touch-dashdash": ({"a.txt": "x\n"}, "touch -- -delete && find . -del*"),
    "mkdir": ({"a.txt": "x\n"}, "mkdir ./-delete; find . -del*"),
    "touch-in-sub-then-cd": ({"sub/a.txt": "x\n"}, "touch sub/-delete; cd sub; find . -del*"),
    "touch-in-temp-folder": ({"a.txt": "x\n"}, 'cd "$(mktemp -d)" && touch ./-delete && find . -del*'),
    "git-planted-config": ({"sub/-c": "", "sub/core.fsmonitor=rm -rf ~": ""}, "cd sub && git * status"),
}
NEAR: dict[str, Case] = {
    "expansion-of-txt": ({"a.txt": "x\n", "b.txt": "y\n", "-v": ""}, "x='*.txt'; ls -l $x"),
    "quoted-expansion": (_PLANTED, "x='-del*'; find . -name \"$x\""),
    "planted-name-not-matched": ({"a.txt": "x\n", "-notes.txt": ""}, "ls -l *.txt"),
    "posix-class-list": ({"a.txt": "x\n", "-x": ""}, "ls [[:alpha:]]*.txt"),
    "extglob-list": ({"a.txt": "x\n", "-v": ""}, "shopt -s extglob\nls @(*.txt|*.md)"),
    "for-loop-quoted": ({"a.txt": "x\n", "-v": ""}, 'for f in *.txt; do wc -l "$f"; done'),
    "for-loop-txt": ({"a.txt": "x\n", "-v": ""}, "for f in *.txt; do wc -l $f; done"),
    "touch-then-list-after-dashdash": ({"a.txt": "x\n"}, "touch ./-notes.txt; ls -l -- *.txt"),
    "mkdir-p-then-glob": ({"a.txt": "x\n"}, "mkdir -p build; ls *.txt"),
    "rm-f-then-glob": ({"a.txt": "x\n"}, "rm -f a.o; cat *.txt"),
    "touch-elsewhere": ({"sub/a.txt": "x\n"}, "touch sub/-delete; find . -name '*.txt'"),
    "git-add-glob": ({"sub/a.txt": "x\n", "sub/b.txt": "y\n"}, "cd sub && git add *.txt"),
    "planted-c-harmless-values": ({"sub/-c": "", "sub/a.txt": "x\n"}, "cd sub && ls -l *"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PAYLOADS, NEAR))
def test_planted_option_globs(loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(loaded, case, allowed, session)


_FOLDER_DELETED = [
    "find . -[[:alpha:]]elete",
    "find . -del[^x]te",
    "shopt -s nocaseglob; find . -DEL*",
    "shopt -s extglob\nfind . @(-delete)",
    "x='-del*'; find . $x",
    "find . $(echo -del*)",
    "for f in *; do find . $f; done",
]


@pytest.mark.parametrize("payload", _FOLDER_DELETED)
def test_planted_option_glob_deletes_live_and_is_not_allowed(
    tmp_path: Path, loaded: tuple[Path, Engine], payload: str
) -> None:
    """The ground: with `-delete` planted, bash gives it to find, which empties the folder; the engine asks."""
    _, cwd, _ = run_confined(tmp_path, f"mkdir -p d && : > d/keep && : > ./-delete\n{payload}")
    assert not (cwd / "d").exists(), payload
    _, cwd, _ = run_confined(tmp_path / "near", f"mkdir -p d && : > d/keep && : > ./-notes\n{payload}")
    assert (cwd / "d" / "keep").is_file(), payload  # without the planted name, nothing is deleted
    root, engine = loaded
    (root / "-delete").write_text("")
    try:
        assert engine.check(payload).decision != "allow", payload
    finally:
        (root / "-delete").unlink()


@pytest.mark.parametrize("payload", ["touch ./-delete; find . -del*", "mkdir ./-delete; find . -del*"])
def test_a_name_made_on_the_line_deletes_live_and_is_not_allowed(
    tmp_path: Path, loaded: tuple[Path, Engine], payload: str
) -> None:
    _, cwd, _ = run_confined(tmp_path, f"mkdir -p d && : > d/keep && {payload}")
    assert not (cwd / "d").exists(), payload
    assert loaded[1].check(payload).decision != "allow", payload


def test_a_planted_git_config_deletes_the_home_live_and_is_refused(tmp_path: Path, loaded: tuple[Path, Engine]) -> None:
    """`-c` and `core.fsmonitor=rm -rf ~` planted: `git * status` is `git -c core.fsmonitor='rm -rf ~' status`."""
    home, _, _ = run_confined(
        tmp_path, "git init -q r && mkdir r/sub && cd r/sub && : > -c && : > 'core.fsmonitor=rm -rf ~' && git * status"
    )
    assert not home_intact(home)
    root, engine = loaded
    (root / "sub").mkdir()
    try:
        (root / "sub" / "-c").write_text("")
        (root / "sub" / "core.fsmonitor=rm -rf ~").write_text("")
        assert engine.check("cd sub && git * status").decision == "deny"
        (root / "sub" / "core.fsmonitor=rm -rf ~").unlink()
        (root / "sub" / "core.x=1").write_text("")
        assert engine.check("cd sub && git * status").decision == "allow"  # `-c core.x=1`: nothing runs
    finally:
        for child in (root / "sub").iterdir():
            child.unlink()
        (root / "sub").rmdir()


OPEN_A: dict[str, Case] = {
    # (adv48: `a=(*); find . ${a[@]}` asks now, tests/redteam/test_adv48.py DASH_PAYLOADS)
    "array-of-a-glob-quoted": (_PLANTED, 'a=(-del*); find . "${a[@]}"'),
}


@pytest.mark.xfail(strict=True, reason="an array's elements are globbed at its assignment, not read for names here")
@pytest.mark.parametrize("name", list(OPEN_A))
def test_open_array_of_a_glob(loaded: tuple[Path, Engine], name: str) -> None:
    assert_verdict(loaded, OPEN_A[name], False, f"open-{name}")


@pytest.mark.xfail(strict=True, reason="the files a `git checkout` of a branch makes are not known on the line")
def test_open_git_checkout_then_glob(loaded: tuple[Path, Engine]) -> None:
    assert_verdict(loaded, ({"a.txt": "x\n"}, "git checkout evil; find . -del*"), False, "open-checkout")


# -- B: sess46's watch ------------------------------------------------------------------------------------------

Call = tuple[str, dict[str, object]]
# (files the session writes, calls made before the background command, the background command, the rewrite)
Rewrite = tuple[dict[str, str], list[Call], str, Call]

_X = {"x.sh": "echo hi\n"}
_LN_S: list[Call] = [("terminal", {"command": "ln -s x.sh l.sh"})]
_LN: list[Call] = [("terminal", {"command": "ln x.sh h.sh"})]
_D = {"d/x.sh": "echo hi\n", "e/x.sh": RM_HOME}
REWRITES: dict[str, Rewrite] = {
    "symlink, write_file": (_X, _LN_S, "sleep 3; sh x.sh", ("write_file", {"path": "l.sh", "content": RM_HOME})),
    "symlink, redirection": (_X, _LN_S, "sleep 3; sh x.sh", ("terminal", {"command": "echo 'rm -rf ~' > l.sh"})),
    "hard link, write_file": (_X, _LN, "sleep 3; sh x.sh", ("write_file", {"path": "h.sh", "content": RM_HOME})),
    "hard link, redirection": (_X, _LN, "sleep 3; sh x.sh", ("terminal", {"command": "echo 'rm -rf ~' > h.sh"})),
    "cp -r of a folder": (_D, [], "sleep 3; sh d/x.sh", ("terminal", {"command": "cp -r e/. d/"})),
    "cp -rT of a folder": (_D, [], "sleep 3; sh d/x.sh", ("terminal", {"command": "cp -rT e d"})),
    "cp of a glob": (_D, [], "sleep 3; sh d/x.sh", ("terminal", {"command": "cp e/* d/"})),
    # (refused before too: an extraction's text is not known)
    "tar xf of an archive holding it": (
        {"x.sh": "echo hi\n", "e/x.sh": RM_HOME},
        [("terminal", {"command": "tar cf a.tar -C e x.sh"})],
        "sleep 3; sh x.sh",
        ("terminal", {"command": "tar xf a.tar"}),
    ),
}
_LN_DATA: list[Call] = [("terminal", {"command": "ln -s data.txt l.txt && ln data.txt h.txt"})]
_XD = {"x.sh": "echo hi\n", "data.txt": "a\n"}
NEAR_REWRITES: dict[str, Rewrite] = {
    "symlink to a data file": (_XD, _LN_DATA, "sleep 3; sh x.sh", ("write_file", {"path": "l.txt", "content": "b\n"})),
    "hard link of a data file": (_XD, _LN_DATA, "sleep 3; sh x.sh", ("terminal", {"command": "echo b > h.txt"})),
    "harmless text through the link": (
        _X,
        _LN_S,
        "sleep 3; sh x.sh",
        ("write_file", {"path": "l.sh", "content": "echo ok\n"}),
    ),
    "cp -r into another folder": (_D, [], "sleep 3; sh d/x.sh", ("terminal", {"command": "cp -r e/. f/"})),
    "cp of a glob into another folder": (
        _D,
        [],
        "sleep 3; sh d/x.sh",
        ("terminal", {"command": "mkdir -p f && cp e/* f/"}),
    ),
}


def _rewrite(engine: Engine, root: Path, case: Rewrite) -> tuple[bool, str]:
    """Write the case's files, make its calls, start its background command, send the rewrite, wait for the
    process: whether the rewrite was done, and its error's type."""
    written, setup, command, (tool, arguments) = case
    for path, text in written.items():
        assert engine.call("write_file", {"path": path, "content": text}, session_id="s1").ok, path
    for name, args in setup:
        made = engine.call(name, args, session_id="s1")
        assert made.ok, (args, made.error)
    started = engine.call("terminal", {"command": command, "background": True}, session_id="s1")
    assert started.ok, started.error
    pid = str(json.loads(started.output)["process_id"])
    rewritten = engine.call(tool, arguments, session_id="s1")
    engine.call("process", {"action": "wait", "process_id": pid, "timeout": 20}, session_id="s1")
    return rewritten.ok, "" if rewritten.error is None else rewritten.error.type


@pytest.mark.parametrize("name", list(REWRITES))
def test_a_rewrite_through_a_link_or_a_folder_is_refused(name: str, plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, home, root = plain_harm
    done, error = _rewrite(engine, root, REWRITES[name])
    assert not done and error in ("denied", "pending_approval"), (name, error)
    assert home_intact(home), name


@pytest.mark.parametrize("name", list(NEAR_REWRITES))
def test_near_misses_through_a_link_or_a_folder_are_allowed(name: str, plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, home, root = plain_harm
    done, error = _rewrite(engine, root, NEAR_REWRITES[name])
    assert done, (name, error)
    assert home_intact(home), name


@pytest.mark.parametrize(
    "rewrite",
    ["ln -s x.sh l.sh; echo 'rm -rf ~' > l.sh", "ln x.sh h.sh; echo 'rm -rf ~' > h.sh", "cp -r e/. ./"],
)
def test_a_rewrite_through_a_link_or_a_folder_deletes_live(tmp_path: Path, rewrite: str) -> None:
    """The ground: the background `sh x.sh` runs the text written through the link or copied over it."""
    home, _, _ = run_confined(
        tmp_path, f"echo 'echo hi' > x.sh; mkdir e; echo 'rm -rf ~' > e/x.sh; (sleep 1; sh x.sh) & {rewrite}; wait"
    )
    assert not home_intact(home), rewrite


OPEN_REWRITES: dict[str, Rewrite] = {
    "git checkout of a commit holding it": (
        {"x.sh": RM_HOME},
        [
            (
                "terminal",
                {"command": "git init -q && git add x.sh && git -c user.name=a -c user.email=a@b commit -qm a"},
            ),
            ("write_file", {"path": "x.sh", "content": "echo hi\n"}),
        ],
        "sleep 3; sh x.sh",
        ("terminal", {"command": "git checkout -- x.sh"}),
    ),
}


@pytest.mark.xfail(
    strict=True,
    reason="`git checkout -- x.sh` writes a committed text nobody names on the line: no watched key is written",
)
@pytest.mark.parametrize("name", list(OPEN_REWRITES))
def test_open_a_rewrite_by_an_extracting_program(name: str, plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, home, root = plain_harm
    done, error = _rewrite(engine, root, OPEN_REWRITES[name])
    assert not done and home_intact(home), (name, error)
