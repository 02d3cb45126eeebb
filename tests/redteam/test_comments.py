"""Comment boundaries and grouping, as bash reads them.

`#` starts a comment only at the start of a word, after a blank or an operator. A
detector that starts one anywhere else hides the rest of the line; one that misses
where bash does start one only sees more than runs (never less).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from engine.policy.shell import parse
from tests.redteam.conftest import judge
from tests.redteam.harm import live_then_stopped

HIDDEN_BEHIND_A_FALSE_COMMENT = [
    "echo x\r# ; rm -rf ~",
    "echo x\u00a0# ; rm -rf ~",
    "echo x\u2003# ; rm -rf ~",
    "echo a#b; rm -rf ~",
    "echo @(a|#b) ; rm -rf ~",  # extglob group: `#` inside is part of the pattern
    "echo !(x|#y) ; rm -rf ~",
    "echo +(#) ; rm -rf ~",
    "[[ x =~ (a|#b) ]] ; rm -rf ~",  # the parenthesised part of a [[ =~ ]] regex
    "[[ x =~ ^( #) ]] && rm -rf ~",
    "((1 #\n)); rm -rf ~",  # no comments in an arithmetic command
    "(( x = 1 # )) ; rm -rf ~",
    "echo $(( 1 # )) ; rm -rf ~",
    "cat <(true)#; rm -rf ~",  # `#` right after a process substitution is literal
    "echo ${x:-#}; rm -rf ~",
    "echo $(true #)\nrm -rf ~\n)",  # the `)` is in a comment: the substitution goes on
    "# note \\\nrm -rf ~",  # a comment ends at its newline, backslash or not
    "echo ok \\\n; rm -rf ~",
    "r\\\nm -rf ~",  # a continuation joins the name back together
    "rm -r\\\nf ~",
    "a=(1 #2\n); rm -rf ~",
    # text right after an array assignment's `)` makes one word (bash assigns the string `(a)#x`)
    "values=(SAFE)#x; reboot",  # Hermes Agent's (tests/tools/test_approval_comment_boundaries.py)
    "list+=(a b)#tail; rm -rf ~",
    "m[1]=(x)y#z; rm -rf ~",
    "declare -a v=(one)#two; rm -rf ~",
    # a case statement's patterns close no substitution
    "printf '%s' $(case x in x) printf hi;; esac)#x; reboot",  # Hermes Agent's
    "echo $(case $PWD in /tmp) echo t;; (*) echo o;; esac)#c; rm -rf ~",
    "v=$(case a in a|b) echo y;; esac)#n; rm -rf ~",
    "echo $(if true; then case x in x) echo y;; esac; fi)#; rm -rf ~",
    "printf '%s' $(printf '%s' then case x in x)#; reboot",  # Hermes Agent's: `case` is only a word here
    # a `#` inside `${...}` within a substitution is text, not a comment
    "printf '%s' $(printf '%s' ${value:- # literal}); reboot",  # Hermes Agent's
    "echo $(echo ${x:- #)}); rm -rf ~",
    'echo "$(echo ${x:-a # b})"#; rm -rf ~',
    # `$` + a line continuation + `'`: one ANSI-C string (`$'\' #'` is the text `' #`)
    "printf '%s' $\\\n'\\' #'; reboot",  # Hermes Agent's
    "echo $\\\n\\\n'\\' #'; rm -rf ~",
    "echo $\\\n(rm -rf ~)",
    'echo "$\\\n(rm -rf ~)"',
]

RUNS_INSIDE_EXPANSIONS = [
    "echo $(( $(rm -rf ~) + 1 ))",
    "echo ${x:-$(rm -rf ~)}",
    "echo ${x:=`rm -rf ~`}",
    "(( $(rm -rf ~) ))",
    "echo @(a|$(rm -rf ~))",
    "[[ x =~ ($(rm -rf ~)) ]]",
    "!(rm -rf ~)",  # without extglob (bash's default), a negated subshell
    "for ((i=0; i<$(rm -rf ~); i++)); do :; done",
]

NEAR_MISSES = [
    "ls # rm -rf ~",
    "echo hi;# rm -rf ~",
    "git log --oneline # | sh",
    "echo '#' && ls",
    'echo "a #b"',
    "for ((i = 0; i < 3; i++)); do echo $i; done",
    "echo $(( 2 + 3 ))",
    "[[ $name =~ ^(foo|bar)$ ]] && echo yes",
    "ls @(a|b)",
    "x=(one two) # rm -rf ~",
    "cat <<'EOF'\nrm -rf ~ # in a here-document\nEOF",
    "echo done \\\n  && ls",
    "values=(SAFE) #x; rm -rf ~",
    "x=(a b); echo ${x[@]} # rm -rf ~",
    "printf '%s' $\\\n'it\\'s' # comment; rm -rf ~",  # Hermes Agent's shape: the rest is a comment
    "echo $(case $1 in a) echo a;; esac) # rm -rf ~",
    "echo $(echo case) # rm -rf ~",
    "echo $(echo do case x in x) # x; rm -rf ~",
    "echo $(for i in 1; do case $i in 1) echo one;; esac; done) # rm -rf ~",
    "echo $({ case x in x) echo y;; esac; }) # rm -rf ~",
    "x=$(echo ${HOME:-#x}); ls",
]


@pytest.mark.parametrize("command", HIDDEN_BEHIND_A_FALSE_COMMENT + RUNS_INSIDE_EXPANSIONS)
def test_commands_bash_runs_are_seen(engine: Engine, command: str) -> None:
    verdict = judge(engine, command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), command


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_real_comments_and_groups_stay_allowed(engine: Engine, command: str) -> None:
    assert judge(engine, command).decision == "allow", command


def test_words_keep_what_bash_keeps() -> None:
    assert parse("echo a\r#b")[0].argv == ("echo", "a\r#b")
    assert parse("echo a\u00a0#b c")[0].argv == ("echo", "a\u00a0#b", "c")
    assert parse("echo @(a|#b) c")[0].argv == ("echo", "@(a|#b)", "c")
    assert parse("echo a \\\n#b\nls")[-1].argv == ("ls",)
    assert [c.argv for c in parse("echo a;#b\nls")] == [("echo", "a"), ("ls",)]


def test_a_command_after_an_array_assignment_tail_is_stopped(tmp_path: Path, session: Engine, fake_home: Path) -> None:
    # bash assigns the string `(SAFE)#x` and runs the rest: no comment hides it
    live_then_stopped(tmp_path, session, fake_home, 'values=(SAFE)#x; rm -rf "$HOME"')
