"""rt12 red team (stop 23): the seams between stop 22's three shell designs (aliases/functions,
the value model, option variables) and the shell grammar around them.

Each payload below was `allow` (or a grantable ask) on 2111d45 and deletes a fake home under a
real bash (see test_rt12_payloads_are_live). Families:

- reserved words after a prefix: `time -p { …; }`, `coproc NAME { …; }` hid the group's commands;
- what runs in a subshell does not last: a group in the background or piped, a coprocess, a
  background assignment, a `cd` that may not have happened (`(cd x)`, `cd x &`, `false && cd x`);
- single quotes do not quote inside arithmetic (`$(( '$(cmd)' ))`, `(( … ))`, `$[ … ]`, subscripts)
  nor in a double-quoted `${x:-'$(cmd)'}`: bash runs cmd;
- subscripts bash evaluates as arithmetic: name references (`declare -n r='a[$(cmd)]'`),
  `declare -i`, `${!x}`, `for (( ))`, array element assignments (`a[$x]=1`, `a=([$x]=1)`);
- `set -k` / `shopt -so keyword` / `bash -k`: a NAME=VALUE word after the command name is in its
  environment (`tar xf a.tar TAR_OPTIONS=--to-command=…`);
- input: `bash < FILE` of a file the line wrote, `exec < FILE` then a shell, a compound command's
  input (`{ bash; } <<< …`), pipes into and out of compound commands (`{ echo …; } | bash`,
  `echo … | (bash)`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import judge
from tests.redteam.harm import live_then_stopped, run_confined

TAR = "echo x > f; tar cf a.tar f; "  # a real archive for tar to extract

PAYLOADS: list[tuple[str, str]] = [
    # reserved words after a prefix
    ("time { rm -rf ~; }", "time's pipeline is a group"),
    ("time -p -- { rm -rf ~; }", "time -p --"),
    ("coproc X { rm -rf ~; }; wait", "a named coprocess's group"),
    ("coproc   foo   {  rm -rf ~;  }; wait", "blanks"),
    ("X() { coproc Y { rm -rf ~; }; wait; }; X", "inside a function"),
    # subshells do not last
    ('x=~; coproc { x=build; }; wait; rm -rf "$x"', "a coprocess's assignment"),
    ('x=~; { x=build; } & wait; rm -rf "$x"', "a background group's assignment"),
    ('x=~; { x=build & }; wait; rm -rf "$x"', "a background assignment in a group"),
    ('x=~; x=build & wait; rm -rf "$x"', "a background assignment"),
    ('x=~; { x=build; } | cat; rm -rf "$x"', "a piped group's assignment"),
    ("cd ~; (cd /tmp); rm -rf ./*", "a subshell's cd"),
    ("cd ~; cd /tmp & wait; rm -rf ./*", "a background cd"),
    ("cd ~; false && cd /tmp; rm -rf ./*", "a cd that may not run"),
    ("cd ~; { cd /tmp; } & wait; rm -rf ./*", "a background group's cd"),
    # single quotes inside arithmetic and double-quoted expansions
    ("echo $(( 'a[$(rm -rf ~)]' ))", "$(( )) keeps single quotes as characters"),
    ("echo \"${x:-'$(rm -rf ~)'}\"", "a double-quoted default's single quotes"),
    ("(( '$(rm -rf ~)'1 ))", "(( ))"),
    ("a=(1); echo \"${a['$(rm -rf ~)'0]}\"", "a subscript"),
    ("let \"a['\\$(rm -rf ~)'0]=1\"", "let's subscript"),
    ("echo $[ '$(rm -rf ~)'1 ]", "$[ ], the old arithmetic"),
    ("for (( i='$(rm -rf ~)'0; i<1; i++ )); do :; done", "for (( ))"),
    ("a['$(rm -rf ~)'0]=1", "an element assignment's subscript"),
    # subscripts evaluated as arithmetic
    ("declare -n r='a[$(rm -rf ~)]'; echo \"$r\"", "a name reference to an element"),
    ("typeset -n r='a[$(rm -rf ~)]'; r=1", "assigning through it"),
    ("x='a[$(rm -rf ~)]'; declare -i y=$x", "declare -i"),
    ("x='a[$(rm -rf ~)]'; : ${!x}", "indirection"),
    ("x='a[$(rm -rf ~)]'; declare -n r=$x; echo $r", "a reference from a variable"),
    ("x='a[$(rm -rf ~)]'; for ((i=0;i<x;i++)); do :; done", "a for (( )) test"),
    ("x='a[$(rm -rf ~)]'; y=( [x]=1 )", "a compound assignment's key"),
    ("x='a[$(rm -rf ~)]'; y[x]=1", "an element's subscript names x"),
    ("x='a[$(rm -rf ~)]'; y[$x]=1", "an element's subscript expands x"),
    # keyword: assignments anywhere in a command
    (TAR + "set -k; tar xf a.tar TAR_OPTIONS='--to-command=rm\\ -rf\\ ~'", "set -k"),
    (TAR + "shopt -so keyword; tar xf a.tar TAR_OPTIONS='--to-command=rm\\ -rf\\ ~'", "shopt -so keyword"),
    (TAR + "bash -k -c \"tar xf a.tar TAR_OPTIONS='--to-command=rm\\ -rf\\ ~'\"", "bash -k"),
    # input
    ("echo 'rm -rf ~' > x.txt; bash < x.txt", "a file the line wrote, as a shell's input"),
    ("echo 'rm -rf ~' > x.txt; exec < x.txt; bash", "exec < FILE: the shell's input from then on"),
    ("echo 'rm -rf ~' > x.txt; exec 3< x.txt; bash <&3", "a descriptor opened on it"),
    ("{ bash; } <<< 'rm -rf ~'", "a group's input"),
    ("(bash) <<< 'rm -rf ~'", "a subshell's input"),
    ("case x in x) bash;; esac <<< 'rm -rf ~'", "a case's input"),
    ("{ echo 'rm -rf ~'; } | bash", "a group piped into a shell"),
    ("(echo 'rm -rf ~') | bash", "a subshell piped into a shell"),
    ("for i in 1; do echo 'rm -rf ~'; done | sh", "a loop piped into a shell"),
    ("echo 'rm -rf ~' | (bash)", "a pipe into a subshell"),
    ("echo 'rm -rf ~' | if true; then bash; fi", "a pipe into an if"),
    ("{ cat; } <<< 'rm -rf ~' | bash", "a group's input passed on down a pipe"),
    # aliases that give or name reserved words (both readings: aliases on and off)
    ("shopt -s expand_aliases; alias t='time '\nt { rm -rf ~; }", "an alias giving `time `"),
    ("shopt -s expand_aliases; alias c='coproc X '\nc { rm -rf ~; }", "an alias giving `coproc X `"),
    ("shopt -s expand_aliases; alias g='{ '\ng rm -rf ~; }", "an alias giving `{ `"),
    ("alias coproc=echo; coproc X { rm -rf ~; }", "an alias named coproc, off on its own line"),
    ("alias time=echo; time { rm -rf ~; }", "an alias named time, off on its own line"),
    # a function call's input and output
    ("f() { bash; }; echo 'rm -rf ~' > x.txt; f < x.txt", "a call's input file"),
    ("f() { bash; }; f <<< 'rm -rf ~'", "a call's here-string"),
    ("g() { bash; }; echo 'rm -rf ~' | g", "a pipe into a call"),
    ("f() { cat; }; f <<< 'rm -rf ~' | bash", "a call's input passed on"),
    ("f() { echo 'rm -rf ~'; }; f | bash", "a call's output into a shell"),
    # history entries run again
    ("history -s 'rm -rf ~'; fc -s", "fc -s runs the entry history -s added"),
    ("history -s 'rm -rf ~'; fc -e -", "fc -e - likewise"),
    ("history -s x; fc -e 'rm -rf ~'", "fc's editor is a command"),
    # a script's arguments are its "$1"...; `$(pwd)` is where the line's cd went
    ("echo 'rm -rf \"$1\"' > x.sh; . ./x.sh ~", "source FILE ARGS"),
    ("echo 'rm -rf \"$1\"' > x.sh; bash x.sh ~", "bash FILE ARGS"),
    ("f() { . ./x.sh; }; echo 'rm -rf \"$1\"' > x.sh; f ~", "source without words keeps the caller's"),
    ('cd; rm -rf "$(pwd)"', "$(pwd) after cd"),
]

# Ordinary developer commands shaped like the payloads: they stay `allow`.
NEAR_MISSES = [
    "time make -j4",
    "time { make; make test; }",
    "time -p pytest -q",
    "time (cd build && make)",
    'time for f in *.c; do gcc -c "$f"; done',
    "coproc SERVER { python3 -m http.server 8000; }",
    "for ((i=0; i<3; i++)); do echo $i; done",
    'for ((i=0; i<${#arr[@]}; i++)); do echo "${arr[i]}"; done',
    'arr=([0]=a [1]=b); echo "${arr[@]}"',
    'declare -A m=([k]=v); echo "${m[k]}"',
    'a[0]=x; a[1]=y; echo "${a[@]}"',
    "i=0; a[i]=1; a[i+1]=2",
    "echo $[1+2]",
    "echo \"${x:-'default value'}\"",
    "declare -i n=5; n+=1; echo $n",
    'declare -n ref=arr; echo "${ref[0]}"',
    'for d in build dist; do (cd "$d" && make clean); done',
    "(cd frontend && npm ci) & (cd backend && pip install -r requirements.txt) & wait",
    "npm run build & npm run watch & wait",
    "{ echo a; echo b; } | sort",
    "{ make 2>&1; } | tee build.log",
    "cd build; cmake ..; make -j8; cd ..",
    "mkdir -p out && cd out && rm -rf *",
    "cd build || exit 1; rm -rf *",
    "if [ -f Makefile ]; then make; fi; rm -rf dist",
    "(cd frontend && npm ci); rm -rf node_modules",
    "pushd src; make; popd; rm -rf build",
    "echo hi > x.txt; bash < x.txt",
    "sort < data.txt > out.txt",
    "python3 < script.py",
    "{ echo 'set -e'; echo 'make'; } > build.sh",
    "(echo SELECT 1) | sqlite3 db.sqlite",
    "echo hello | (cat; echo done)",
    "set -e; tar xf a.tar -C build",
    "set -k; make all",
    "alias ll='ls -l'; ll",
    "alias time='time -p'; time make",
    "f() { grep -c x; }; f < data.txt",
    "f() { echo hello; }; f | tr a-z A-Z",
    "history -s 'make test'; fc -s",
    "fc -l",
    "history | tail",
    r'echo "rm -rf \"\$1\"" > clean.sh; bash clean.sh build',
    'echo "rm -rf build" > x.sh; bash x.sh a b',
    'cd build && echo "$(pwd)"',
]


@pytest.mark.parametrize(("command", "why"), PAYLOADS)
def test_rt12_payload_is_a_hardline_deny(engine: Engine, command: str, why: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), why


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_rt12_near_miss_stays_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


@pytest.mark.parametrize(("command", "why"), PAYLOADS)
def test_rt12_payloads_are_live(tmp_path: Path, command: str, why: str) -> None:
    """Each payload deletes a fake home under a real bash (HOME and cwd under tmp_path)."""
    home, _, _ = run_confined(tmp_path, command)
    assert not (home / "notes.txt").exists(), why


# The harm through the engine's terminal, for one payload of each family (with nobody to approve).
HARM = [
    "time { rm -rf ~; }",
    'x=~; { x=build; } & wait; rm -rf "$x"',
    "cd ~; (cd /tmp); rm -rf ./*",
    "echo \"${x:-'$(rm -rf ~)'}\"",
    "x='a[$(rm -rf ~)]'; y[$x]=1",
    TAR + "set -k; tar xf a.tar TAR_OPTIONS='--to-command=rm\\ -rf\\ ~'",
    "echo 'rm -rf ~' > x.txt; bash < x.txt",
    "{ echo 'rm -rf ~'; } | bash",
    "f() { echo 'rm -rf ~'; }; f | bash",
    "alias coproc=echo; coproc X { rm -rf ~; }",
    "history -s 'rm -rf ~'; fc -s",
]


@pytest.mark.parametrize("payload", HARM)
def test_rt12_terminal_refuses_and_home_survives(
    tmp_path: Path, work_engine: Engine, fake_home: Path, payload: str
) -> None:
    live_then_stopped(tmp_path, work_engine, fake_home, payload)
