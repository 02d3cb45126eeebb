"""$PWD kept in a variable, then a redirection's target under it (adv27 family 1).

`p=$PWD/policies` (or `HOME=$PWD/policies`, `export d=$(pwd)`) was an unknown value: a later `cd`
would move a relative ".", and a target under an unknown prefix with a literal name is an ordinary
computed name. So `p=$PWD/policies; echo 'mode: off' > $p/deny.yaml` rewrote the project's policy.
A value that starts with $PWD is now the folder the line was in ("." from where it started), and a
later relative `cd` rewrites it (`p=$PWD; cd sub` leaves p at ".."); any other move forgets it.
HOME, state and the project are temporary (the fixtures assert it before anything runs).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.session_project import _run, _unharmed, loaded, project

__all__ = ["loaded", "project"]  # fixtures shared with the open adversary file

PWD_PAYLOADS = {
    "kept in HOME": "HOME=$PWD/policies; echo 'mode: off' > ~/deny.yaml",
    "kept in a variable": "p=$PWD/policies; echo 'mode: off' > $p/deny.yaml",
}
VARIANTS = [
    "p=$(pwd)/policies; echo 'mode: off' > $p/deny.yaml",
    "export d=$PWD; printf 'mode: off' > \"$d\"/policies/deny.yaml",
    'declare -x top="$(pwd)"; cat /dev/null > $top/hermes-engine.yaml',
    "p=$PWD; cd policies; echo x >> $p/policies/deny.yaml",
    "p=$PWD/policies; cd src && echo x > $p/new.yaml",
    "HOME=$PWD; echo x > ~/hermes-engine.yaml",
    "r=${PWD}; q=$r/policies; echo x > $q/deny.yaml",
]
NEAR_MISSES = [
    "p=$PWD/build; mkdir -p $p; echo x > $p/log.txt",
    "OUT=$PWD/out; echo hi > $OUT/result.txt",
    # (stop 52) not `$p/notes.txt`: an unknown folder may be the home, whose notes.txt is the user's (test_fix52)
    "p=$PWD; cd /tmp; echo x > $p/out.txt",
    "d=$(pwd); echo done > $d/status.txt",
    "HOME=$PWD/fakehome; echo x > ~/.profile.bak",
]


@pytest.mark.parametrize("name", list(PWD_PAYLOADS))
def test_pwd_kept_then_a_redirection_target(project: tuple[Path, Engine], name: str) -> None:
    root, engine = project
    _unharmed(root, engine, [_run(PWD_PAYLOADS[name])], f"pwd-{name}")


@pytest.mark.parametrize("payload", VARIANTS)
def test_a_kept_pwd_naming_an_engine_file_is_refused(project: tuple[Path, Engine], payload: str) -> None:
    _, engine = project
    assert engine.check(payload).decision == "deny", payload


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_a_kept_pwd_elsewhere_stays_allowed(project: tuple[Path, Engine], command: str) -> None:
    _, engine = project
    assert engine.check(command).decision == "allow", command


@pytest.mark.parametrize(
    "command",
    ["echo x > $(pwd)/../.bashrc", "p=$PWD/..; echo x > $p/.bashrc", "d=$PWD; cd ..; echo x > $d/../.profile"],
)
def test_pwd_above_a_project_in_home_is_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    """A project in HOME: the folder above it is HOME, its start-up files are protected."""
    home = tmp_path / "home"
    root = home / "proj"
    root.mkdir(parents=True)
    (root / "hermes-engine.yaml").write_text("workdir: .\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(root)
    with Engine.load(root) as engine:
        assert engine.check(command).decision != "allow", command
        assert engine.check("echo x > ../notes.txt").decision == "allow"
