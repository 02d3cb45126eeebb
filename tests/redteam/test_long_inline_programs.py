"""Long inline programs: what a short program does is found the same way when it is padded to
tens of KiB with plain statements (or when the padding comes first).

Over a long program each scan of inline.py and follow.py (the calls that run a command, their
second names, the folders it changes to, the files it writes or loads, the lines it runs) is
tried only where RE2 finds a match may start (regexes.Located); the padding must hide nothing.
"""

from __future__ import annotations

import random
import re

import pytest

from engine import Engine
from engine.policy import follow, inline
from engine.policy.regexes import Located
from tests.redteam.conftest import judge, strictness

# (program text with `{pad}` where plain statements go, the padding statement)
PAYLOADS = [
    # a second name for a call that runs a command
    ("python3 -c \"from os import system as s; {pad}s('rm -rf ~')\"", "x = 1; "),
    ("python3 -c \"import os; {pad}s = os.system; s('rm -rf ~')\"", "x = 1; "),
    ("node -e \"const {{execSync: x}} = require('child_process'); {pad}x('rm -rf ~')\"", "let y = 1; "),
    # the program's own folder, and the folder a call names
    ("python3 -c \"import os; os.chdir('policies'); {pad}open('deny.yaml', 'w').write('mode: off')\"", "x = 1; "),
    ("python3 -c \"import os; {pad}os.chdir(os.path.expanduser('~')); os.system('rm -rf .ssh')\"", "y = 2; "),
    ("python3 -c \"import subprocess; d = '/'; {pad}subprocess.run(['rm', '-rf', 'etc'], cwd=d)\"", "z = 3; "),
    # a writer taken as a value, a file written by a literal name
    ("python3 -c \"import pathlib; {pad}pathlib.Path('policies/deny.yaml').write_text('x')\"", "a = 1; "),
    ("python3 -c \"w = open; {pad}w('policies/deny.yaml', 'w')\"", "b = 1; "),
    # runs the lines it reads
    ("echo 'rm -rf ~' | perl -ne '{pad}system $_'", "$x = 1; "),
    ('python3 -c "import os, sys; {pad}[os.system(l) for l in sys.stdin]"', "q = 1; "),
]

NEAR_MISSES = [
    ("python3 -c \"from os import path as p; {pad}print(p.join('a', 'b'))\"", "x = 1; "),
    ("python3 -c \"import os; os.chdir('build'); {pad}print(os.getcwd())\"", "x = 1; "),
    ("python3 -c \"import subprocess; {pad}subprocess.run(['ls', '-l'], cwd='src')\"", "x = 1; "),
    ("python3 -c \"{pad}open('notes.txt').read()\"", "x = 1; "),
]

PAD = 40 * 1024


def _padded(template: str, statement: str) -> str:
    return template.format(pad=statement * (PAD // len(statement)))


@pytest.mark.parametrize(("template", "statement"), PAYLOADS, ids=range(len(PAYLOADS)))
def test_a_padded_program_is_judged_as_the_short_one(engine: Engine, template: str, statement: str) -> None:
    short = judge(engine, template.format(pad=""))
    assert short.decision != "allow"
    assert strictness(judge(engine, _padded(template, statement))) >= strictness(short)


@pytest.mark.parametrize(("template", "statement"), NEAR_MISSES, ids=range(len(NEAR_MISSES)))
def test_a_padded_harmless_program_stays_allowed(engine: Engine, template: str, statement: str) -> None:
    assert judge(engine, template.format(pad="")).decision == "allow"
    assert judge(engine, _padded(template, statement)).decision == "allow"


def _located() -> list[Located]:
    return [
        inline._CALL_AT,
        inline._CHDIR_AT,
        *inline._CALLS_OF.values(),
        *inline._REBOUND.values(),
        *inline._LOADS_AT.values(),
        *(located for pair in follow._LINE_RUNNERS_AT.values() for located in pair),
    ]


PIECES = [
    "os.system(", "subprocess.run([", "x = 1\n", "f = open\n", "open('x', 'w')", "os.chdir('d')", "runpy.run_path(f)",
    "require './a'", "do 'f'", " as ", "==", "\\&CORE::open", "getattr(builtins, 'open')", "sys.stdin", "exec $x",
    "system $_", "| sh", "source x", ";", ",", "(", ")", "'", '"', "systemx", "xsystem", "Path('a').write_text(",
    "shutil.copy(a, b)", "fs.writeFileSync('x')", "method(:write)", "{writeFileSync: w}", "partial(open, mode='w')",
    "fchdir(", "-", "\t",
]  # fmt: skip


@pytest.mark.parametrize("seed", range(3))
def test_located_scans_find_what_re_finds(seed: int) -> None:
    chance = random.Random(seed)
    for _ in range(40):
        body = "".join(chance.choice(PIECES) for _ in range(chance.randint(1, 40)))
        pad = chance.choice(["x = 1\n", "y;", "abc ", "systemx "]) * chance.randint(300, 900)
        text = body + pad + body if chance.random() < 0.5 else pad + body
        for located in _located():
            limit = chance.choice([1, 3, 65, 600])
            expected = [m.span() for m in re.compile(located.python.pattern, located.python.flags).finditer(text)]
            assert [m.span() for m in located.finditer(text, limit)] == expected[:limit], located.python.pattern


# stop 29 (flat29): code_paths reads each string literal whole (quotes and all, one group-less search)
# and unquotes each distinct one: escaped quotes of either kind inside literals, many of them first.
LITERALS = 'print("a\\"b", "c\\\\"); ' * 2000


@pytest.mark.parametrize(
    "program",
    [
        "print(open('~/.ssh/id_rsa').read())",
        'x = "it\\"s"; print(open("~/.ssh/id_rsa").read())',
        LITERALS + 'print(open("~/.ssh/id_rsa").read())',
        LITERALS + "print(open('~/.ssh/id_rsa').read())",
    ],
    ids=["short", "after-escaped-quote", "padded", "padded-other-quote"],
)
def test_a_path_literal_after_escaped_quotes_is_read(engine: Engine, program: str) -> None:
    verdict = judge(engine, "python3 -c " + _quoted(program))
    assert verdict.decision != "allow" and "credential_read" in {m.key for m in verdict.matches}


@pytest.mark.parametrize(
    "program",
    ['print("see ~/.ssh/id_rsa")', 'print("a\\"~/.ssh/id_rsa")', LITERALS + 'print("see ~/.ssh/id_rsa")'],
    ids=["prose", "after-escaped-quote", "padded"],
)
def test_a_path_inside_a_longer_literal_stays_allowed(engine: Engine, program: str) -> None:
    assert judge(engine, "python3 -c " + _quoted(program)).decision == "allow"


def _quoted(program: str) -> str:
    return "'" + program.replace("'", "'\\''") + "'"
