"""adv44 (stop 44, issue 8): a fresh adversary on bash features rarely used and programs that run code.

Found and fixed (each was allowed, and did the harm under a real bash, before):

1. THE INTEGER ATTRIBUTE: each assignment to a `declare -i` variable is arithmetic, and a subscript in the value
   runs (`a[$(cmd)]`). Only a value nobody knows here was read so: `declare -i n; n='a[$(rm -rf ~)]'` (also
   `typeset -i`, `n+=…` of a known or an unset variable, `declare -ai a; a[0]=…`, `a=(…)`, `declare -Ai`,
   `declare n+=…` after `declare -i n`) was allowed. A known value is now read as the arithmetic it is.
2. A CASE PATTERN's arithmetic: `x='a[$(rm -rf ~)]'; case 1 in $((x))) ;; esac` (a pattern's `$(cmd)` was read,
   its `$((x))`, `${a[x]}` were not). Any expansion in a pattern is now judged with the header.
3. AN UNQUOTED HERE-DOCUMENT's parameter and arithmetic expansions: `cat <<EOF` holding `$((x))`, `${y[x]}`,
   `${!x}` or `${y:x}` with x='a[$(rm -rf ~)]' (only its command substitutions were read). They are now read as
   a double-quoted word's (engine/policy/lexer.py body_expansions).
4. `compgen -W WORDLIST` / `complete -W`: bash expands each word again, `compgen -W '$(rm -rf ~)' x` ran it.
   The compgen row's -W value is now judged as the line `: WORDLIST` (policies/executors.yaml).
5. THE HISTORY LIST PRINTED INTO A SHELL: `history -r h; history | cut -c8- | sh` (h a written `rm -rf ~`), `fc -ln
   | bash`, `history -p '!!' | sh`, `history -s 'rm -rf ~'; fc -ln | sh`. history and fc now print a stored text
   (`prints: stored`, policies/printers.yaml / executors.yaml): a shell reading it asks.
6. PS4 GIVEN A VALUE NOBODY KNOWS: `printf -v PS4 %s "$(cat p)"; set -x; :` and `printf -v PS4 '%s' '$(rm -rf
   ~)'` (a printf -v whose words hold `$` left the name unknown but not lost), `x=PS4; printf -v "$x" …` (a name
   only the run knows: any variable, PS4 too), `declare -n r=PS4; r=$(cat p)` / `r+='$(rm -rf ~)'` (an assignment
   through a reference to a known target). Each now leaves PS4 known only at run time (an approval) or, known,
   read as traced (the hardline).
7. A WRAPPER'S VARIABLES IN THE SHELL IT RUNS: `env x='a[$(rm -rf ~)]' bash -c 'let y=x'` (also `(( x ))`,
   `${a[x]}`, `${x@P}` with x='$(rm -rf ~)', under nice/timeout/sudo) were allowed: a variable the line did not
   set was the environment's. A wrapper's value holding `[`, `$`, a backquote or a backslash is now one the line
   set (asks where the shell evaluates it again); `env x=1 bash -c 'echo $((x+1))'` stays allowed.

Probed and held (no change): coproc, `exec {fd}<>`, `declare -n` reads, `${x@P}`, `(( a[$(cmd)] ))`, `[[ -v
a[$(cmd)] ]]`, `printf -v 'a[$(cmd)]'`, `mapfile -C`, trap DEBUG/RETURN/ERR/EXIT/USR1, command_not_found_handle,
`compgen -C`/`-F`, `complete -C`, `wait -p 'a[$(cmd)]'`, --rcfile/--init-file/BASH_ENV/ENV, sqlite3 .shell/.system/
-init/.read, psql \\! / -f / PSQLRC, mysql system, git bisect run / submodule foreach, gdb -ex/-x/.gdbinit, find
-fprint/-fls into ~, tar/cp/rsync/unzip/install -D/patch/ln/cpio/dd/tee into ~ and its startup files (ask), pagers
and editors in PAGER/GIT_PAGER/MANPAGER/LESSOPEN/EDITOR/GIT_SSH_COMMAND (deny), `enable -f` of a written or decoded
.so (ask).

Open then, closed by env45 (tests/redteam/test_env45.py): `enable -f ./x.so x` of a library the session did not
write was allowed (now asks outside the system's library folders); `lldb` with a written ./.lldbinit was allowed (now
read as gdb's .gdbinit).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import (
    Case,
    assert_verdict,
    deleted_then_stopped,
    verdict_cases,
    written_then_allowed,
    written_then_stopped,
)

X = "x='a[$(rm -rf ~)]'; "  # a value whose arithmetic runs `rm -rf ~`
HIST = {"h": "rm -rf ~\n"}  # a history file the session wrote
CODE = {"p": "$(rm -rf ~)\n"}  # a prompt's text the session wrote
BODY = "cat <<EOF\n{}\nEOF"

PAYLOADS: dict[str, Case] = {
    # 1. the integer attribute
    "integer-literal": ({}, "declare -i n; n='a[$(rm -rf ~)]'"),
    "typeset-integer": ({}, "typeset -i n; n='a[$(rm -rf ~)]'"),
    "integer-append": ({}, "declare -il n; n+='a[$(rm -rf ~)]'"),
    "integer-append-var": ({}, X + "declare -i y; y+=$x"),
    "integer-declare-append": ({}, "declare -i y; declare y+='a[$(rm -rf ~)]'"),
    "integer-element": ({}, "declare -ai y; y[0]='a[$(rm -rf ~)]'"),
    "integer-scalar-element": ({}, "declare -i y; y[0]='a[$(rm -rf ~)]'"),
    "integer-array": ({}, "declare -ai y; y=('a[$(rm -rf ~)]')"),
    "integer-assoc": ({}, "declare -Ai y; y[k]='a[$(rm -rf ~)]'"),
    # 2. a case pattern's arithmetic
    "case-pattern": ({}, X + "case 1 in $((x))) ;; esac"),
    "case-alternative": ({}, X + "case 1 in 2|$((x))) ;; esac"),
    "case-subscript": ({}, X + "case 1 in ${y[x]}) ;; esac"),
    # 3. a here-document's expansions
    "body-arithmetic": ({}, X + BODY.format("$((x))")),
    "body-subscript": ({}, X + BODY.format("${y[x]}")),
    "body-indirect": ({}, X + BODY.format("${!x}")),
    "body-offset": ({}, X + BODY.format("${y:x}")),
    "body-tabs": ({}, X + "cat <<-EOF\n\t$((x))\nEOF"),
    "body-prompt": ({}, "x='$(rm -rf ~)'; " + BODY.format("${x@P}")),
    # 4. compgen's word list
    "compgen-words": ({}, "compgen -W '$(rm -rf ~)' x"),
    "compgen-backquote": ({}, "compgen -W '`rm -rf ~`' x"),
    "compgen-variable": ({}, "x='$(rm -rf ~)'; compgen -W \"$x\" a"),
    "compgen-subscript": ({}, X + "compgen -W '${y[x]}' a"),
    "complete-words": ({}, "complete -W '$(rm -rf ~)' ls"),
    # 5. the history list into a shell
    "history-cut": (HIST, "history -r h; history | cut -c8- | sh"),
    "fc-list": (HIST, "history -r h; fc -ln | bash"),
    "history-print": (HIST, "history -r h; history -p '!!' | sh"),
    "history-added": ({}, "history -s 'rm -rf ~'; fc -ln | sh"),
    # 6. PS4 given a value nobody knows
    "printf-ps4-literal": ({}, "printf -v PS4 '%s' '$(rm -rf ~)'; set -x; :"),
    "printf-ps4-read": (CODE, 'printf -v PS4 %s "$(cat p)"; set -x; :'),
    "printf-named-ps4": ({}, "x=PS4; printf -v \"$x\" '$(rm -rf ~)'; set -x; :"),
    "printf-named-read": (CODE, 'x=PS4; printf -v "$x" %s "$(cat p)"; set -x; :'),
    "reference-read": (CODE, "declare -n r=PS4; r=$(cat p); set -x; :"),
    "reference-append": ({}, "declare -n r=PS4; r+='$(rm -rf ~)'; set -x; :"),
    "reference-append-read": (CODE, "declare -n r=PS4; r+=$(cat p); set -x; :"),
    "function-printf-name": ({}, "f(){ printf -v \"$1\" %s '$(rm -rf ~)'; }; f PS4; set -x; :"),
    "printf-joined-name": (CODE, 'x=PS4; printf -v"$x" %s "$(cat p)"; set -x; :'),
    # 7. a wrapper's variables in the shell it runs
    "env-let": ({}, "env x='a[$(rm -rf ~)]' bash -c 'let y=x'"),
    "env-arithmetic": ({}, "env x='a[$(rm -rf ~)]' bash -c '(( x ))'"),
    "env-subscript": ({}, "env x='a[$(rm -rf ~)]' bash -c 'echo ${a[x]}'"),
    "env-prompt": ({}, "env x='$(rm -rf ~)' bash -c 'echo ${x@P}'"),
    "env-clean": ({}, "env -i x='a[$(rm -rf ~)]' bash -c 'let y=x'"),
    "timeout-env": ({}, "timeout 5 env x='a[$(rm -rf ~)]' bash -c 'let y=x'"),
    "nice-env": ({}, "nice env x='a[$(rm -rf ~)]' bash -c '[[ x -eq 1 ]]'"),
}

NEAR_MISSES: dict[str, Case] = {
    # 1.
    "integer-count": ({}, "declare -i n; n=5; n+=3; echo $n"),
    "integer-loop": ({}, "declare -i n=0; for f in *.txt; do n+=1; done; echo $n"),
    "integer-lines": ({}, "declare -i total; total=$(wc -l < README.md); echo $total"),
    "integer-while": ({}, "typeset -i i=0; while (( i < 3 )); do i+=1; done"),
    "integer-random": ({}, "declare -i y; y=$RANDOM; echo $y"),
    "integer-expression": ({}, "declare -i x=1 y; y=x+1; echo $y"),
    "integer-array": ({}, "declare -ai a; a=(1 2); a+=(3); a[3]=4"),
    # 2.
    "case-home": ({}, 'case "$1" in "$HOME"/*) echo home;; esac'),
    "case-variable": ({}, "case $f in $pat) echo m;; *) ;; esac"),
    "case-loop": ({}, 'for f in *.txt; do case $f in $skip) continue;; esac; cat "$f"; done'),
    "case-sum": ({}, "case $x in $((1+1))) echo two;; esac"),
    "case-prefix": ({}, "case $v in ${PREFIX}*) echo p;; esac"),
    # 3.
    "body-values": ({}, BODY.format("Home: ${HOME}\nUser: ${USER:-me}\nSum: $((1+2))")),
    "body-script": ({}, "cat > f.sh <<EOF\n#!/bin/sh\necho ${1:-x}\nEOF"),
    "body-count": ({}, "n=3; " + BODY.format("${n} items, $((n*2)) total, ${#n}")),
    "body-array": ({}, "a=(x y); " + BODY.format("${a[1]} ${a[@]}")),
    "body-escaped": ({}, BODY.format("\\${x} \\$((y))")),
    "body-quoted": ({}, X + "cat <<'EOF'\n$((x))\nEOF"),
    # 4.
    "compgen-commands": ({}, "compgen -c ls"),
    "compgen-plain-words": ({}, "compgen -W 'start stop' st"),
    "compgen-files": ({}, "compgen -f src"),
    "compgen-options": ({}, "opts='--help --version'; compgen -W \"$opts\" -- --h"),
    "complete-plain-words": ({}, "complete -W 'build test' make"),
    # 5.
    "history-tail": ({}, "history | tail -5"),
    "fc-grep": ({}, "fc -ln | grep git"),
    "history-grep": (HIST, "history -r h; history | grep rm"),
    "history-count": ({}, "history 10"),
    # 6.
    "printf-date": ({}, "printf -v now '%(%s)T' -1; echo $now"),
    "printf-home": ({}, "printf -v x '%s' \"$HOME\"; echo $x"),
    "printf-line": ({}, "printf -v line '%*s' 40 ''; echo \"${line// /-}\""),
    "printf-message": ({}, 'x=$(date); printf -v msg \'at %s\' "$x"; echo "$msg"'),
    "printf-named-plain": ({}, "printf -v \"$name\" '%s' value"),
    "reference-append-plain": ({}, "declare -n r=out; r+=abc; echo $out"),
    "reference-function": ({}, "f(){ local -n ref=$1; ref+=x; }; s=a; f s; echo $s"),
    "read-prompt": ({}, 'read -p "$msg" ans; echo $ans'),
    "mapfile-delimiter": ({}, 'mapfile -t -d "$d" arr < f.txt'),
    "getopts-loop": ({}, 'while getopts "$opts" o; do echo $o; done'),
    "unset-element": ({}, 'unset "arr[$i]"'),
    "function-printf-return": ({}, 'f(){ printf -v "$1" %s "$2"; }; f out hello; echo $out'),
    "function-read-return": ({}, 'f(){ read -r "$1" < f.txt; }; f line; echo $line'),
    "function-reference-return": ({}, "f(){ local -n _r=$1; _r=$(date); }; f now; echo $now"),
    # 7.
    "env-count": ({}, "env x=1 bash -c 'echo $((x+1))'"),
    "env-locale": ({}, "env LANG=C bash -c 'sort f'"),
    "env-path": ({}, "env PATH=/usr/bin bash -c 'ls'"),
    "env-name": ({}, "env NAME=world bash -c 'echo hello $NAME'"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PAYLOADS, NEAR_MISSES))
def test_verdict(plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(plain_project, case, allowed, session)


# -- the harm under a real bash (a fake HOME), and the same through the engine's terminal ---------------------------
LIVE = [
    "declare -i n; n='a[$(rm -rf ~)]'",
    "declare -il n; n+='a[$(rm -rf ~)]'",
    X + "declare -i y; y+=$x",
    "declare -ai y; y[0]='a[$(rm -rf ~)]'",
    "declare -ai y; y=('a[$(rm -rf ~)]')",
    X + "case 1 in $((x))) ;; esac",
    X + BODY.format("$((x))"),
    X + BODY.format("${y[x]}"),
    X + BODY.format("${!x}"),
    "compgen -W '$(rm -rf ~)' x",
    "x='$(rm -rf ~)'; compgen -W \"$x\" a",
    "printf -v PS4 '%s' '$(rm -rf ~)'; set -x; :",
    "x=PS4; printf -v \"$x\" '$(rm -rf ~)'; set -x; :",
    "declare -n r=PS4; r+='$(rm -rf ~)'; set -x; :",
    "env x='a[$(rm -rf ~)]' bash -c 'let y=x'",
    "env x='$(rm -rf ~)' bash -c 'echo ${x@P}'",
]


@pytest.mark.parametrize("payload", LIVE)
def test_harm_stopped(tmp_path: Path, plain_harm: tuple[Engine, Path, Path], payload: str) -> None:
    """Each deletes the fake home under bash, and through the engine's terminal it is refused with the home intact."""
    engine, home, _ = plain_harm
    deleted_then_stopped(tmp_path, engine, home, payload)


