"""stop 49, xf49b (issue 8): follow-ups to xf49 -- the names a copy brings, options from a substitution, BSD apply.

The family: a word the line does not spell out reaches a program where it reads options (a name a glob expands to
after a checkout / copy / move, a substitution's output split into words), and one of those options runs or writes
something (`-c core.fsmonitor=./x.sh`, `-oProxyCommand=...`, sed's `-e1e CMD`, mypy's `--junit-xml=LINK`).

Fixed (each live below, under bash with a fake HOME):

1. False alarms of xf49: `cp -r src dist && cd dist && zip -r ../d.zip *`, `mv build dist; cd dist && tar czf
   ../d.tgz *` asked. A copy's / a move's destination now holds known names when every source is a folder of the
   project the line spells literally, that no earlier writer of unseen names on the line (a checkout) and neither the
   line nor the session wrote into, and whose names on disk hold none starting with `-` or holding a blank
   (shell.Analyzer._sources_known). A source holding `-delete` on disk, a source below a checkout's folder, a folder
   the session wrote, a source that cannot be listed (`cp -r e/. sub/` with no e) keep asking.
2. After a checkout, a dotted glob (`*.md`) is read as a possible option only for a program an option of which takes
   a value that runs or writes something (its Programs entry's option runs, `option_names`), not any valued option.
   `git pull; mypy *.py` and `git checkout x; sed -n 1p *.md` keep asking: both harms are live below (a checked-out
   `--junit-xml=l.py` with a link l.py overwrites a file outside the tree; `-e1esh x.sh #.md` runs x.sh).
3. `git $(cat f.txt)` (f.txt: `-c core.fsmonitor=./x.sh status`) ran x.sh, allowed (xf49's strict xfail). Now a
   program whose options' values run or write something and whose options end at its first operand (git, ssh, pip
   ...: getopt `+` or a verb) asks when that first operand is a word only the run knows (a substitution, a variable
   the line does not set; `git "$(cat f)" status` too: one word, followed by a verb) (options_of_unknown_words,
   shell.Analyzer._split_options). `ssh $(cat o.txt) h` with `-oProxyCommand=./x.sh` runs x.sh locally (live).
   Words after the first operand stay read as before (`git log $(git merge-base a b)..HEAD`, `git checkout
   $(git rev-parse HEAD)`); `pip install $(cat reqs.txt)` stays allowed: after the verb, as `pip install -r
   reqs.txt` is (a requirements file may name an index or a local project just as well).
4. `apply 'rm -rf %1' ~` (BSD/macOS apply) was allowed: policies/executors.yaml describes it (its command with its
   arguments after it, as xargs'): denied.

Open then, closed in stop 50 (subst50): apply's `%N` substituted into a quoted part of its command (`apply 'sh -c
"%1"' 'rm -rf ~'`). Noticed: a variable from the environment at git's verb
(`git $GIT_VERB status`) asks now (fail closed), `ssh $HOST uptime` too.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact
from tests.redteam.harm import Case, assert_verdict, needs_git, policy_project, run_confined, verdict_cases


def _prepare(root: Path, _mp: pytest.MonkeyPatch) -> None:
    (root / "a.py").write_text("print(1)\n")
    for folder, names in {
        "src": ["m.py", "util.py", "README.md"],
        "build": ["out.txt", "lib.so"],
        "bad": ["-delete", "keep.txt"],
        "spaced": ["x -delete", "keep.txt"],
        "nest": ["keep.txt"],
        "nest/d": ["-delete", "keep.txt"],
    }.items():
        (root / folder).mkdir()
        for name in names:
            (root / folder / name).write_text("x\n")
    (root / "src" / "pkg").mkdir()
    (root / "src" / "pkg" / "__init__.py").write_text("\n")
    # a project's folders were written before the session began (a folder changed since then is read as the session's)
    old = time.time() - 3600
    for path in root.rglob("*"):
        os.utime(path, (old, old), follow_symlinks=False)


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "xf49b", "kind: ApprovalPolicy\n", _prepare) as project:
        yield project


PAYLOADS: dict[str, Case] = {
    # 1. a copy's source whose names are not known clean
    "cp-dash-on-disk": ({}, "cp -r bad dist && cd dist && find . -del*"),
    "cp-blank-on-disk": ({}, "cp -r spaced/. dist/; cd dist && find . *"),
    "mv-dash-on-disk": ({}, "mv bad dist; cd dist && find . -del*"),
    "cp-after-checkout": ({}, "git checkout x; cp -r src dist; cd dist && find . -del*"),
    "cp-session-wrote": ({"made/-delete": ""}, "cp -r made dist && cd dist && find . -del*"),
    "cp-session-wrote-clean": ({"made/m.py": "x\n"}, "cp -r made dist && cd dist && find . -del*"),
    "cp-below-a-clean-top": ({}, "cp -r nest dist && cd dist/d && find . -del*"),
    "mv-below-a-clean-top": ({}, "mv nest dist; cd dist/d && find . -del*"),
    "cp-missing-source": ({}, "cp -r e/. sub/; cd sub && find . -del*"),
    "cp-substituted-source": ({}, "cp -r $(cat d.txt) dist; cd dist && find . -del*"),
    "cp-glob-source": ({}, "cp -r b* dist; cd dist && find . -del*"),
    "cp-outside": ({}, "cp -r /tmp/e dist; cd dist && find . -del*"),
    # 2. kept: an option whose value runs or writes
    "mypy-after-pull": ({}, "git pull; mypy *.py"),
    "sed-after-checkout": ({}, "git checkout x; sed -n 1p *.md"),
    "tar-after-checkout": ({}, "git checkout x; tar cf a.tar *.py"),
    # 3. options from a word only the run knows
    "git-substitution": ({}, "git $(cat f.txt)"),
    "git-backquote": ({}, "git `cat f.txt`"),
    "git-variable": ({}, "x=$(cat f.txt); git $x"),
    "git-quoted-then-verb": ({}, 'git "$(cat f.txt)" status'),
    "git-after-global": ({}, "git --no-pager $(cat f.txt)"),
    "git-env-variable": ({}, "git $GIT_ARGS status"),
    "ssh-substitution": ({}, "ssh $(cat o.txt) h"),
    "ssh-substitution-command": ({}, "ssh $(cat o.txt) h true"),
    # 4. BSD apply
    "apply-home": ({}, "apply 'rm -rf %1' ~"),
    "apply-two": ({}, "apply -2 'cp %1 %2' x.sh ~/.bashrc"),
    "apply-magic": ({}, "apply -a @ 'rm -rf @1' ~/.ssh"),
}
NEAR_MISSES: dict[str, Case] = {
    "cp-zip": ({}, "cp -r src dist && cd dist && zip -r ../d.zip *"),
    "mv-tar": ({}, "mv build dist; cd dist && tar czf ../d.tgz *"),
    "cp-dot-tar": ({}, "cp -r src/. out/; cd out && tar cf ../o.tar *"),
    "cp-a-two": ({}, "cp -a src build dist && cd dist && tar cf ../d.tar *"),
    "rsync-tar": ({}, "rsync -a src/ dist/ && cd dist && tar czf ../d.tgz *"),
    "grep-after-checkout": ({}, "git checkout x; grep -m 1 x *.md"),
    "git-log-range": ({}, "git log $(git merge-base a b)..HEAD"),
    "git-checkout-rev": ({}, "git checkout $(git rev-parse HEAD)"),
    "git-diff-base": ({}, "git diff $(git merge-base main HEAD)"),
    "git-commit-message": ({}, 'git commit -m "$(cat msg.txt)"'),
    "git-show-sub": ({}, "git show $(git rev-parse HEAD):a.py"),
    "pip-install-list": ({}, "pip install $(cat reqs.txt)"),
    "ssh-plain": ({}, "ssh h uptime"),
    "apply-echo": ({}, "apply 'echo %1' a b"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PAYLOADS, NEAR_MISSES))
def test_copies_options_from_unknown_words_and_apply(
    loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(loaded, case, allowed, session)


def test_keys_of_the_new_readings(loaded: tuple[Path, Engine]) -> None:
    """The rule that asks is the one this stop added (not an unrelated match hiding the verdict)."""
    engine = loaded[1]
    for command in ("git $(cat f.txt)", "ssh $(cat o.txt) h", 'git "$(cat f.txt)" status'):
        keys = {m.key for m in engine.check(command).matches}
        assert "options_of_unknown_words" in keys, (command, keys)
    keys = {m.key for m in engine.check("cp -r bad dist && cd dist && find . -del*").matches}
    assert "glob_of_unknown_names" in keys, keys


# -- the harms, live ---------------------------------------------------------------------------------------------
def test_a_copy_of_a_folder_holding_an_option_name_live(tmp_path: Path) -> None:
    """1. bad/ holding `-delete` copied: `find . -del*` in the copy is `find . -delete` (the copy emptied); a clean
    source's copy is not touched by the same line."""
    setup = "mkdir -p bad/d && : > bad/-delete && : > bad/d/keep\n"
    _, cwd, printed = run_confined(tmp_path, setup + "cp -r bad dist && cd dist && find . -del*")
    assert not (cwd / "dist" / "d").exists(), printed
    setup = "mkdir -p src/d && : > src/m.py && : > src/d/keep\n"
    _, cwd, printed = run_confined(tmp_path / "near", setup + "cp -r src dist && cd dist && find . -del* -print")
    assert (cwd / "dist" / "d" / "keep").is_file(), printed


