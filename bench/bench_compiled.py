"""Issue 8: `Engine.check` compiled with mypyc against pure Python, the same sources, in one run.

    python -m bench.bench_compiled [--rounds 2] [--keep DIR]

Copies this checkout twice into a temporary folder, compiles one copy in place with the project's
setup.py (``setup.py build_ext --inplace``: the modules of ``engine.build.COMPILED_MODULES``,
the build ``pip install .`` makes; the mypy of the dev install, gcc; a few minutes on two cores),
then runs ``bench.bench_policy`` on each copy in turn, ``--rounds`` times, and prints the medians,
p99s and their ratios. ``--keep DIR`` builds in DIR and reuses a build found there.

Detection must be identical: the quality lines of both copies are compared, and each copy must
run the build it stands for (bench_policy prints it).
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
from pathlib import Path

from bench.common import table
from engine.build import COMPILED, COMPILED_MODULES, PURE

REPO = Path(__file__).resolve().parent.parent
COPY = (
    "engine", "bench", "manifests", "toolsets", "policies", "handlers", "hermes-engine.yaml",
    "setup.py", "pyproject.toml", "README.md",
)  # fmt: skip


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


def build(target: Path) -> float:
    if any((target / "engine" / "policy").glob("shell.*.so")):
        return 0.0
    copy_tree(target)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--inplace"],
        cwd=target,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        sys.exit(f"mypyc build failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
    return time.perf_counter() - started


def bench(copy: Path, build_name: str) -> tuple[str, float, float]:
    env = {**os.environ, "PYTHONPATH": str(copy)}
    out = subprocess.run(
        [sys.executable, "-m", "bench.bench_policy"], cwd=copy, env=env, capture_output=True, text=True, check=True
    ).stdout
    if f"engine/policy: {build_name}" not in out:
        sys.exit(f"{copy} does not run the {build_name} build:\n{out[:400]}")
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
    print(
        f"mypyc build of {len(COMPILED_MODULES)} modules: "
        + (f"{seconds:.0f} s" if seconds else "reused")
        + f" ({root})"
    )
    shutil.rmtree(pure, ignore_errors=True)
    copy_tree(pure)
    results: dict[str, list[tuple[float, float]]] = {COMPILED: [], PURE: []}
    qualities = set()
    for _ in range(opts.rounds):
        for name, copy in ((COMPILED, compiled), (PURE, pure)):
            quality, median, p99 = bench(copy, name)
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
    fast = statistics.median(m for m, _ in results[COMPILED])
    slow = statistics.median(m for m, _ in results[PURE])
    fast99 = statistics.median(p for _, p in results[COMPILED])
    slow99 = statistics.median(p for _, p in results[PURE])
    print(f"pure / compiled: median {slow / fast:.2f}x, p99 {slow99 / fast99:.2f}x")


if __name__ == "__main__":
    main()
