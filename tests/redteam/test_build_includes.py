"""Build files a judged build file reads as more of itself: ninja's `include F` / `subninja F` and
cmake's `include(F)` (F relative to the including file's folder, or under
${CMAKE_CURRENT_SOURCE_DIR}/${CMAKE_CURRENT_LIST_DIR}). F is judged as the build file it is
(inline.build_includes: `ninja -f F`, `cmake -P F`) whatever its name (adv26b: build.ninja's
`subninja sub.ninja` or CMakeLists.txt's `include(rules.txt)` ran a written rule unjudged).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import written_then_allowed, written_then_stopped

CMAKE_KEY = "execute_process(COMMAND cat $ENV{HOME}/.ssh/id_ed25519)\n"
CMAKE_HEAD = "cmake_minimum_required(VERSION 3.5)\nproject(x NONE)\n"
NINJA_KEY = "rule r\n  command = cat $$HOME/.ssh/id_ed25519\nbuild x: r\n"
NINJA_RM = "rule r\n  command = rm -rf ~\nbuild x: r\n"


PAYLOADS = {
    "ninja subninja": ("ninja", {"build.ninja": "subninja sub.ninja\n", "sub.ninja": NINJA_KEY}, "ninja"),
    "ninja include .txt": ("ninja", {"build.ninja": "include rules.txt\n", "rules.txt": NINJA_RM}, "ninja"),
    "ninja -C, included twice": (
        "ninja",
        {"d/build.ninja": "subninja a.txt\n", "d/a.txt": "include b.txt\n", "d/b.txt": NINJA_KEY},
        "ninja -C d",
    ),
    "cmake include(.txt)": (
        "cmake",
        {"CMakeLists.txt": CMAKE_HEAD + "include(rules.txt)\n", "rules.txt": CMAKE_KEY},
        "cmake -B b",
    ),
    "cmake INCLUDE(quoted, folder)": (
        "cmake",
        {"CMakeLists.txt": CMAKE_HEAD + 'INCLUDE("cfg/r.txt")\n', "cfg/r.txt": CMAKE_KEY},
        "cmake -B b",
    ),
    "cmake include in -S folder": (
        "cmake",
        {"src/CMakeLists.txt": CMAKE_HEAD + "include(${CMAKE_CURRENT_SOURCE_DIR}/r.inc)\n", "src/r.inc": CMAKE_KEY},
        "cmake -S src -B b",
    ),
    "cmake include relative in -S folder": (
        "cmake",
        {"src/CMakeLists.txt": CMAKE_HEAD + "include(r.inc)\n", "src/r.inc": CMAKE_KEY},
        "cmake -S src -B b",
    ),
    "cmake -P includes": ("cmake", {"x.cmake": "include(y.txt)\n", "y.txt": CMAKE_KEY}, "cmake -P x.cmake"),
}


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_included_build_files_stopped(session: Engine, fake_home: Path, tmp_path: Path, name: str) -> None:
    program, files, payload = PAYLOADS[name]
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    written_then_stopped(tmp_path, session, fake_home, files, payload)


NEAR_MISSES = {
    "ninja subninja of plain rules": (
        "ninja",
        {"build.ninja": "subninja sub.ninja\n", "sub.ninja": "rule r\n  command = echo hi\nbuild x: r\n"},
        "ninja",
    ),
    "cmake modules and plain includes": (
        "cmake",
        {
            "CMakeLists.txt": CMAKE_HEAD + "include(CTest)\ninclude(GNUInstallDirs)\ninclude(cmake/o.cmake)\n"
            "include(rules.txt)\n",
            "rules.txt": "set(X 1)\n",
            "cmake/o.cmake": "set(Y 1)\n",
        },
        "cmake -B b",
    ),
    "cmake include in -S folder": (
        "cmake",
        {"src/CMakeLists.txt": CMAKE_HEAD + "include(${CMAKE_CURRENT_LIST_DIR}/r.inc)\n", "src/r.inc": "message(hi)\n"},
        "cmake -S src -B b",
    ),
}


@pytest.mark.parametrize("name", list(NEAR_MISSES))
def test_build_includes_near_misses_allowed(session: Engine, fake_home: Path, name: str) -> None:
    program, files, command = NEAR_MISSES[name]
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    written_then_allowed(session, files, command)
