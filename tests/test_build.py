"""The engine's build (docs/compiled.md): `--version` names it; an editable install stays pure Python.

The compiled build itself is CI's (.ci/run installs it and runs the policy tests on it); wheels
built without a compiler or with HERMES_ENGINE_PURE=1 are test_packaging's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from importlib.metadata import version
from pathlib import Path

from click.testing import CliRunner

from engine.build import COMPILED, PURE
from engine.cli import cli
from tests.conftest import BUILD, REPO


def test_version_names_the_build_that_runs(runner: CliRunner) -> None:
    from engine.policy import evaluate, shell

    result = runner.invoke(cli, ["--version"])
    assert result.exit_code == 0, result.output
    assert result.output == f"hermes-engine, version {version('hermes-engine')}, {BUILD}\n"
    assert BUILD in (COMPILED, PURE)  # all of the listed modules compiled, or none
    suffix = ".so" if BUILD == COMPILED else ".py"
    assert shell.__file__.endswith(suffix) and evaluate.__file__.endswith(suffix)


def test_an_editable_install_is_pure_and_runs_the_edited_source(tmp_path: Path) -> None:
    """`pip install -e .` (PEP 660, setuptools' editable_wheel) compiles nothing, removes modules an
    earlier HERMES_ENGINE_COMPILE=1 install compiled in place (they would shadow the .py files),
    and an edit of a module is what the next import runs."""
    checkout = tmp_path / "checkout"
    shutil.copytree(REPO / "engine", checkout / "engine", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    for name in ("setup.py", "pyproject.toml", "MANIFEST.in", "README.md"):
        shutil.copy2(REPO / name, checkout / name)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    for stale in (f"shell{suffix}", f"shell__mypyc{suffix}"):
        (checkout / "engine" / "policy" / stale).write_bytes(b"not a module")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # pip, setuptools and the engine's dependencies from this environment, after the venv's own
    # site-packages (so after the editable install's path to the checkout, never before it).
    own = dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib"))
    Path(site, "zz_test_dependencies.pth").write_text("\n".join(own) + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HERMES_ENGINE_", "PYTHON"))}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_CACHE_DIR="1")

    def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(a) for a in args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False
        )

    installed = run(python, "-m", "pip", "install", "-v", "--no-deps", "--no-build-isolation", "-e", checkout)
    assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]
    said = installed.stdout + installed.stderr
    assert "hermes-engine: building pure Python: an editable install" in said
    assert "hermes-engine: removed 2 compiled modules from the checkout" in said
    assert not [p for p in (checkout / "engine").rglob("*") if p.suffix in (".so", ".c", ".o")]

    shell = checkout / "engine" / "policy" / "shell.py"
    shell.write_text(shell.read_text() + "\nEDITED_AFTER_INSTALL = True\n")
    probe = "from engine.policy import shell; print(shell.__file__, shell.EDITED_AFTER_INSTALL)"
    imported = run(python, "-c", probe)
    assert imported.stdout.split() == [str(shell), "True"], imported.stderr
    versioned = run(venv / "bin" / "hermes-engine", "--version")
    assert versioned.stdout == f"hermes-engine, version {version('hermes-engine')}, {PURE}\n", versioned.stderr
