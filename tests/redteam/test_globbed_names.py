"""A command named by a glob: bash expands the word before it looks the name up.

`/???/?m -rf ~` runs `/bin/rm -rf ~`; `r? -rf ~` runs `rm` when a file named `rm` is in the
folder; `/usr/bin/g? auth token` is `gh`. The name the patterns see is the glob's text, which
names no program: each was allowed, by the fast path and by the full parse alike. A command
whose name is a glob is named only at run time, as `$X -rf ~` is.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.conftest import REPO
from tests.redteam.conftest import home_intact, judge

HARDLINE = [
    "/???/?m -rf ~",
    "/bin/r? -rf /",
    "/bin/r[m] -rf ~",
    "r? -rf ~",
    "r* -rf ~",
    "ls; /???/?m -rf ~",
    "if true; then /???/?m -rf ~; fi",
    "for i in 1; do /???/?m -rf ~; done",
    "grm -rf ~",
    "uu-rm -rf /",
    "wsl.exe rm -rf /",
    "wsl -u root -- rm -rf ~",
]

NOT_ALLOWED = [
    "g? auth token",
    "/usr/bin/g[h] auth token",
    "ta? xf /tmp/a.tar -C ~",
    "/bin/ta[r] -xf /tmp/a.tar -C ~",
    "c? /tmp/k/.bashrc ~",
    "/bin/c? /tmp/k/.bashrc ~",
    "un?ip /tmp/a.zip -d ~",
    "sudo /???/?m -rf ~/.ssh",
    "nohup /usr/bin/shre? -u ~/.ssh/id_ed25519",
    # a link to a program named only at run time, run by the link's name
    "ln -s $(which rm) /tmp/y; /tmp/y -rf ~",
    'ln -s "$(command -v gh)" ./g; ./g auth token',
    "ln -s $T hl; cd hl && tar xf /tmp/kit.tar",
]

NEAR_MISSES = [
    "[ -f x ] && echo y",
    "[ -d build ]",
    "ls *.py",
    "cat docs/*.md",
    "rm build/*.o",
    "echo a?b",
    "grep -r 'a[bc]' src",
    "ln -s $(pwd)/build out; ls out",
]


@pytest.mark.parametrize("command", HARDLINE)
def test_a_command_named_by_a_glob_is_judged_as_any_command(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert verdict.decision == "deny" and verdict.hardline, command


@pytest.mark.parametrize("command", NOT_ALLOWED)
def test_a_program_named_by_a_glob_is_never_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow"


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_globs_outside_the_command_name_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow"


@pytest.fixture
def home_engine(tmp_path: Path, fake_home: Path) -> Iterator[Engine]:
    work = tmp_path / "work"
    work.mkdir()
    engine = Engine.load(REPO, config={"workdir": str(work), "state_dir": str(tmp_path / "state")})
    yield engine
    engine.close()


def test_a_globbed_rm_does_not_delete_the_key(home_engine: Engine, fake_home: Path, tmp_path: Path) -> None:
    assert str(fake_home).startswith(str(tmp_path))
    for command in (f"/???/?m -rf {fake_home}/.ssh", f"/bin/r[m] -f {fake_home}/notes.txt"):
        result = home_engine.call("terminal", {"command": command})
        assert not result.ok, command
    assert home_intact(fake_home)
    result = home_engine.call("terminal", {"command": "echo ran"})
    assert result.ok and json.loads(result.output)["output"] == "ran\n"
