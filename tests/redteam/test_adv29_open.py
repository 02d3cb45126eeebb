"""What stop 28 left allowed (adv28's list), found again and closed by adv29.

- A folder of start-up files the line names: `HOME=. git status` after writing ./.gitconfig (an alias,
  core.fsmonitor), `XDG_CONFIG_HOME=c tmux`, `HOME=. vim`, a kubeconfig's exec plugin. Every program
  reads these folders, so the rule is the `**` entry of policies/executors.yaml (`under:` names the
  start-up files); one the line or the session wrote asks. The same `under:` ends an over-block:
  `ZDOTDIR=anything zsh` asked even when nothing was written there.
- `git -C PROJECT checkout x -- policies/deny.yaml` (or `git rm`) run from another folder, and
  `git --work-tree=DIR ...` (GIT_WORK_TREE): the verb's paths are read in DIR (the grammar's `chdir`
  and `paths_in`), and a work tree that is an engine folder is written whole.
- A plugin found through a PATH the line set: `PATH=.:$PATH git x` runs a written ./git-x (kubectl-x,
  cargo-x, dotnet-x: a run `as: file, language: plugin`).
- Command runners of the same shape as the ones closed before: `sem --fg 'CMD'` (parallel's shell
  line), `devbox run 'CMD'` / `pixi run 'CMD'` (a shell line), `pipx run --spec x CMD`.

Verdicts share one engine; the harm runs for one payload per family (git through a HOME, git -C).
Every run is confined: HOME and the working directory are under tmp_path.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import case_verdict, harm_project, policy_project, written_then_stopped

RM = "rm -rf ~"
SCRIPT = f"#!/bin/sh\n{RM}\n"
GITCONFIG = f"[alias]\n\tst = !{RM}\n[core]\n\tfsmonitor = {RM}\n"
KUBECONFIG = (
    "apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n"
    f"    exec:\n      command: sh\n      args: ['-c', '{RM}']\n"
)

# (files the session writes, the command, the terminal's cwd or None); ROOT is the project
PAYLOADS: dict[str, tuple[dict[str, str], str, str | None]] = {
    "HOME=. git": ({".gitconfig": GITCONFIG}, "HOME=. git status", None),
    "HOME=$PWD git alias": ({".gitconfig": GITCONFIG}, "HOME=$PWD git st", None),
    "export HOME": ({".gitconfig": GITCONFIG}, "export HOME=.; git log", None),
    "HOME=. .config/git/config": ({".config/git/config": GITCONFIG}, "HOME=. git status", None),
    "XDG_CONFIG_HOME tmux": ({"c/tmux/tmux.conf": f"run-shell '{RM}'\n"}, "XDG_CONFIG_HOME=c tmux new -d", None),
    "HOME=. vim": ({".vimrc": f"!{RM}\n"}, "HOME=. vim -es +q", None),
    "HOME=. kubectl": ({".kube/config": KUBECONFIG}, "HOME=. kubectl get pods", None),
    "KUBECONFIG": ({"k.yaml": KUBECONFIG}, "KUBECONFIG=k.yaml kubectl get pods", None),
    "GNUPGHOME": ({"g/gpg-agent.conf": "pinentry-program /tmp/p.sh\n"}, "GNUPGHOME=g gpg -d x.gpg", None),
    "ZDOTDIR written": ({"z/.zshrc": f"{RM}\n"}, "ZDOTDIR=z zsh -i", None),
    "git -C from another folder": ({}, "git -C ROOT checkout x -- policies/deny.yaml", "/tmp"),
    "cd away, git -C": ({}, "cd /tmp && git -C ROOT checkout x -- policies/deny.yaml", None),
    "git -C rm": ({}, "cd /tmp; git -C ROOT rm policies/deny.yaml", None),
    "git --work-tree=PROJECT": ({}, "git --work-tree=ROOT checkout x -- policies/deny.yaml", "/tmp"),
    "git --work-tree=policies path": ({}, "git --work-tree=policies checkout x -- deny.yaml", None),
    "git --work-tree=policies whole": ({}, "git --work-tree=policies checkout -f x", None),
    "GIT_WORK_TREE stash": ({}, "GIT_WORK_TREE=policies git stash pop", None),
    "PATH git plugin": ({"git-x": SCRIPT}, "PATH=.:$PATH git x", None),
    "PATH git plugin, folder": ({"bin/git-x": SCRIPT}, "PATH=$PWD/bin:$PATH git -C . x", None),
    "PATH kubectl plugin": ({"kubectl-x": SCRIPT}, "PATH=.:$PATH kubectl x", None),
    "PATH cargo plugin": ({"cargo-x": SCRIPT}, "export PATH=.:$PATH; cargo x", None),
    "sem --fg": ({}, f"sem --fg '{RM}'", None),
    "sem": ({}, f"sem -j 2 '{RM}'", None),
    "devbox run": ({}, f"devbox run '{RM}'", None),
    "pixi run": ({}, f"pixi run '{RM}'", None),
    "pipx run --spec": ({}, f"pipx run --spec x {RM}", None),
}
NEAR_MISSES: dict[str, tuple[dict[str, str], str, str | None]] = {
    "HOME=. nothing written": ({}, "HOME=. git status", None),
    "HOME=. a project file": ({"notes.txt": "x\n"}, "HOME=. git status", None),
    "HOME elsewhere": ({".gitconfig": GITCONFIG}, "HOME=/tmp/h git status", None),
    "XDG_CONFIG_HOME elsewhere": ({}, "XDG_CONFIG_HOME=/tmp/xdg git status", None),
    # over-block on main: any ZDOTDIR asked
    "ZDOTDIR nothing written": ({}, "ZDOTDIR=/tmp/none zsh -c true", None),
    "ZDOTDIR=. nothing written": ({}, "ZDOTDIR=. zsh -c true", None),
    "HOME=. bash -i nothing written": ({}, "HOME=. bash -i", None),
    "KUBECONFIG not written": ({}, "KUBECONFIG=/tmp/k.yaml kubectl get pods", None),
    "git -C elsewhere": ({}, "git -C /tmp/other checkout x -- policies/deny.yaml", "/tmp"),
    "git -C PROJECT status": ({}, "git -C ROOT status", "/tmp"),
    "git -C PROJECT source file": ({}, "git -C ROOT checkout x -- src/a.py", "/tmp"),
    "git --work-tree=build": ({}, "git --work-tree=build checkout x -- a.txt", None),
    "GIT_WORK_TREE status": ({}, "GIT_WORK_TREE=policies git status", None),
    "PATH set, known verb": ({"git-x": SCRIPT}, "PATH=.:$PATH git status", None),
    "plugin without PATH": ({"git-x": SCRIPT}, "git x", None),
    "PATH elsewhere": ({}, "PATH=/opt/bin:$PATH kubectl get pods", None),
    "sem": ({}, "sem -j 2 make test", None),
    "devbox script": ({}, "devbox run test", None),
    "devbox words": ({}, "devbox run -- pytest -q", None),
    "pixi task": ({}, "pixi run build", None),
    "pipx run": ({}, "pipx run black .", None),
}


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "adv29", "kind: ApprovalPolicy\n") as (root, engine):
        yield root, engine


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_a_payload_stop_28_left_allowed_is_not_allowed(loaded: tuple[Path, Engine], name: str) -> None:
    assert case_verdict(loaded, PAYLOADS[name], f"payload-{name}") != "allow", name


@pytest.mark.parametrize("name", list(NEAR_MISSES))
def test_its_near_miss_stays_allowed(loaded: tuple[Path, Engine], name: str) -> None:
    assert case_verdict(loaded, NEAR_MISSES[name], f"near-{name}") == "allow", name


@pytest.fixture
def harm_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Engine, Path, Path]]:
    """A project (a policy, a config) that becomes a git repository, its engine, and a fake home."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    with harm_project(tmp_path, monkeypatch, "kind: ApprovalPolicy\n") as loaded:
        yield loaded