def test_a_checked_out_sed_script_name_runs_a_program_live(tmp_path: Path) -> None:
    """2. A name `-e1esh x.sh #.md` that `*.md` expands to is sed's script: its `e` command runs x.sh."""
    setup = "printf 'rm -f ~/notes.txt\\n' > x.sh && echo hi > a.md && : > '-e1esh x.sh #.md'\n"
    home, _, printed = run_confined(tmp_path, setup + "sed -n 1p *.md")
    assert not (home / "notes.txt").exists(), printed
    home, _, _ = run_confined(
        tmp_path / "near", "printf 'rm -f ~/notes.txt\\n' > x.sh && echo hi > a.md\nsed -n 1p *.md"
    )
    assert home_intact(home)


def test_a_checked_out_mypy_report_option_overwrites_through_a_link_live(tmp_path: Path) -> None:
    """2. `--junit-xml=l.py` and a link l.py -> ~/notes.txt among `*.py`: mypy writes its report over the note."""
    mypy = shutil.which("mypy") or shutil.which("mypy", path=str(Path(sys.executable).parent))
    if mypy is None:
        pytest.skip("mypy is not installed")
    setup = "echo 'x = 1' > b.py && ln -s ~/notes.txt l.py && : > '--junit-xml=l.py'\n"
    home, _, printed = run_confined(tmp_path, setup + f"{mypy} --no-incremental *.py >/dev/null 2>&1; true")
    assert "<testsuite" in (home / "notes.txt").read_text(), printed


