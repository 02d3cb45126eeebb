"""stop 50, subst50 (issue 8): words the engine cannot read, in places that run.

The family: a piece of a command whose text only the run knows (a substitution's output, a parameter expansion with
an operator, an option a file holds, an escape bash decodes otherwise than the engine) reaches a place that runs it:
an interpreter's program pasted from a here-document, a program's options, an executor's command, a command name.

Fixed (each harm shown live below, under bash with a fake HOME):

1. An unquoted here-document's expansions are done by bash before its reader parses the text: `python3 <<EOF` /
   `$(cat f)` runs the file's text as python (a backquote, `${x#a}`, `${x/a/b}`, `$((n+1))`, a stored `$x` alike;
   `bash <<EOF` / `echo $(cat f)` runs what f says). A piece the line does not make known is read as unknown code:
   a shell or an interpreter reading the body asks (stored_code, as a here-string does). A known value is computed
   with the command-word code (shell.Analyzer._pasted_expansion) and pasted in, then judged. A plain `$NAME` the
   line never set is the environment's (adv49), `${x:-a}` of one too (the default is read as for a command word).
2. Options from words only the run knows (options_of_unknown_words, generalised from xf49b): an option of
   `option_names` given such a value (`ssh -o "$(cat o.txt)" h`), each subcommand level (`docker run $(cat args)`:
   run has `-v`), and a permuting program (tar, sort, rsync, zip, gzip) given a substitution or a stored variable
   anywhere before `--`. Decision on `tar czf x.tgz $(git ls-files)`: a real attack when the caller controls the
   repository's files (it writes them and `git add`s them: a tracked `--checkpoint-action=exec=sh<x.sh` runs x.sh,
   live), so the index is read (gitindex, as fp49's listings are): allowed when no name it prints starts with `-` or
   holds a blank or a glob character, asked otherwise. The environment's variables stay allowed.
3. apply pastes each argument's text into the line sh runs: each word after the command is judged as a shell line
   too (xf49b's strict xfail `apply 'sh -c "%1"' 'rm -rf ~'` is a plain test there now).
4. `decode_ansi_c` read `$'...'` otherwise than bash 5.2 (compared here with a real bash over generated escapes):
   `r$'\\UFFFFFFFF'm -rf ~` (bash: a `\\U` from 0x80000000 on is nothing, the word is `rm`) was allowed and deleted
   the home; `$'\\x'`, `$'\\u'`, `$'\\U'` without a hex digit and `$'\\8'` keep their backslash (`$'\\8'` raised and
   asked as unparseable); `$'\\c?'` is DEL, `$'\\c\\\\'` one control character.

Closed by subst51 (test_subst51.py): a verb's own permuted options from a substitution (`git log $(cat f)` with
`--output=FILE`, harm live). Not done: merge49's `_not_a_program` still asks the system's PATH (the Programs table
describes only some of the programs that make names: moving it there would let an undescribed one through).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from engine.policy.lexer import decode_ansi_c
from tests.redteam.conftest import home_intact
from tests.redteam.harm import Case, assert_verdict, policy_project, run_confined, verdict_cases

_GIT = "git -c user.name=a -c user.email=a@b"
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _repository(folder: Path, names: list[str]) -> None:
    """A git repository tracking ``names`` (committed, before the session)."""
    folder.mkdir()
    for name in names:
        (folder / name).write_text("x\n")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    for step in ("git init -q", "git add -A", f"{_GIT} commit -qm m"):
        subprocess.run(step, shell=True, cwd=folder, env=env, check=True, capture_output=True, timeout=30)


def _prepare(root: Path, _mp: pytest.MonkeyPatch) -> None:
    (root / "a.py").write_text("print(1)\n")
    if shutil.which("git") is not None:
        _repository(root / "clean", ["m.py", "README.md"])
        _repository(root / "dash", ["m.py", "--checkpoint=1", "--checkpoint-action=exec=sh<x.sh"])
    (root / "src").mkdir()
    (root / "src" / "m.py").write_text("x = 1\n")
    old = time.time() - 3600
    for path in root.rglob("*"):
        os.utime(path, (old, old), follow_symlinks=False)


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    with policy_project(tmp_path_factory, "subst50", "kind: ApprovalPolicy\n", _prepare) as project:
        yield project


PAYLOADS: dict[str, Case] = {
    # 1. a here-document pasting what only the run knows into an interpreter's (a shell's) program
    "py-heredoc-substitution": ({}, "python3 <<EOF\n$(cat f)\nEOF"),
    "py-heredoc-backquote": ({}, "python3 <<EOF\n`cat f`\nEOF"),
    "py-heredoc-in-a-string": ({}, 'python3 - <<EOF\nprint("$(cat f)")\nEOF'),
    "py-heredoc-default-substitution": ({}, 'python3 <<EOF\nprint("${x:-$(cat f)}")\nEOF'),
    "py-heredoc-removal": ({}, "python3 <<EOF\n${x#a}\nEOF"),
    "py-heredoc-replace": ({}, "python3 <<EOF\n${x/a/b}\nEOF"),
    "py-heredoc-arith": ({}, "python3 <<EOF\nn = $((n + 1))\nEOF"),
    "py-heredoc-stored": ({}, 'x=$(cat f); python3 <<EOF\nprint("$x")\nEOF'),
    "py-heredoc-known-removal": ({}, "x='aimport os; os.system(\"rm -rf ~\")'; python3 <<EOF\n${x#a}\nEOF"),
    "py-heredoc-default-code": ({}, 'python3 <<EOF\n${x:-import os; os.system("rm -rf ~")}\nEOF'),
    "node-heredoc-substitution": ({}, "node <<EOF\n$(cat f)\nEOF"),
    "bash-heredoc-substitution": ({}, "bash <<EOF\necho $(cat f)\nEOF"),
    "bash-heredoc-default": ({}, "bash <<EOF\necho ${x:-a;rm -rf ~}\nEOF"),
    # 2. options from words only the run knows
    "ssh-option-value": ({}, 'ssh -o "$(cat o.txt)" h'),
    "ssh-option-value-attached": ({}, 'ssh -o"$(cat o.txt)" h true'),
    "tar-list": ({}, "tar czf x.tgz $(cat list)"),
    "tar-quoted": ({}, 'tar czf x.tgz "$(cat f)"'),
    "tar-backquote": ({}, "tar cf x.tar src `cat f`"),
    "tar-stored": ({}, "x=$(cat f); tar cf x.tar $x"),
    "tar-ls-files-dash": ({}, "cd dash && tar czf ../x.tgz $(git ls-files)"),
    "sort-list": ({}, "sort $(cat files)"),
    "zip-list": ({}, "zip d.zip $(cat list)"),
    "docker-run-args": ({}, "docker run $(cat args)"),
    "docker-run-args-quoted": ({}, 'docker run "$(cat args)" alpine'),
    "docker-args": ({}, "docker $(cat args)"),
    "docker-run-stored": ({}, "x=$(cat a); docker run $x"),
    # 3. apply pastes its arguments into the line sh runs
    "apply-quoted-percent": ({}, "apply 'sh -c \"%1\"' 'rm -rf ~'"),
    "apply-separator": ({}, "apply 'echo %1' 'x; rm -rf ~'"),
    # 4. escapes decoded as bash decodes them
    "ansi-c-negative-U": ({}, "r$'\\UFFFFFFFF'm -rf ~"),
    "ansi-c-high-U": ({}, "r$'\\U80000000'm -rf ~"),
}
NEAR_MISSES: dict[str, Case] = {
    "py-heredoc-literal": ({}, "python3 <<EOF\nprint(1)\nEOF"),
    "py-heredoc-dash-literal": ({}, "python3 - <<'EOF'\nprint('$(cat f)')\nEOF"),
    "py-heredoc-env": ({}, 'python3 <<EOF\nprint("$HOME")\nEOF'),
    "py-heredoc-known-removal": ({}, 'v=1.2.3; python3 <<EOF\nprint("${v%.*}")\nEOF'),
    "py-heredoc-known-arith": ({}, "n=3; python3 <<EOF\nprint($((n * 2)))\nEOF"),
    "py-heredoc-default": ({}, 'python3 <<EOF\nprint("${x:-a}")\nEOF'),
    "py-heredoc-length": ({}, 'python3 <<EOF\nprint("${#x}")\nEOF'),
    "cat-heredoc-substitution": ({}, "cat > notes.md <<EOF\n$(date) ${x:-a}\nEOF"),
    "git-commit-heredoc": ({}, "git commit -F - <<EOF\nfix: $(date +%F)\nEOF"),
    "ssh-plain": ({}, "ssh h uptime"),
    "ssh-key-variable": ({}, 'ssh -i "$KEY" h uptime'),
    "tar-plain": ({}, "tar czf src.tgz src"),
    "tar-ls-files-clean": ({}, "cd clean && tar czf ../x.tgz $(git ls-files)"),
    "tar-home-variable": ({}, 'tar czf x.tgz "$HOME/src"'),
    "tar-dated-name": ({}, 'tar czf "$(date +%F).tgz" src'),
    "tar-into-temp": ({}, 'tar -C "$(mktemp -d)" -xzf a.tgz'),
    "docker-plain": ({}, "docker run --rm alpine echo hi"),
    "docker-image-variable": ({}, 'docker run --rm "$IMAGE" ls'),
    "docker-env-value": ({}, 'docker run -e "X=$(cat f)" alpine env'),
    "docker-pwd-mount": ({}, 'docker run --rm -v "$(pwd):/w" alpine ls'),
    "docker-exec-ps": ({}, "docker exec -it $(docker ps -q) sh"),
    "git-log-base": ({}, "git log $(git merge-base a b)..HEAD"),
    "git-toplevel": ({}, 'git -C "$(git rev-parse --show-toplevel)" status'),
    "pip-install-list": ({}, "pip install $(cat reqs.txt)"),
    "apply-echo": ({}, "apply 'echo %1' a b"),
    "apply-gzip": ({}, "apply 'gzip %1' a.log b.log"),
    "ansi-c-backslash-8": ({}, "echo $'\\8'"),
    "ansi-c-x-no-digit": ({}, "printf '%s\\n' $'a\\xb'"),
    "printf-quoted-variable": ({}, "printf '%s\\n' \"$x\""),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PAYLOADS, NEAR_MISSES))
def test_unreadable_words_in_places_that_run(
    loaded: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(loaded, case, allowed, session)


# -- 1. here-documents, live ----------------------------------------------------------------------------------------
_REMOVE_NOTE = 'import os; os.remove(os.path.expanduser("~/notes.txt"))'


@pytest.mark.skipif(shutil.which("python3") is None, reason="needs python3")
def test_a_heredoc_pastes_a_files_text_into_python_live(tmp_path: Path, loaded: tuple[Path, Engine]) -> None:
    """1. bash runs `$(cat f)` in an unquoted body before python3 reads it: python runs the file's text."""
    setup = f"printf '%s\\n' '{_REMOVE_NOTE}' > f\n"
    home, _, printed = run_confined(tmp_path, setup + "python3 <<EOF\n$(cat f)\nEOF")
    assert not (home / "notes.txt").exists(), printed
    home, _, printed = run_confined(tmp_path / "removal", f"x='a{_REMOVE_NOTE}'\npython3 <<EOF\n${{x#a}}\nEOF")
    assert not (home / "notes.txt").exists(), printed
    shell_payload = "echo '; rm -f ~/notes.txt' > f\nbash <<EOF\necho $(cat f)\nEOF"
    home, _, printed = run_confined(tmp_path / "shell", shell_payload)
    assert not (home / "notes.txt").exists(), printed
    engine = loaded[1]
    assert engine.check("python3 <<EOF\n$(cat f)\nEOF").decision != "allow"
    assert engine.check(f"x='a{_REMOVE_NOTE}'; python3 <<EOF\n${{x#a}}\nEOF").decision != "allow"
    assert engine.check("bash <<EOF\necho $(cat f)\nEOF").decision != "allow"
    home, _, printed = run_confined(tmp_path / "near", "v=1.2.3; python3 <<EOF\nprint('${v%.*}')\nEOF")
    assert printed == "1.2\n" and home_intact(home)


