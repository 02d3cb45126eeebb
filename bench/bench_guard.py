"""`guard`, `check` and `validate` as whole processes, next to a bare interpreter start, in one run.

    python -m bench.bench_guard [--repeat 20] [--tools 1000] [--against REV]

Each command runs as its own process (what a hook costs an agent per tool call), in rounds:
every command once per round, so a busy machine slows all of them alike. The floor is
`python -c pass` in the same rounds. Bytecode caching is on (as in an installed engine), the
compiled-project cache is warmed first (``validate`` reads it too), and HOME and the XDG dirs
point into a temp dir. The cold rows remove the cache (the state dir and the key dir) before each run.
Prints the median and min wall time of each, its ratio to the floor, how far above the floor
it is, the median CPU time (user + system: what the process itself costs, less sensitive to
other load on a shared machine) and the issue's targets. ``--against REV`` runs the same
commands from a ``git archive`` of REV and from this tree in alternating runs instead, warm and
cold, and prints both with their ratio: on a loaded machine, the fairest before/after.
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


def run(argv: list[str], env: dict[str, str], stdin: bytes = b"", name: str = "", cwd: Path | None = None) -> float:
    """Wall seconds of one process; its CPU seconds (user + system) go to CPU[name]."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, input=stdin, env=env, capture_output=True, check=False, cwd=cwd)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if name:
        CPU.setdefault(name, []).append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall


def against(rev: str, commands: dict[str, tuple[list[str], bytes]], base: Path, repeat: int) -> None:
    """Each command of this tree and of git revision ``rev`` in alternating runs (so load on the
    machine falls on both alike), each with its own HOME/XDG dirs; cold rows remove the state and the keys first."""
    other = base / "against"
    other.mkdir()
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(other)], input=archive, check=True)
    envs: dict[str, dict[str, str]] = {}
    for label, tree in ((rev, other), ("this tree", REPO)):
        home = base / f"home-{len(envs)}"
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(PYTHONPATH=str(tree), HOME=str(home), XDG_STATE_HOME=str(home / "state"))
        env["XDG_CONFIG_HOME"] = str(home / "config")
        home.mkdir()
        envs[label] = env
    cold = {
        f"{name}, cold: no cache": (argv, stdin)
        for name, (argv, stdin) in commands.items()
        if name.startswith(("guard", "validate"))
    }
    for env in envs.values():  # bytecode written, caches warm (run where -m does not find this tree first)
        for argv, stdin in commands.values():
            run(argv, env, stdin, cwd=base)
            run(argv, env, stdin, cwd=base)
    walls: dict[tuple[str, str], list[float]] = {}
    for _ in range(repeat):
        for name, (argv, stdin) in [*commands.items(), *cold.items()]:
            for label, variant in envs.items():
                env = variant
                if name in cold:  # state and key dirs of their own, emptied: the warm rows keep theirs
                    env = {
                        **variant,
                        "XDG_STATE_HOME": variant["XDG_STATE_HOME"] + "-cold",
                        "XDG_CONFIG_HOME": variant["XDG_CONFIG_HOME"] + "-cold",
                    }
                    shutil.rmtree(env["XDG_STATE_HOME"], ignore_errors=True)
                    shutil.rmtree(env["XDG_CONFIG_HOME"], ignore_errors=True)
                walls.setdefault((name, label), []).append(run(argv, env, stdin, f"{name}|{label}", cwd=base))
    rows: list[tuple[str, ...]] = []
    for name in [*commands, *cold]:
        old, new = (statistics.median(walls[(name, label)]) * 1000 for label in envs)
        old_cpu, new_cpu = (statistics.median(CPU[f"{name}|{label}"]) * 1000 for label in envs)
        rows.append((name, f"{old:.1f}", f"{new:.1f}", f"{new / old:.2f}", f"{old_cpu:.1f}", f"{new_cpu:.1f}"))
    print(
        table(
            f"This tree against {rev}, alternating runs, median of {repeat}, ms",
            rows,
            ("command", f"{rev} wall", "this wall", "ratio", f"{rev} cpu", "this cpu"),
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--against", metavar="REV", help="Compare with this git revision instead (alternating runs).")
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
    if opts.against:
        try:
            against(opts.against, commands, base, opts.repeat)
        finally:
            shutil.rmtree(base, ignore_errors=True)
        return
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
            # The keys too: with them, the key dir remembers the record of approved files the state
            # dir held, and a judging command refuses the project (a cold start is a first one).
            shutil.rmtree(base / "state", ignore_errors=True)
            shutil.rmtree(base / "config", ignore_errors=True)
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
