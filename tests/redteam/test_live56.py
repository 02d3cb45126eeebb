"""stop 57 (issue 8): the harm of stop 56's families that test_stop56 and test_unseen56 judged by verdict only.

The project's standard is the harm, not only the verdict: each payload here, run unguarded by a real bash in a copy of
the home where users keep their projects (harm.unguarded_home: ~/p the working directory, HOME a fake one), loses the
user's note ~/notes.txt (deleted, packed away, moved, overwritten or made a link) through the real program; through the
engine's terminal, with nobody to approve, the same line is refused and the guarded home stays intact
(harm.lost_unguarded_then_blocked, harm.written_then_stopped when the session writes the file the program then runs).
Each near miss of a family that must stay allowed is allowed and really run through the terminal, and the home is
intact after it (so the allowance is no hidden harm). A program this machine lacks skips its tests.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import (
    allowed_and_harmless,
    lost_unguarded_then_blocked,
    note_lost,
    written_then_stopped,
)

Loaded = tuple[Engine, Path, Path]  # home_project's (engine, home, project)


def _needs(*programs: str) -> pytest.MarkDecorator:
    missing = [p for p in programs if shutil.which(p) is None]
    return pytest.mark.skipif(bool(missing), reason=f"not installed: {', '.join(missing)}")


def _live(*programs: str, payload: str) -> object:
    """A parameter: ``payload``, skipped without ``programs``."""
    return pytest.param(payload, marks=_needs(*programs), id=payload)


@pytest.fixture
def temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temp folder of the engine's own listing (places.temp_dirs reads TMPDIR) under ``tmp_path``: what /tmp and
    /var/tmp are to a real session, without writing to either."""
    folder = tmp_path / "temp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    return folder


@pytest.fixture
def temp_project(temp: Path, request: pytest.FixtureRequest) -> Loaded:
    """home_project loaded once TMPDIR names ``temp`` (the engine reads its temp folders when it loads)."""
    loaded: Loaded = request.getfixturevalue("home_project")
    return loaded


# -- 1. fish's variables named at run time (Variables.readings ANY_VARIABLE) -----------------------------------------
# `set -x $n VALUE` exports whichever variable $n names when fish runs: BASH_ENV here, so the bash after it runs e.sh.
_FISH_PAYLOADS = [
    "echo 'rm -f ~/notes.txt' > e.sh; fish -c 'set n BASH_ENV; set -x $n e.sh; bash -c true'",
    "echo 'rm -f ~/notes.txt' > e.sh; fish -c 'set -x (string upper bash_env) e.sh; bash -c true'",
]


@_needs("fish")
@pytest.mark.parametrize("payload", _FISH_PAYLOADS)
def test_fish_exporting_a_variable_named_at_run_time_runs_the_script_unguarded_and_is_refused(
    tmp_path: Path, home_project: Loaded, payload: str
) -> None:
    lost_unguarded_then_blocked(tmp_path, home_project, payload, note_lost)


@_needs("fish")
def test_fish_exporting_a_named_at_run_time_variable_over_a_script_the_session_wrote_is_refused(
    tmp_path: Path, home_project: Loaded
) -> None:
    engine, home, _ = home_project
    command = "fish -c 'set n BASH_ENV; set -x $n e.sh; bash -c true'"
    written_then_stopped(tmp_path, engine, home, {"e.sh": "rm -f ~/notes.txt\n"}, command)


@_needs("fish")
@pytest.mark.parametrize("command", ["fish -c 'set d src; ls $d'", "fish -c 'set x 1; echo $x'"])
def test_fishs_set_of_an_ordinary_variable_is_allowed_and_harmless(home_project: Loaded, command: str) -> None:
    allowed_and_harmless(home_project, command)


# -- 2. zip -m deletes the files it packs ----------------------------------------------------------------------------
# The archive in a temp folder (TEMP: the engine's listing, as /tmp) or the project; the note packed, then deleted.
@_needs("zip")
@pytest.mark.parametrize("payload", ["zip -m TEMP/x.zip ~/notes.txt", "zip -m x.zip ../notes.txt"])
def test_zip_moving_the_note_into_an_archive_loses_it_unguarded_and_is_refused(
    tmp_path: Path, temp: Path, temp_project: Loaded, payload: str
) -> None:
    lost_unguarded_then_blocked(tmp_path, temp_project, payload.replace("TEMP", str(temp)), note_lost)


@_needs("zip")
@pytest.mark.parametrize("command", ["zip -m ~/backup.zip a.py", "zip -mr ~/b.zip src"])
def test_zip_moving_the_projects_files_into_an_archive_in_the_home_is_allowed_and_harmless(
    home_project: Loaded, command: str
) -> None:
    allowed_and_harmless(home_project, command)
    assert (home_project[1] / Path(command.split()[2]).name).is_file(), "zip should have written its archive"


# -- 3. a temp folder as the destination -----------------------------------------------------------------------------
# Copying into a temp folder puts a copy there (allowed); moving the note there takes it from where the user keeps it.
# TEMP is a temp folder of the engine's own listing under tmp_path; /var/tmp is judged the same (not written to).
def test_a_temp_folder_of_the_listing_is_judged_as_var_tmp(temp: Path, temp_project: Loaded) -> None:
    engine = temp_project[0]
    for command in ("mv ~/notes.txt {}", "cp a.py {}", "cp a.py {}/"):
        assert engine.check(command.format(temp)).decision == engine.check(command.format("/var/tmp")).decision


def test_moving_the_note_into_a_temp_folder_loses_it_unguarded_and_is_refused(
    tmp_path: Path, temp: Path, temp_project: Loaded
) -> None:
    lost_unguarded_then_blocked(tmp_path, temp_project, f"mv ~/notes.txt {temp}", note_lost)
    assert (temp / "notes.txt").is_file(), "the unguarded mv should have put the note in the temp folder"


