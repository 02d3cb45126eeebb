"""Danger detection against inputs built to be slow: worst case per size, 1 KiB … 1 MiB.

    python -m bench.bench_adversarial [--max-kib 1024] [--rounds 3]

Each shape (the ones that once took seconds to hours, and others like them) is
scaled to each size; every input is judged by `Engine.check` `--rounds` times.
Each call is timed twice: the CPU time of the calling thread (`time.thread_time_ns`,
what the detector itself costs; other processes on a shared machine do not move
it) and the wall clock (what the caller waits). Per size and shape the median,
p99 and max over the rounds are kept; the worst shape per size (by median CPU)
is reported against the target (<= 5 ms up to 64 KiB, linear growth beyond) and
against a floor in the same run: `str.split()` over the same text (the cost of
looking at every byte once).
"""

from __future__ import annotations

import argparse
import functools
import gc
import itertools
import math
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.common import table

REPO = Path(__file__).resolve().parent.parent
KIB = 1024


def _fill(unit: str, size: int, head: str = "", tail: str = "") -> str:
    count = max(1, (size - len(head) - len(tail)) // len(unit))
    return head + unit * count + tail


def _deep_quoting(size: int) -> str:
    """`sh -c 'sh -c '"'"'...` nested as deep as ``size`` allows (each level quotes the one inside)."""
    command = "rm -rf ./x"
    while True:
        quoted = "sh -c '" + command.replace("'", "'\"'\"'") + "'"
        if len(quoted) > size:
            return command
        command = quoted


_ROUND = itertools.count()


def _fresh_words(template: str, size: int) -> str:
    """``template`` filled with words no earlier call made, as many times as ``size`` allows."""
    prefix = f"n{next(_ROUND)}x"
    return "".join(template.format(f"{prefix}{i}") for i in range(size // (len(template) + len(prefix) + 2)))


# name -> builder(size in characters)
SHAPES: dict[str, Callable[[int], str]] = {
    "kill -s -s ... x (flag-repetition regex)": lambda n: _fill(" -s", n, "kill", " x"),
    "a(){ aaaa... (backreference regex)": lambda n: _fill("a", n, "a(){ "),
    "echo {a,,,,... (unclosed brace)": lambda n: _fill(",", n, "echo {a"),
    "echo {a,,,,...} (one wide group)": lambda n: _fill(",", n, "echo {a", "}"),
    "echo {a,b}{a,b}... (brace groups)": lambda n: _fill("{a,b}", n, "echo "),
    "{{{a,b}}} (nested braces)": lambda n: "echo " + "{" * (n // 2) + "a,b" + "}" * (n // 2),
    "python -c 'exec(exec(... (inline code)": lambda n: _fill("exec(", n, "python -c '", "'"),
    "eval eval ... rm -rf /* (depth)": lambda n: _fill("eval ", n, "", "rm -rf /*"),
    "true;true;... rm -rf / (commands)": lambda n: _fill("true;", n, "", "rm -rf /"),
    "rm -rf / + blanks (size)": lambda n: _fill(" ", n, "rm -rf / "),
    "$($($(... (nested substitutions)": lambda n: "echo " + "$(" * (n // 3) + ")" * (n // 3),
    "'a' 'a' ... (quoted words)": lambda n: _fill("'a' ", n, "echo "),
    "rm a1; rm a2; ... (distinct commands)": lambda n: "".join(f"rm a{i}; " for i in range(n // 8)),
    "rm -rf a1; ... (distinct paths to classify)": lambda n: "".join(f"rm -rf a{i}; " for i in range(n // 12)),
    # Words never seen before in each round (a caller sends new text each time): the caches a
    # running engine keeps across checks (path classes of words) do not help.
    "rm n1; rm n2; ... (new words each round)": lambda n: _fresh_words("rm {}; ", n),
    "ESC] ESC] ... (escapes, readings)": lambda n: _fill("true \x1b]", n),
    "ｒｍ ｒｍ ... (fullwidth, readings)": lambda n: _fill("ｒｍ －ｒｆ ", n),
    # One disguised character after thousands of commands: each reading differs from the raw
    # text in one place (judged in full, each reading cost what the whole text costs).
    "rm a1; ... ESC] (one escape, readings)": lambda n: "".join(f"rm a{i}; " for i in range(n // 8)) + "\x1b]",
    "rm a1; ... ｘ (one fullwidth, readings)": lambda n: "".join(f"rm a{i}; " for i in range(n // 8)) + "ｘ",
    # A letter RE2 takes for ASCII when case is ignored (the Kelvin sign is `k`): the flat scan's fold
    # must still find the word as no plain name without its slow path.
    "rm a1; ... K (one Kelvin sign, readings)": lambda n: "".join(f"rm a{i}; " for i in range(n // 8)) + "K",
    "x\\r# ... (controls and comments)": lambda n: _fill("echo x\r# ;", n),
    "cat <<EOF ... (here-document)": lambda n: _fill("rm -rf x\n", n, "bash <<EOF\n", "EOF\n"),
    "[[ =~ (((... (regex groups)": lambda n: "[[ x =~ " + "(" * (n // 2) + ")" * (n // 2) + " ]]",
    "python -c 'run(1);... (inline calls)": lambda n: _fill("run(1);", n, "python3 -c '", "'"),
    # Programs whose commands run in a folder or under another name (inline.py: chdir, cwd=, a
    # writer taken as a value), padded with plain statements or repeating the call.
    "python -c 'os.chdir(d) ... x = 1' (inline chdir)": lambda n: _fill(
        "x = 1\n", n, 'python3 -c \'import os\nos.chdir("d")\nos.system("ls")\n', "'"
    ),
    "python -c 'os.chdir(d)\\n... (many chdirs)": lambda n: _fill(
        'os.chdir("d")\n', n, 'python3 -c \'import os\nos.system("ls")\n', "'"
    ),
    "python -c 'f = open ... x = 1' (writer alias)": lambda n: _fill("x = 1\n", n, "python3 -c 'f = open\n", "'"),
    "python -c 'run([..], cwd=d) ... x = 1' (cwd=)": lambda n: _fill(
        "x = 1;", n, 'python3 -c \'import subprocess; d = "a"; subprocess.run(["ls"], cwd=d);', "'"
    ),
    "python -c 'run([..], cwd=d);... (many cwd= calls)": lambda n: _fill(
        'subprocess.run(["ls"], cwd=d);', n, "python3 -c 'import subprocess;", "'"
    ),
    "python -c 'open(x, w);... (many writes)": lambda n: _fill('open("x", "w");', n, "python3 -c '", "'"),
    "cat x | cat x | ... (long pipeline)": lambda n: _fill("cat x | ", n, "", "sh"),
    "echo $(a) $(a) ... (many substitutions)": lambda n: _fill("$(a) ", n, "echo "),
    'echo "\\"\\"... (escapes in quotes)': lambda n: _fill('\\"', n, 'echo "', '"'),
    "sh -c 'sh -c ... (deep quoting)": _deep_quoting,
    "cat <<E x E ... (many here-documents)": lambda n: _fill("cat <<E\nx\nE\n", n),
    "echo x >a >a ... (many redirects)": lambda n: _fill(" >a", n, "echo x"),
}


def _lines(head: str, line: str, size: int) -> str:
    """``head``, then ``line`` filled with 0, 1, 2 ... as many times as fit in ``size`` characters."""
    text = head + "".join(line.format(i) for i in range(size // len(line.format(0))))
    return text[: text.rfind("\n", 0, size) + 1]


def _makefile(size: int) -> str:
    """A Makefile of one target whose recipe is distinct lines."""
    return _lines("all:\n", "\techo a{0}\n", size)


def _vimrc(size: int) -> str:
    """A vimrc of settings and mappings (ex lines, no shell command)."""
    return _lines("", "let g:a{0} = {0}\nnnoremap <leader>a{0} :echo {0}<CR>\n", size)


# Files a command runs (the session's memory judges a file its session wrote as what the command runs):
# name -> (builder of {path: text}, the command). A 64 KiB file is a 64 KiB input (issue 10).
SESSION_SHAPES: dict[str, tuple[Callable[[int], dict[str, str]], str]] = {
    "written Makefile, make (session)": (lambda n: {"Makefile": _makefile(n)}, "make"),
    "written vimrc, vim -u (session)": (lambda n: {"vimrc": _vimrc(n)}, "vim -u vimrc -c q"),
}


@dataclass
class Timing:
    """Seconds per call over the rounds: thread CPU and wall clock, each sorted."""

    cpu: list[float]
    wall: list[float]

    @staticmethod
    def p99(samples: list[float]) -> float:
        """The 99th percentile (nearest rank; the max below 100 rounds)."""
        return samples[min(len(samples) - 1, math.ceil(0.99 * len(samples)) - 1)]

    def cells(self) -> tuple[str, ...]:
        """median / p99 / max of the CPU, then of the wall clock, in ms."""
        return tuple(
            f"{statistics.median(s) * 1e3:.2f} / {self.p99(s) * 1e3:.2f} / {s[-1] * 1e3:.2f}"
            for s in (self.cpu, self.wall)
        )


def measure(fn: Callable[[str], object], text: str, rounds: int, build: Callable[[], str] | None = None) -> Timing:
    """``fn(text)`` ``rounds`` times (with ``build``, on a new text each round)."""
    cpu, wall = [], []
    thread_ns, wall_ns = time.thread_time_ns, time.perf_counter_ns
    for _ in range(rounds):
        if build is not None:
            text = build()
        started_cpu, started_wall = thread_ns(), wall_ns()
        fn(text)
        wall.append((wall_ns() - started_wall) / 1e9)
        cpu.append((thread_ns() - started_cpu) / 1e9)
    return Timing(sorted(cpu), sorted(wall))


class SessionChecks:
    """The check of a command after its session wrote files, as a call judges it (Engine.call's
    gate: the session's memory and the evaluator's verdict), in a temporary working directory whose
    engine keeps its state there too. Nothing is run."""

    def __init__(self) -> None:
        from engine import Engine

        self._folder = tempfile.TemporaryDirectory(prefix="bench-adv-")
        self.work = os.path.join(self._folder.name, "work")
        os.mkdir(self.work)
        config = {"workdir": self.work, "state_dir": os.path.join(self._folder.name, "state")}
        self.engine = Engine.load(REPO, config=config)
        self._sessions = itertools.count()

    def prepared(self, files: dict[str, str], command: str) -> Callable[[str], object]:
        """A check of ``command`` in a new session that wrote ``files`` (through write_file)."""
        session = f"bench{next(self._sessions)}"
        for path, text in files.items():
            result = self.engine.call("write_file", {"path": path, "content": text}, session_id=session)
            if not result.ok:
                raise RuntimeError(f"write_file {path}: {result}")
        memory = self.engine.session_memory
        evaluator = self.engine._evaluator(self.engine._snapshot)

        def check(text: str) -> object:
            return evaluator.verdict("terminal", {"command": text}, memory.view(session, self.work))

        return check

    def close(self) -> None:
        self.engine.close()
        self._folder.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-kib", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="", help="run only the shapes whose name contains this text")
    opts = parser.parse_args()
    shapes = {name: build for name, build in SHAPES.items() if opts.only in name}
    session_shapes = {name: shape for name, shape in SESSION_SHAPES.items() if opts.only in name}

    from engine import Engine

    engine = Engine.load(REPO)
    check = engine.check
    check("rm -rf /")  # warm the caches a running engine has
    gc.collect()
    gc.freeze()
    sizes = [kib * KIB for kib in (1, 4, 16, 64, 256, 1024) if kib <= opts.max_kib]
    rows = []
    per_shape: dict[str, list[Timing]] = {name: [] for name in (*shapes, *session_shapes)}
    sessions = SessionChecks() if session_shapes else None
    previous: float | None = None
    for size in sizes:
        worst: Timing | None = None
        worst_name, floor = "", 0.0
        for name, build in shapes.items():
            text = build(size)
            fresh = functools.partial(build, size) if "each round" in name else None
            timing = measure(check, text, opts.rounds, fresh)
            per_shape[name].append(timing)
            if worst is None or statistics.median(timing.cpu) > statistics.median(worst.cpu):
                worst, worst_name = timing, name
                floor = statistics.median(measure(str.split, text, opts.rounds).cpu)
        for name, (files, command) in session_shapes.items():
            assert sessions is not None
            written = files(size)
            timing = measure(sessions.prepared(written, command), command, opts.rounds)
            per_shape[name].append(timing)
            if worst is None or statistics.median(timing.cpu) > statistics.median(worst.cpu):
                worst, worst_name = timing, name
                floor = statistics.median(measure(str.split, "".join(written.values()), opts.rounds).cpu)
        if worst is None:
            continue
        median = statistics.median(worst.cpu)
        worst_max = max(t.cpu[-1] for times in per_shape.values() for t in times[-1:])
        target = "<= 5 ms" if size <= 64 * KIB else "linear"
        growth = f"{median / previous:.1f}x" if previous else "-"
        rows.append(
            (
                f"{size // KIB} KiB",
                *worst.cells(),
                f"{worst_max * 1e3:.2f}",
                target,
                growth,
                f"{median / floor:.0f}x" if floor else "-",
                worst_name,
            )
        )
        previous = median
    if sessions is not None:
        sessions.close()
    print(
        table(
            f"Engine.check, worst shape per size (ms over {opts.rounds} rounds: median / p99 / max)",
            rows,
            (
                "size",
                "thread CPU",
                "wall",
                "max CPU, any shape",
                "target",
                "vs previous size",
                "vs str.split floor",
                "worst shape (median CPU)",
            ),
        )
    )
    header = tuple(f"{s // KIB} KiB" for s in sizes)
    for label, column in (("thread CPU", 0), ("wall", 1)):
        shape_rows = [(name, *(t.cells()[column] for t in times)) for name, times in per_shape.items()]
        print()
        print(table(f"every shape, {label} (ms: median / p99 / max)", shape_rows, ("shape", *header)))


if __name__ == "__main__":
    main()