def test_a_known_expansion_is_pasted_into_the_program_it_reads(loaded: tuple[Path, Engine]) -> None:
    """A value the line makes known is computed (as a command word's) and judged as the text the reader parses."""
    engine = loaded[1]
    verdict = engine.check("x='a;rm -rf ~/.ssh'; bash <<EOF\necho ${x#a}\nEOF")
    assert verdict.decision != "allow"
    verdict = engine.check("x='aimport os; os.system(\"rm -rf /\")'; python3 <<EOF\n${x#a}\nEOF")
    assert verdict.decision == "deny", verdict
    keys = {m.key for m in engine.check("python3 <<EOF\n$(cat f)\nEOF").matches}
    assert "stored_code" in keys


# -- 2. options from unknown words, live ----------------------------------------------------------------------------
@pytest.mark.skipif(shutil.which("tar") is None, reason="needs tar")
def test_tar_options_from_a_file_list_run_a_program_live(tmp_path: Path, loaded: tuple[Path, Engine]) -> None:
    """2. A name list whose names are tar options: `--checkpoint-action=exec=sh x.sh` runs x.sh (GNU tar)."""
    setup = (
        "printf 'rm -f ~/notes.txt\\n' > x.sh; touch m.py\n"
        "printf '%s\\n' m.py --checkpoint=1 '--checkpoint-action=exec=sh x.sh' > list\n"
        "IFS=$'\\n'\n"
    )
    home, _, printed = run_confined(tmp_path, setup + "tar cf x.tar $(cat list)")
    assert not (home / "notes.txt").exists(), printed
    quoted = "printf 'rm -f ~/notes.txt\\n' > x.sh; touch m.py; printf -- '--use-compress-program=sh x.sh' > c.txt\n"
    home, _, printed = run_confined(tmp_path / "quoted", quoted + 'tar cf x.tar m.py "$(cat c.txt)"; true')
    assert not (home / "notes.txt").exists(), printed
    engine = loaded[1]
    assert engine.check("tar cf x.tar $(cat list)").decision != "allow"
    assert engine.check('tar cf x.tar m.py "$(cat c.txt)"').decision != "allow"
    home, _, printed = run_confined(tmp_path / "near", "mkdir src; touch src/m.py; tar czf src.tgz src && echo ok")
    assert printed == "ok\n" and home_intact(home)


