"""Shared fixtures. Each test runs with a clean import state for project handlers."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.build import COMPILED, PURE, build_name

# bwrap, docker_daemon, sshd_server: real services for the runtime tests, started on first use.
pytest_plugins = ["tests.services"]

REPO = Path(__file__).resolve().parent.parent
PROJECTS = Path(__file__).resolve().parent / "projects"

# The build under test (docs/compiled.md). .ci/run also runs the policy tests on the compiled
# install, with HERMES_TESTS_BUILD=compiled: then the run stops unless the engine is that build.
BUILD = build_name()
# In a build compiled with mypyc, calls between compiled modules are direct: a test that replaces a
# function or method of one (monkeypatch.setattr(shell, "tokenize", ...)) is not seen by the others.
pure_build_only = pytest.mark.skipif(
    BUILD != PURE,
    reason=f"replaces a function of a module compiled with mypyc ({BUILD}): compiled modules call each other "
    "directly and never see it (docs/compiled.md); runs on the pure build",
)


def _is_project_module(module: object) -> bool:
    """A handler module of a test project (not a library, not the engine itself)."""
    file = getattr(module, "__file__", None) or ""
    if not file or "site-packages" in file or file.startswith(sys.base_prefix):
        return False
    return not Path(file).resolve().is_relative_to(REPO / "engine")


@pytest.fixture(autouse=True)
def _isolated_imports() -> Iterator[None]:
    """Project handler packages are imported by name; forget them after each test."""
    modules = set(sys.modules)
    path = list(sys.path)
    yield
    for name in set(sys.modules) - modules:
        if _is_project_module(sys.modules[name]):
            del sys.modules[name]
    sys.path[:] = path


def pytest_configure(config: pytest.Config) -> None:
    """Before collection (some test modules load an engine at import time): state and config dirs
    of the whole run in a temporary directory, never the user's. Each test then gets its own."""
    expected = {"compiled": COMPILED, "pure": PURE}.get(os.environ.get("HERMES_TESTS_BUILD", ""))
    if expected is not None:
        from engine.policy import shell

        if expected != BUILD or not shell.__file__.endswith(".so" if expected == COMPILED else ".py"):
            raise pytest.UsageError(
                f"HERMES_TESTS_BUILD={os.environ['HERMES_TESTS_BUILD']}: the engine under test is {BUILD} "
                f"({shell.__file__})"
            )
    base = Path(tempfile.mkdtemp(prefix="hermes-tests-"))
    config.stash[_RUN_DIRS] = base
    os.environ["XDG_STATE_HOME"] = str(base / "state")
    os.environ["XDG_CONFIG_HOME"] = str(base / "config")


def pytest_report_header(config: pytest.Config) -> str:
    import engine

    return f"hermes-engine under test: {Path(engine.__file__).parent} ({BUILD})"


def pytest_unconfigure(config: pytest.Config) -> None:
    base = config.stash.get(_RUN_DIRS, None)
    if base is not None:
        shutil.rmtree(base, ignore_errors=True)


_RUN_DIRS = pytest.StashKey[Path]()

# At most this many workers for `-n auto` (pyproject's addopts): each worker starts its own
# dockerd and sshd on first use, and past a few workers the machine's I/O, not its cores, limits.
MAX_WORKERS = 4


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    return max(1, min(MAX_WORKERS, len(os.sched_getaffinity(0))))


@pytest.fixture(autouse=True)
def _audit_keys_in_a_temporary_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Audit keys and heads live in the user's config dir, state (the record of approved engine
    files, spills, logs) in the state dir: never the real ones during tests."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def project_copy(tmp_path: Path) -> Callable[[str], Path]:
    """Copy a fixture project (tests/projects/<name>) into a temp dir."""

    def copy(name: str) -> Path:
        target = tmp_path / Path(name).name
        shutil.copytree(PROJECTS / name, target)
        return target

    return copy


@pytest.fixture
def write_project(tmp_path: Path) -> Callable[..., Path]:
    """Write a project from {relative path: text}; text is dedented."""

    def write(files: dict[str, str], root: Path | None = None) -> Path:
        base = root or tmp_path / "project"
        for rel, text in files.items():
            path = base / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return base

    return write


@pytest.fixture
def tool_project(write_project: Callable[..., Path]) -> Callable[[str, str, str], Path]:
    """A project of one toolset `t`: a handler package (name, source) and manifests/m.yaml."""

    def make(package: str, handlers: str, manifest: str) -> Path:
        return write_project(
            {
                "hermes-engine.yaml": f"include_builtin: false\nhandler_roots: [{package}]\n",
                f"{package}/__init__.py": handlers,
                "toolsets/t.yaml": "kind: Toolset\nname: t\ndescription: T.\n",
                "manifests/m.yaml": manifest,
            }
        )

    return make
