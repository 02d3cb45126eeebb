"""stop 50, subst50 (issue 8): words the engine cannot read, in places that run.

The family: a piece of a command whose text only the run knows (a substitution's output, a parameter expansion with
an operator, an option a file holds, an escape bash decodes otherwise than the engine) reaches a place that runs it:
an interpreter's program pasted from a here-document, a program's options, an executor's command, a command name.

Fixed (each harm shown live below, under bash with a fake HOME):

4. `decode_ansi_c` read `$'...'` otherwise than bash 5.2 (compared here with a real bash over generated escapes):
   `r$'\\UFFFFFFFF'm -rf ~` (bash: a `\\U` from 0x80000000 on is nothing, the word is `rm`) was allowed and deleted the
   home; `$'\\x'`, `$'\\u'`, `$'\\U'` without a hex digit and `$'\\8'` keep their backslash (`$'\\8'` raised and asked
   as unparseable); `$'\\c?'` is DEL, `$'\\c\\\\'` one control character.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from engine.policy.lexer import decode_ansi_c
from tests.redteam.conftest import home_intact
from tests.redteam.harm import Case, assert_verdict, policy_project, run_confined, verdict_cases


def _prepare(root: Path, _mp: pytest.MonkeyPatch) -> None:
    (root / "a.py").write_text("print(1)\n")
    (root / "src").mkdir()
    (root / "src" / "m.py").write_text("x = 1\n")
    old = time.time() - 3600
    for path in root.rglob("*"):
        os.utime(path, (old, old), follow_symlinks=False)


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "subst50", "kind: ApprovalPolicy\n", _prepare) as project:
        yield project


PAYLOADS: dict[str, Case] = {
    # 1. a here-document pasting what only the run knows into an interpreter's (a shell's) program
    "py-heredoc-substitution": ({}, "python3 <<EOF\n$(cat f)\nEOF"),
    "py-heredoc-backquote": ({}, "python3 <<EOF\n`cat f`\nEOF"),
    "py-heredoc-in-a-string": ({}, 'python3 - <<EOF\nprint("$(cat f)")\nEOF'),
    "py-heredoc-default-substitution": ({}, 'python3 <<EOF\nprint("${x:-$(cat f)}")\nEOF'),
    "py-heredoc-removal": ({}, "python3 <<EOF\n${x#a}\nEOF"),
    "py-heredoc-replace": ({}, "python3 <<EOF\n${x/a/b}\nEOF"),
    "py-heredoc-arith": ({}, "python3 <<EOF\nn = $((n + 1))\nEOF"),
    "py-heredoc-stored": ({}, 'x=$(cat f); python3 <<EOF\nprint("$x")\nEOF'),
    "py-heredoc-known-removal": ({}, "x='aimport os; os.system(\"rm -rf ~\")'; python3 <<EOF\n${x#a}\nEOF"),
    "py-heredoc-default-code": ({}, 'python3 <<EOF\n${x:-import os; os.system("rm -rf ~")}\nEOF'),
    "node-heredoc-substitution": ({}, "node <<EOF\n$(cat f)\nEOF"),
    "bash-heredoc-substitution": ({}, "bash <<EOF\necho $(cat f)\nEOF"),
    "bash-heredoc-default": ({}, "bash <<EOF\necho ${x:-a;rm -rf ~}\nEOF"),
    # 4. escapes decoded as bash decodes them
    "ansi-c-negative-U": ({}, "r$'\\UFFFFFFFF'm -rf ~"),
    "ansi-c-high-U": ({}, "r$'\\U80000000'm -rf ~"),
}
NEAR_MISSES: dict[str, Case] = {
    "py-heredoc-literal": ({}, "python3 <<EOF\nprint(1)\nEOF"),
    "py-heredoc-dash-literal": ({}, "python3 - <<'EOF'\nprint('$(cat f)')\nEOF"),
    "py-heredoc-env": ({}, 'python3 <<EOF\nprint("$HOME")\nEOF'),
    "py-heredoc-known-removal": ({}, 'v=1.2.3; python3 <<EOF\nprint("${v%.*}")\nEOF'),
    "py-heredoc-known-arith": ({}, "n=3; python3 <<EOF\nprint($((n * 2)))\nEOF"),
    "py-heredoc-default": ({}, 'python3 <<EOF\nprint("${x:-a}")\nEOF'),
    "py-heredoc-length": ({}, 'python3 <<EOF\nprint("${#x}")\nEOF'),
    "cat-heredoc-substitution": ({}, "cat > notes.md <<EOF\n$(date) ${x:-a}\nEOF"),
    "git-commit-heredoc": ({}, "git commit -F - <<EOF\nfix: $(date +%F)\nEOF"),
    "ansi-c-backslash-8": ({}, "echo $'\\8'"),
    "ansi-c-x-no-digit": ({}, "printf '%s\\n' $'a\\xb'"),
    "printf-quoted-variable": ({}, "printf '%s\\n' \"$x\""),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PAYLOADS, NEAR_MISSES))
def test_unreadable_words_in_places_that_run(
    loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(loaded, case, allowed, session)


# -- 1. here-documents, live ----------------------------------------------------------------------------------------
_REMOVE_NOTE = 'import os; os.remove(os.path.expanduser("~/notes.txt"))'


@pytest.mark.skipif(shutil.which("python3") is None, reason="needs python3")
def test_a_heredoc_pastes_a_files_text_into_python_live(tmp_path: Path, loaded: tuple[Path, Engine]) -> None:
    """1. bash runs `$(cat f)` in an unquoted body before python3 reads it: python runs the file's text."""
    setup = f"printf '%s\\n' '{_REMOVE_NOTE}' > f\n"
    home, _, printed = run_confined(tmp_path, setup + "python3 <<EOF\n$(cat f)\nEOF")
    assert not (home / "notes.txt").exists(), printed
    home, _, printed = run_confined(tmp_path / "removal", f"x='a{_REMOVE_NOTE}'\npython3 <<EOF\n${{x#a}}\nEOF")
    assert not (home / "notes.txt").exists(), printed
    shell_payload = "echo '; rm -f ~/notes.txt' > f\nbash <<EOF\necho $(cat f)\nEOF"
    home, _, printed = run_confined(tmp_path / "shell", shell_payload)
    assert not (home / "notes.txt").exists(), printed
    engine = loaded[1]
    assert engine.check("python3 <<EOF\n$(cat f)\nEOF").decision != "allow"
    assert engine.check(f"x='a{_REMOVE_NOTE}'; python3 <<EOF\n${{x#a}}\nEOF").decision != "allow"
    assert engine.check("bash <<EOF\necho $(cat f)\nEOF").decision != "allow"
    home, _, printed = run_confined(tmp_path / "near", "v=1.2.3; python3 <<EOF\nprint('${v%.*}')\nEOF")
    assert printed == "1.2\n" and home_intact(home)