@needs_git
@pytest.mark.skipif(shutil.which("tar") is None, reason="needs tar")
def test_tracked_names_that_are_tar_options_run_a_program_live(tmp_path: Path, loaded: tuple[Path, Engine]) -> None:
    """2. `tar czf x.tgz $(git ls-files)`: the tracked names are the caller's to choose (it writes the files and can
    `git add` them): `--checkpoint-action=exec=sh<x.sh` tracked runs x.sh. The index is read (gitindex): a repository
    whose tracked names hold none starting with `-`, a blank or a glob character stays allowed (`clean`)."""
    names = "m.py --checkpoint=1 '--checkpoint-action=exec=sh<x.sh'"
    setup = (
        f"printf 'rm -f ~/notes.txt\\n' > x.sh; touch -- {names}\n"
        f"git init -q && git add -- {names} && {_GIT} commit -qm m\n"
    )
    home, _, printed = run_confined(tmp_path, setup + "tar czf x.tgz $(git ls-files)")
    assert not (home / "notes.txt").exists(), printed
    engine = loaded[1]
    assert engine.check("cd dash && tar czf ../x.tgz $(git ls-files)").decision != "allow"
    assert engine.check("cd clean && tar czf ../x.tgz $(git ls-files)").decision == "allow"


@pytest.mark.skipif(shutil.which("ssh") is None, reason="needs ssh")
def test_an_ssh_option_value_from_a_file_runs_a_program_live(tmp_path: Path, loaded: tuple[Path, Engine]) -> None:
    """2. `ssh -o "$(cat o.txt)" h`: quoted, the substitution is one word, and `-o` reads it as `ProxyCommand=...`."""
    setup = "printf 'rm -f ~/notes.txt\\n' > x.sh; printf 'ProxyCommand=sh x.sh' > o.txt\n"
    home, _, printed = run_confined(tmp_path, setup + 'timeout 10 ssh -F /dev/null -o "$(cat o.txt)" h true; true')
    assert not (home / "notes.txt").exists(), printed
    assert loaded[1].check('ssh -o "$(cat o.txt)" h').decision != "allow"


