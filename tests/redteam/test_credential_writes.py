"""Copying, moving or installing *into* a credential directory, however the target is named.

The target may be the last operand, a `-t DIR` / `--target-directory=DIR` option, a tee or a
redirection; the directory may be spelled `~`, `$HOME`, `${HOME}` or in full. Which
directories are credentials is the path classes' business (policies/paths.yaml); the
commands here only need to reach them.
"""

from __future__ import annotations

import pytest

from engine import Engine
from tests.redteam.conftest import judge

DIRECTORIES = ["~/.ssh", "$HOME/.aws", "${HOME}/.gnupg", "~/.kube", "$HOME/.docker"]
VECTORS = [
    "cp input {d}/authorized_keys",
    "cp input {d}/",
    "cp -t {d} input",
    "cp --target-directory={d} input",
    "mv --target={d} input",
    "install -m600 input {d}/config",
    "install -D -t {d} input",
    "ln -sf /tmp/input {d}/config",
    "echo x | tee -a {d}/config",
    "echo x >> {d}/config",
    "sed -i 's/a/b/' {d}/config",
]
WRITES = [vector.format(d=d) for d in DIRECTORIES for vector in VECTORS]

NEAR_MISSES = [
    "cp -t ~/backups input",  # (cfg49: `cp input ~/.ssh-backup/`, `install ... ~/.local/share/tool` ask: home_config)
    "mv --target-directory=./out input",
    "cp ~/.ssh/id_ed25519.pub /tmp/key-copy.pub",  # reading ~/.ssh itself asks (the secret class)
    # (cfg50: `echo x > ~/.aws#backup` asks: a dot file at the home's top is home_config, fail closed)
    "sed -n 's/a/b/p' ~/.aws-notes/token",
]


@pytest.mark.parametrize("command", WRITES)
def test_writing_into_a_credential_directory_needs_approval(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_copies_elsewhere_and_reads_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command
