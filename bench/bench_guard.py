"""`guard`, `check` and `validate` as whole processes, next to a bare interpreter start, in one run.

    python -m bench.bench_guard [--repeat 20] [--tools 1000]

Each command runs as its own process (what a hook costs an agent per tool call), in rounds:
every command once per round, so a busy machine slows all of them alike. The floor is
`python -c pass` in the same rounds. Bytecode caching is on (as in an installed engine), the
compiled-project cache is warmed first (``validate`` reads it too), and HOME and the XDG dirs
point into a temp dir. The cold rows remove the cache before each run.
Prints the median and min wall time of each, its ratio to the floor, how far above the floor
it is, the median CPU time (user + system: what the process itself costs, less sensitive to
other load on a shared machine) and the issue's targets.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import generate_project, table

REPO = Path(__file__).resolve().parent.parent

EVENT = {
    "session_id": "bench",
    "cwd": "/tmp",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "ls -la"},
}


CPU: dict[str, list[float]] = {}


def run(argv: list[str], env: dict[str, str], stdin: bytes = b"", name: str = "") -> float:
    """Wall seconds of one process; its CPU seconds (user + system) go to CPU[name]."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, input=stdin, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if name:
        CPU.setdefault(name, []).append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--tools", type=int, default=1000)
    opts = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="hermes-bench-guard-"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(HOME=str(base / "home"), XDG_STATE_HOME=str(base / "state"), XDG_CONFIG_HOME=str(base / "config"))
    env["PYTHONPATH"] = str(REPO)
    (base / "home").mkdir()
    big = generate_project(base / "tools", opts.tools)
    py = sys.executable
    engine = [py, "-m", "engine"]
    event = json.dumps(EVENT).encode()
    commands: dict[str, tuple[list[str], bytes]] = {
        "python -c pass (floor)": ([py, "-c", "pass"], b""),
        "guard --for claude-code (builtin, warm)": ([*engine, "guard", "--for", "claude-code", "--builtin"], event),
        "check 'ls -la' (builtin, warm)": ([*engine, "check", "--builtin", "ls -la"], b""),
        "check 'rm -rf ~' (builtin, warm)": ([*engine, "check", "--builtin", "rm -rf ~"], b""),
        "validate (builtin)": ([*engine, "validate", "--builtin"], b""),
        f"validate ({opts.tools} tools)": ([*engine, "validate", "--root", str(big)], b""),
    }
    for argv, stdin in commands.values():  # bytecode written, caches warm
        run(argv, env, stdin)
        run(argv, env, stdin)
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(opts.repeat):
        for name, (argv, stdin) in commands.items():
            samples[name].append(run(argv, env, stdin, name))
    # The cold paths, the cache removed before each run (fewer rounds: they are slow): what a
    # first run, or the first after an edit, costs; the cache must not make them slower.
    cold_runs = {
        "guard (builtin, cold: no cache)": commands["guard --for claude-code (builtin, warm)"],
        "validate (builtin, cold: no cache)": commands["validate (builtin)"],
        f"validate ({opts.tools} tools, cold: no cache)": commands[f"validate ({opts.tools} tools)"],
    }
    cold: dict[str, list[float]] = {name: [] for name in cold_runs}
    for _ in range(max(3, opts.repeat // 4)):
        for name, (argv, stdin) in cold_runs.items():
            shutil.rmtree(base / "state", ignore_errors=True)
            cold[name].append(run(argv, env, stdin, name))
    shutil.rmtree(base, ignore_errors=True)

    floor = statistics.median(samples["python -c pass (floor)"]) * 1000
    cpu_floor = statistics.median(CPU["python -c pass (floor)"]) * 1000
    targets = {
        "guard --for claude-code (builtin, warm)": "<= 100 ms, <= floor + 60",
        "check 'ls -la' (builtin, warm)": "<= 100 ms, <= floor + 60",
        "check 'rm -rf ~' (builtin, warm)": "<= 100 ms, <= floor + 60",
        "validate (builtin)": "<= 200 ms",
        f"validate ({opts.tools} tools)": "<= 450 ms",
        f"validate ({opts.tools} tools, cold: no cache)": "<= 450 ms",
    }
    rows: list[tuple[str, ...]] = []
    for name, values in [*samples.items(), *cold.items()]:
        median = statistics.median(values) * 1000
        cpu = statistics.median(CPU[name]) * 1000
        rows.append(
            (
                name,
                f"{median:.1f}",
                f"{min(values) * 1000:.1f}",
                f"{median / floor:.2f}x",
                f"+{median - floor:.1f}",
                f"{cpu:.1f}",
                f"+{cpu - cpu_floor:.1f}",
                targets.get(name, ""),
            )
        )
    print(
        table(
            f"Whole process, median of {opts.repeat} (cold: {len(next(iter(cold.values())))}), ms",
            rows,
            ("command", "median", "min", "vs floor", "above floor", "cpu", "cpu above floor", "target"),
        )
    )


if __name__ == "__main__":
    main()