def test_keys_of_the_option_readings(loaded: tuple[Path, Engine]) -> None:
    """The rule that asks is options_of_unknown_words (docker's args file: `-v /:/host`, `--privileged` from it)."""
    engine = loaded[1]
    for command in ("docker run $(cat args)", 'ssh -o "$(cat o.txt)" h', "tar czf x.tgz $(cat list)"):
        keys = {m.key for m in engine.check(command).matches}
        assert "options_of_unknown_words" in keys, (command, keys)


@needs_git
def test_a_verbs_permuted_option_from_a_file_writes_live(tmp_path: Path) -> None:
    """Open: `git log $(cat f)` with f holding `--output=FILE` overwrites FILE (git's verbs permute their options)."""
    setup = f'git init -q && {_GIT} commit -q --allow-empty -m m\nprintf -- "--output=$HOME/notes.txt" > f\n'
    home, _, printed = run_confined(tmp_path, setup + "git log $(cat f)")
    assert (home / "notes.txt").read_text() != "keep me\n", printed


def test_a_verbs_permuted_option_from_a_file(loaded: tuple[Path, Engine]) -> None:
    """(subst51) closed: a verb's operand from a substitution printing anything may be its option (the table's
    `substitution_words:`), while one printing revisions is none."""
    assert loaded[1].check("git log $(cat f)").decision != "allow"
    for command in ("git log $(git merge-base a b)..HEAD", "git diff $(git merge-base main HEAD)"):
        assert loaded[1].check(command).decision == "allow", command


