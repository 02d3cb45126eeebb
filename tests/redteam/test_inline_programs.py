"""Inline programs that build the call they make are at least `ask`.

What cannot be read statically is not `allow`: a name assembled from pieces, character
codes, reversed or decoded strings, eval/exec of a string, a computed import, a call whose
argument is a variable, fork in a loop. Inline programs whose calls are literal are read as
they are (their shell commands judged), and plain ones stay allowed.
"""

from __future__ import annotations

import pytest

from engine import Engine
from tests.redteam.conftest import judge

COMPUTED = [
    "python3 -c \"getattr(__import__('os'), 'sys'+'tem')('id')\"",
    "python3 -c \"__import__('o'+'s').system('id')\"",
    'python3 -c "import os; os.system(chr(105)+chr(100))"',
    "python3 -c \"import os; os.system('di'[::-1])\"",
    'python3 -c "exec(\'import os; os.system(\\"id\\")\')"',
    "python3 -c \"eval(compile('1', 'x', 'eval'))\"",
    "python3 -c \"import importlib; importlib.import_module('os').system('id')\"",
    "python3 -c 'import os; c=\"id\"; os.system(c)'",
    "python3 -c \"import subprocess as s; s.run(f'{chr(105)}d', shell=True)\"",
    "python3 -c 'import os\nwhile True:\n    os.fork()'",
    "python3 -c 'import os\nfor _ in range(64): os.fork()'",
    "perl -e 'system(scalar reverse \"di\")'",
    "perl -e '$c = join \"\", map { chr } (105, 100); system($c)'",
    "perl -e 'eval \"system q(id)\"'",
    "perl -e 'fork for 1..100'",
    "ruby -e 'Kernel.send(:system, \"id\")'",
    "ruby -e 'system(\"di\".reverse)'",
    "ruby -e 'eval(\"system 1\")'",
    "node -e \"require('child_process')['ex'+'ecSync']('id')\"",
    "node -e \"require('child_'+'process').execSync('id')\"",
    "node -e \"eval(Buffer.from('aWQ=', 'base64').toString())\"",
    "node -e \"new Function(atob('cmV0dXJu'))()\"",
    "node -e \"require('child_process').execSync(String.fromCharCode(105, 100))\"",
    'php -r \'$f = "sys"."tem"; $f("id");\'',
    'php -r \'call_user_func("system", "id");\'',
    "php -r 'system(strrev(\"di\"));'",
    "lua -e 'os.execute(string.char(105, 100))'",
    'lua -e \'load("os.execute(\\"id\\")")()\'',
    "deno eval \"eval(atob('aWQ='))\"",
    "bun -e \"require('child_process')[['exec','Sync'].join('')]('id')\"",
    "awk 'BEGIN { c = sprintf(\"%c%c\", 105, 100); system(c) }'",
    "python3 <<'EOF'\nimport os\ngetattr(os, 'sys' + 'tem')('id')\nEOF",
]

NEAR_MISSES = [
    "python3 -c 'print(1 + 1)'",
    "python3 -c \"import json, sys; print(json.load(sys.stdin)['name'])\"",
    'python3 -c "import os; print(os.getcwd())"',
    "python3 -c \"import os; os.system('ls -la')\"",
    "python3 -m json.tool data.json",
    "node -e \"console.log(require('fs').readFileSync('package.json', 'utf8'))\"",
    'node -e "console.log([1, 2, 3].map(x => x * 2))"',
    "perl -ne 'print if /ERROR/' app.log",
    "perl -pi -e 's/foo/bar/g' notes.txt",
    "ruby -e 'puts \"hello\".upcase'",
    "ruby -e 'puts \"abc\".reverse'",
    "php -r 'echo PHP_VERSION;'",
    "awk '{ print $2 }' access.log",
    "lua -e 'print(1)'",
]


@pytest.mark.parametrize("command", COMPUTED)
def test_an_inline_program_that_builds_its_call_needs_approval(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision != "allow", command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_inline_programs_with_literal_calls_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command
