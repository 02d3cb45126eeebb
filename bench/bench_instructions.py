"""Issue 8: Engine.check's cost in a signal that a loaded machine does not drown.

    python -m bench.bench_instructions NAME=DIR [NAME=DIR ...] [--rounds 5] [--cpu-rounds 3]
        [--tree settled|fresh|both] [--no-valgrind]

Each NAME=DIR is a build to compare (a compiled copy made as docs/compiled.md says, or a work
tree); the builds are run in turn, alternating, each in its own process with PYTHONSAFEPATH=1
PYTHONPATH=DIR, a temporary HOME/XDG_STATE_HOME/XDG_CONFIG_HOME (made here) and PYTHONHASHSEED=0.
Two figures per build and tree:

- instructions per check: `valgrind --tool=callgrind` (user-space instructions, the same on a
  loaded machine as on an idle one) of a process that loads the engine, warms it on the corpus
  and judges the corpus --rounds times cold (the parse cache off), divided by the checks made. On
  a compiled build only what runs inside Evaluator.check is counted (--toggle-collect: one run);
  on an interpreted one, the whole process minus the same with 0 rounds. A mean over the corpus,
  not a median. (`perf stat -e instructions:u` would be cheaper; it is not supported on this VM.)
  Valgrind runs the load ~50x slower: ~1-3 minutes a run here.
- thread CPU time (`time.thread_time_ns`, not wall time: time the process is not running is not
  counted): each corpus command judged 31 times cold, its median; the median and p99 of those.

The tree: `settled` waits out the racy window (engine/policy/landing.py `_RACY_NS`: a folder
changed in the last 2 s cannot be vouched for by its times) after the HOME and state folders are
made, as a user's HOME and project are; `fresh` measures at once, as bench.bench_policy does
(its HOME is made a moment before). The working directory is DIR itself.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

CORPUS = Path("tests") / "data" / "commands-sample.jsonl"


def inner(rounds: int, tree: str, cpu: bool) -> None:
    """The measured process (run in the build's folder)."""
    from engine import Engine

    if os.environ.get("BENCH_UNDER_VALGRIND"):
        from engine.policy import regexes

        # ~50x slower under valgrind: the fallback regex engine's 2 ms budget would refuse the
        # policy's own examples at load. Only whether a search times out depends on it.
        regexes.FALLBACK_TIMEOUT = 1.0
    engine = Engine.load(".")
    corpus = [json.loads(line)["cmd"] for line in CORPUS.read_text().splitlines() if line.strip()]
    evaluator = engine._evaluator(engine._snapshot)
    targets = evaluator.policy.targets.get("terminal")
    argument = targets[0][0] if targets else "command"
    # Warm caches the way a running engine has them, through `verdict` (what Evaluator.check
    # calls): on a compiled build only the measured loop below enters Evaluator.check.
    for command in corpus:
        evaluator.verdict("terminal", {argument: command})
    if tree == "settled":
        time.sleep(2.1)  # past the racy window
        for command in corpus:
            evaluator.verdict("terminal", {argument: command})
    else:
        _changed()
    evaluator.parse_cache = 0  # cold: every check parses its text
    if not cpu:
        for _ in range(rounds):
            if tree == "fresh":
                _changed()  # each round in the window (valgrind runs a round in ~1 s)
            for command in corpus:
                engine.check(command)
        return
    per = per_command_medians(engine.check, corpus, time.thread_time_ns)
    print(json.dumps({"median": statistics.median(per) / 1e3, "p99": per[int(0.99 * len(per))] / 1e3}))


def _changed() -> None:
    """Fresh: HOME and the project changed just now, as bench.bench_policy's fresh row has them."""
    for folder in (os.environ["HOME"], "."):
        touched = Path(folder) / ".bench-fresh"  # an entry made and removed: its times and an event
        touched.write_text("")
        touched.unlink()


def per_command_medians(check: Callable[[str], object], commands: list[str], clock: Callable[[], float]) -> list[float]:
    """Each command's median time over 31 checks (in ``clock``'s unit), sorted."""
    per = []
    for command in commands:
        samples = []
        for _ in range(31):
            started = clock()
            check(command)
            samples.append(clock() - started)
        per.append(statistics.median(samples))
    per.sort()
    return per


def _run(build: Path, args: list[str], valgrind: bool, options: list[str] = []) -> subprocess.CompletedProcess[str]:  # noqa: B006
    with tempfile.TemporaryDirectory(prefix="bench-instr-") as home:
        env = {
            **os.environ,
            "HOME": home,
            "XDG_STATE_HOME": f"{home}/s",
            "XDG_CONFIG_HOME": f"{home}/c",
            "PYTHONSAFEPATH": "1",
            "PYTHONPATH": str(build),
            "PYTHONHASHSEED": "0",
        }
        os.makedirs(f"{home}/s")
        os.makedirs(f"{home}/c")
        command = [sys.executable, str(Path(__file__).resolve()), "--inner", *args]
        if valgrind:
            env["BENCH_UNDER_VALGRIND"] = "1"
            command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *options, *command]
        done = subprocess.run(command, cwd=build, env=env, capture_output=True, text=True, check=False)
        if done.returncode:
            raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
        return done


