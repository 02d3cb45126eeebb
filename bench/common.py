"""Helpers shared by the benchmarks: a generated project and robust timing."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

HANDLERS = """
def echo(text: str = "", path: str = "", offset: int = 1, limit: int = 100, mode: str = "auto",
         flags: list | None = None) -> str:
    return text or path


async def aecho(text: str = "") -> str:
    return text
"""

TOOL = """kind: Tool
name: tool_{i:04d}
toolset: bench_{group}
description: Benchmark tool number {i}; it reads a file range and returns the text it found there.
emoji: "🔧"
handler: bench_handlers:echo
requires_env: []
max_result_size_chars: 20000
annotations:
  read_only: true
  destructive: false
  idempotent: true
  open_world: false
tags: [bench, generated]
parameters:
  type: object
  properties:
    path:
      type: string
      description: Path relative to the working directory.
    offset:
      type: integer
      minimum: 1
      default: 1
      description: First line to read.
    limit:
      type: integer
      minimum: 1
      maximum: 2000
      description: Number of lines to read.
    mode:
      type: string
      enum: [fast, slow, auto]
      description: How to read the file.
    flags:
      type: array
      items: {{type: string}}
      description: Extra flags.
  required: [path]
  additionalProperties: false
"""


def generate_project(root: Path, tools: int = 1000, groups: int = 10) -> Path:
    """A project of ``tools`` manifests of ~40 lines each, in ``groups`` toolsets."""
    (root / "manifests").mkdir(parents=True, exist_ok=True)
    (root / "toolsets").mkdir(exist_ok=True)
    (root / "bench_handlers").mkdir(exist_ok=True)
    (root / "bench_handlers" / "__init__.py").write_text(HANDLERS)
    (root / "hermes-engine.yaml").write_text("include_builtin: false\nhandler_roots: [bench_handlers]\n")
    sets = "---\n".join(f"kind: Toolset\nname: bench_{g}\ndescription: Generated group {g}.\n" for g in range(groups))
    (root / "toolsets" / "bench.yaml").write_text(sets)
    for i in range(tools):
        (root / "manifests" / f"tool_{i:04d}.yaml").write_text(TOOL.format(i=i, group=i % groups))
    return root


def per_call(fn: Callable[[], object], number: int, repeat: int = 15) -> tuple[float, float]:
    """(median, min) seconds per call over ``repeat`` batches of ``number`` calls."""
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - started) / number)
    return statistics.median(samples), min(samples)


def once(fn: Callable[[], object], repeat: int = 7) -> tuple[float, float]:
    """(median, min) seconds of one call, repeated."""
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples), min(samples)


def table(title: str, rows: list[tuple[str, ...]], header: tuple[str, ...]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))
    out = [title, line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(out)


def memory_latency_ns(size: int = 2_000_000, reads: int = 300_000) -> float:
    """Nanoseconds per read of a random element of a list of ``size`` ints (~70 MB with the ints): a reference
    for the machine's memory latency as Python sees it, printed beside a benchmark's figures so that runs on
    different days can be compared (stop 54: the same compiled builds measured 2x slower on a day this read
    2,000 ns, while a CPU-bound regex loop did not slow). The best of three passes."""
    import random

    values = list(range(size))
    rng = random.Random(0)
    order = [rng.randrange(size) for _ in range(reads)]
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        total = 0
        for i in order:
            total += values[i]
        best = min(best, time.perf_counter() - started)
    return best / reads * 1e9
