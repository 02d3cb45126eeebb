"""Text assembled on the line by means the analyzer did not follow.

`c=r; c+=m; $c -rf ~` appends to a variable; `sh /proc/self/fd/0 <<< TEXT` and `bash /dev/fd/0`
run their own input as a script file; `dd of=x.sh <<< TEXT` writes TEXT to a file a later
`sh x.sh` runs. Each was allowed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import judge
from tests.redteam.harm import live_then_stopped

HARDLINE = [
    "c=r; c+=m; $c -rf ~",
    "c=rm; c+=' -rf ~'; $c",
    "sh /proc/self/fd/0 <<< 'rm -rf ~'",
    "bash /dev/fd/0 <<< 'rm -rf ~'",
    "dd of=x.sh <<< 'rm -rf ~'; sh x.sh",
]

NEAR_MISSES = ["c=r; c+=m; echo $c", "PATH+=:/opt/bin; ls", "dd of=x.sh <<< 'ls'; sh x.sh"]


@pytest.mark.parametrize("command", HARDLINE)
def test_assembled_text_is_judged(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_harmless_assembly_stays_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


@pytest.mark.parametrize("payload", ["c=r; c+=m; $c -rf ~", "dd of=x.sh <<< 'rm -rf ~' 2>/dev/null; sh x.sh"])
def test_the_payload_is_live_and_the_engine_stops_it(
    tmp_path: Path, work_engine: Engine, fake_home: Path, payload: str
) -> None:
    live_then_stopped(tmp_path, work_engine, fake_home, payload)


DESCRIPTORS = [
    "exec {fd}<<< 'rm -rf ~'; bash <&$fd",
    "source /dev/fd/3 3<<< 'rm -rf ~'",
    "bash /dev/fd/3 3<<< 'rm -rf ~'",
    "exec 3<<< 'rm -rf ~'; bash /dev/fd/3",
]


@pytest.mark.parametrize("command", DESCRIPTORS)
def test_a_script_read_from_a_descriptor_is_judged(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command


def test_a_descriptor_script_from_a_file_stays_allowed(engine: Engine) -> None:
    assert judge(engine, "bash /dev/fd/3 3< script.sh").decision == "allow"


NAME_REFERENCES = [
    "declare -n r=x; x=rm; $r -rf ~",
    'x=rm; declare -n r=x; "$r" -rf ~',
    "typeset -n r=x; x=rm; $r -rf ~",
]


@pytest.mark.parametrize("command", NAME_REFERENCES)
def test_a_name_reference_is_known_only_at_run_time(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command


def test_an_echoed_name_reference_stays_allowed(engine: Engine) -> None:
    assert judge(engine, "declare -n r=x; x=hi; echo $r").decision == "allow"