def test_ssh_options_from_a_file_run_a_program_live(tmp_path: Path) -> None:
    """3. o.txt holding `-oProxyCommand=./x.sh`: ssh runs x.sh on this machine before it connects anywhere."""
    if shutil.which("ssh") is None:
        pytest.skip("ssh is not installed")
    setup = (
        "printf '#!/bin/sh\\nrm -f ~/notes.txt\\n' > x.sh && chmod +x x.sh && echo '-oProxyCommand=./x.sh' > o.txt\n"
    )
    home, _, printed = run_confined(tmp_path, setup + "timeout 10 ssh -F /dev/null $(cat o.txt) h true; true")
    assert not (home / "notes.txt").exists(), printed
    home, _, _ = run_confined(tmp_path / "near", "printf 'rm -f ~/notes.txt\\n' > x.sh\nssh -F /dev/null -V; true")
    assert home_intact(home)


@needs_git
def test_git_options_from_a_file_run_a_program_live(tmp_path: Path, loaded: tuple[Path, Engine]) -> None:
    """3. f.txt holding `-c core.fsmonitor=./x.sh status`: git runs x.sh; the engine asks."""
    setup = "git init -q && printf '#!/bin/sh\\nrm -f ~/notes.txt\\n' > x.sh && chmod +x x.sh && "
    home, _, printed = run_confined(
        tmp_path, setup + "echo '-c core.fsmonitor=./x.sh status' > f.txt; git $(cat f.txt)"
    )
    assert not (home / "notes.txt").exists(), printed
    assert loaded[1].check("git $(cat f.txt)").decision != "allow"


def test_apply_runs_its_command_per_argument_emulated(tmp_path: Path, loaded: tuple[Path, Engine]) -> None:
    """4. BSD apply is not on Linux: a shell function doing what apply(1) does (each `%1` replaced by the argument,
    the line run by sh) shows `apply 'rm -rf %1' ~/.ssh` removing the key; the engine does not allow the real
    spelling."""
    emulated = 'apply() { c=$1; shift; for a; do sh -c "${c//%1/$a}"; done; }\n'
    home, _, printed = run_confined(tmp_path, emulated + "apply 'rm -rf %1' ~/.ssh")
    assert not (home / ".ssh").exists(), printed
    assert loaded[1].check("apply 'rm -rf %1' ~/.ssh").decision != "allow"
    assert loaded[1].check("apply 'rm -rf %1' ~").decision == "deny"


# -- closed in stop 50 (subst50) ---------------------------------------------------------------------------------------
def test_apply_substituted_into_a_quoted_command(loaded: tuple[Path, Engine]) -> None:
    """(subst50, was a strict xfail) each argument apply pastes into its line is judged as a shell line too."""
    assert loaded[1].check("apply 'sh -c \"%1\"' 'rm -rf ~'").decision != "allow"


def test_apply_substituted_into_a_quoted_command_live(tmp_path: Path) -> None:
    emulated = 'apply() { c=$1; shift; for a; do sh -c "${c//%1/$a}"; done; }\n'
    home, _, printed = run_confined(tmp_path, emulated + "apply 'sh -c \"%1\"' 'rm -rf ~/.ssh'")
    assert not (home / ".ssh").exists(), printed
