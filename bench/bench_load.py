"""Loading 1,000 generated tool manifests, against the parsing floor, in one run.

    python -m bench.bench_load [--tools 1000]

Prints a table with each measurement, its target and its ratio to the floor
(`yaml.load(..., Loader=yaml.CSafeLoader)` of the same files).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from bench.common import generate_project, once, per_call, table

REPO = Path(__file__).resolve().parent.parent


def subprocess_ms(args: list[str], cwd: Path, repeat: int = 7) -> float:
    samples = []
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(args, cwd=cwd, env=env, check=True, capture_output=True)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", type=int, default=1000)
    opts = parser.parse_args()
    root = generate_project(Path(tempfile.mkdtemp(prefix="hermes-bench-")) / "project", opts.tools)
    files = sorted(root.glob("manifests/*.yaml"))
    lines = sum(f.read_text().count("\n") for f in files) / len(files)

    def floor() -> None:
        for f in files:
            yaml.load(f.read_bytes(), Loader=yaml.CSafeLoader)

    from engine import Engine
    from engine.compile.loader import ProjectLoader

    def timed_loads(repeat: int = 7) -> tuple[float, float]:
        # Each load starts from a fresh loader (no cached files); the previous result is
        # freed and collected outside the timed region, as it would be in a new process.
        samples = []
        for _ in range(repeat):
            gc.collect()
            started = time.perf_counter()
            result = ProjectLoader(root).load()
            samples.append(time.perf_counter() - started)
            assert result.ok, result.problems[:3]
            del result
        return statistics.median(samples), min(samples)

    floor()  # warm the page cache for both
    gc.collect()
    floor_med, floor_min = once(floor)
    load_med, load_min = timed_loads()
    engine = Engine.load(root)
    engine.definitions("openai")
    defs_med, _ = per_call(lambda: engine.definitions("openai"), number=20000)
    python = sys.executable
    validate_ms = subprocess_ms([python, "-m", "engine", "validate"], root)
    bare_ms = subprocess_ms([python, "-c", "pass"], root)
    import_ms = subprocess_ms([python, "-c", "import engine"], root) - bare_ms

    ms = 1000.0
    rows = [
        ("yaml CSafeLoader floor", f"{floor_med * ms:.1f} ms", "-", "1.00x"),
        ("Engine.load cold, in process", f"{load_med * ms:.1f} ms", "<= 250 ms", f"{load_med / floor_med:.2f}x"),
        (
            "hermes-engine validate (process)",
            f"{validate_ms:.1f} ms",
            "<= 600 ms",
            f"{validate_ms / (floor_med * ms):.2f}x",
        ),
        ("definitions() warm cache", f"{defs_med * 1e6:.2f} us", "<= 2 us", "-"),
        ("import engine", f"{import_ms:.1f} ms", "<= 150 ms", "-"),
    ]
    print(
        f"{opts.tools} tools, {lines:.0f} lines each; medians (min load {load_min * ms:.1f} ms, "
        f"min floor {floor_min * ms:.1f} ms)"
    )
    print(table("load", rows, ("measurement", "median", "target", "vs floor")))


if __name__ == "__main__":
    main()
