"""A write under a variable the line never sets (adv28 family 1).

`p=$PWD; cd /tmp; echo x > $p/policies/deny.yaml` forgot p's value at the `cd` (a kept $PWD is
followed only through relative moves), and a target whose folder is an unknown variable with a
literal name after it was an ordinary name: the redirection rewrote the project's policy. So did
`echo x > $FOO/deny.yaml`, `tee $HERMES_HOME/config.yaml` (by default ~/.hermes/config.yaml) and
`tee $X/.bashrc`. Now (engine.policy.paths.View._under_unknown) such a word is a name only the run
knows (`computed`: a write to it asks) when the names after the variable, or their last ones,
name one of the engine's files in a folder it reads, a protected file of the home's, or, for a
variable with a usual value (HERMES_HOME, XDG_CONFIG_HOME ...), a protected file there.
Near misses: `$OUT/log.txt`, `$OUT/deploy.yaml`, a kept $PWD naming another file.
HOME, state and the project are temporary (the fixtures assert it before anything runs).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.session_project import _run, _unharmed, loaded, project

__all__ = ["loaded", "project"]

PAYLOADS = {
    "kept $PWD after cd /tmp": "p=$PWD; cd /tmp; echo 'mode: off' > $p/policies/deny.yaml",
    "an unknown variable's folder": "D=$(cat /dev/null)$PWD/policies; echo 'mode: off' > $D/deny.yaml",
}
VARIANTS = [
    "p=$PWD; cd /tmp && echo x > $p/policies/deny.yaml",
    "echo x > $FOO/policies/deny.yaml",
    "echo x > $FOO/deny.yaml",
    'echo x > "$FOO"/deny.yaml',
    "echo x > ${D}/a/../policies/deny.yaml",
    "cp a $X/manifests/new.yaml",
    "echo x | tee $X/hermes-engine.yaml",
    "tee $HERMES_HOME/config.yaml",
    "tee $X/.bashrc",
    "echo x >> $H/.ssh/authorized_keys",
    "echo x > $XDG_CONFIG_HOME/git/config",
]
NEAR_MISSES = [
    "echo x > $OUT/log.txt",
    "echo x > $OUT/deploy.yaml",
    "echo x > $OUT_DIR/policies.txt",
    # (stop 52) not `$p/notes.txt`: an unknown folder may be the home, whose notes.txt is the user's (test_fix52)
    "p=$PWD; cd /tmp; echo x > $p/out.txt",
    "tee $LOG/run.log",
    "echo x > $OUT/.gitignore",
    "cat $X/policies/deny.yaml",
    "cp a $DEST/config.yaml",
]


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_a_write_under_an_unknown_folder_leaves_the_policy(project: tuple[Path, Engine], name: str) -> None:
    root, engine = project
    _unharmed(root, engine, [_run(PAYLOADS[name])], f"unknown-{name}")


@pytest.mark.parametrize("payload", VARIANTS)
def test_a_write_under_an_unknown_folder_naming_a_protected_file_asks(
    project: tuple[Path, Engine], payload: str
) -> None:
    _, engine = project
    assert engine.check(payload).decision != "allow", payload


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_other_names_under_an_unknown_folder_stay_allowed(project: tuple[Path, Engine], command: str) -> None:
    _, engine = project
    assert engine.check(command).decision == "allow", command


def test_a_symbolic_link_to_an_engine_folder_asks(project: tuple[Path, Engine]) -> None:
    """Over-block on main: `ln -s policies p` was a hardline deny. The link changes nothing (a later
    write through it is judged where it lands): it asks now; a write through it on the line, or a
    link made in an engine folder, is still a hardline deny."""
    root, engine = project
    assert engine.check("ln -s policies p").decision == "ask"
    assert engine.check("ln -s docs/policies.md p.md").decision == "allow"
    for command in ("ln -s /tmp/x.yaml policies/x.yaml", "ln -s x policies", "ln policies/deny.yaml hl"):
        assert engine.check(command).decision == "deny", command
    _unharmed(root, engine, [_run("ln -s policies p; echo 'mode: off' > p/deny.yaml")], "symlink-write")
