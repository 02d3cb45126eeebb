"""Per-command overhead of each runtime over running the same `true` directly, in the same run.

    python -m bench.bench_runtimes [--runs 40]

The floor is `/bin/sh -c true` started with subprocess on the host. Each runtime runs the
same `true` through its `exec` (sandbox: a bubblewrap box per command; docker: an exec in the
session's running container; ssh: a warm connection to a loopback sshd), and the local
terminal runs it through `Engine.call`. The dockerd and sshd are private ones started here
as the tests start them (root; tests/services.py), and stopped at the end.

Targets: sandbox <= 15 ms, docker exec <= 80 ms, ssh (warm, loopback) <= 10 ms over the floor.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from bench.common import table
from engine import Engine
from engine.runtime import Runtime, Session
from engine.runtime.docker import DockerRuntime
from engine.runtime.local import LocalRuntime
from engine.runtime.sandbox import SandboxRuntime
from engine.runtime.ssh import SshRuntime
from tests.services import check_bwrap, start_dockerd, start_sshd

REPO = Path(__file__).resolve().parent.parent
TARGETS_MS = {"sandbox": 15.0, "docker": 80.0, "ssh": 10.0}
ENV = {"PATH": os.defpath, "LANG": "C.UTF-8"}


def paired_ms(fn: Callable[[], object], floor: Callable[[], object], runs: int) -> tuple[float, float, float]:
    """(median ms of ``fn``, median ms of ``floor``, median of the per-round differences).

    The two alternate one call at a time, so load from elsewhere on the machine lands on both.
    """
    for _ in range(3):  # warm up: connections, caches, the container's first exec
        fn()
        floor()
    subject, base, diffs = [], [], []
    for _ in range(runs):
        a = time.perf_counter()
        floor()
        b = time.perf_counter()
        fn()
        c = time.perf_counter()
        base.append(b - a)
        subject.append(c - b)
        diffs.append((c - b) - (b - a))
    return (statistics.median(subject) * 1000, statistics.median(base) * 1000, statistics.median(diffs) * 1000)


@contextlib.contextmanager
def runtime(cls: type[Runtime], settings: dict[str, object], work: Path) -> Iterator[Runtime]:
    live = cls("bench", settings, Session("bench", work, work / "state"))
    try:
        live.start()
        yield live
    finally:
        live.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=40)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory(prefix="hermes-bench-rt-") as tmp:
        work = Path(tmp)

        def direct() -> None:
            subprocess.run(["/bin/sh", "-c", "true"], env=ENV, check=True)

        rows: list[tuple[str, ...]] = []
        floors: list[float] = []

        def measure(name: str, fn: Callable[[], object]) -> None:
            value, floor, over = paired_ms(fn, direct, runs)
            floors.append(floor)
            kind = name.split(" ", 1)[0]
            target = TARGETS_MS.get(kind)
            verdict = "" if target is None else ("met" if over <= target else "MISSED")
            rows.append((name, f"{value:.2f}", f"{over:+.2f}", "" if target is None else f"<= {target:g}", verdict))

        with runtime(LocalRuntime, {}, work) as local:
            measure("local (LocalRuntime.exec)", lambda: local.exec("true", env=ENV, timeout=30))
        engine = Engine.load(REPO, config={"workdir": str(work), "state_dir": str(work / "state")})
        try:
            measure("local (terminal via Engine.call)", lambda: engine.call("terminal", {"command": "true"}))
        finally:
            engine.close()
        check_bwrap()
        with runtime(SandboxRuntime, {}, work) as box:
            measure("sandbox", lambda: box.exec("true", env=ENV, timeout=30))
        with (
            start_dockerd() as daemon,
            runtime(DockerRuntime, {"image": daemon.image, "host": daemon.host}, work) as ct,
        ):
            measure("docker", lambda: ct.exec("true", env=ENV, timeout=30))
        with start_sshd() as server, runtime(SshRuntime, server.settings(workdir=str(work)), work) as remote:
            measure("ssh", lambda: remote.exec("true", env=ENV, timeout=30))

        rows.insert(0, ("direct: /bin/sh -c true (the floor)", f"{statistics.median(floors):.2f}", "", "", ""))
    print(
        table(
            f"Per-command overhead over running `true` directly (ms; {runs} rounds per row, each one call of the "
            "floor then one of the runtime; the overhead is the median of the per-round differences)",
            rows,
            ("runtime", "ms per command", "over the floor", "target", ""),
        )
    )


if __name__ == "__main__":
    main()
