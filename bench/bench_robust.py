"""Robustness under fuzzing: 10,000 mutated projects through validate, and 10,000 generated
calls through each of the five call entry points, in one run.

    pip install -e '.[dev,bench]' && python -m bench.bench_robust [--projects N] [--calls N]

Targets: 0 validate crashes (the CLI's exit 3), 0 hangs, 0 unlocated errors; 0 exceptions
reaching the host from call, acall, call_batch, handle_function_call or check (an
`internal_error` result counts as one). The time columns compare a mutated project's load
with the load of the unmutated seeds, and a fuzzed call with a plain call, in this run.
"""

from __future__ import annotations

import argparse
import faulthandler
import logging
import statistics
import sys
import time
from collections import Counter

from bench.common import table
from bench.fuzz_calls import ENTRY_POINTS, Harness, make_run
from bench.fuzz_projects import HANG_SECONDS, baseline, run


def projects(count: int) -> list[tuple[str, ...]]:
    base = baseline()
    ratios: list[float] = []
    crashed: Counter[str] = Counter()
    unlocated = hung = valid = 0
    times: list[float] = []
    started = time.perf_counter()
    for outcome in run(count, seed=int(time.time())):
        faulthandler.dump_traceback_later(HANG_SECONDS * 12, exit=True)  # a true hang ends the run, loudly
        times.append(outcome.seconds)
        ratios.append(outcome.seconds / base[outcome.seed])
        valid += outcome.valid
        hung += outcome.hung
        unlocated += len(outcome.unlocated)
        if outcome.crashed:
            crashed[outcome.crashed.split(":")[0]] += 1
    faulthandler.cancel_dump_traceback_later()
    wall = time.perf_counter() - started
    p99 = sorted(times)[int(len(times) * 0.99)]
    rows = [
        ("projects", str(count), ""),
        ("still valid after mutation", str(valid), ""),
        ("crashed (exit 3)", str(sum(crashed.values())), "0"),
        (f"hung (> {HANG_SECONDS:g}s)", str(hung), "0"),
        ("unlocated errors", str(unlocated), "0"),
        (
            "median / p99 / max load, ms",
            f"{statistics.median(times) * 1000:.1f} / {p99 * 1000:.1f} / {max(times) * 1000:.1f}",
            "",
        ),
        (
            "median / max of load / its seed's unmutated load",
            f"{statistics.median(ratios):.2f}x / {max(ratios):.1f}x",
            "",
        ),
        ("wall, s", f"{wall:.0f}", ""),
    ]
    rows += [(f"  crash: {name}", str(n), "") for name, n in crashed.most_common()]
    return rows


def calls(count: int) -> list[tuple[str, ...]]:
    harness = Harness()
    rows = []
    try:
        started = time.perf_counter()
        for _ in range(1000):
            harness.engine.call("give", {"key": "plain"})
        plain = (time.perf_counter() - started) / 1000
        for entry in ENTRY_POINTS:
            escaped: Counter[str] = Counter()

            def record(exc: BaseException, escaped: Counter[str] = escaped) -> None:
                escaped[type(exc).__name__] += 1

            started = time.perf_counter()
            make_run(harness, entry, count, record)()
            per = (time.perf_counter() - started) / count
            detail = ", ".join(f"{k} x{v}" for k, v in escaped.most_common(3))
            rows.append(
                (entry, str(count), str(sum(escaped.values())), f"{per * 1e6:.0f}", f"{per / plain:.0f}x", detail)
            )
    finally:
        harness.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--projects", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=10_000)
    options = parser.parse_args()
    logging.disable(logging.CRITICAL)  # the engine logs every internal failure; counted here instead
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    print(
        table(
            "validate on mutated projects (target: 0 crashes, 0 hangs, 0 unlocated)",
            projects(options.projects),
            ("", "count", "target"),
        )
    )
    print()
    print(
        table(
            "generated calls per entry point (target: 0 exceptions to the host; ratio = time / a plain call)",
            calls(options.calls),
            ("entry point", "calls", "escaped", "us per call", "vs plain", "what escaped"),
        )
    )


if __name__ == "__main__":
    main()
