"""A non-editable install carries the builtin pack and finds it next to itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            str(REPO),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    [built] = out.glob("hermes_engine-*.whl")
    return built


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
    assert not any(n.startswith(("handlers/", "manifests/", "tests/")) for n in names)


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
