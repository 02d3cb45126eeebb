"""Danger detection: quality on the labelled sample corpus and speed per Engine.check.

    python -m bench.bench_policy [--corpus PATH]

Speed is compared in the same run with a naive checker that searches a list of
compiled regexes over the raw text (the approach this engine replaces). The headline
figure is cold: the evaluator's parse cache is off, so every check parses its text (an
agent's commands are mostly new). The figure with the cache on (each command judged
again) is printed on its own line, labelled as such.

The headline (target) row is on a settled tree: HOME and the project older than the link
walk's racy window (engine/policy/landing.py `_RACY_NS`, 2 s), as a user's are. The fresh
row is measured first, with HOME and the project changed just before (an entry made and
removed): for 2 s a folder's times cannot vouch for its listing (a change in the same clock
tick leaves them as they were), so an unwatched folder is asked entry by entry, and a
watched one in the first check after its change.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import time
from pathlib import Path

from bench.common import memory_latency_ns, table

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = REPO / "tests" / "data" / "commands-sample.jsonl"

# A raw-text checker in the style of a regex list over the command string.
NAIVE = [
    re.compile(p, re.IGNORECASE)
    for p in [
        r"\brm\s+(-[a-z]*r[a-z]*\s+)*(/|~|\$HOME)(\s|$|\*)",
        r"\brm\s+-[a-z]*r",
        r"\bmkfs(\.\w+)?\b",
        r"\bwipefs\b",
        r"\bdd\s+.*of=/dev/",
        r">\s*/dev/sd",
        r">\s*/dev/nvme",
        r":\(\)\s*\{\s*:\|:&\s*\};:",
        r"\bkill\s+-9\s+-1\b",
        r"\bkillall\b",
        r"\bpkill\b",
        r"\bshutdown\b",
        r"\breboot\b",
        r"\bhalt\b",
        r"\bpoweroff\b",
        r"\binit\s+[06]\b",
        r"\bsystemctl\s+(stop|disable|mask|restart|poweroff|reboot)\b",
        r"\bchmod\s+(-R\s+)?777\b",
        r"\bchown\s+-R\b",
        r"\bdrop\s+(table|database)\b",
        r"\btruncate\s+table\b",
        r"\bdelete\s+from\b(?!.*\bwhere\b)",
        r">\s*/etc/",
        r"\btee\s+(-a\s+)?/etc/",
        r"~/\.ssh/",
        r"~/\.bashrc",
        r"\.env\b",
        r"curl\s+.*\|\s*(ba)?sh",
        r"wget\s+.*\|\s*(ba)?sh",
        r"\bgit\s+push\s+.*(-f|--force)\b",
        r"\bgit\s+reset\s+--hard\b",
        r"\bgit\s+clean\s+-f",
        r"\bgit\s+branch\s+-D\b",
        r"\bfind\b.*-delete\b",
        r"\bfind\b.*-exec\s+rm\b",
        r"\bxargs\s+.*\brm\b",
        r"\bcrontab\s+-r\b",
        r"\bhistory\s+-c\b",
        r"\bpip\s+uninstall\b",
        r"\bapt(-get)?\s+(remove|purge)\b",
        r"\bdocker\s+(system\s+prune|rm|rmi)\b",
        r"\bkubectl\s+delete\b",
        r"\bterraform\s+destroy\b",
        r"\bbase64\s+-d\b.*\|\s*(ba)?sh",
        r"\bnc\s+-e\b",
        r"/dev/tcp/",
        r"\bsudo\s+(-s|-i|su|bash)\b",
        r"\bredis-cli\s+flushall\b",
        r"169\.254\.169\.254",
        r"metadata\.google\.internal",
        r"\bufw\s+disable\b",
        r"\biptables\s+-F\b",
        r"\bsetenforce\s+0\b",
        r"\buserdel\b",
        r"\bsgdisk\b.*--zap",
        r"\bdiskutil\s+erase",
        r"\bcryptsetup\s+luksFormat\b",
        r"\bperl\s+-e\b.*\bunlink\b",
        r"\bpython\S*\s+-c\b.*\brmtree\b",
        r"\beval\b.*\$\(",
        r"\bdel\s+/[sfq]",
        r"\breg\s+delete\b",
        r"\bpowershell\b.*-enc",
        r"\biex\b",
        r"\bshred\b",
        r"\btruncate\s+-s\s*0\b",
        r"/proc/sysrq-trigger",
        r"\bln\s+-sf\s+/dev/null\b",
    ]
]


def naive_check(command: str) -> bool:
    return any(p.search(command) for p in NAIVE)


def timings(fn, commands: list[str], rounds: int = 31) -> list[float]:
    """Per-command time: for each command the median over ``rounds`` runs."""
    per_command = []
    for command in commands:
        samples = []
        for _ in range(rounds):
            started = time.perf_counter()
            fn(command)
            samples.append(time.perf_counter() - started)
        per_command.append(statistics.median(samples))
    return per_command


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    opts = parser.parse_args()
    rows = [json.loads(line) for line in opts.corpus.read_text().splitlines() if line.strip()]

    from engine import Engine

    engine = Engine.load(REPO)
    check = engine.check
    hardline = [r for r in rows if r["hardline"]]
    dangerous = [r for r in rows if r["label"] == "dangerous" and not r["hardline"]]
    safe = [r for r in rows if r["label"] == "safe"]
    hard_ok = sum(check(r["cmd"]).decision == "deny" for r in hardline)
    danger_ok = sum(check(r["cmd"]).decision in ("ask", "deny") for r in [*hardline, *dangerous])
    safe_flagged = sum(check(r["cmd"]).decision != "allow" for r in safe)
    naive_danger = sum(naive_check(r["cmd"]) for r in [*hardline, *dangerous])
    naive_safe = sum(naive_check(r["cmd"]) for r in safe)
    n_danger = len(hardline) + len(dangerous)
    quality = [
        ("hardline -> deny", f"{hard_ok}/{len(hardline)}", f"{100 * hard_ok / len(hardline):.1f}%", "100%", "-"),
        (
            "dangerous -> ask or deny",
            f"{danger_ok}/{n_danger}",
            f"{100 * danger_ok / n_danger:.1f}%",
            ">= 97%",
            f"{100 * naive_danger / n_danger:.1f}%",
        ),
        (
            "safe flagged",
            f"{safe_flagged}/{len(safe)}",
            f"{100 * safe_flagged / len(safe):.1f}%",
            "<= 3%",
            f"{100 * naive_safe / len(safe):.1f}%",
        ),
    ]
    from engine.build import build_name

    build = build_name()
    print(f"corpus: {opts.corpus} ({len(rows)} commands); engine/policy: {build}")
    print(table("detection quality", quality, ("measure", "count", "hermes-engine", "target", "naive regex list")))

    commands = [r["cmd"] for r in rows]
    evaluator = engine._evaluator(engine._snapshot)
    cache_size = evaluator.parse_cache
    for command in commands:  # warm caches the way a running engine has them
        check(command)
    evaluator.parse_cache = 0  # cold: every check parses its text
    # Fresh tree: HOME and the project changed just now (the racy window, engine/policy/landing.py
    # `_RACY_NS`: a folder changed in the last 2 s cannot be vouched for by its times).
    changed = time.monotonic()
    for folder in (os.environ.get("HOME"), str(REPO)):
        if folder and os.path.isdir(folder):
            touched = Path(folder) / ".bench-fresh"  # an entry made and removed: its times and an event
            touched.write_text("")
            touched.unlink()
    fresh = timings(check, commands)
    # Settled tree (the target row): a user's HOME and project are older than the window.
    time.sleep(max(0.0, 2.1 - (time.monotonic() - changed)))
    for command in commands:
        check(command)
    ours = timings(check, commands)
    evaluator.parse_cache = cache_size  # a command judged again: its parse is remembered
    cached = timings(check, commands)
    naive = timings(naive_check, commands)
    speed = [
        (
            "Engine.check (settled tree)",
            f"{statistics.median(ours) * 1e6:.1f}",
            f"{pct(ours, 0.99) * 1e6:.1f}",
            f"{max(ours) * 1e6:.1f}",
            "median <= 30, p99 <= 300",
        ),
        (
            "Engine.check, fresh tree (HOME, project changed < 2 s ago)",
            f"{statistics.median(fresh) * 1e6:.1f}",
            f"{pct(fresh, 0.99) * 1e6:.1f}",
            f"{max(fresh) * 1e6:.1f}",
            "",
        ),
        (
            "Engine.check, same text again (parse cached)",
            f"{statistics.median(cached) * 1e6:.1f}",
            f"{pct(cached, 0.99) * 1e6:.1f}",
            f"{max(cached) * 1e6:.1f}",
            "",
        ),
        (
            f"naive: {len(NAIVE)} regexes on raw text",
            f"{statistics.median(naive) * 1e6:.1f}",
            f"{pct(naive, 0.99) * 1e6:.1f}",
            f"{max(naive) * 1e6:.1f}",
            "",
        ),
    ]
    print(table("speed per command (us)", speed, ("checker", "median", "p99", "max", "target")))
    print(f"median ratio hermes / naive = {statistics.median(ours) / statistics.median(naive):.2f}x (cold)")
    # (stop 54) the machine's memory latency as Python sees it: the engine's figures move with it, the naive
    # list's (a few compiled regexes, hot in the cache) do not
    print(f"machine reference: a random read of a 2M-element list takes {memory_latency_ns():.0f} ns")
    print(f"median ratio hermes / naive = {statistics.median(cached) / statistics.median(naive):.2f}x (parse cached)")


if __name__ == "__main__":
    main()
