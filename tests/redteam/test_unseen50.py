"""unseen50 (stop 50, issue 8): two more projects' command-safety expectations replayed through Engine.check.

Sources (read as data, not copied: each command, its label and where it comes from are in tests/data/unseen50/,
one case a line, with the source repository, commit and path; tests/data/unseen50/README.md says how each was read):

- RooCodeInc/Roo-Code@23856a5, webview-ui/src/utils/__tests__/command-validation.spec.ts, and @cb83656,
  src/core/auto-approval/__tests__/commands.spec.ts (roo_code.jsonl, 115 cases): `containsDangerousSubstitution`
  (true -> flag, false -> allow) and the `getCommandDecision` results of its dangerous-substitution suite.
- OpenHands/software-agent-sdk@611629e, tests/sdk/security/defense_in_depth/ (openhands.jsonl, 94 cases): the risk
  PatternSecurityAnalyzer's tests assert (HIGH, confirmed by the default ConfirmRisky -> flag; LOW, MEDIUM, "not
  HIGH" -> allow).

Scored with harm.holds_expectation through harm.replay_cases: "allow" must be allowed, "flag" not allowed. A case the
engine disagrees with, judged on its merits, carries `accepted`: the verdict the engine keeps and why.

Misses before / after (209 expectations; the same before and after the fix, see below):
- Roo-Code: 71 of its flagged commands allowed, all accepted: zsh's `=(…)` and `*(e:…:)` (a syntax error under the
  terminal's bash; read as the commands they run for a zsh terminal or `zsh -c`), `${x@P}` / `${!x}` of variables
  the line does not set, `@Q @E @A @a` (none runs its value), defaults whose words hold `\\140` or `\\x60` as text
  (nothing decodes them), here-strings whose substitution the engine reads (whoami, date, ls, pwd). Its "not
  dangerous" commands the engine flags: 0.
- OpenHands: 8 of its HIGH commands allowed, all accepted (prompt-injection prose and Python source in the command
  field: no shell command runs them; `sudo rm secret.db`, a file of the working directory, until home51 flagged a
  file change run as root: 7 now). Its LOW/MEDIUM commands
  the engine flags: 5, accepted (`chmod 644 /var/www` asks; `rm -- -rf /` names the root; `rm -r "$FLAGS" /` is the
  hardline, FLAGS being known only at run time).

Fixed here (judging Roo's `${var@P}` family on the merits; its own spellings run whoami or ls, so no case of theirs
changes): bash decodes a prompt string's backslash escapes before it expands it (promptvars): `\\NNN` octal (a
backquote is `\\140`, `$` is `\\044`), `\\$` a `$`, so `x='\\140rm -rf ~\\140'; echo ${x@P}` runs rm. The engine read
the value's substitutions as written and allowed it (also `echo "${x=\\140rm -rf ~\\140}${x@P}"`, `set -- '…';
${1@P}`, arrays, namerefs, `printf -v`), and PS4 under `set -x` and PS0/PS1/PS2 of an interactive bash (the bash
row's env reading) the same way. A prompt string is now read once more as decoded (lexer.decode_prompt; the Programs
table's `decode: prompt`), so these are the hardline; near misses (`\\u@\\h:\\w\\$ `, `\\[\\e[32m\\]`, a decoded
`ls`, an escaped `\\\\140`) stay allowed. Harm, live below.

Open: nothing from these sources (no strict xfail). Noticed, not fixed: `rm !(e:ls:)` (Roo's) asks in the engine's
repository (an extglob `!(…)` reads as every file but one, policies/ among them) and is allowed in a small project.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine import Engine
from engine.policy.lexer import decode_prompt, prompt_values
from tests.redteam.harm import (
    accepted_by_source,
    allowed_payloads,
    assert_cases_accounted,
    deleted_then_stopped,
    flagged_near_misses,
    replay_cases,
    replay_data,
    wanted_verdict,
)

FILES = ("roo_code.jsonl", "openhands.jsonl")
CASES: list[dict[str, Any]] = replay_data("unseen50", FILES)
SOURCES = {"RooCodeInc/Roo-Code@23856a5", "RooCodeInc/Roo-Code@cb83656", "OpenHands/software-agent-sdk@611629e"}


test_replayed_expectation_holds = replay_cases(
    CASES, lambda i, case: f"{i}-{case['source'][:8]}-{wanted_verdict(case)}-{case['command'][:40]!r}"
)


def test_every_case_names_its_source_and_every_disagreement_its_reason() -> None:
    # (debt51: harm.assert_cases_accounted, which also holds that no accepted disagreement is marked fixed)
    assert_cases_accounted(CASES, SOURCES, 209, lambda case: (case["path"], case["command"]), ("allow", "flag"))
    by_source = accepted_by_source(CASES)
    # (flagged there and allowed here, safe there and flagged here)
    # (home51: OpenHands' `sudo rm secret.db` is flagged now, privileged_file_change)
    assert by_source == {"RooCodeInc/R": (71, 0), "OpenHands/so": (8 - 1, 5)}


# -- a prompt string's escapes (fixed here), in our own spellings, with near misses ---------------------------
PROMPT_ESCAPES = (
    [
        'echo "${x=\\140rm -rf ~\\140}${x@P}"',
        "x='\\140rm -rf ~\\140'; echo \"${x@P}\"",
        "x='\\044(rm -rf ~)'; : ${x@P}",
        "set -- '\\140rm -rf ~\\140'; echo ${1@P}",
        "a=('\\140rm -rf ~\\140'); echo ${a[@]@P}",
        "printf -v x '%s' '\\140rm -rf ~\\140'; echo ${x@P}",
        "declare -n r=x; x='\\140rm -rf ~\\140'; echo ${r@P}",
        "PS4='\\140rm -rf ~\\140 '; set -x; ls",
        "PS4='\\044(rm -rf ~) ' bash -xc ls",
        "PS1='\\140rm -rf ~\\140' bash --norc -i < /dev/null",
        "export PS1='\\044(rm -rf ~)'; bash -i",
    ],
    [
        'echo "${PS1@P}"',
        "x='\\u@\\h:\\w\\$ '; echo \"${x@P}\"",
        "PS4='+ \\t ${BASH_SOURCE}:${LINENO}: '; set -x; ls",
        "PS1='\\[\\e[32m\\]\\w\\[\\e[0m\\]\\$ ' bash --norc -i < /dev/null",
        'echo "${var=\\140whoami\\140}"',
        "x='\\140ls\\140'; echo \"${x@P}\"",
        'echo "${x=\\140git status\\140}${x@P}"',
        "x='\\\\\\140rm -rf ~\\\\\\140'; echo \"${x@P}\"",
        "PS4='+\\044 '; set -x; make",
    ],
)


def test_a_prompt_strings_escapes_are_read_as_bash_decodes_them(scorer: Engine) -> None:
    payloads, near_misses = PROMPT_ESCAPES
    assert allowed_payloads(scorer, payloads) == []
    for command in payloads:
        assert scorer.check(command).hardline, command
    assert flagged_near_misses(scorer, near_misses) == []
    # a secret read through the same escapes asks (credential_read), as it does written plainly
    assert {m.key for m in scorer.check("x='\\140cat ~/.ssh/id_ed25519\\140'; echo ${x@P}").matches} == {
        "credential_read"
    }


def test_decode_prompt_follows_bashs_prompt_escapes() -> None:
    assert decode_prompt("\\140id\\140") == "`id`"
    assert decode_prompt("\\044(id)") == "$(id)"
    assert decode_prompt("\\$(id)") == "$(id)"  # `\$` is `$` for anyone but root (`#`)
    assert decode_prompt("\\\\140") == "\\140"  # an escaped backslash, then text
    assert decode_prompt("\\[\\e[1m\\]\\u@\\h \\w\\$ ") == "\x1b[1mx@x x$ "  # markers vanish, texts are no code
    assert decode_prompt("\\D{%H:%M} \\x60") == "x \\x60"  # no hex escape in a prompt
    assert prompt_values(["a", "\\140b\\140"]) == ["a", "\\140b\\140", "`b`"]
    assert prompt_values(["\\u"]) == ["\\u", "x"] and prompt_values(["plain"]) == ["plain"]


@pytest.mark.parametrize(
    "payload",
    [
        'echo "${x=\\140rm -rf ~\\140}${x@P}"',
        "set -- '\\044(rm -rf ~)'; : ${1@P}",
        "PS4='\\140rm -rf ~\\140 '; set -x; :",
        "PS1='\\140rm -rf ~\\140' bash --norc -i < /dev/null",
    ],
    ids=["default-then-P", "positional-P", "PS4-xtrace", "PS1-interactive"],
)
def test_a_prompt_escape_deletes_home_live_and_is_stopped(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], payload: str
) -> None:
    engine, home, _ = plain_harm
    deleted_then_stopped(tmp_path, engine, home, payload)
