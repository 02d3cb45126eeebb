"""Issue 8: where one `Engine.check` spends its time, stage by stage (cold: the parse cache off).

    python -m bench.bench_stages [COMMAND ...]

Each stage is timed apart (median of --runs runs) on the build that is imported (run it on a
compiled copy as bench.bench_policy is, docs/compiled.md "Measuring it"): the verdict layers above
`detect_command`, the fast-path test, the parse (`Analyzer.analyze`), `_Index.candidates` on fresh
commands (the command's shape when its name has subcommand entries, the working directory's
listing), the matchers (the rest of `_match`), and the link walk: what a check costs less with the
classifier's `LinkFinder` off (not a setting: the cost of the per-check file-system view). Then the
corpus's cold median and p99 with and without the link walk, in this process.

The tree is settled by default (HOME and the project older than the link walk's 2 s racy
window, engine/policy/landing.py `_RACY_NS`, as a user's are); `--fresh` changes them just before
(an entry made and removed), as they are right after a change (bench.bench_policy's fresh row).

White-box: it calls private methods of `engine.policy.evaluate`; a stage that no longer exists
fails here first. Run it with a temporary HOME/XDG_STATE_HOME/XDG_CONFIG_HOME (Engine.load).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.common import table

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "data" / "commands-sample.jsonl"
DEFAULT = ["terraform plan", "git pull --rebase"]


def median_us(fn: Callable[[], Any], runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("commands", nargs="*", default=DEFAULT)
    parser.add_argument("--runs", type=int, default=801)
    parser.add_argument(
        "--fresh", action="store_true", help="HOME and the project changed just before (else: older than 2 s)"
    )
    opts = parser.parse_args()

    from engine import Engine
    from engine.build import build_name
    from engine.policy import evaluate
    from engine.policy.shell import Analyzer

    engine = Engine.load(REPO)
    evaluator = engine._evaluator(engine._snapshot)
    rows = [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]
    corpus = [r["cmd"] for r in rows]
    for command in [*corpus, *opts.commands]:
        engine.check(command)  # warm caches the way a running engine has them
    if opts.fresh:  # HOME and the project changed just now: within the link walk's racy window
        for folder in (os.environ.get("HOME"), str(REPO)):
            if folder and os.path.isdir(folder):
                touched = Path(folder) / ".bench-fresh"  # an entry made and removed: its times and an event
                touched.write_text("")
                touched.unlink()
    else:  # settled, as a user's HOME and project are: past the racy window (landing._RACY_NS)
        time.sleep(2.1)
        for command in [*corpus, *opts.commands]:
            engine.check(command)
    evaluator.parse_cache = 0
    patterns = evaluator.patterns_for("terminal", "command")
    index = evaluator._index(patterns)
    programs = evaluator.policy.programs
    classifier = evaluator.classifier
    print(f"engine/policy: {build_name()}; tree: {'fresh (changed < 2 s ago)' if opts.fresh else 'settled'}")

    for command in opts.commands:

        def parse(command: str = command) -> Any:
            analyzer = Analyzer(programs, None)
            analyzer.analyze(command)
            return analyzer.commands

        def candidates(command: str = command) -> Any:
            view = classifier.view()
            return [index.candidates(c, evaluator._engine_names, view) for c in parse(command)]

        def match(command: str = command) -> Any:
            return evaluator._match(parse(command), command, index, None, classifier.view())

        def check(command: str = command) -> Any:
            return engine.check(command)

        def detect(command: str = command) -> Any:
            return evaluator.detect_command(command, patterns, seen=evaluate._PLAIN)

        def detect_text(command: str = command) -> Any:
            return evaluator._detect_text(command, patterns, evaluate._LazyBudget(), None, classifier.view())

        def skip(command: str = command) -> Any:
            return evaluator._can_skip(command, classifier.view())

        runs = opts.runs
        t = {
            name: median_us(fn, runs)
            for name, fn in [
                ("check", check),
                ("detect", detect),
                ("detect_text", detect_text),
                ("skip", skip),
                ("parse", parse),
                ("candidates", candidates),
                ("match", match),
            ]
        }
        links = classifier._links
        classifier._links = None
        try:
            t["check, no walk"] = median_us(check, runs)
            t["match, no walk"] = median_us(match, runs)
        finally:
            classifier._links = links
        if evaluator._can_skip(command, classifier.view()):
            # The fast path: nothing is parsed; `_match` judges no command, only the bare regexes.
            bare = median_us(
                lambda command=command: evaluator._match([], command, index, None, classifier.view()), runs
            )
            stages = [
                ("Engine.check, cold (fast path)", t["check"]),
                ("verdict layers + _decide", t["check"] - t["detect"]),
                ("detect_command's own work", t["detect"] - t["detect_text"]),
                ("fast-path test (_can_skip)", t["skip"]),
                ("_match of no command (regex_only)", bare),
                ("link walk, whole check", t["check"] - t["check, no walk"]),
            ]
            print(table(repr(command), [(name, f"{us:.1f}") for name, us in stages], ("stage", "us")))
            continue
        n_candidates = sum(len(index.candidates(c, evaluator._engine_names, classifier.view())) for c in parse())
        stages = [
            ("Engine.check, cold", t["check"]),
            ("verdict layers + _decide", t["check"] - t["detect"]),
            ("detect_command's own work", t["detect"] - t["detect_text"]),
            ("fast-path test (_can_skip)", t["skip"]),
            ("_detect_text's own work", t["detect_text"] - t["match"] - t["skip"]),
            ("parse (Analyzer.analyze)", t["parse"]),
            (f"candidates ({n_candidates} matchers)", t["candidates"] - t["parse"]),
            ("matchers, regex_only", t["match"] - t["candidates"]),
            ("of parse+match: the link walk", t["match"] - t["match, no walk"]),
            ("link walk, whole check", t["check"] - t["check, no walk"]),
        ]
        print(table(repr(command), [(name, f"{us:.1f}") for name, us in stages], ("stage", "us")))

    def corpus_figures() -> tuple[float, float]:
        per = sorted(median_us(lambda c=c: engine.check(c), 15) for c in corpus)
        return statistics.median(per), per[min(len(per) - 1, int(0.99 * len(per)))]

    with_walk = corpus_figures()
    links = classifier._links
    classifier._links = None
    try:
        without = corpus_figures()
    finally:
        classifier._links = links
    print(
        table(
            "corpus, cold (us)",
            [("with the link walk", *map("{:.1f}".format, with_walk)), ("without", *map("{:.1f}".format, without))],
            ("Engine.check", "median", "p99"),
        )
    )


if __name__ == "__main__":
    main()