# On a compiled build, callgrind counts only inside Evaluator.check entered from Python (what
# Engine.check calls, less its own few lines): one run, no load or warm-up to subtract.
_CHECK = "CPyPy_engine___policy___evaluate___Evaluator___check"


def _compiled(build: Path) -> bool:
    return any((build / "engine" / "policy").glob("evaluate.*.so"))


def instructions(build: Path, rounds: int, tree: str) -> int:
    """Instructions of ``rounds`` cold passes over the corpus: counted inside Evaluator.check on a
    compiled build; else a whole process minus the same with 0 passes."""
    toggle = [f"--toggle-collect={_CHECK}"] if _compiled(build) else []
    counts = []
    for n in [rounds] if toggle else [rounds, 0]:
        done = _run(build, [str(n), tree], valgrind=True, options=toggle)
        found = re.search(r"Collected : (\d+)", done.stderr)
        if found is None:
            raise SystemExit(f"no instruction count from valgrind:\n{done.stderr[-2000:]}")
        counts.append(int(found.group(1)))
    return counts[0] - (counts[1] if len(counts) > 1 else 0)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--inner":
        rounds, tree = int(sys.argv[2]), sys.argv[3]
        inner(rounds, tree, cpu=len(sys.argv) > 4 and sys.argv[4] == "cpu")
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("builds", nargs="+", help="NAME=DIR")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cpu-rounds", type=int, default=3)
    parser.add_argument("--tree", choices=["settled", "fresh", "both"], default="both")
    parser.add_argument("--no-valgrind", action="store_true")
    opts = parser.parse_args()
    builds = [(name, Path(path).resolve()) for name, _, path in (b.partition("=") for b in opts.builds)]
    trees = ["settled", "fresh"] if opts.tree == "both" else [opts.tree]
    checks = sum(1 for line in (builds[0][1] / CORPUS).read_text().splitlines() if line.strip()) * opts.rounds
    print(f"load: {os.getloadavg()[0]:.1f}; corpus checks per measured run: {checks}")
    for tree in trees:
        if not opts.no_valgrind:
            for name, build in builds:
                count = instructions(build, opts.rounds, tree)
                print(f"{tree:8} {name:10} instructions per check: {count / checks:,.0f}", flush=True)
        cpu: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in builds}
        for _ in range(opts.cpu_rounds):
            for name, build in builds:
                figures = json.loads(_run(build, ["0", tree, "cpu"], valgrind=False).stdout.strip().splitlines()[-1])
                cpu[name].append((figures["median"], figures["p99"]))
        for name, runs in cpu.items():
            shown = ", ".join(f"{m:.1f} / {p:.1f}" for m, p in runs)
            print(f"{tree:8} {name:10} thread CPU median / p99 (us) per round: {shown}", flush=True)
        print(f"load: {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