@pytest.mark.parametrize(
    ("files", "payload"),
    [
        (HIST, "history -r h; history | cut -c8- | sh"),
        (HIST, "set -o history; history -r h; fc -ln -1 | bash"),
        (HIST, "set -o history; history -r h; history -p '!!' | sh"),
        (CODE, 'printf -v PS4 %s "$(cat p)"; set -x; :'),
        (CODE, "declare -n r=PS4; r=$(cat p); set -x; :"),
    ],
    ids=["history-cut", "fc-list", "history-print", "printf-ps4-read", "reference-read"],
)
def test_harm_written_stopped(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], files: dict[str, str], payload: str
) -> None:
    """A file the session wrote (a history, a prompt's text) runs under bash; through the engine it is refused."""
    engine, home, _ = plain_harm
    written_then_stopped(tmp_path, engine, home, files, payload)


@pytest.mark.parametrize(
    "command",
    [
        "declare -i n=0; for i in 1 2 3; do n+=i; done; echo $n",
        "n=2; cat <<EOF\n${n} of $((n*2))\nEOF",
        "case 4 in $((2+2))) echo four;; esac",
        "compgen -W 'start stop status' -- st",
        "history | tail -3",
        "env x=1 bash -c 'echo $((x+1))'",
    ],
)
def test_near_miss_runs(plain_harm: tuple[Engine, Path, Path], command: str) -> None:
    engine, home, _ = plain_harm
    written_then_allowed(engine, {}, command)
    assert (home / "notes.txt").is_file(), command
