"""The pre-commit hook (.pre-commit-hooks.yaml), run by the real pre-commit on a sample project.

pre-commit clones this repository, creates a virtualenv, `pip install .`s it and runs the hook's
entry. To stay offline and fast the install finds the engine's dependencies where the tests' own
environment has them (PYTHONPATH, no index, no build isolation); what is installed and run is the
hook's virtualenv's hermes-engine, built from the working tree. One virtualenv serves every run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path

import pre_commit  # noqa: F401  (the dev extra: missing, these tests fail here, never skipped)
import pytest
import yaml

from tests.conftest import REPO

HOOK = "hermes-engine-validate"
HANDLERS = 'def read(path: str, offset: int = 0) -> str:\n    return f"{path}@{offset}"\n'
MANIFEST = """\
kind: Tool
name: read
toolset: t
description: Read a file.
handler: pc_handlers:{function}
parameters:
  type: object
  properties:
    path: {{type: string, minLength: 1}}
    offset: {{type: integer, minimum: 0, default: 0}}
  required: [path]
"""


def git(cwd: Path, *args: str, env: dict[str, str] | None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A temporary HOME, pre-commit cache and environment for every command these tests run."""
    base = tmp_path_factory.mktemp("precommit")
    home = base / "home"
    home.mkdir()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "PRE_COMMIT_HOME": str(base / "cache"),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_NOSYSTEM": "1",
        "PYTHONPATH": os.pathsep.join(dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib"))),
        "PIP_NO_INDEX": "1",
        "PIP_NO_BUILD_ISOLATION": "0",  # pip reads this as "no build isolation": setuptools comes from PYTHONPATH
        # The hook's install is pure Python: compiling (minutes) is tested once, by .ci/run.
        "HERMES_ENGINE_PURE": "1",
        "PIP_NO_CACHE_DIR": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    return base, env


@pytest.fixture(scope="module")
def hook_repo(sandbox: tuple[Path, dict[str, str]]) -> tuple[Path, str]:
    """This repository as pre-commit clones it: its files as they are in the working tree, one commit."""
    base, env = sandbox
    shadow = base / "hermes-engine"
    tracked = git(REPO, "ls-files", "-z", "--cached", "--others", "--exclude-standard", env=None)
    for name in filter(None, tracked.split("\0")):
        source = REPO / name
        if source.is_file():
            (shadow / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, shadow / name)
    assert (shadow / ".pre-commit-hooks.yaml").is_file()
    git(shadow, "init", "-q", env=env)
    git(shadow, "add", "-A", env=env)
    git(shadow, "commit", "-q", "-m", "shadow", env=env)
    return shadow, git(shadow, "rev-parse", "HEAD", env=env).strip()


@pytest.fixture
def project(sandbox: tuple[Path, dict[str, str]], tmp_path: Path) -> Callable[[str], Path]:
    """A git repository holding a one-tool project whose manifest binds `function`."""
    _, env = sandbox

    def make(function: str) -> Path:
        root = tmp_path / "project"
        files = {
            "hermes-engine.yaml": "include_builtin: false\nhandler_roots: [pc_handlers]\n",
            "pc_handlers/__init__.py": HANDLERS,
            "toolsets/t.yaml": "kind: Toolset\nname: t\ndescription: T.\n",
            "manifests/read.yaml": MANIFEST.format(function=function),
        }
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        git(root, "init", "-q", env=env)
        git(root, "add", "-A", env=env)
        git(root, "commit", "-q", "-m", "project", env=env)
        return root

    return make


def run_pre_commit(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_try_repo_passes_a_good_project_and_fails_a_bad_one_with_the_located_error(
    sandbox: tuple[Path, dict[str, str]], hook_repo: tuple[Path, str], project: Callable[[str], Path]
) -> None:
    _, env = sandbox
    repo, rev = hook_repo
    good = run_pre_commit(project("read"), env, "try-repo", str(repo), HOOK, "--ref", rev, "--all-files")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "hermes-engine validate" in good.stdout and "Passed" in good.stdout

    root = project("nope")
    bad = run_pre_commit(root, env, "try-repo", str(repo), HOOK, "--ref", rev, "--all-files")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "Failed" in bad.stdout
    assert "manifests/read.yaml:5:10: error[handler-not-found]: handler 'pc_handlers:nope'" in bad.stdout
    assert "Traceback" not in bad.stdout + bad.stderr
    assert (root / "manifests/read.yaml").read_text() == MANIFEST.format(function="nope")  # nothing rewritten


def test_args_in_the_users_config_reach_validate(
    sandbox: tuple[Path, dict[str, str]], hook_repo: tuple[Path, str], project: Callable[[str], Path]
) -> None:
    """The one entry a user adds, with args: --format github gives GitHub annotations."""
    _, env = sandbox
    repo, rev = hook_repo
    root = project("nope")
    hooks = [{"id": HOOK, "args": ["--format", "github", "--target", "gemini"]}]
    config = {"repos": [{"repo": str(repo), "rev": rev, "hooks": hooks}]}
    (root / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    run = run_pre_commit(root, env, "run", HOOK, "--all-files")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "::error file=manifests/read.yaml,line=5,col=10,title=handler-not-found::" in run.stdout
