"""stop 51, fix51 (issue 8): what the review of stop 51's merge found failing open, fixed after the merge.

- An option's name spelled with a parameter expansion whose operator yields nothing from an unset parameter
  (`find ~ -de${9#x}lete`, `-de${@:1}lete`, `-de${x%y}lete`, `-e${x/a/b}xec`): unseen51 read `$9`, `${10}`, `$@` as
  empty there (the terminal's `sh -c` has no positional parameters), but an operator (`#`, `%`, `/`, `:offset`, case)
  hid the parameter, and the word was kept unknown: allowed, and the fake home deleted live. It reads as the
  parameter itself now (an unset one gives nothing through these operators): deny. `${x:-w}` keeps its default.
- (tests/redteam/test_adv51b.py) A HEAD naming `refs/--output=F`: `git symbolic-ref --short HEAD` prints `--output=F`
  (the `refs/` stripped), and `git log -1 $(…)` emptied F live. gitindex.refs_plain checks every ref in the short
  form git prints, HEAD's target and refs outside refs/heads and refs/tags too.

Was open (strict xfail), fixed at stop 52: `pip install $(cat t.txt)` with t.txt holding
`--target=~/.local/lib/python3.11/site-packages` (or `--index-url=http://…`) was allowed: subst51's exemption for a
requirements-reading verb skipped the option check for `$(cat F)` but did not read F. The pip verbs read it now as
`-r F` (policies/executors.yaml `py_spliced_requirements`).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact
from tests.redteam.harm import policy_project, run_confined

PAYLOADS = [
    "find ~ -de${9#x}lete",
    "find ~ -de${@:1}lete",
    "find ~ -de${x#y}lete",
    "find ~ -de${x%y}lete",
    "find ~ -de${x^^}lete",
    "find ~ -e${x/a/b}xec rm -rf {} +",
]
NEAR_MISSES = [
    'find . -name "${x#y}"',
    "find . -name x${1#a}.py -print",
    "ls -l${x,,}",
    "find . -type f -name '*.py' -print",
    "git log --format=%H${x%y}",
]


def _options_file(root: Path, _: pytest.MonkeyPatch) -> None:
    (root / "t.txt").write_text("--target=" + str(Path.home()) + "/.local/lib/python3.11/site-packages\n")
    (root / "reqs.txt").write_text("requests==2.32.3\n")


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "fix51", "kind: ApprovalPolicy\n", _options_file) as project:
        yield project


@pytest.mark.parametrize("command", PAYLOADS[:4])
def test_an_operator_on_an_unset_parameter_deletes_the_home_live(tmp_path: Path, command: str) -> None:
    home, _, printed = run_confined(tmp_path, command)
    assert not home_intact(home), printed


@pytest.mark.parametrize("command", PAYLOADS)
def test_an_operator_on_an_unset_parameter_in_an_option_name_is_refused(
    loaded: tuple[Path, Engine], command: str
) -> None:
    assert loaded[1].check(command).decision == "deny", command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_near_misses_stay_allowed(loaded: tuple[Path, Engine], command: str) -> None:
    assert loaded[1].check(command).decision == "allow", command


@pytest.mark.parametrize(
    "command",
    [
        "pip install $(cat t.txt)",
        "pip install `cat t.txt`",
        "pip3 install -U $(< t.txt)",
        "uv pip install $(cat t.txt)",
    ],
)
def test_a_file_of_options_spliced_into_pip_install_is_not_allowed(loaded: tuple[Path, Engine], command: str) -> None:
    """(stop 52: was a strict xfail) the spliced file is read as `-r FILE` reads it (the pip verbs' runs)."""
    assert loaded[1].check(command).decision != "allow", command


@pytest.mark.parametrize("command", ["pip install $(cat reqs.txt)", "pip3 install -U $(< reqs.txt)"])
def test_a_requirements_file_spliced_into_pip_install_stays_allowed(loaded: tuple[Path, Engine], command: str) -> None:
    assert loaded[1].check(command).decision == "allow", command


def test_more_writers_than_remembered_do_not_push_out_a_live_one(plain_harm: tuple[Engine, Path, Path]) -> None:
    """(session_memory._bound_writing) A leftover still rewriting x.sh, then more background writers than the session
    remembers (MAX_WATCHED): the oldest are folded into one that may write any file while any runs, not forgotten.
    Before, the 66 `sleep &` calls pushed the leftover out and `sh x.sh` read the disk's old text: allowed."""
    from engine.policy.session_memory import MAX_WATCHED

    engine, home, _ = plain_harm
    assert engine.call("write_file", {"path": "x.sh", "content": "echo hi\n"}, session_id="s1").ok
    left = "(sleep 6; sed -i 's/^echo hi$/rm -rf ~/' x.sh) >/dev/null 2>&1 &"
    assert engine.call("terminal", {"command": left}, session_id="s1").ok
    for n in range(MAX_WATCHED + 2):
        assert engine.call("terminal", {"command": f"sleep 6 >/dev/null 2>&1 & echo {n}"}, session_id="s1").ok
    ran = engine.call("terminal", {"command": "sh x.sh"}, session_id="s1")
    assert not ran.ok and ran.error is not None and ran.error.type in ("denied", "pending_approval")
    assert home_intact(home)


_GIT = "git -c user.name=a -c user.email=a@b -c init.defaultBranch=main -c commit.gpgsign=false"


@pytest.mark.skipif(shutil.which("git") is None, reason="git")
def test_an_npmrc_the_session_staged_itself_is_read(plain_harm: tuple[Engine, Path, Path]) -> None:
    """(follow._changed_in_session) disk51 skipped an .npmrc the git index lists (the user's, committed before any
    session); the session can stage one itself: `git add r.txt && git commit && git mv r.txt .npmrc`, then `npm
    test` ran `script-shell=./x` unread. A file changed since the session began is read, listed or not."""
    engine, home, _ = plain_harm
    package = '{"name": "p", "version": "1.0.0", "scripts": {"test": "echo ok"}}\n'
    assert engine.call("write_file", {"path": "package.json", "content": package}, session_id="s1").ok
    assert engine.call("write_file", {"path": "x", "content": "#!/bin/sh\nrm -f ~/notes.txt\n"}, session_id="s1").ok
    assert engine.call("write_file", {"path": "r.txt", "content": "script-shell=./x\n"}, session_id="s1").ok
    for step in ("git init -q", f"git add r.txt && {_GIT} commit -qm r", "git mv r.txt .npmrc"):
        done = engine.call("terminal", {"command": step}, session_id="s1")
        assert done.ok, (step, done.error)
    ran = engine.call("terminal", {"command": "npm test"}, session_id="s1")
    assert not ran.ok and ran.error is not None and ran.error.type in ("denied", "pending_approval"), ran.output
    assert home_intact(home)
