"""Live reload with 1,000 tools: save → new generation, engine work, re-rendering, warm definitions.

    python -m bench.bench_reload [--tools 1000] [--saves 20]

"visible" is measured from the moment a save is written until `Engine.generation`
changes, through watchfiles (the watcher's own step and debounce included).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from bench.common import generate_project, per_call, table


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--saves", type=int, default=20)
    opts = parser.parse_args()
    root = generate_project(Path(tempfile.mkdtemp(prefix="hermes-bench-")) / "project", opts.tools)
    templated = root / "manifests" / "tool_0000.yaml"
    text = templated.read_text().replace(
        "returns the text it found there.",
        "returns the text it found there.{% if 'tool_0001' in available_tools %} See also tool_0001.{% endif %}",
    )
    templated.write_text(text)

    from engine import Engine

    # The dev loop's engine: a person's saves are approved as they are reloaded (engine.compile.approved).
    engine = Engine.load(root, approve_changes=True)
    assert len(engine.tools) == opts.tools
    target = root / "manifests" / "tool_0500.yaml"
    original = target.read_text()

    # Engine work for one changed file, without the watcher.
    work: list[float] = []
    for i in range(opts.saves):
        target.write_text(original.replace("number 500;", f"number 500 (edit {i});"))
        started = time.perf_counter()
        event = engine.reload([target])
        work.append(time.perf_counter() - started)
        assert event.ok and event.changed == ("tool_0500",), event

    # Re-rendering definitions for every tool after a reload (templates included).
    render: list[float] = []
    for i in range(opts.saves):
        target.write_text(original.replace("number 500;", f"number 500 (render {i});"))
        engine.reload([target])
        started = time.perf_counter()
        definitions = engine.definitions("openai")
        render.append(time.perf_counter() - started)
        assert len(definitions) == opts.tools
    warm, _ = per_call(lambda: engine.definitions("openai"), number=20000)

    # Save → visible through the watcher.
    visible: list[float] = []
    with engine.watch():
        for i in range(opts.saves):
            before = engine.generation
            started = time.perf_counter()
            target.write_text(original.replace("number 500;", f"number 500 (save {i});"))
            while engine.generation == before:
                if time.perf_counter() - started > 5:
                    raise SystemExit("a save was not picked up within 5 s")
                time.sleep(0.0005)
            visible.append(time.perf_counter() - started)
            time.sleep(0.05)  # saves a person makes are not back to back
    engine.close()

    ms = 1000.0
    rows = [
        (
            "save -> new generation visible (watchfiles)",
            f"{statistics.median(visible) * ms:.1f} ms",
            f"{max(visible) * ms:.1f} ms",
            "<= 100 ms median",
        ),
        (
            "engine work, one changed file (reload)",
            f"{statistics.median(work) * ms:.1f} ms",
            f"{max(work) * ms:.1f} ms",
            "<= 15 ms",
        ),
        (
            f"definitions() for {opts.tools} tools after a reload",
            f"{statistics.median(render) * ms:.2f} ms",
            f"{max(render) * ms:.2f} ms",
            "<= 5 ms",
        ),
        ("definitions() warm cache", f"{warm * 1e6:.2f} us", "-", "<= 2 us"),
    ]
    print(f"{opts.tools} tools, {opts.saves} saves")
    print(table("reload", rows, ("measurement", "median", "max", "target")))


if __name__ == "__main__":
    main()
