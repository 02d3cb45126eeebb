"""Engine.check on a few git lines, per build: thread CPU, the parse cache off (debt43).

    python -m bench.bench_git_verbs NAME=TREE [NAME=TREE ...] [--rounds 3]

Each build is a source tree (a `git archive` of a commit): one child process per build and round, builds
alternating. Per command: the median of 300 checks, the best of 5 such medians in the process, then the best
round. The lines are one of git's own verbs (`git status`), a verb none of git's (`git frob x`, read as a possible
alias: the files git reads are looked at) and the other usual shapes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

COMMANDS = ["git status", "git log --oneline", "git frob x", "git diff --stat HEAD~1", "git co main"]

CHILD = r"""
import json, statistics, sys, time
sys.path.insert(0, sys.argv[1])
from engine import Engine
engine = Engine.load(sys.argv[1])
check = engine.check
commands = json.loads(sys.argv[2])
for command in commands:
    for _ in range(50):
        check(command)
engine._evaluator(engine._snapshot).parse_cache = 0
out = {}
for command in commands:
    best = None
    for _ in range(5):
        samples = []
        for _ in range(300):
            started = time.thread_time_ns()
            check(command)
            samples.append(time.thread_time_ns() - started)
        median = statistics.median(samples)
        best = median if best is None else min(best, median)
    out[command] = [best / 1000, check(command).decision]
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("builds", nargs="+", help="NAME=TREE")
    parser.add_argument("--rounds", type=int, default=3)
    opts = parser.parse_args()
    builds = [b.split("=", 1) for b in opts.builds]
    found: dict[str, list[dict[str, list]]] = {name: [] for name, _ in builds}
    for _ in range(opts.rounds):
        for name, tree in builds:
            done = subprocess.run(
                [sys.executable, "-c", CHILD, tree, json.dumps(COMMANDS)],
                capture_output=True,
                text=True,
                cwd=tree,
                check=True,
            )
            found[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
    for command in COMMANDS:
        cells = [
            f"{name}: {min(r[command][0] for r in found[name]):7.1f} us ({found[name][0][command][1]})"
            for name, _ in builds
        ]
        print(f"{command!r:28}", "  ".join(cells))


if __name__ == "__main__":
    main()
