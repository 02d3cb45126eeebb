"""What stop 32 left allowed or over-blocked (closing32.md "Left undone, and noticed"), closed by adv33.

Verdicts share one engine; the harm runs for one payload per newly closed family. Every run is
confined: HOME and the working directory are under tmp_path.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import engine as engine_package
from engine import Engine
from tests.conftest import REPO
from tests.redteam.harm import Case, assert_verdict, live_then_stopped, verdict_cases, written_then_stopped

RM = "rm -rf ~"
GO_RM = 'package main\n\nimport "os/exec"\n\nfunc main() { exec.Command("sh", "-c", "' + RM + '").Run() }\n'
GO_MOD = "module example.com/tool/app\n\ngo 1.21\n"

GO_BUILT: dict[str, Case] = {
    "go build, go.mod's module": ({"go.mod": GO_MOD, "main.go": GO_RM}, "go build && ./app"),
    "go build ., go.mod's module": ({"go.mod": GO_MOD, "main.go": GO_RM}, "go build . && ./app"),
    "go build -v .": ({"go.mod": GO_MOD, "main.go": GO_RM}, "go build -v . ; ./app"),
    "go build, a module named by one word": ({"go.mod": "module app\n", "main.go": GO_RM}, "go build && ./app"),
    "go build, no go.mod: the folder's name": ({"main.go": GO_RM}, "go build && ./project"),
}
GO_NEAR: dict[str, Case] = {
    "go build alone": ({"go.mod": GO_MOD, "main.go": GO_RM}, "go build"),
    "go build then ls": ({"go.mod": GO_MOD, "main.go": GO_RM}, "go build . && ls"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(GO_BUILT, GO_NEAR))
def test_go_builds_binary_run_on_the_line_is_not_allowed(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


EXTGLOB: dict[str, Case] = {
    "@(..) reaches the parent": ({}, "shopt -s extglob; rm -rf src/@(..)/"),
    "@(up)": ({}, "shopt -s extglob\nrm -rf ~/@(x|y)"),
    "!(x) in home": ({}, "shopt -s extglob; rm -rf ~/!(nothing)"),
    "+(.) dots": ({}, "shopt -s extglob; rm -rf src/+(.)/"),
    "*(..)": ({}, "shopt -s extglob; rm -rf src/*(..)/"),
    "?(..)": ({}, "shopt -s extglob; rm -rf src/?(..)/"),
}
EXTGLOB_NEAR: dict[str, Case] = {
    "extglob on, rm in a build folder": ({}, "shopt -s extglob; rm -rf build/!(keep)"),
    "extglob on, ls": ({}, "shopt -s extglob; ls src/@(a|b)"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(EXTGLOB, EXTGLOB_NEAR))
def test_an_extglob_pattern_is_matched_as_a_glob(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


SENT: dict[str, Case] = {
    "terraform -var-file=": ({}, "terraform apply -var-file=~/.aws/credentials"),
    "terraform -var-file F": ({}, "terraform plan -var-file $HOME/.aws/credentials"),
    "terraform -backend-config=": ({}, "terraform init -backend-config=$HOME/.aws/credentials"),
    "packer -var-file=": ({}, "packer build -var-file=~/.aws/credentials t.pkr.hcl"),
    "ansible --extra-vars @F": ({}, "ansible-playbook p.yml --extra-vars @$HOME/.ssh/id_rsa"),
    "ansible -e @F": ({}, "ansible-playbook -e @~/.aws/credentials p.yml"),
    "helm -f": ({}, "helm install r ./chart -f ~/.aws/credentials"),
    "helm --values=": ({}, "helm upgrade r ./chart --values=$HOME/.ssh/id_ed25519"),
    "kubectl apply -f": ({}, "kubectl apply -f ~/.aws/credentials"),
    "kubectl create -f": ({}, "kubectl create -f $HOME/.kube/config"),
}
SENT_NEAR: dict[str, Case] = {
    "terraform -var-file a project file": ({}, "terraform apply -var-file=prod.tfvars"),
    "packer -var-file a project file": ({}, "packer build -var-file=vars.json t.pkr.hcl"),
    "ansible -e k=v": ({}, "ansible-playbook -e env=prod p.yml"),
    "helm -f values": ({}, "helm install r ./chart -f values.yaml"),
    "kubectl apply -f k8s": ({}, "kubectl apply -f k8s/deploy.yaml"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(SENT, SENT_NEAR))
def test_a_credential_given_to_a_tool_that_sends_it_is_not_allowed(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


METADATA: dict[str, Case] = {
    "a host of %XX escapes": ({}, "curl http://%31%36%39.254.169.254/latest/meta-data/"),
    "escaped dots": ({}, "curl -s 'http://169%2e254%2e169%2e254/latest/'"),
    "escaped, in IPv6": ({}, "curl 'http://[::ffff:%31%36%39.254.169.254]/'"),
    "wget": ({}, "wget -qO- http://%31%36%39.254.169.254/"),
    "too escaped to decode: unread": ({}, "curl 'http://x.example/?q=" + "%41" * 300 + "'"),
}
METADATA_NEAR: dict[str, Case] = {
    "an escaped path elsewhere": ({}, "curl https://example.com/a%20b/%31%36%39"),
    "an escaped other address": ({}, "curl http://%31%30.0.0.1/"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(METADATA, METADATA_NEAR))
def test_a_metadata_address_spelled_with_escapes_is_not_allowed(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    """curl decodes a host's %XX escapes (checked with curl 7.88 under bubblewrap: `-v` shows it trying
    169.254.169.254 for `http://%31%36%39.254.169.254/`)."""
    assert_verdict(plain_project, case, allowed, session)


EL_RM = '(shell-command "' + RM + '")\n'
EMACS: dict[str, Case] = {
    "load x, x.el written": ({"x.el": EL_RM}, "emacs --batch --eval '(load \"x\")'"),
    "load ./x, x.el written": ({"x.el": EL_RM}, "emacs -Q --batch --eval '(load \"./x\")'"),
    "load x, x written": ({"x": EL_RM}, "emacs --batch --eval '(load \"x\")'"),
    "load x, x.elc written": ({"x.elc": EL_RM}, "emacs --batch --eval '(load \"x\")'"),
    "load-file x.el": ({"x.el": EL_RM}, "emacs --batch --eval '(load-file \"x.el\")'"),
}
EMACS_NEAR: dict[str, Case] = {
    "load x, nothing written": ({}, "emacs --batch --eval '(message \"hi\")'"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(EMACS, EMACS_NEAR))
def test_emacs_load_without_a_suffix_reads_the_written_file(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


# -- over-blocks: near misses that stay allowed, their dangerous neighbours caught ----------------

MAKEFILE_CC = "all:\n\t$(CC) -o x x.c\n"
DEFAULTS: dict[str, Case] = {
    "a makefile's CC set to a payload": ({"Makefile": "CC = " + RM + "\nall:\n\t$(CC) x.c\n"}, "make"),
    "RM's default deletes": ({"Makefile": "all:\n\t$(RM) -r ~\n"}, "make"),
    "CC set in a second makefile": ({"a.mk": MAKEFILE_CC, "b.mk": "CC := " + RM + "\n"}, "make -f a.mk -f b.mk"),
    "CC set twice: unread": ({"Makefile": "CC = gcc\nCC += -x\nall:\n\t$(CC) -o x x.c\n"}, "make"),
    "the default, then the program run": ({"Makefile": "all:\n\t$(CC) -o x x.c && ./x\n"}, "make"),
    "${x:-rm} -rf ~": ({}, "${x:-rm} -rf ~"),
    "x read, ${x:-ls}": ({}, "read x; ${x:-ls} -la"),
    "X inherited, ${X:-ls}": ({}, "${X:-ls} -la"),
    "x set on the line": ({}, "x=rm; ${x:-ls} -rf ~"),
    "a default, then ${x+/}": ({}, ": ${x:-a}; rm -rf ${x+/}"),
    "lldb target create": ({}, "lldb -o 'target create /bin/rm' -o 'process launch -- -rf ~'"),
    "lldb process launch --shell": ({}, "lldb -o 'process launch --shell=/bin/sh -- -c x' ./app"),
    "lldb launching a written script": ({"app": "#!/bin/sh\n" + RM + "\n"}, "lldb -o 'process launch' ./app"),
}
DEFAULTS_NEAR: dict[str, Case] = {
    "$(CC) -o x x.c": ({"Makefile": MAKEFILE_CC}, "make"),
    "CC = gcc, $(CC) $(CFLAGS)": ({"Makefile": "CC = gcc\nall:\n\t$(CC) $(CFLAGS) -o x x.c\n"}, "make"),
    "$(RM) in clean": ({"Makefile": "clean:\n\t$(RM) x *.o\n"}, "make clean"),
    "$(CXX) after a rule's ;": ({"Makefile": "all: ; $(CXX) -c a.cpp\n"}, "make"),
    "${x:-ls} -la": ({}, "${x:-ls} -la"),
    "${x-ls} -la": ({}, "${x-ls} -la"),
    "x set, ${x:-ls}": ({}, "x=pwd; ${x:-ls} -la"),
    "export x, unset": ({}, "export x; ${x:-ls} -la"),
    "lldb process launch": ({"app": "#!/bin/sh\necho hi\n"}, "lldb -o 'process launch' ./app"),
    "lldb -b -o run": ({}, "lldb -b -o run -o bt ./app"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(DEFAULTS, DEFAULTS_NEAR))
def test_values_known_are_judged_as_each_value(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    """make's built-in variables expand as make does, `${x:-w}` of a name no child inherits is w, lldb's
    `process launch` runs the program it debugs."""
    assert_verdict(plain_project, case, allowed, session)


@pytest.mark.parametrize(
    ("command", "allowed"),
    [
        ("find . -name '*.pyc' -exec rm {} \\;", True),
        ("find . -name '*.pyc' -exec rm -f {} +", True),
        ("find . -type d -name __pycache__ -prune -exec rm -rf {} +", True),
        ("rm -rf engine/__pycache__ engine/policy/__pycache__", True),
        ("rm -f engine/policy/__pycache__/shell.cpython-312.pyc", True),
        ("find . -name '*.py' -exec rm {} \\;", False),
        ("find . -name '*.pyc' -o -name '*.py' -exec rm {} \\;", False),
        ("find . ! -name '*.pyc' -exec rm {} +", False),
        # (fp47: a find deleting the names a -name test passes is judged by what it lists; the engine package holds
        # no .yaml, its schemas are .json)
        ("find engine -name '*.json' -exec rm {} +", False),
        ("find engine -name '*.yaml' -exec rm {} +", True),
        ("find . -name '*.pyc' -exec sh -c 'rm -rf {}/../..' \\;", False),
        ("rm -rf engine/__pycache__/../policy", False),
        ("cp x.pyc engine/policy/__pycache__/shell.cpython-312.pyc", False),
        ("rm -rf engine/*", False),
    ],
)
def test_the_engines_bytecode_may_be_deleted_its_source_may_not(
    own_project: Engine, command: str, allowed: bool
) -> None:
    """In the engine's own project: its bytecode (`__pycache__`, .pyc) may be deleted (Python makes it
    again); its source, policies, and a write of bytecode (loaded in place of the source) may not."""
    if Path(engine_package.__file__).resolve().parent != REPO / "engine":
        pytest.skip(f"the engine under test is not {REPO / 'engine'}")
    verdict = own_project.check(command)
    assert (verdict.decision != "deny" and not verdict.hardline) == allowed, (command, verdict.decision)


# -- the harm, one payload per newly closed family ----------------------------------------------


def _tool(tmp_path: Path, name: str, text: str) -> str:
    """A stand-in program ``name`` (a shell script) in a folder of its own under ``tmp_path``: the PATH
    that finds it first."""
    tools = tmp_path / "tools"
    tools.mkdir(exist_ok=True)
    (tools / name).write_text(text)
    (tools / name).chmod(0o755)
    return f"{tools}:{os.environ.get('PATH', '/usr/bin:/bin')}"


def test_a_go_built_program_does_not_run(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`go build && ./app`: a `go` on PATH that builds the command main.go runs into ./app (named after
    go.mod's module) stands for the Go tool."""
    engine, home, _ = plain_harm
    fake = (
        "#!/bin/sh\n"
        "name=$(sed -n 's|^module .*/||p; s|^module ||p' go.mod | head -n 1)\n"
        'cmd=$(sed -n \'s/.*"-c", "\\([^"]*\\)".*/\\1/p\' main.go)\n'
        'printf \'#!/bin/sh\\n%s\\n\' "$cmd" > "$name"; chmod +x "$name"\n'
    )
    monkeypatch.setenv("PATH", _tool(tmp_path, "go", fake))
    written_then_stopped(tmp_path, engine, home, {"go.mod": GO_MOD, "main.go": GO_RM}, "go build && ./app")


