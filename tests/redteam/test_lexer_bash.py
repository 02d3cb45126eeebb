"""Differential: the lexer splits words and commands exactly as bash does.

Generated command lines (quotes, escapes, ANSI-C strings, comments in and out of
words, continuations, carriage returns and other non-blank spaces, brace
expansion, operators) where every simple command is `p WORDS...`; bash runs them
with `p` printing its arguments, and the parser must find the same commands with
the same words. Catches tokenising drift the hand-written tests do not think of.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.policy.lexer import ShellSyntaxError
from engine.policy.shell import parse
from tests.redteam.conftest import RUN_SECONDS

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="bash is not installed")

# `p` writes its argument count and arguments as one record to fd 3 (a pipe between two
# `p`s must not swallow the first one's record).
PRELUDE = "exec 3>&1\nset -f\np() { local IFS=$'\\x1f'; printf '%s\\x1f%s\\x1e' \"$#\" \"$*\" >&3; }\n"

FRAGMENTS = [
    "a", "b1", "x.y", "-f", "--long=v", "'s q'", "'#'", '"d q"', '"a#b"', "\\ ", "\\#", "\\;", "\\'",
    "$'\\x41\\n'", "$'t\\'s'", "#", "#c", "a#", "a#b", "{a,b}", "x{1,2}y", "{a,{b,c}}", "{}", "\r", "\u00a0",
    "\u2003", "é", '"$(echo"', "=", "a=b", "\\\n", '"\\\n"', "'\\\n'",
    "$\\\n'\\' #'", "$\\\n\\\n'a'", "$\\\n'#'",
]  # fmt: skip
# What may come before `p`: assignments, among them one whose `)` text follows (`v=(a)#x` is one word).
PREFIXES = ["", "", "", "v=(a)#x ", "v+=(b c)y#z ", "v=w "]
SEPARATORS = [" ", " ", " ", "\t", "  "]
# Every `p` runs whatever ran before it (a word after a comment's newline may be a command
# that fails): no `&&` or `||`.
OPERATORS = ["; ", " | ", "\n", " ;\n", " & "]


@st.composite
def simple_command(draw: st.DrawFn) -> str:
    words = [draw(st.sampled_from(PREFIXES)) + "p"]
    for _ in range(draw(st.integers(min_value=0, max_value=5))):
        parts = draw(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=3))
        words.append("".join(parts))
    out = words[0]
    for word in words[1:]:
        out += draw(st.sampled_from(SEPARATORS)) + word
    return out


@st.composite
def command_line(draw: st.DrawFn) -> str:
    commands = draw(st.lists(simple_command(), min_size=1, max_size=3))
    out = commands[0]
    for command in commands[1:]:
        out += draw(st.sampled_from(OPERATORS)) + command
    return out


def bash_words(line: str) -> list[tuple[str, ...]] | None:
    """What bash passes to each `p`, in order (None: bash refuses the line)."""
    done = subprocess.run(
        [BASH or "bash", "--norc", "--noprofile", "-c", PRELUDE + line + "\nwait"],
        capture_output=True,
        timeout=RUN_SECONDS,
        check=False,
    )
    if b"syntax error" in done.stderr or b"unexpected EOF" in done.stderr:
        return None
    records = done.stdout.decode("utf-8", "surrogateescape").split("\x1e")[:-1]
    calls = []
    for record in records:
        count, _, joined = record.partition("\x1f")
        if not count.isdigit():
            return None  # something else wrote to the terminal: not a line this test can read
        calls.append(tuple(joined.split("\x1f")) if int(count) else ())
    return calls


def our_words(line: str) -> list[tuple[str, ...]] | None:
    try:
        return [c.argv[1:] for c in parse(line) if c.name == "p"]
    except ShellSyntaxError:
        return None


def _sorted_if_background(line: str, calls: list[tuple[str, ...]] | None) -> object:
    # `&` and `|` run commands at the same time: bash may print them in any order.
    concurrent = "|" in line or "&" in line.replace("&&", "")
    return sorted(calls) if calls is not None and concurrent else calls


@settings(max_examples=250, deadline=None)
@given(command_line())
def test_words_and_commands_are_split_as_bash_splits_them(line: str) -> None:
    expected = bash_words(line)
    if expected is None:
        return  # not a line bash would run; the unparseable path is tested elsewhere
    got = our_words(line)
    assert got is not None, (line, expected)
    assert _sorted_if_background(line, got) == _sorted_if_background(line, expected), line


@pytest.mark.parametrize(
    "line",
    [
        "p a\r#b ; p c",
        "p a\u00a0#b ; p c",
        "p 'a\\\nb' c\\\nd",
        "p a # b\np c",
        "p a;#b\np c",
        "p x{a,b}y {a,{b,c}} {} {,}",
        'p $\'\\x41\\t\' "a\\"b" a\\ b',
        "p \"$(echo 'a)b')\"",
        "p a\\ \\#b 'c'#d \"e\"{f,g}#",
        "v=(a)#x p b; p c",
        "p $\\\n'\\' #'; p d",
        "p $\\\n'it\\'s' # c; p d",
    ],
)
def test_known_lines_split_as_bash_splits_them(line: str) -> None:
    assert our_words(line) == bash_words(line)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab{},")), min_size=1, max_size=14))
def test_brace_expansion_groups_as_bash_groups(word: str) -> None:
    expected = bash_words("p " + word)
    if expected is None:
        return
    assert our_words("p " + word) == expected, word
