"""A write to an engine file after a `cd` the line cannot read.

With a known directory, `cd policies && echo 'mode: off' >> deny.yaml` is a hardline deny. When
the shell goes where only the run knows (`cd "$(cat f)"` with f written by the caller, `cd -`
back to a folder left earlier, CDPATH), a relative name such as `deny.yaml` could land in any
folder the engine reads, and the write was allowed. Now such a word is also judged in each engine
folder where it names an existing entry, or, in a manifest folder, a new manifest the loader
would read (engine.policy.paths.View.anywhere).

Each payload is shown to change the policy when bash runs it in a copy of the project; through
the engine's terminal (nobody to approve) the policy stays as it was. Near misses: names that
no engine folder holds keep their own verdict.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import PROJECT_POLICY, make_project

POLICY = PROJECT_POLICY


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_project(tmp_path, monkeypatch, name="project", folders=("build",))
    (root / "build" / "out.txt").write_text("x\n")
    # the caller's data file: where its `cd "$(cat f)"` goes
    (root / "f").write_text(str(root / "policies") + "\n")
    return root


@pytest.fixture
def engine(project: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    monkeypatch.chdir(project)
    with Engine.load(project) as engine:
        yield engine


PAYLOADS = [
    "cd \"$(cat f)\"; echo 'mode: off' >> deny.yaml",
    "cd `cat f`; rm deny.yaml",
    'cd "$(cat f)"; cp /dev/null deny.yaml',
    "cd \"$(cat f)\"; sed -i 's/publish/nothing/' deny.yaml",
    "cd policies; cd /tmp; cd -; echo 'mode: off' >> deny.yaml",
    "d=$(cat f); cd $d && truncate -s0 deny.yaml",
    "cd \"$(cat f)\" && printf 'kind: ApprovalPolicy\\nmode: off\\n' > relax.yaml",
    'cd "$(cat f)"; rm -f *.yaml',
]


def _policies(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "policies").iterdir())}


@pytest.mark.parametrize("command", PAYLOADS)
def test_a_write_after_an_unknown_cd_leaves_the_policy_intact(
    engine: Engine, project: Path, tmp_path: Path, command: str
) -> None:
    # The harm, in a copy of the project (f points into the copy's policies).
    copy = tmp_path / "copy"
    shutil.copytree(project, copy)
    (copy / "f").write_text(str(copy / "policies") + "\n")
    before = _policies(copy)
    subprocess.run(["bash", "-c", command], cwd=copy, check=False, env={"PATH": "/usr/bin:/bin", "HOME": str(copy)})
    assert _policies(copy) != before, "the payload does no harm: the test proves nothing"
    # Through the engine: nothing runs, the policy is unchanged.
    verdict = engine.check(command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command
    result = engine.call("terminal", {"command": command})
    assert not result.ok
    assert _policies(project) == {"deny.yaml": POLICY.encode()}


NEAR_MISSES = [
    'cd "$(cat f)"; echo x > notes.txt',
    'cd "$(cat f)"; cat deny.yaml',
    'cd "$(cat f)"; ls -la',
    'cd "$(cat f)"; rm -f out.log',
    "cd $(git rev-parse --show-toplevel) && rm -f out.txt",
    'cd "$(cat f)"; rm *.log',
    "cd - && ls",
]


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_names_no_engine_folder_holds_keep_their_verdict(engine: Engine, command: str) -> None:
    assert engine.check(command).decision == "allow", command


def test_a_known_directory_is_judged_where_it_is(engine: Engine) -> None:
    # `cd build` is known: `deny.yaml` there is not the policy (no reading in engine folders).
    assert engine.check("cd build && echo x >> deny.yaml").decision == "allow"
    assert engine.check("cd policies && echo x >> deny.yaml").hardline
