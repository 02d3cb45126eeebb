"""Files an inline program's text loads and runs by a literal name: perl's `do "F"` / `require "F"`,
python's runpy.run_path / SourceFileLoader, node's `require('./F')` (any extension runs as
JavaScript) and a readFileSync('F') a vm/eval runs, Tcl's `source F`; and the lines of a file
perl opens for reading when it runs a variable as a command (`open F, "c.txt"; while(<F>){system
$_}`). Each is judged as that program running F (`perl F`, `python3 F`, `node F`, `tclsh F`, `sh F`:
inline.code_loads; a variable by its one literal assignment, a name known only when it runs asks).
adv26b: a written cmds.txt ran unjudged through each of them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import written_then_allowed, written_then_stopped

KEY = "cat ~/.ssh/id_ed25519\n"
PERL_KEY = "system('cat '.$ENV{HOME}.'/.ssh/id_ed25519');\n1;\n"
PY_KEY = "import os\nos.system('cat ~/.ssh/id_ed25519')\n"
JS_KEY = "require('child_process').execSync('cat ~/.ssh/id_ed25519', {stdio: 'inherit'})\n"
TCL_KEY = "puts [exec cat $env(HOME)/.ssh/id_ed25519]\n"


PAYLOADS = {
    "perl do FILE": ("perl", {"cmds.txt": PERL_KEY}, "perl -e 'do \"./cmds.txt\"'"),
    "perl require FILE": ("perl", {"cmds.txt": PERL_KEY}, "perl -e 'require \"./cmds.txt\"'"),
    "perl do FILE deleting HOME": ("perl", {"c.txt": "system('rm -rf '.$ENV{HOME});\n"}, "perl -e 'do(\"./c.txt\")'"),
    "perl open FILE, system each line": (
        "perl",
        {"cmds.txt": KEY},
        "perl -e 'open F, \"cmds.txt\"; while(<F>){system $_}'",
    ),
    "perl 3-argument open, system each line": (
        "perl",
        {"c.txt": KEY},
        'perl -e \'open(my $f, "<", "c.txt"); while(my $l = <$f>){system $l}\'',
    ),
    "python runpy.run_path": (
        "python3",
        {"cmds.txt": PY_KEY},
        "python3 -c 'import runpy; runpy.run_path(\"cmds.txt\")'",
    ),
    "python SourceFileLoader": (
        "python3",
        {"c.txt": PY_KEY},
        'python3 -c \'from importlib.machinery import SourceFileLoader as L; L("m", "c.txt").load_module()\'',
    ),
    "node vm.runInThisContext(readFileSync)": (
        "node",
        {"cmds.txt": JS_KEY},
        'node -e \'require("vm").runInThisContext(require("fs").readFileSync("cmds.txt", "utf8"))\'',
    ),
    "node require of a .txt": ("node", {"c.txt": JS_KEY}, "node -e 'require(\"./c.txt\")'"),
    "tclsh source FILE": ("tclsh", {"cmds.txt": TCL_KEY}, "echo 'source cmds.txt' | tclsh"),
    # the file through a variable: its one literal assignment, or a name known only when it runs (asks)
    "runpy.run_path(f)": ("python3", {"c.txt": PY_KEY}, "python3 -c 'import runpy; f=\"c.txt\"; runpy.run_path(f)'"),
    "perl do $f": ("perl", {"c.txt": PERL_KEY}, "perl -e '$f=\"./c.txt\"; do $f'"),
    "runpy.run_path(sys.argv[1])": (
        "python3",
        {"c.txt": PY_KEY},
        "python3 -c 'import runpy, sys; runpy.run_path(sys.argv[1])' c.txt",
    ),
    "perl do shift": ("perl", {"c.txt": PERL_KEY}, "perl -e '$f = shift; do $f' ./c.txt"),
}


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_program_loads_a_named_file_stopped(session: Engine, fake_home: Path, tmp_path: Path, name: str) -> None:
    program, files, payload = PAYLOADS[name]
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    written_then_stopped(tmp_path, session, fake_home, files, payload)


NEAR_MISSES = {
    "perl require of a module file": ({}, "perl -e 'require \"strict.pm\"; print 1'"),
    "perl do of a config": ({"cfg.pl": "{ a => 1 };\n"}, "perl -e 'my $c = do \"./cfg.pl\"; print $c->{a}'"),
    "perl reading a file": ({"d.txt": "x\n"}, "perl -e 'open F, \"d.txt\"; print while <F>'"),
    "runpy of a harmless file": ({"s.txt": "print('hi')\n"}, "python3 -c 'import runpy; runpy.run_path(\"s.txt\")'"),
    "node require of a module": ({"lib.js": "module.exports = 1\n"}, "node -e 'console.log(require(\"./lib.js\"))'"),
    "node reading json": (
        {"d.json": "{}\n"},
        'node -e \'console.log(JSON.parse(require("fs").readFileSync("d.json")))\'',
    ),
    "tclsh source of a harmless file": ({"x.tcl": "puts hi\n"}, "echo 'source x.tcl' | tclsh"),
    "perl regex with the word do": ({"f": "a to do list\n"}, "perl -ne 'print if /to do list/' f"),
    "perl do block, require of modules": ({}, "perl -e 'my $x = do { 1 }; require Data::Dumper; require 5.010'"),
    "runpy of a named harmless file": (
        {"s.py": "print(1)\n"},
        "python3 -c 'import runpy; f=\"s.py\"; runpy.run_path(f)'",
    ),
}


@pytest.mark.parametrize("name", list(NEAR_MISSES))
def test_loaded_files_near_misses_allowed(session: Engine, fake_home: Path, name: str) -> None:
    files, command = NEAR_MISSES[name]
    written_then_allowed(session, files, command)
