"""Issue 8: `Engine.check` compiled with mypyc against pure Python, the same sources, in one run.

    python -m bench.bench_compiled [--rounds 2] [--keep DIR]

Copies this checkout twice into a temporary folder, compiles the hot policy modules of one
copy with mypyc (the mypy of the dev install, gcc; a few minutes on two cores), then runs
``bench.bench_policy`` on each copy in turn, ``--rounds`` times, and prints the medians, p99s
and their ratios. ``--keep DIR`` builds in DIR and reuses a build found there.

The compiled build is not packaged yet (see docs/compiled.md): this is the measurement that
decides it. Detection must be identical: the quality lines of both copies are compared.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from bench.common import table

REPO = Path(__file__).resolve().parent.parent
# The modules that take ~95% of a check's time (cProfile of bench_policy, by file).
MODULES = (
    "shell", "evaluate", "matchers", "paths", "follow", "landing", "lexer", "regexes",
    "commands", "variables", "argv", "model", "programs", "inline", "normalize", "values",
)  # fmt: skip
COPY = ("engine", "bench", "manifests", "toolsets", "policies", "handlers", "hermes-engine.yaml")
SETUP = """
import sys
from setuptools import setup
from mypyc.build import mypycify
setup(name="hermes-engine-bench", py_modules=[], ext_modules=mypycify(sys.argv.pop(1).split(), separate=True))
"""


def copy_tree(target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.pyc")
    for name in COPY:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=ignore, dirs_exist_ok=True)
        else:
            shutil.copy2(source, target / name)
    (target / "tests" / "data").mkdir(parents=True, exist_ok=True)
    shutil.copy2(REPO / "tests" / "data" / "commands-sample.jsonl", target / "tests" / "data")


def mypy_ini(target: Path) -> None:
    """pyproject's [tool.mypy] as a mypy.ini (setuptools must not read the project's pyproject)."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mypy"]
    lines = ["[mypy]", f"python_version = {config['python_version']}", "strict = True", "warn_unreachable = True"]
    for override in config.get("overrides", []):
        lines += [f"[mypy-{','.join(override['module'])}]", "ignore_missing_imports = True"]
    (target / "mypy.ini").write_text("\n".join(lines) + "\n")


def build(target: Path) -> float:
    if any((target / "engine" / "policy").glob("shell.*.so")):
        return 0.0
    copy_tree(target)
    mypy_ini(target)
    (target / "setup_mypyc.py").write_text(SETUP)
    modules = " ".join(f"engine/policy/{m}.py" for m in MODULES)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "setup_mypyc.py", modules, "build_ext", "--inplace", "-j", str(os.cpu_count() or 1)],
        cwd=target,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        sys.exit(f"mypyc build failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
    return time.perf_counter() - started


def bench(copy: Path) -> tuple[str, float, float]:
    env = {**os.environ, "PYTHONPATH": str(copy)}
    out = subprocess.run(
        [sys.executable, "-m", "bench.bench_policy"], cwd=copy, env=env, capture_output=True, text=True, check=True
    ).stdout
    quality = "\n".join(line for line in out.splitlines() if "->" in line or "flagged" in line)
    row = next(line for line in out.splitlines() if line.startswith("Engine.check  "))
    median, p99 = (float(x) for x in re.findall(r"\d+\.\d+", row)[:2])
    return quality, median, p99


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--keep", type=Path)
    opts = parser.parse_args()
    root = opts.keep or Path(tempfile.mkdtemp(prefix="hermes-mypyc-"))
    compiled, pure = root / "compiled", root / "pure"
    seconds = build(compiled)
    print(f"mypyc build of {len(MODULES)} modules: " + (f"{seconds:.0f} s" if seconds else "reused") + f" ({root})")
    shutil.rmtree(pure, ignore_errors=True)
    copy_tree(pure)
    results: dict[str, list[tuple[float, float]]] = {"compiled (mypyc)": [], "pure Python": []}
    qualities = set()
    for _ in range(opts.rounds):
        for name, copy in (("compiled (mypyc)", compiled), ("pure Python", pure)):
            quality, median, p99 = bench(copy)
            qualities.add(quality)
            results[name].append((median, p99))
    if len(qualities) != 1:
        sys.exit("detection differs between the builds:\n" + "\n---\n".join(qualities))
    print(next(iter(qualities)))
    rows = [
        (
            name,
            " / ".join(f"{m:.1f}" for m, _ in runs),
            " / ".join(f"{p:.1f}" for _, p in runs),
        )
        for name, runs in results.items()
    ]
    print(table(f"Engine.check, cold (us), {opts.rounds} alternating runs", rows, ("build", "median", "p99")))
    fast = statistics.median(m for m, _ in results["compiled (mypyc)"])
    slow = statistics.median(m for m, _ in results["pure Python"])
    fast99 = statistics.median(p for _, p in results["compiled (mypyc)"])
    slow99 = statistics.median(p for _, p in results["pure Python"])
    print(f"pure / compiled: median {slow / fast:.2f}x, p99 {slow99 / fast99:.2f}x")


if __name__ == "__main__":
    main()
