"""(perf50) Median Engine.check time (us) per command in a small project whose x.sh, Makefile and package.json a
session-less check reads from the disk: `python -m bench.bench_disk_reads [settled]` (settled: disk_settle 0, the
files kept as a project's older files are; without it they are kept once 2 s old)."""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

COMMANDS = ("make test", "bash x.sh", "npm test", "git status", "ls -la")


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="b50"))
    (tmp / "home").mkdir()
    os.environ.update(HOME=str(tmp / "home"), XDG_STATE_HOME=str(tmp / "s"), XDG_CONFIG_HOME=str(tmp / "c"))
    root = tmp / "p"
    root.mkdir()
    (root / "x.sh").write_text("echo hi\npython3 -m pytest -q\n")
    (root / "Makefile").write_text("test:\n\tpython3 -m pytest -q\n")
    (root / "package.json").write_text(json.dumps({"scripts": {"test": "node --test"}}))
    (root / "hermes-engine.yaml").write_text("workdir: .\n")
    os.chdir(root)
    from engine import Engine

    with Engine.load(root) as engine:
        if sys.argv[1:] == ["settled"]:
            engine._evaluator(engine._snapshot).disk_settle = 0.0
        for command in COMMANDS:
            engine.check(command)
        out = {}
        for command in COMMANDS:
            runs = []
            for _ in range(7):
                start = time.perf_counter_ns()
                for _ in range(300):
                    engine.check(command)
                runs.append((time.perf_counter_ns() - start) / 300 / 1000)
            out[command] = statistics.median(runs)
    print("  ".join(f"{command}: {us:.0f}" for command, us in out.items()))


if __name__ == "__main__":
    main()
