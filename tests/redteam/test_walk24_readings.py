"""walk24: the reading cap (rt12's leftover). A line with more than 32 readings of its values asks;
conditional parts that change only variables the line never reads (`(x0=1)`) make no reading of
their own, so the reading that matters is reached. Past the cap the verdict stays an ask at least
(never allow). Every harmful run is confined: a fake HOME and working directory under tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import live_then_stopped

NOISE = "; ".join(f"(x{i}=1)" for i in range(7))

PAYLOADS = [
    f'd=~; (d=build); {NOISE}; rm -rf "$d"',
    f'd=~; false && d=build; {NOISE}; rm -rf "$d"',
    f'd=~; {NOISE}; (d=build); {NOISE.replace("x", "y")}; rm -rf "$d"',
]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_unread_noise_does_not_hide_the_reading_that_deletes_home(
    tmp_path: Path, work_engine: Engine, fake_home: Path, payload: str
) -> None:
    assert work_engine.check(payload).hardline, payload
    live_then_stopped(tmp_path, work_engine, fake_home, payload)


@pytest.mark.parametrize(
    "payload",
    [
        # the noise is read (textually or by a name the text does not spell): past the cap, an ask
        f'd=~; (d=build); {NOISE}; echo $x0 $x1 $x2 $x3 $x4 $x5 $x6; rm -rf "$d"',
        f'd=~; (d=build); {NOISE}; v=x; echo $(( $v$((0)) )); rm -rf "$d"',
        f'd=~; (d=build); {NOISE.upper()}; rm -rf "$d"',
    ],
)
def test_past_the_cap_it_is_never_allowed(work_engine: Engine, payload: str) -> None:
    verdict = work_engine.check(payload)
    assert verdict.decision != "allow" and not verdict.grantable, payload


@pytest.mark.parametrize(
    "payload",
    [f'd=build; {NOISE}; rm -rf "$d"', f"{NOISE}; ls", f"(cd build && make); {NOISE}; ls"],
)
def test_near_miss_unread_noise_is_allowed(work_engine: Engine, payload: str) -> None:
    assert work_engine.check(payload).decision == "allow", payload


@pytest.mark.parametrize(
    "writes",
    [
        ["read y < /dev/null\n", "rm -rf ${y:-~}\n"],
        ["y=$(cat missing.txt)\n", 'rm -rf "${y-~}"\n'],
        ["y=build\n", "read y < /dev/null\n", "rm -rf ${y:=~}\n"],
    ],
    ids=[":-", "-", ":="],
)
def test_a_default_word_is_a_reading_after_a_value_lost_in_an_earlier_write(
    work_engine: Engine, fake_home: Path, writes: list[str]
) -> None:
    # sec4's leftover: y's value was lost in an earlier `process write` to a background bash; the
    # default word (`~`) is still judged: a hardline deny, and the fake home is intact.
    import json

    from tests.redteam.conftest import home_intact

    started = work_engine.call("terminal", {"command": "bash", "background": True}, session_id="s1")
    assert started.ok, started.error
    pid = str(json.loads(started.output)["process_id"])
    try:
        results = [
            work_engine.call("process", {"action": "write", "process_id": pid, "input": w}, session_id="s1")
            for w in writes
        ]
    finally:
        work_engine.call("process", {"action": "kill", "process_id": pid}, session_id="s1")
    assert all(r.ok for r in results[:-1])
    last = results[-1]
    assert not last.ok and last.error is not None and last.error.type == "denied", last
    assert home_intact(fake_home)
