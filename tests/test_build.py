"""The engine's build (docs/compiled.md): `--version` names it; an editable install stays pure Python.

The compiled build itself is CI's (.ci/run installs it and runs the policy tests on it); wheels
built without a compiler or with HERMES_ENGINE_PURE=1 are test_packaging's.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import sysconfig
from importlib.metadata import version
from pathlib import Path

from click.testing import CliRunner

from engine.build import COMPILED, COMPILED_MODULES, PURE
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


def _handler_names_with_two_types(source: str) -> list[str]:
    """`function:line name` for each `except … as NAME` whose NAME another handler of the same
    function binds to another exception type."""
    found = []
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        types: dict[str, set[str]] = {}
        for node in ast.walk(function):
            if isinstance(node, ast.ExceptHandler) and node.name:
                types.setdefault(node.name, set()).add(ast.unparse(node.type) if node.type else "")
        found += [f"{function.name}:{function.lineno} {name}" for name, kinds in types.items() if len(kinds) > 1]
    return found


def test_the_rule_finds_an_exception_name_bound_to_two_types() -> None:
    source = (
        "def f():\n    try:\n        g()\n    except KeyError as exc:\n        pass\n"
        "    except OSError as exc:\n        pass\n"
    )
    assert _handler_names_with_two_types(source) == ["f:1 exc"]
    assert _handler_names_with_two_types(source.replace("OSError as exc", "OSError as error")) == []


def test_no_compiled_function_binds_one_exception_name_to_two_types() -> None:
    # mypyc types an `except … as exc` variable by the function's first handler binding it: a later
    # handler of another type raised TypeError ("RegexTimeout object expected; got ShellSyntaxError")
    # and a disguised `rm -rf /` became an ask on the compiled build (docs/compiled.md).
    found = [
        f"{name}: {where}"
        for name in COMPILED_MODULES
        for where in _handler_names_with_two_types((REPO / (name.replace(".", "/") + ".py")).read_text())
    ]
    assert found == []
