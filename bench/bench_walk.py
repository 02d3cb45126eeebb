"""Issue 8: what the link walk's watch saves a check once the folders it walks have settled.

    python -m bench.bench_walk [--runs 2001]

A folder changed in the last two seconds (engine/policy/landing.py `_RACY_NS`) is asked entry by
entry unless watched and quiet since an earlier check (bench.bench_policy prints a fresh and a
settled row). Here the corpus is checked once, the racy window waited out, and then each command timed
cold (the parse cache off): three single commands (median of --runs checks each) and the corpus
(median of 31 checks per command; its median and p99). Run it on a compiled copy with a temporary
HOME/XDG_STATE_HOME/XDG_CONFIG_HOME, as bench.bench_policy (docs/compiled.md "Measuring it").
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "data" / "commands-sample.jsonl"
COMMANDS = ["git pull --rebase", "terraform plan", "ls -la"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=2001)
    opts = parser.parse_args()

    from bench.bench_instructions import per_command_medians
    from engine import Engine
    from engine.build import build_name

    engine = Engine.load(REPO)
    corpus = [json.loads(line)["cmd"] for line in CORPUS.read_text().splitlines() if line.strip()]
    for command in corpus:
        engine.check(command)
    time.sleep(2.1)  # past the racy window: the folders walked are kept from now on
    for command in corpus:
        engine.check(command)
    engine._evaluator(engine._snapshot).parse_cache = 0
    figures = []
    for command in COMMANDS:
        samples = []
        for _ in range(opts.runs):
            started = time.perf_counter()
            engine.check(command)
            samples.append(time.perf_counter() - started)
        figures.append(f"{command!r} {statistics.median(samples) * 1e6:.1f}")
    per = per_command_medians(engine.check, corpus, time.perf_counter)
    figures.append(f"corpus median {statistics.median(per) * 1e6:.1f} p99 {per[int(0.99 * len(per))] * 1e6:.1f}")
    print(f"engine/policy: {build_name()}; Engine.check, cold (us): " + " | ".join(figures))


if __name__ == "__main__":
    main()
