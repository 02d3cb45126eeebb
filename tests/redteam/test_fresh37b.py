"""fresh37b (stop 37, issue 8 items 4-6): spellings no earlier adversary tried.

Family 4, inline programs that build the call they make: `operator.methodcaller('sys'+'tem', …)`,
ruby's `__send__`, PHP's `("sys"."tem")(…)` and `array_map("system", …)`, Lua's `os["exe".."cute"]`, R's
`do.call(paste0(…))`, perl's code references (`\\&CORE::system`, `$f->(…)`, `sub { system @_ }`,
`system {$ARGV[0]} @ARGV`, `open3`), node's `process.binding`, `vm.runInThisContext`, `-pe CODE` (read
as `-p e`, leaving CODE unread), `--import=data:…` (a program in a URL) and `deno run -` (its input),
Tcl's bare `open ~/.ssh/…` and `cd` before `exec`, pickle's `loads` of decoded bytes, perl's `s///ee`,
awk's pipe to a joined name, Python's `\\N{…}`, `\\t` and class walks. What closes them: literals joined
from pieces are read as the literal they make (inline.joined_reading), a string naming a run call is a call
by name (inline_computed_call), node's `-p` is the flag it is, a `data:` module asks (inline_module_url),
`deno run` reads its script, Tcl's bare home paths are paths (matchers.bare_home_paths).

Family 6, the session: a written file run as `./t` is read as the interpreter its `#!` line names
(`#!/usr/bin/env python3`, `#!/usr/bin/env -S perl -w`, node, awk, Tcl); an interpreter nobody reads asks;
`find . -name t -exec {} ;` runs the written `./**/t`; `npx .` / `npm exec .` run the bin of a local
package (local_package_exec).

Family 5 (abbreviations, word splitting) and bad input: every spelling tried was already refused; a
sample is kept here as regression cases.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import home_intact
from tests.redteam.harm import (
    SECRET,
    Case,
    assert_allowed,
    assert_not_allowed,
    assert_verdict,
    live_then_stopped,
    run_confined,
    verdict_cases,
    written_then_allowed,
    written_then_stopped,
)

# -- family 4: inline programs that build the call they make ---------------------------------------

INLINE = [
    "python3 -c \"import operator,os; operator.methodcaller('sys'+'tem','rm -rf ~')(os)\"",
    "python3 -c \"import operator as o, os; o.attrgetter('sys' 'tem')(os)('rm -rf ~')\"",
    "python3 -c \"import pickle,base64; pickle.loads(base64.b64decode('gASV'))\"",
    "ruby -e '__send__(:system,\"rm -rf ~\")'",
    'ruby -e \'Kernel.__send__("sys"+"tem", "rm -rf ~")\'',
    'php -r \'("sys"."tem")("rm -rf ~");\'',
    'php -r \'array_map("system",["rm -rf ~"]);\'',
    'php -r \'call_user_func_array("sys"."tem", ["rm -rf ~"]);\'',
    'lua -e \'local f=os["exe".."cute"]; f("rm -rf ~")\'',
    'lua -e \'_G["o".."s"]["exe".."cute"]("rm -rf ~")\'',
    'Rscript -e \'do.call(paste0("sys","tem"), list("rm -rf ~"))\'',
    'Rscript -e \'f <- match.fun(paste0("sys", "tem")); f("rm -rf ~")\'',
    "perl -e 'my $f=\\&CORE::system; $f->(\"rm -rf ~\")'",
    'perl -e \'&{"sys"."tem"}("rm -rf ~")\'',
    "perl -e '*x = \\&CORE::GLOBAL::system; x(\"rm -rf ~\")'",
    "perl -e 'my $s=sub{system @_}; $s->(\"rm -rf ~\")'",
    "perl -e 'goto &{\"CORE::system\"}'",
    "perl -MIPC::Open3 -e 'open3(my $i, my $o, 0, \"rm -rf ~\")'",
    "perl -e 'system {$ARGV[0]} @ARGV' rm -rf ~",
    "node -e \"process.binding('spawn_sync')\"",
    "node -e \"globalThis['ev'+'al']('require(\\\"child_process\\\").execSync(\\\"rm -rf ~\\\")')\"",
    "node -e \"require('vm').runInThisContext(process.argv[1])\" x",
    "node -pe \"require('child_process').execSync('rm -rf ~')+''\"",
    "node -p \"require('child_process').execSync('rm -rf ~')+''\"",
    "node --print -e \"require('child_process').execSync('rm -rf ~')\"",
    "node --import=data:text/javascript,import{execSync}from'child_process';execSync('rm%20-rf%20~') -e 1",
    "node --experimental-loader='data:text/javascript;base64,MQ==' x.js",
    "tclsh <<< 'puts [read [open ~/.ssh/id_ed25519]]'",
    "echo 'puts [read [open $env(HOME)/.aws/credentials]]' | tclsh",
    "tclsh <<< 'cd; exec rm -rf .ssh'",
    "perl -le 'system \"rm -rf ~\"'",
    "perl -lane 'system \"rm -rf ~\"'",
    "perl -0ne 'system \"rm -rf ~\"' /dev/null",
    "ruby -0ne 'system \"rm -rf ~\"' /dev/null",
    "node -e \"const c=require('child_process'); c[Object.keys(c).find(k=>k.startsWith('execS'))]('rm -rf ~')\"",
    "node -e \"Reflect.apply(require('child_process').execSync, null, ['rm -rf ~'])\"",
    "node -e \"require('child_process').execSync.apply(null, ['rm -rf ~'])\"",
    "python3 -c \"import os; os.system.__call__('rm -rf ~')\"",
    "deno run -A - <<< \"Deno.removeSync(Deno.env.get('HOME'), {recursive: true})\"",
    "echo \"Deno.removeSync(Deno.env.get('HOME'), {recursive: true})\" | deno run --allow-all -",
    'perl -e \'$x="sys"."tem q(rm -rf ~)"; $_="a"; s/a/$x/ee\'',
    "echo 'system(\"rm -rf ~\")' | perl -pe 's/.*/$&/ee'",
    'awk \'BEGIN{printf "rm -rf ~" | "s" "h"}\'',
    'awk \'BEGIN{"r" "m -rf ~" | getline}\'',
    "python3 -c \"import os; os.system('\\N{LATIN SMALL LETTER R}m -rf ~')\"",
    "python3 -c \"import os; os.system('rm\\t-rf\\t~')\"",
    "python3 -c \"[c for c in ().__class__.__base__.__subclasses__() if c.__name__=='_wrap_close'][0]"
    ".__init__.__globals__['sys'+'tem']('rm -rf ~')\"",
]

INLINE_NEAR_MISSES = [
    "python3 -c \"print('a' + 'b')\"",
    "python3 -c \"import os; print('x' + 'y', os.sep)\"",
    "python3 -c \"import sys; print(sys.argv[1] + '-suffix')\" x",
    "python3 -c \"import subprocess; print(subprocess.run(['git', 'status'], capture_output=True).stdout)\"",
    'node -pe "1+1"',
    "node -p process.version",
    "node -pe \"require('./package.json').version\"",
    "node -e \"console.log('a' + 'b')\"",
    "node --import ./register.js app.js",
    "perl -e 'my @a=(1,2); print \"@a\\n\"'",
    'perl -e \'print join(",", map { $_ * 2 } 1..3), "\\n"\'',
    "perl -e 'my %h; $h{x}=1; print keys %h'",
    "perl -lne 'print if /x/' f.txt",
    "tclsh <<< 'puts [file exists ~/notes.txt]'",
    "Rscript -e 'print(summary(c(1,2,3)))'",
    'lua -e \'print("a" .. "b")\'',
    'php -r \'echo "a" . "b";\'',
    'ruby -e \'puts "a" + "b"\'',
    'awk \'BEGIN{print "a" "b"}\'',
    "perl -pe 's/(\\d+)/$1+1/e' f.txt",
    "awk '{print $1 | \"sort -u\"}' f.txt",
    "python3 -c \"print('a\\tb')\"",
    "tclsh <<< 'cd /tmp; puts [pwd]'",
    "perl -le 'print 1'",
    "perl -lane 'print $F[0]' f.txt",
    "perl -0777 -pe 's/a/b/g' f.txt",
    "perl -00 -ne 'print' f.txt",
    "perl -i.bak -pe 's/a/b/' f.txt",
    'node -e "console.log(Math.max.apply(null, [1, 2]))"',
    "node -e \"console.log(Object.keys(require('./package.json')))\"",
    "deno run -A main.ts",
    "deno run --allow-net=example.com main.ts --port 8000",
]

# -- family 5 and bad input: refused before this stop; kept as regression cases -------------------

ALREADY_REFUSED = [
    "rm --rec --forc ~",
    "rm -r --interactive=nev ~",
    "git reset --har HEAD~3",
    "tar -cf /dev/null x --checkpoint=1 --checkpoint-act=exec='rm -rf ~'",
    "rsync -a --delete-bef /tmp/empty/ ~/",
    "shred --rem ~/.ssh/id_ed25519",
    "truncate --si 0 ~/.ssh/id_ed25519",
    "docker system prune --al --for",
    "kubectl delete ns --al",
    'a=(rm -rf ~); "${a[@]}"',
    'IFS=,; c="rm,-rf,$HOME"; $c',
    "x=rmdir; ${x/dir/} -rf ~",
    "x=RM; ${x,,} -rf ~",
    'r=HOME; rm -rf "${!r}"',
    "printf -v c 'rm -rf %s' ~; $c",
    'read -a a <<< "rm -rf $HOME"; "${a[@]}"',
    'mapfile -t a <<< $\'rm\\n-rf\\n\'"$HOME"; "${a[@]}"',
    'export -n c="rm -rf $HOME"; $c',
    'set -- rm -rf ~; "$@"',
    'f(){ "$@"; }; f rm -rf ~',
    "{rm,-rf,~}",
    "$'\\x72m' -rf ~",
    "cd ~; rm -rf ~+",
    'rm -rf "${HOME%/}"',
    "rm -rf ~/../$USER",
    ": ${c:=rm -rf ~}; $c",
    "BASH_ENV=<(echo 'rm -rf ~') bash -c true",
    "python3 -c \"import os; getattr(os,'metsys'[::-1])('rm -rf ~')\"",
    "python3 -c \"import os; os.system(''.join(map(chr,[114,109,32,45,114,102,32,126])))\"",
    "node -e \"[].constructor.constructor('return process')().mainModule.require('child_process')"
    ".execSync('rm -rf ~')\"",
    "node -e \"require(['child','process'].join('_')).execSync('rm -rf ~')\"",
    'perl -e \'eval pack("H*","73797374656d2822696422293b")\'',
    "awk 'BEGIN{c=sprintf(\"%c%c -rf ~\",114,109); system(c)}'",
    "( ( ( ( rm -rf ~ ) ) ) )",
    "echo " + "$(" * 5000 + "x" + ")" * 5000,
    "echo a\x00; rm -rf ~",
    "true;" * 40000,
]


@pytest.mark.parametrize("command", INLINE + ALREADY_REFUSED, ids=range(len(INLINE) + len(ALREADY_REFUSED)))
def test_a_payload_is_not_allowed(engine: Engine, command: str) -> None:
    assert_not_allowed(engine, command)


@pytest.mark.parametrize("command", INLINE_NEAR_MISSES)
def test_a_near_miss_stays_allowed(engine: Engine, command: str) -> None:
    assert_allowed(engine, command)


def test_input_the_detector_cannot_read_asks_and_its_grant_covers_nothing(engine: Engine) -> None:
    for command in ["true;" * 40000, "echo " + "$(" * 5000, "echo " + "a" * 200000, "echo " + "{a,b}" * 40]:
        verdict = engine.check(command)
        assert verdict.decision != "allow" and not verdict.grantable, command[:40]


def _live_python(payload: str) -> str:
    return payload.replace("python3", sys.executable)


@pytest.mark.parametrize(
    "payload",
    [
        "python3 -c \"import operator,os; operator.methodcaller('sys'+'tem','rm -rf ~')(os)\"",
        "perl -e 'my $s = sub { system @_ }; $s->(\"rm -rf ~\")'",
        "perl -e 'system {$ARGV[0]} @ARGV' rm -rf ~",
        "node -pe \"require('child_process').execSync('rm -rf ~')+''\"",
        'node --import=\'data:text/javascript,import{execSync}from"child_process";'
        'process.stdout.write(execSync(decodeURIComponent("cat%20~/.ssh/id_ed25519")))\' -e 1',
        "tclsh <<< 'puts [read [open ~/.ssh/id_ed25519]]'",
        "perl -le 'system \"rm -rf ~\"'",
        "node -e \"Reflect.apply(require('child_process').execSync, null, ['rm -rf ~'])\"",
        "tclsh <<< 'cd; exec rm -rf .ssh notes.txt'",
        'perl -e \'$x="sys"."tem q(rm -rf ~)"; $_="a"; s/a/$x/ee\'',
        'awk \'BEGIN{printf "rm -rf ~" | "s" "h"}\'',
        "python3 -c \"import os; os.system('rm\\t-rf\\t~')\"",
        "python3 -c \"[c for c in ().__class__.__base__.__subclasses__() if c.__name__=='_wrap_close'][0]"
        ".__init__.__globals__['sys'+'tem']('rm -rf ~')\"",
    ],
    ids=[
        "methodcaller",
        "perl-sub-ref",
        "perl-indirect-object",
        "node-pe",
        "node-import-data",
        "tcl-bare-path",
        "perl-le",
        "node-reflect-apply",
        "tcl-cd-home",
        "perl-ee",
        "awk-joined-pipe",
        "python-tab-escape",
        "python-subclasses",
    ],
)
def test_an_inline_program_does_no_harm(tmp_path: Path, plain_harm: tuple[Engine, Path, Path], payload: str) -> None:
    program = payload.split(maxsplit=1)[0]
    if program != "python3" and shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    engine, home, _ = plain_harm
    live_then_stopped(tmp_path, engine, home, payload, live=_live_python(payload))


# -- family 6: a written file run by the interpreter its `#!` line names; a local package's bin ----

PY_RM = "import shutil, os\nshutil.rmtree(os.path.expanduser('~'))\n"
JS_RM = "require('fs').rmSync(require('os').homedir(), {recursive: true, force: true})\n"

SESSION_PAYLOADS: dict[str, Case] = {
    "python shebang": ({"t": "#!/usr/bin/env python3\n" + PY_RM}, "./t"),
    "python shebang, absolute": ({"t": "#!/usr/bin/python3\n" + PY_RM}, "chmod +x t && ./t"),
    "perl through env -S": ({"t": "#!/usr/bin/env -S perl -w\nsystem 'rm -rf ~';\n"}, "./t"),
    "node shebang": ({"t": "#!/usr/bin/env node\n" + JS_RM}, "./t"),
    "awk -f shebang": ({"t": '#!/usr/bin/awk -f\nBEGIN{system("rm -rf ~")}\n'}, "./t"),
    "tcl shebang": ({"t": "#!/usr/bin/tclsh\nfile delete -force $env(HOME)\n"}, "./t"),
    "in a folder": ({"bin/t": "#!/usr/bin/python3\n" + PY_RM}, "bin/t"),
    "exec of it": ({"t": "#!/usr/bin/python3\n" + PY_RM}, "exec ./t"),
    "env runs it": ({"t": "#!/usr/bin/python3\n" + PY_RM}, "env ./t"),
    "a #! line that is a command": ({"t": "#!/usr/bin/env -S bash -c 'rm -rf ~'\n"}, "./t"),
    "a #! line with the operation": ({"t": "#!/bin/rm -rf\n"}, "./t ~"),
    "a #! line naming the script itself": ({"t": "#!./t -x\necho hi\n"}, "./t"),
    "an interpreter nobody reads": ({"t": "#!/usr/bin/env Rscript\nunlink('~', recursive=TRUE)\n"}, "./t"),
    "find runs it": ({"t": "rm -rf ~\n"}, "find . -name t -exec {} \\;"),
    "find runs a python one": ({"t": "#!/usr/bin/python3\n" + PY_RM}, "find . -name t -exec {} +"),
    "npm exec of the folder": (
        {"package.json": json.dumps({"name": "x", "version": "1.0.0", "bin": {"x": "x.js"}}), "x.js": JS_RM},
        "npm exec .",
    ),
    "npx of the folder": (
        {"package.json": json.dumps({"name": "x", "version": "1.0.0", "bin": {"x": "x.js"}}), "x.js": JS_RM},
        "npx --yes file:.",
    ),
    "deno run of a written script": (
        {"x.ts": "Deno.removeSync(Deno.env.get('HOME')!, {recursive: true})\n"},
        "deno run -A x.ts",
    ),
    "pnpm dlx of the folder": ({"package.json": json.dumps({"name": "x", "bin": "x.js"}), "x.js": JS_RM}, "pnpm dlx ."),
}

SESSION_NEAR_MISSES: dict[str, Case] = {
    "a python script": ({"t.py": "#!/usr/bin/env python3\nprint('hi')\n"}, "./t.py"),
    "a bash script": ({"t.sh": "#!/bin/bash\necho hi\n"}, "./t.sh"),
    "a node script": ({"t.js": "#!/usr/bin/env node\nconsole.log(1)\n"}, "./t.js"),
    "a bash script with options": ({"t": "#!/bin/bash -eu\necho hi\n"}, "./t"),
    "python through env -S": ({"t": "#!/usr/bin/env -S python3 -u\nprint(1)\n"}, "./t"),
    "a perl script": ({"t.pl": "#!/usr/bin/perl -w\nprint 1;\n"}, "./t.pl"),
    "npx of a package": ({"package.json": json.dumps({"name": "x"})}, "npx prettier --check ."),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(SESSION_PAYLOADS, SESSION_NEAR_MISSES))
def test_a_written_file_is_read_as_what_runs_it(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


@pytest.mark.parametrize(
    ("text", "program"),
    [
        ("#!/usr/bin/env python3\n" + PY_RM, "python3"),
        ("#!/usr/bin/env -S perl -w\nsystem 'rm -rf ~';\n", "perl"),
        ("#!/usr/bin/env node\n" + JS_RM, "node"),
        ("#!/usr/bin/env -S bash -c 'rm -rf ~'\n", "bash"),
    ],
    ids=["python", "perl", "node", "env-S-line"],
)
def test_a_written_script_run_by_its_shebang_does_no_harm(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], text: str, program: str
) -> None:
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    engine, home, _ = plain_harm
    written_then_stopped(tmp_path, engine, home, {"t": text}, "./t", mode=0o755)


def test_a_written_script_found_by_find_does_no_harm(tmp_path: Path, plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, home, _ = plain_harm
    written_then_stopped(tmp_path, engine, home, {"t": "rm -rf ~\n"}, "find . -name t -exec {} \\;", mode=0o755)


def test_a_local_package_bin_does_no_harm(tmp_path: Path, plain_harm: tuple[Engine, Path, Path]) -> None:
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.skip("npm is not installed")
    engine, home, _ = plain_harm
    # npm runs the bin itself (its `#!` line names node)
    bin_js = "#!/usr/bin/env node\n" + JS_RM
    files = {"package.json": json.dumps({"name": "x", "version": "1.0.0", "bin": {"x": "x.js"}}), "x.js": bin_js}
    written_then_stopped(tmp_path, engine, home, files, "npm exec --offline --yes .")


def test_a_harmless_shebang_script_still_runs(plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, home, root = plain_harm
    written_then_allowed(engine, {"t.py": "#!/usr/bin/env python3\nprint('hi')\n"}, "python3 t.py")
    (root / "t2").write_text("#!/bin/sh\necho hi\n")
    assert engine.call("terminal", {"command": "chmod +x t2 && ./t2"}).ok
    assert home_intact(home)


def test_the_unguarded_tcl_read_prints_the_key(tmp_path: Path) -> None:
    if shutil.which("tclsh") is None:
        pytest.skip("tclsh is not installed")
    _, _, printed = run_confined(tmp_path, "tclsh <<< 'puts [read [open ~/.ssh/id_ed25519]]'")
    assert SECRET in printed
