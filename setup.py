"""Build hermes-engine: pure Python, or with the policy's hot modules compiled by mypyc.

The project's metadata is in pyproject.toml; this file decides the build (docs/compiled.md):

- A wheel (``pip install .``, ``pip wheel .``, ``python -m build``) compiles
  ``engine.build.COMPILED_MODULES`` with mypyc when a C compiler and Python's headers work here.
  Otherwise it is pure Python, said in one line on stderr (``pip install -v`` shows it); the
  install never fails for want of a compiler.
- ``HERMES_ENGINE_PURE=1``: pure Python, without trying.
- An editable install (``pip install -e .``) is pure Python, so an edit of a module is what runs:
  compiled modules left in the checkout by an earlier compiled editable install are removed.
  ``HERMES_ENGINE_COMPILE=1`` compiles it in place (rerun the install after each edit).

``hermes-engine --version`` names the build that runs.
"""

from __future__ import annotations

import os
import runpy
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools._distutils.ccompiler import new_compiler
from setuptools._distutils.sysconfig import customize_compiler, get_python_inc
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
MODULES: tuple[str, ...] = runpy.run_path(str(ROOT / "engine" / "build.py"))["COMPILED_MODULES"]
# The builtin pack sits at the top of the checkout; a wheel ships it inside the package.
PACK = ("manifests", "toolsets", "policies", "handlers")
PACK_TARGET = ("engine", "_builtin")
# setuptools' PEP 517 backend runs `setup.py editable_wheel` for build_editable (PEP 660), and the
# build subcommands of an editable wheel get `editable_mode = True`. The choice between compiled
# and pure is made before setup() (mypycify makes the extensions, bdist_wheel tags the wheel from
# them), so it reads the command line; BuildPy checks it against editable_mode.
EDITABLE_COMMANDS = {"editable_wheel", "develop"}
BUILD_COMMANDS = {"bdist_wheel", "build", "build_ext", "install", *EDITABLE_COMMANDS}
EXTENSION_SUFFIXES = (sysconfig.get_config_var("EXT_SUFFIX") or ".so", ".so", ".pyd")


def say(line: str) -> None:
    print(f"hermes-engine: {line}", file=sys.stderr, flush=True)


def compiler_problem() -> str | None:
    """Why no C extension can be built here (a compiler, Python.h, the linker), or None."""
    with tempfile.TemporaryDirectory(prefix="hermes-engine-probe-") as tmp:
        source = Path(tmp, "probe.c")
        source.write_text("#include <Python.h>\nint hermes_probe(void) { return Py_IsInitialized(); }\n")
        try:
            compiler: Any = new_compiler()
            customize_compiler(compiler)
            objects = compiler.compile(
                [str(source)],
                output_dir=tmp,
                include_dirs=[get_python_inc(), get_python_inc(plat_specific=True)],
            )
            compiler.link_shared_object(objects, str(Path(tmp, "probe" + EXTENSION_SUFFIXES[0])))
        except Exception as exc:  # CompileError, LinkError, a missing program: all mean "cannot"
            return " ".join(str(exc).split())[:200] or type(exc).__name__
    return None


def pure_reason(argv: list[str]) -> str | None:
    """Why this build is pure Python ("" when nothing is built: metadata, an sdist); None: compile."""
    commands = set(argv)
    if not commands & BUILD_COMMANDS:
        return ""
    if os.environ.get("HERMES_ENGINE_PURE") == "1":
        return "HERMES_ENGINE_PURE=1"
    if commands & EDITABLE_COMMANDS and os.environ.get("HERMES_ENGINE_COMPILE") != "1":
        return "an editable install runs the checkout's .py files (HERMES_ENGINE_COMPILE=1 compiles them in place)"
    problem = compiler_problem()
    if problem is not None:
        return f"no usable C compiler and Python headers ({problem})"
    return None


def extensions() -> list[Any]:
    reason = pure_reason(sys.argv[1:])
    if reason is not None:
        if reason:
            say(f"building pure Python: {reason}")
        return []
    paths = [str(Path(*name.split("."))) + ".py" for name in MODULES]
    try:
        from mypyc.build import mypycify  # noqa: PLC0415  (a build without mypy is pure)

        # mypy reads [tool.mypy] of pyproject.toml (strict). Only the compiled modules' errors count:
        # the modules they import are read for their types, and a build environment lacks the
        # engine's third-party dependencies (their types are Any there; the compiled modules import
        # none of them).
        built: list[Any] = mypycify(
            ["--follow-imports=silent", *paths], opt_level="3", separate=True, target_dir=str(Path("build", "mypyc"))
        )
    except (Exception, SystemExit) as exc:  # mypyc exits on a type error
        say(f"building pure Python: mypyc could not compile the policy modules ({exc or type(exc).__name__})")
        return []
    say(f"compiling {len(paths)} policy modules with mypyc")
    return built


EXTENSIONS = extensions()
FELL_BACK: list[str] = []  # why compiling failed after all (BuildExt), for BdistWheel's tag


def extension_files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.endswith(EXTENSION_SUFFIXES)] if folder.is_dir() else []


class BuildPy(build_py):
    """The package, and the builtin pack under engine/_builtin; no compiled module of another build."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            if not EXTENSIONS:
                # An editable install imports the checkout: a module compiled in place by an earlier
                # HERMES_ENGINE_COMPILE=1 install would shadow its .py file.
                stale = [p for p in extension_files(ROOT / "engine") if p.name.split(".")[0].split("__mypyc")[0]
                         in {m.rsplit(".", 1)[1] for m in MODULES}]  # fmt: skip
                for path in stale:
                    path.unlink()
                if stale:
                    say(f"removed {len(stale)} compiled modules from the checkout (an editable install is pure)")
            return
        build = Path(self.build_lib)
        if not EXTENSIONS:
            for path in extension_files(build / "engine"):
                path.unlink()  # left by a compiled build in this build folder
        target = build.joinpath(*PACK_TARGET)
        for name in PACK:
            for source in sorted((ROOT / name).rglob("*")):
                if source.is_file() and "__pycache__" not in source.parts and source.suffix != ".pyc":
                    copy = target / name / source.relative_to(ROOT / name)
                    self.mkpath(str(copy.parent))
                    self.copy_file(str(source), str(copy), preserve_mode=False)


class BuildExt(build_ext):
    """Build the compiled modules on every core; if the compiler fails after all, the build is pure."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1

    def run(self) -> None:
        if not self.extensions:
            return
        try:
            super().run()
        except Exception as exc:  # CompileError, LinkError, DistutilsExecError
            reason = " ".join(str(exc).split())[:200] or type(exc).__name__
            FELL_BACK.append(reason)
            say(f"building pure Python: compiling the policy modules failed ({reason})")
            for output in self.get_outputs():
                Path(output).unlink(missing_ok=True)
            return
        # Nothing compiled by another build (a module no longer in the list) ships with this one.
        made = {Path(p).resolve() for p in self.get_outputs()}
        for path in extension_files(Path(self.build_lib) / "engine"):
            if path.resolve() not in made:
                path.unlink()


class BdistWheel(bdist_wheel):
    """A wheel whose compilation failed is tagged as the pure wheel it is."""

    def get_tag(self) -> tuple[str, str, str]:
        if FELL_BACK:
            self.root_is_pure = True
        tag: tuple[str, str, str] = super().get_tag()
        return tag


setup(
    ext_modules=EXTENSIONS,
    cmdclass={"build_py": BuildPy, "build_ext": BuildExt, "bdist_wheel": BdistWheel},
)