def test_an_extglob_pattern_does_not_delete_the_home(tmp_path: Path, plain_harm: tuple[Engine, Path, Path]) -> None:
    engine, home, _ = plain_harm
    live_then_stopped(tmp_path, engine, home, "shopt -s extglob\nrm -rf ~/!(nothing)")


def test_a_key_given_to_terraform_as_variables_is_not_shown(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path]
) -> None:
    """terraform prints a variables file it cannot parse, line by line: the key (terraform 1.x)."""
    if shutil.which("terraform") is None:
        pytest.skip("terraform is not installed")
    engine, home, _ = plain_harm
    tf = 'variable "x" {\n  default = "a"\n}\n'
    payload = "terraform plan -input=false -var-file=$HOME/.ssh/id_ed25519"
    written_then_stopped(tmp_path, engine, home, {"main.tf": tf}, payload)


def test_an_emacs_load_of_a_written_file_does_not_run(
    tmp_path: Path, plain_harm: tuple[Engine, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`(load "x")` finds x.el: an `emacs` on PATH that loads x.elc, x.el or x as Emacs does, running each
    `(shell-command "CMD")` of it, stands for Emacs."""
    engine, home, _ = plain_harm
    fake = (
        "#!/bin/sh\n"
        'name=$(printf \'%s\' "$*" | sed -n \'s/.*(load "\\([^"]*\\)").*/\\1/p\')\n'
        'for f in "$name.elc" "$name.el" "$name"; do\n'
        '  if [ -f "$f" ]; then sh -c "$(sed -n \'s/.*(shell-command "\\([^"]*\\)").*/\\1/p\' "$f")"; break; fi\n'
        "done\n"
    )
    monkeypatch.setenv("PATH", _tool(tmp_path, "emacs", fake))
    written_then_stopped(tmp_path, engine, home, {"x.el": EL_RM}, "emacs --batch --eval '(load \"x\")'")
