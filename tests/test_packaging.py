"""A non-editable install carries the builtin pack and finds it next to itself.

The wheels here are pure Python: HERMES_ENGINE_PURE=1, or no C compiler (docs/compiled.md). The
compiled wheel is built and tested once, by .ci/run (minutes of compiling).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO


def build_wheel(out: Path, **env: str) -> tuple[Path, str]:
    """A wheel of this checkout built in ``out`` (this environment's setuptools), and what the build said."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("HERMES_ENGINE_")}
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-build-isolation", "-w", str(out), str(REPO)],
        check=False,
        capture_output=True,
        text=True,
        env={**clean, **env},
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    [built] = out.glob("hermes_engine-*.whl")
    return built, done.stdout + done.stderr


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    return build_wheel(tmp_path_factory.mktemp("wheel"), HERMES_ENGINE_PURE="1")


@pytest.fixture(scope="module")
def wheel(built: tuple[Path, str]) -> Path:
    return built[0]


def test_hermes_engine_pure_builds_a_pure_wheel_and_says_so(built: tuple[Path, str]) -> None:
    wheel, said = built
    assert wheel.name == "hermes_engine-0.1.0-py3-none-any.whl"
    assert "hermes-engine: building pure Python: HERMES_ENGINE_PURE=1" in said
    assert "hermes-engine: compiling" not in said


def test_without_a_c_compiler_the_wheel_is_pure_and_the_build_succeeds(tmp_path: Path) -> None:
    """The install never fails for want of a compiler: it is pure Python, said in one line."""
    wheel, said = build_wheel(tmp_path, CC="false")
    assert wheel.name.endswith("-py3-none-any.whl")
    [line] = [line.strip() for line in said.splitlines() if "hermes-engine: building pure Python" in line]
    assert line.startswith("hermes-engine: building pure Python: no usable C compiler and Python headers ("), line
    names = zipfile.ZipFile(wheel).namelist()
    assert "engine/policy/shell.py" in names and "engine/_builtin/manifests/file.yaml" in names


def test_wheel_ships_the_builtin_pack_inside_the_package(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for required in (
        "engine/py.typed",
        "engine/schemas/tool.schema.json",
        "engine/_builtin/manifests/file.yaml",
        "engine/_builtin/toolsets/core.yaml",
        "engine/_builtin/handlers/files.py",
        "engine/_builtin/handlers/__init__.py",
    ):
        assert required in names
    assert not any(n.startswith(("handlers/", "manifests/", "tests/", "bench/", "build/")) for n in names)
    # No build output (compiled modules, C sources, caches) and nothing outside the package.
    assert not [n for n in names if n.endswith((".so", ".c", ".o", ".pyc", ".h")) or "__pycache__" in n]
    assert {n.split("/")[0] for n in names} == {"engine", "hermes_engine-0.1.0.dist-info"}


def test_installed_engine_runs_the_builtin_pack_from_anywhere(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            "--target",
            str(site),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    workdir = tmp_path / "elsewhere"
    workdir.mkdir()
    (workdir / "hello.txt").write_text("hello from the installed engine\n")
    env = {**os.environ, "PYTHONPATH": str(site)}

    def python(*args: str, cwd: Path = workdir) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
        )

    where = python("-c", "import engine; print(engine.__file__)")
    assert where.returncode == 0, where.stderr
    assert where.stdout.strip().startswith(str(site))
    versioned = python("-m", "engine", "--version")
    assert versioned.stdout == "hermes-engine, version 0.1.0, pure Python\n", versioned.stderr
    validated = python("-m", "engine", "--builtin", "validate", "--format", "json")
    assert validated.returncode == 0, validated.stderr
    assert json.loads(validated.stdout)["counts"]["tools"] >= 12
    called = python("-m", "engine", "--builtin", "call", "read_file", '{"path": "hello.txt"}')
    assert called.returncode == 0, called.stderr
    assert "hello from the installed engine" in called.stdout
    # The README's quickstart: the installed engine, run inside this checkout, takes the checkout
    # as its project; it must not load the installed copy of the builtin pack beside it.
    # -P keeps the checkout itself off sys.path, so the installed engine is the one that runs.
    in_checkout = python("-P", "-m", "engine", "validate", "--format", "json", cwd=REPO)
    assert in_checkout.returncode == 0, in_checkout.stdout[-2000:]
    assert json.loads(in_checkout.stdout)["counts"]["tools"] >= 12