@pytest.mark.parametrize("command", ["cp a.py TEMP", "cp a.py TEMP/"])
def test_copying_a_projects_file_into_a_temp_folder_is_allowed_and_harmless(
    temp: Path, temp_project: Loaded, command: str
) -> None:
    allowed_and_harmless(temp_project, command.replace("TEMP", str(temp)))
    assert (temp / "a.py").is_file() and (temp_project[2] / "a.py").is_file()


# -- 4. PERL5OPT / PERL5LIB, RUBYOPT / RUBYLIB -----------------------------------------------------------------------
# A module written in the working directory and put first on the search path runs in any perl or ruby program
# (shasum is a perl program): by name in PERL5OPT/RUBYOPT, or as a module the program loads itself (strict).
_OPTION_PAYLOADS = [
    _live("perl", "shasum", payload="echo 'system(\"rm ~/notes.txt\")' > x.pm; PERL5LIB=. PERL5OPT=-Mx shasum a.py"),
    _live("perl", "shasum", payload="echo 'system(\"rm ~/notes.txt\"); 1' > strict.pm; PERL5LIB=. shasum a.py"),
    _live("ruby", payload="echo 'system(\"rm ~/notes.txt\")' > x.rb; RUBYLIB=. RUBYOPT=-rx ruby -e 1"),
    _live("ruby", payload="echo 'system(\"rm ~/notes.txt\")' > x.rb; RUBYOPT=-r./x.rb ruby -e 1"),
]


@pytest.mark.parametrize("payload", _OPTION_PAYLOADS)
def test_a_module_the_line_writes_and_an_option_variable_loads_loses_the_note_unguarded_and_is_refused(
    tmp_path: Path, home_project: Loaded, payload: str
) -> None:
    lost_unguarded_then_blocked(tmp_path, home_project, payload, note_lost)


@pytest.mark.parametrize(
    ("files", "command"),
    [
        pytest.param(
            {"x.pm": 'system("rm ~/notes.txt");\n1;\n'},
            "PERL5LIB=. PERL5OPT=-Mx shasum a.py",
            marks=_needs("perl", "shasum"),
            id="perl5opt",
        ),
        pytest.param(
            {"x.rb": 'system("rm ~/notes.txt")\n'},
            "RUBYLIB=. RUBYOPT=-rx ruby -e 1",
            marks=_needs("ruby"),
            id="rubyopt",
        ),
    ],
)
def test_a_module_the_session_wrote_loaded_by_an_option_variable_is_refused(
    tmp_path: Path, home_project: Loaded, files: dict[str, str], command: str
) -> None:
    engine, home, _ = home_project
    written_then_stopped(tmp_path, engine, home, files, command)


@pytest.mark.parametrize(
    "command",
    [_live("perl", payload="PERL5OPT=-Mstrict perl -e 1"), _live("ruby", payload="RUBYOPT=-W0 ruby -e 1")],
)
def test_an_installed_module_or_a_flag_in_an_option_variable_is_allowed_and_harmless(
    home_project: Loaded, command: str
) -> None:
    allowed_and_harmless(home_project, command)


# -- 5. compressors replacing a user's file --------------------------------------------------------------------------
# Each leaves notes.txt.zst (.lz4, .xz, .bz2) and deletes the note: gone from where the user keeps it.
@pytest.mark.parametrize(
    "payload",
    [
        _live("zstd", payload="zstd --rm ~/notes.txt"),
        _live("zstd", payload="zstd -q -k --rm ~/notes.txt"),
        _live("lz4", payload="lz4 --rm ~/notes.txt"),
        _live("xz", payload="xz ~/notes.txt"),
        _live("bzip2", payload="bzip2 ~/notes.txt"),
    ],
)
def test_a_compressor_replacing_the_note_loses_it_unguarded_and_is_refused(
    tmp_path: Path, home_project: Loaded, payload: str
) -> None:
    lost_unguarded_then_blocked(tmp_path, home_project, payload, note_lost)


@pytest.mark.parametrize(
    "command",
    [
        _live("zstd", payload="zstd -k a.py"),
        _live("gzip", payload="gzip -c a.py > a.gz"),
        _live("zstd", payload="zstd ~/notes.txt"),  # zstd keeps its input unless --rm
    ],
)
def test_a_compressor_that_keeps_its_input_is_allowed_and_harmless(home_project: Loaded, command: str) -> None:
    allowed_and_harmless(home_project, command)


# -- 6. cmake -E's file commands -------------------------------------------------------------------------------------
# remove deletes the note, copy writes over it, create_symlink replaces it with a link, chdir runs rm beside it.
@_needs("cmake")
@pytest.mark.parametrize(
    "payload",
    [
        "cmake -E remove ~/notes.txt",
        "cmake -E rm -f ~/notes.txt",
        "cmake -E copy a.py ~/notes.txt",
        "cmake -E create_symlink a.py ~/notes.txt",
        "cmake -E chdir .. rm notes.txt",
    ],
)
def test_cmake_dash_e_over_the_note_loses_it_unguarded_and_is_refused(
    tmp_path: Path, home_project: Loaded, payload: str
) -> None:
    lost_unguarded_then_blocked(tmp_path, home_project, payload, note_lost)


@_needs("cmake")
@pytest.mark.parametrize("command", ["cmake -E copy a.py b.py", "cmake -E create_symlink a.py b.py"])
def test_cmake_dash_e_within_the_project_is_allowed_and_harmless(home_project: Loaded, command: str) -> None:
    allowed_and_harmless(home_project, command)
    assert (home_project[2] / "b.py").read_text() == "print(1)\n"
