"""adv51 (stop 51, issue 8 items 1-5): an adversary looking for ordinary installed programs that run a file or a
string they are given, or that are another name of a program the table reads, which the table did not describe.

The family: a program the engine has no row for (or whose row misses one way it runs code) is judged as a plain
command: its operands are data, so a file it runs, written on the same line or by the session's write_file, is
never read. Each payload below deletes the fake HOME's note (or moves the home away) when run by a real bash
(live, test_*_live_then_refused), and was `allow`ed through the terminal before this stop:

1. Test and build runners that run project files: `prove [FILES|DIRS]` runs each *.t (default t/) with perl;
   `cpack` runs CPackConfig.cmake (or `--config F`) as CMake code; `ctest -S F` (-SP, -SR, --script) runs a CMake
   script. Rows in policies/executors.yaml read those files (perl, cmake).
2. Programs that load code named in an option: `pygmentize -x -l F.py:CLASS` / `-f F.py:CLASS` imports F.py;
   `cpan -j F` loads F (Perl) as its configuration; `gpgtar --gpg PROG` runs PROG as gpg; `nvcc -ccbin PROG` runs
   PROG as the host compiler; `lli F.ll` runs LLVM IR
   (read by nobody here: opaque, a file the session or the line wrote asks).
3. Other installed names of a program the table reads: Debian's flavoured binaries (`vim.basic`, `vim.tiny`,
   `vim.nox`, `vim.gtk3`, `nvim.appimage`: `NAME.FLAVOUR`), emacs's (`emacs-nox`, `emacs-gtk`, `emacs29`) and the
   alternatives' generic names (`editor`, `pager`, `sensible-editor`, `sensible-pager`): command_name folds the
   flavours, the rows list the generic names. `vim.basic -c '!CMD'` ran CMD.
4. `rename` (util-linux `rename.ul FROM TO FILE...`) moves each FILE: `rename.ul home gone ~` moved the home away
   (read as `mv FILE`); Perl's rename (`prename`, `file-rename`, `rename` on Debian's perl package) runs its first
   operand (or -e) as Perl code.
Near misses that stay allowed: benign files for each runner, `prove --version`, `cpack --help`, `ctest -N`,
`pygmentize -l python a.py` (no -x: a lexer by name), `vim.basic notes.txt`, `editor notes.txt`,
`rename .htm .html *.htm`, `rename 's/\\.bak$//' *.bak`.
5. A credential pulled in by a document's include directive, written on the line or by the session: `cpp x.c` /
   `gcc -E x.c` of `#include "$HOME/.ssh/id_ed25519"`, `soelim x.ms` / `groff` of `.so $HOME/.ssh/id_ed25519`
   printed the key (live). The includes of a written C source (language cpp, also gcc's operands and -include) and
   of a roff document (.so / .mso) are read as `cat F` (inline.build_includes).
(stop 54) `lli < y.ll` (IR on its input) is read as opaque code too (was a strict xfail).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import (
    SECRET,
    Case,
    assert_verdict,
    blocked,
    harm_project,
    policy_project,
    run_confined,
    verdict_cases,
)

RM = "rm -rf ~/notes.txt"
PERL = f'system("{RM}");\n'
PY = f'import os\nos.system("{RM}")\n'
CMAKE = "execute_process(COMMAND rm -rf $ENV{HOME}/notes.txt)\n"
SH = f"#!/bin/sh\n{RM}\n"
LL = (
    "declare i32 @system(i8*)\n"
    '@c = constant [19 x i8] c"rm -rf ~/notes.txt\\00"\n'
    "define i32 @main() {\n"
    "  %r = call i32 @system(i8* getelementptr ([19 x i8], [19 x i8]* @c, i32 0, i32 0))\n"
    "  ret i32 0\n"
    "}\n"
)


def written(name: str, text: str) -> str:
    """A shell line writing ``text`` into ``name`` (printf '%s' of a single-quoted text)."""
    assert "'" not in text
    return f"printf '%s' '{text}' > {name}"


# -- the harm, live under a real bash with a fake HOME, then refused through the terminal ---------------------------
# (program that must be installed, payload: one line writing its file and running it)
LIVE: dict[str, tuple[str, str]] = {
    "prove-file": ("prove", f"{written('a.t', PERL)}; prove a.t"),
    "prove-default-t": ("prove", f"mkdir -p t; {written('t/a.t', PERL)}; prove"),
    "prove-dir": ("prove", f"mkdir -p u; {written('u/a.t', PERL)}; prove -r u"),
    "pygmentize-formatter": (
        "pygmentize",
        f"{written('f.py', PY + 'from pygments.formatter import Formatter as F' + chr(10))}; "
        "echo 1 > a.py; pygmentize -x -f f.py:F a.py",
    ),
    "pygmentize-lexer": (
        "pygmentize",
        f"{written('l.py', PY + 'from pygments.lexer import RegexLexer as L' + chr(10))}; "
        "echo 1 > a.py; pygmentize -x -l l.py:L a.py",
    ),
    "cpack-default-config": ("cpack", f"{written('CPackConfig.cmake', CMAKE)}; cpack"),
    "cpack-config": ("cpack", f"{written('p.cmake', CMAKE)}; cpack --config p.cmake"),
    "ctest-script": ("ctest", f"{written('s.cmake', CMAKE)}; ctest -S s.cmake"),
    "ctest-script-long": ("ctest", f"{written('s.cmake', CMAKE)}; ctest --script s.cmake"),
    "cpan-config": ("cpan", f"{written('c.pm', PERL + '1;' + chr(10))}; cpan -j c.pm -l"),
    "gpgtar-program": (
        "gpgtar",
        f"{written('g.sh', SH)}; chmod +x g.sh; echo 1 > a; tar cf a.tar a; gpgtar --gpg ./g.sh -t a.tar",
    ),
    "lli-ir": ("lli", f"{written('y.ll', LL)}; lli y.ll"),
    "nvcc-host-compiler": (
        "nvcc",
        f"{written('n.sh', SH)}; chmod +x n.sh; echo 'int main(){{}}' > a.cu; nvcc -ccbin ./n.sh a.cu",
    ),
    "vim-basic": ("vim.basic", f"vim.basic -es -c '!{RM}' -c q"),
    "editor": ("editor", f"editor -es -c '!{RM}' -c q"),
    "rename-home-away": ("rename.ul", "rename.ul home gone ~"),
}


def _gone(home: Path) -> bool:
    return not home.exists() or not (home / "notes.txt").exists()


@pytest.mark.parametrize("name", list(LIVE))
def test_payload_live_then_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    program, payload = LIVE[name]
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    home, _, printed = run_confined(tmp_path / "unguarded", payload)
    assert _gone(home), printed
    with harm_project(tmp_path / "guarded", monkeypatch) as (engine, guarded_home, _):
        blocked(engine, guarded_home, payload)


# -- the same runs over files the session wrote with write_file -----------------------------------------------------
PAYLOADS: dict[str, Case] = {
    "prove-file": ({"a.t": PERL}, "prove a.t"),
    "prove-default": ({"t/a.t": PERL}, "prove"),
    "prove-recursive": ({"t/x/a.t": PERL}, "prove -r"),
    "prove-options-first": ({"t/a.t": PERL}, "prove -v -j2 t"),
    "pygmentize-lexer": ({"l.py": PY}, "pygmentize -x -l l.py:L a.py"),
    "pygmentize-formatter": ({"f.py": PY}, "pygmentize -x -f ./f.py:F -o out.html a.py"),
    "pygmentize-bundled": ({"f.py": PY}, "pygmentize -xf f.py a.py"),
    "cpack-default": ({"CPackConfig.cmake": CMAKE}, "cpack"),
    "cpack-source-default": ({"CPackSourceConfig.cmake": CMAKE}, "cpack --config CPackSourceConfig.cmake"),
    "cpack-config": ({"p.cmake": CMAKE}, "cpack -G TGZ --config p.cmake"),
    "ctest-S": ({"s.cmake": CMAKE}, "ctest -S s.cmake"),
    "ctest-SP": ({"s.cmake": CMAKE}, "ctest -SP s.cmake"),
    "ctest-SR": ({"s.cmake": CMAKE}, "ctest -SR s.cmake"),
    "ctest-script": ({"s.cmake": CMAKE}, "ctest --script=s.cmake"),
    "cpan-config": ({"c.pm": PERL}, "cpan -j c.pm -l"),
    "gpgtar-program": ({"g.sh": SH}, "gpgtar --gpg ./g.sh -t a.tar"),
    "gpgtar-program-attached": ({"g.sh": SH}, "gpgtar --gpg=./g.sh --decrypt a.tar"),
    "lli-file": ({"y.ll": LL}, "lli y.ll"),
    "nvcc-ccbin": ({"n.sh": SH}, "nvcc -ccbin ./n.sh a.cu"),
    "nvcc-compiler-bindir": ({"n.sh": SH}, "nvcc --compiler-bindir=./n.sh -o k a.cu"),
    "vim-basic": ({}, f"vim.basic -c '!{RM}' -c q"),
    "vim-tiny": ({}, f"vim.tiny -c '!{RM}' -c q"),
    "vim-nox": ({}, f"vim.nox +'!{RM}'"),
    "vim-gtk3": ({}, f"/usr/bin/vim.gtk3 -c '!{RM}'"),
    "nvim-appimage": ({}, f"./nvim.appimage --headless -c '!{RM}'"),
    "emacs-nox": ({}, f"emacs-nox --batch --eval '(shell-command \"{RM}\")'"),
    "emacs-gtk": ({}, f"emacs-gtk --batch --eval '(shell-command \"{RM}\")'"),
    "emacs-versioned": ({}, f"emacs29 --batch --eval '(shell-command \"{RM}\")'"),
    "editor": ({}, f"editor -c '!{RM}' -c q"),
    "sensible-editor": ({}, f"sensible-editor +'!{RM}' a.txt"),
    "pager": ({}, f"pager +'!{RM}' a.txt"),
    "sensible-pager": ({}, f"sensible-pager +'!{RM}' a.txt"),
    "rename-ul-home": ({}, "rename.ul home gone ~"),
    "rename-home": ({}, "rename -v home gone ~"),
    "rename-ssh": ({}, "rename ssh x ~/.ssh"),
    "perl-rename-code": ({}, f"prename 'system(\"{RM}\")' a.txt"),
    "file-rename-code": ({}, f"file-rename 'system q({RM})' a.txt"),
    "rename-perl-code": ({}, f"rename 'system(\"{RM}\")' a.txt"),
    "rename-perl-e": ({}, f"rename -e 'system(\"{RM}\")' a.txt"),
}
NEAR_MISSES: dict[str, Case] = {
    "prove-benign": ({"t/a.t": "use Test::More; ok(1); done_testing;\n"}, "prove"),
    "prove-version": ({}, "prove --version"),
    "pygmentize-lexer-name": ({}, "pygmentize -l python -f html -o out.html a.py"),
    "pygmentize-benign-plugin": (
        {"l.py": "from pygments.lexers import PythonLexer as L\n"},
        "pygmentize -x -l l.py:L a.py",
    ),
    "cpack-benign": ({"CPackConfig.cmake": "set(CPACK_GENERATOR TGZ)\n"}, "cpack"),
    "cpack-help": ({}, "cpack --help"),
    "ctest-list": ({}, "ctest -N"),
    "ctest-benign-script": ({"s.cmake": "message(STATUS hi)\n"}, "ctest -S s.cmake"),
    "cpan-list": ({}, "cpan -l"),
    "gpgtar-list": ({}, "gpgtar -t a.tar"),
    "nvcc-plain": ({}, "nvcc -O2 -o k a.cu"),
    "nvcc-system-host-compiler": ({}, "nvcc -ccbin g++-12 -o k a.cu"),
    "vim-basic-file": ({}, "vim.basic notes.txt"),
    "vim-basic-line": ({}, "vim.basic +42 notes.txt"),
    "editor-file": ({}, "editor notes.txt"),
    "pager-file": ({}, "pager README.md"),
    "emacs-nox-file": ({}, "emacs-nox notes.txt"),
    "rename-suffix": ({}, "rename .htm .html *.htm"),
    "rename-ul-suffix": ({}, "rename.ul -v .txt .md docs/*.txt"),
    "perl-rename-subst": ({}, "rename 's/\\.bak$//' *.bak"),
    "prename-subst": ({}, "prename -n 's/ /_/g' *.txt"),
}


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "adv51", "kind: ApprovalPolicy\n") as project:
        yield project


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PAYLOADS, NEAR_MISSES))
def test_verdicts(loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(loaded, case, allowed, session)


# -- a credential pulled in by a document's include directive (cpp, roff: `cat F`) ------------------------------
INCLUDES: dict[str, tuple[str, str]] = {
    "cpp-include": ("cpp", 'echo "#include \\"$HOME/.ssh/id_ed25519\\"" > x.c; cpp x.c'),
    "gcc-E-include": ("gcc", 'echo "#include \\"$HOME/.ssh/id_ed25519\\"" > x.c; gcc -E x.c'),
    "soelim-so": ("soelim", 'echo ".so $HOME/.ssh/id_ed25519" > x.ms; soelim x.ms'),
    "groff-so": ("groff", 'echo ".so $HOME/.ssh/id_ed25519" > x.ms; groff -Tascii x.ms'),
}


@pytest.mark.parametrize("name", list(INCLUDES))
def test_include_prints_the_key_live(tmp_path: Path, name: str) -> None:
    program, payload = INCLUDES[name]
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    _, _, printed = run_confined(tmp_path, payload)
    assert SECRET in printed


def test_lli_input_runs_the_code_live(tmp_path: Path) -> None:
    if shutil.which("lli") is None:
        pytest.skip("lli is not installed")
    home, _, printed = run_confined(tmp_path, f"{written('y.ll', LL)}; lli < y.ll")
    assert _gone(home), printed


def test_lli_input_is_not_allowed(loaded: tuple[Path, Engine]) -> None:
    assert_verdict(loaded, ({"y.ll": LL}, "lli < y.ll"), False, "lli-input")


@pytest.mark.parametrize("name", list(INCLUDES))
def test_include_of_a_credential_is_not_allowed(loaded: tuple[Path, Engine], name: str) -> None:
    assert_verdict(loaded, ({}, INCLUDES[name][1]), False, f"include-{name}")


INCLUDE_PAYLOADS: dict[str, Case] = {
    "cpp-written": ({"x.c": '#include "/root/.ssh/id_ed25519"\n'}, "cpp x.c"),
    "gcc-written": ({"x.c": "#include </root/.ssh/id_ed25519>\n"}, "gcc -c x.c"),
    "gcc-include-option": ({}, "gcc -E -include ~/.ssh/id_ed25519 a.c"),
    "cpp-include-next": ({"x.h": '# include_next "/root/.aws/credentials"\n'}, "cpp x.h"),
    "soelim-written": ({"x.ms": ".so /root/.ssh/id_ed25519\n"}, "soelim x.ms"),
    "nroff-mso": ({"x.1": ".TH X 1\n.mso /root/.ssh/id_ed25519\n"}, "nroff -man x.1"),
}
INCLUDE_NEAR_MISSES: dict[str, Case] = {
    "cpp-system-header": ({"x.c": "#include <stdio.h>\nint main(void){return 0;}\n"}, "cpp x.c"),
    "gcc-local-header": (
        {"x.c": '#include "x.h"\nint main(void){return 0;}\n', "x.h": "int f(void);\n"},
        "gcc -o x x.c",
    ),
    "gcc-plain": ({}, "gcc -O2 -Wall -c a.c"),
    "groff-paper": ({"paper.ms": ".TL\nA paper\n"}, "groff -ms -Tpdf paper.ms > paper.pdf"),
    "nroff-man-so": ({"x.1": ".so man1/y.1\n"}, "nroff -man x.1"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(INCLUDE_PAYLOADS, INCLUDE_NEAR_MISSES))
def test_include_verdicts(loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(loaded, case, allowed, session)
