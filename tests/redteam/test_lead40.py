"""Stop 40 (lead40): PowerShell's registry cmdlets writing a start-up or machine-wide key ask, as `reg add` does
(adv40b noticed `New-ItemProperty … CurrentVersion\\Run` allowed); and the records made native classes under mypyc
(Run, CompiledPattern, CompiledPolicy) still behave as the records they were: equality and hash by their fields,
their repr, records.replace, a pickle's round trip."""

from __future__ import annotations

import pickle

import pytest

from engine import Engine
from engine.policy.model import CompiledPattern, CompiledPolicy
from engine.policy.programs import Run
from engine.records import NATIVE_RECORDS, replace
from tests.conftest import REPO
from tests.redteam.harm import assert_allowed, assert_asks


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load(REPO)


@pytest.mark.parametrize(
    "command",
    [
        r'New-ItemProperty -Path "HKCU:\Software\Microsoft\Windows\CurrentVersion\Run" -Name u -Value C:\u.exe',
        r'powershell -c "New-ItemProperty -Path HKCU:\Software\Microsoft\Windows\CurrentVersion\Run -Name u -Value x"',
        r"pwsh -NoProfile -c 'Set-ItemProperty HKLM:\SOFTWARE\Policies\x -Name y -Value 0'",
        r'ni -Path "HKLM:\SOFTWARE\Evil" -Force',
        r'sp "Registry::HKEY_CURRENT_USER\Software\Microsoft\Windows NT\CurrentVersion\Winlogon" Shell x.exe',
        r"Set-Item -Path HKCU:\Environment\Path -Value C:\x",
        r"Rename-ItemProperty -Path HKCU:\Software\Microsoft\Windows\CurrentVersion\RunOnce -Name a -NewName b",
    ],
)
def test_a_start_up_or_machine_key_written_by_a_powershell_cmdlet_asks(engine: Engine, command: str) -> None:
    assert_asks(engine, command)


@pytest.mark.parametrize(
    "command",
    [
        r'New-ItemProperty -Path "HKCU:\Software\MyApp" -Name theme -Value dark',
        r"Set-ItemProperty -Path notes.txt -Name IsReadOnly -Value 1",
        r"New-Item -ItemType Directory build",
        r"ni Environment.md",
        r"Get-ItemProperty HKLM:\SOFTWARE\Microsoft\Windows\CurrentVersion\Run",
        r"sp notes.txt IsReadOnly 1",
    ],
)
def test_near_misses_stay_allowed(engine: Engine, command: str) -> None:
    assert_allowed(engine, command)


def _first_run(engine: Engine) -> Run:
    programs = engine._evaluator(engine._snapshot).policy.programs
    return next(run for program in programs.by_name.values() for run in program.runs)


def test_the_native_records_compare_hash_copy_and_pickle_by_their_fields(engine: Engine) -> None:
    policy = engine._evaluator(engine._snapshot).policy
    pattern = policy.patterns[0]
    run = _first_run(engine)
    for cls in (Run, CompiledPattern, CompiledPolicy):
        assert cls in NATIVE_RECORDS
    for value in (pattern, run):
        same = replace(value)  # a new instance of the same fields
        assert same == value and same is not value
        # (a pickle's regexes are new objects, compared by identity: as when these were frozen records)
        again = pickle.loads(pickle.dumps(value))
        plain = [f for f in value._fields if isinstance(getattr(value, f), (str, int, frozenset, type(None)))]
        assert plain and all(getattr(again, f) == getattr(value, f) for f in plain), plain
        assert repr(value).startswith(type(value).__name__ + "(")
    assert hash(replace(run)) == hash(run)  # (a pattern's matchers are unhashable: so was the record)
    changed = replace(run, kind="file")
    assert changed.kind == "file" and changed != run and changed.source == run.source
    other = replace(pattern, severity="ask" if pattern.severity != "ask" else "dangerous")
    assert other != pattern and other.key == pattern.key
    assert pattern != (pattern.key,)  # another class: never equal
    copied = replace(policy)  # (the guard's cache pickles a policy with its own reducers: tests/test_guard*.py)
    assert copied == policy and copied is not policy and copied.programs is policy.programs
    # Every __init__ parameter has a default (the guard's cache makes one bare, then sets each field)
    assert Run().source == "" and CompiledPattern().matchers == () and CompiledPolicy().programs is not None