def test_a_gitconfig_in_a_home_the_line_names_does_not_run(
    tmp_path: Path, harm_engine: tuple[Engine, Path, Path]
) -> None:
    engine, home, _ = harm_engine
    assert os.environ["HOME"] == str(home) and home.is_relative_to(tmp_path)
    # unguarded, the alias prints the key of the home beside the working directory
    files = {".gitconfig": "[alias]\n\tx = !cat ../home/.ssh/id_ed25519\n"}
    written_then_stopped(tmp_path, engine, home, files, "HOME=. git x")


def _repository(root: Path, home: Path) -> None:
    env = {**os.environ, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
    for argv in (
        ["git", "init", "-q"],
        ["git", "add", "-A"],
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"],
    ):
        subprocess.run(argv, cwd=root, env=env, check=True, capture_output=True, timeout=60)


def test_git_dash_c_from_another_folder_keeps_the_policy(
    tmp_path: Path, harm_engine: tuple[Engine, Path, Path]
) -> None:
    engine, home, root = harm_engine
    assert root.is_relative_to(tmp_path) and home.is_relative_to(tmp_path)
    _repository(root, home)
    payload = "cd {away} && git -C {root} rm -q policies/deny.yaml"
    # unguarded, on a copy of the project: the policy is deleted
    live = tmp_path / "live-project"
    shutil.copytree(root, live, symlinks=True)
    env = {**os.environ, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["bash", "-c", payload.format(away=tmp_path, root=live)], env=env, cwd=live, timeout=60, check=False)
    assert not (live / "policies" / "deny.yaml").exists(), "the payload should do harm unguarded"
    # through the engine's terminal: refused, the policy intact
    result = engine.call("terminal", {"command": payload.format(away=tmp_path, root=root)})
    assert not result.ok, result.output
    assert (root / "policies" / "deny.yaml").read_text() == "kind: ApprovalPolicy\n"