def test_a_known_expansion_is_pasted_into_the_program_it_reads(loaded: tuple[Path, Engine]) -> None:
    """A value the line makes known is computed (as a command word's) and judged as the text the reader parses."""
    engine = loaded[1]
    verdict = engine.check("x='a;rm -rf ~/.ssh'; bash <<EOF\necho ${x#a}\nEOF")
    assert verdict.decision != "allow"
    verdict = engine.check("x='aimport os; os.system(\"rm -rf /\")'; python3 <<EOF\n${x#a}\nEOF")
    assert verdict.decision == "deny", verdict
    keys = {m.key for m in engine.check("python3 <<EOF\n$(cat f)\nEOF").matches}
    assert "stored_code" in keys


# -- 4. $'...' against a real bash ----------------------------------------------------------------------------------
_HEADS = ["x", "u", "U", "c", "0", "1", "7", "8", "9", "", "a", "e", "E", "q", "\\\\", "?", '"', "n", "t"]
_TAILS = [
    "", "z", "g", "0", "1", "4", "7", "9", "f", "F", "A", "?", "@", "[", "\\\\", "]", "^", "_", "a", "~", "1f", "41",
    "7f", "00e9", "0001F600", "D800", "10FFFF", "110000", "7FFFFFFF", "80000000", "FFFFFFFF", "400", "777", "12",
    "123", "1234", "12345", "\\\\z", "\\'", '"', " ",
]  # fmt: skip


def _bash_values(bodies: list[str]) -> list[bytes]:
    script = "".join(f"printf '%s' $'{body}' | od -An -v -tx1; echo @\n" for body in bodies)
    done = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        text=True,
        env={"LC_ALL": "C.UTF-8", "PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        timeout=60,
        check=True,
    )
    return [bytes.fromhex("".join(chunk.split())) for chunk in done.stdout.split("@\n")[:-1]]


@pytest.mark.skipif(shutil.which("bash") is None or shutil.which("od") is None, reason="needs bash and od")
def test_ansi_c_strings_decode_as_bash_decodes_them() -> None:
    """Every escape of a generated set (each head with each tail, then `z`) decodes to the bytes bash 5.2 gives in a
    UTF-8 locale. A lone byte from 0x80 (`\\xff`, `\\777`) is a character of its own here (str), not compared."""
    bodies = [
        body
        for body in ("\\" + head + tail + "z" for head in _HEADS for tail in _TAILS)
        if re.search(r"(?<!\\)(\\\\)*'", body) is None  # (an unescaped quote would end the string)
    ]
    differ = []
    for body, value in zip(bodies, _bash_values(bodies), strict=True):
        mine = decode_ansi_c(body).split("\0", 1)[0].encode("utf-8", "surrogatepass")
        if mine != value and max(value, default=0) < 0x80:
            differ.append((body, value, mine))
    assert len(bodies) > 600
    assert not differ, differ[:10]


def test_a_negative_unicode_escape_spells_rm_live(tmp_path: Path, loaded: tuple[Path, Engine]) -> None:
    home, _, printed = run_confined(tmp_path, "r$'\\UFFFFFFFF'm -rf ~/.ssh")
    assert not (home / ".ssh").exists(), printed
    assert loaded[1].check("r$'\\UFFFFFFFF'm -rf ~/.ssh").decision != "allow"
    home, _, printed = run_confined(tmp_path / "near", "echo $'\\8' $'a\\xb'")
    assert printed == "\\8 a\x0b\n" and home_intact(home)