# -- 3. apply, emulated live -----------------------------------------------------------------------------------------
def test_apply_pastes_an_argument_into_its_line_emulated(tmp_path: Path, loaded: tuple[Path, Engine]) -> None:
    """3. BSD apply is not on Linux: a function doing what apply(1) does (`%1` replaced by the argument's text, the
    line run by sh) shows both spellings removing the key; the engine denies the real ones."""
    emulated = 'apply() { c=$1; shift; for a; do sh -c "${c//%1/$a}"; done; }\n'
    home, _, printed = run_confined(tmp_path, emulated + "apply 'sh -c \"%1\"' 'rm -rf ~/.ssh'")
    assert not (home / ".ssh").exists(), printed
    home, _, printed = run_confined(tmp_path / "separator", emulated + "apply 'echo %1' 'x; rm -rf ~/.ssh'")
    assert not (home / ".ssh").exists(), printed
    engine = loaded[1]
    assert engine.check("apply 'sh -c \"%1\"' 'rm -rf ~'").decision == "deny"
    assert engine.check("apply 'echo %1' 'x; rm -rf ~'").decision == "deny"
    home, _, printed = run_confined(tmp_path / "near", emulated + "apply 'echo %1' a b")
    assert printed == "a\nb\n" and home_intact(home)


# -- 4. $'...' against a real bash ----------------------------------------------------------------------------------
_HEADS = ["x", "u", "U", "c", "0", "1", "7", "8", "9", "", "a", "e", "E", "q", "\\\\", "?", '"', "n", "t"]
_TAILS = [
    "", "z", "g", "0", "1", "4", "7", "9", "f", "F", "A", "?", "@", "[", "\\\\", "]", "^", "_", "a", "~", "1f", "41",
    "7f", "00e9", "0001F600", "D800", "10FFFF", "110000", "7FFFFFFF", "80000000", "FFFFFFFF", "400", "777", "12",
    "123", "1234", "12345", "\\\\z", "\\'", '"', " ",
]  # fmt: skip


def _bash_values(bodies: list[str]) -> list[bytes]:
    script = "".join(f"printf '%s' $'{body}' | od -An -v -tx1; echo @\n" for body in bodies)
    done = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        text=True,
        env={"LC_ALL": "C.UTF-8", "PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        timeout=60,
        check=True,
    )
    return [bytes.fromhex("".join(chunk.split())) for chunk in done.stdout.split("@\n")[:-1]]


@pytest.mark.skipif(shutil.which("bash") is None or shutil.which("od") is None, reason="needs bash and od")
def test_ansi_c_strings_decode_as_bash_decodes_them() -> None:
    """Every escape of a generated set (each head with each tail, then `z`) decodes to the bytes bash 5.2 gives in a
    UTF-8 locale. A lone byte from 0x80 (`\\xff`, `\\777`) is a character of its own here (str), not compared."""
    bodies = [
        body
        for body in ("\\" + head + tail + "z" for head in _HEADS for tail in _TAILS)
        if re.search(r"(?<!\\)(\\\\)*'", body) is None  # (an unescaped quote would end the string)
    ]
    differ = []
    for body, value in zip(bodies, _bash_values(bodies), strict=True):
        mine = decode_ansi_c(body).split("\0", 1)[0].encode("utf-8", "surrogatepass")
        if mine != value and max(value, default=0) < 0x80:
            differ.append((body, value, mine))
    assert len(bodies) > 600
    assert not differ, differ[:10]


def test_a_negative_unicode_escape_spells_rm_live(tmp_path: Path, loaded: tuple[Path, Engine]) -> None:
    home, _, printed = run_confined(tmp_path, "r$'\\UFFFFFFFF'm -rf ~/.ssh")
    assert not (home / ".ssh").exists(), printed
    assert loaded[1].check("r$'\\UFFFFFFFF'm -rf ~/.ssh").decision != "allow"
    home, _, printed = run_confined(tmp_path / "near", "echo $'\\8' $'a\\xb'")
    assert printed == "\\8 a\x0b\n" and home_intact(home)
