"""Engine files written by a name INSIDE a program's text (adv24b family 3).

The engine's own files (policies/, manifests/, toolsets/, handlers/, hermes-engine.yaml) were
written through a file name the command line does not show as an operand: sed's `w FILE`,
`W FILE` and `s///w FILE` (sed is a known reader, so engine_files_unknown_writer did not fire),
perl's `open F, ">FILE"` (the mode glued to the name hid the path from the inline-code rule), and
an archive created under a manifest's name (`zip policies/e.yaml x`, `tar cf …`, `7z a …`).

Now sed's and ed's scripts are read for the files they write (`tee FILE`) and read (`cat FILE`),
an inline program's open-for-write targets are judged as `tee FILE` (a name it computes: as a
computed name, an ask), and the archive an archiver creates is a write target
(policies/executors.yaml, policies/writers.yaml). Each payload is shown to change the policy under
bash in a copy of the project; through the engine's terminal (nobody to approve) the policy stays
as it was. HOME, state and config are temporary (asserted before anything runs).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import RUN_SECONDS

POLICY = "kind: ApprovalPolicy\ndeny: ['npm publish*']\n"

# name -> payload; each writes (or adds) an engine file when bash runs it in the project
PAYLOADS = {
    "sed w FILE": "sed -n 'w policies/deny.yaml' x.txt",
    "sed W FILE": "sed -n 'W policies/deny.yaml' x.txt",
    "sed s///w FILE": "sed 's/^//w policies/deny.yaml' x.txt",
    "sed w in a block": "sed -e '1{w policies/deny.yaml' -e '}' x.txt",
    "sed w a new manifest": "sed -n '1w policies/new.yaml' x.txt",
    "sed --expression": "sed -n --expression='1w policies/deny.yaml' x.txt",
    "sed -f a script written first": "printf '1w policies/deny.yaml\\n' > s.sed && sed -n -f s.sed x.txt",
    "sed -f - from a here-string": "sed -n -f - x.txt <<< 'w policies/deny.yaml'",
    "sed w after a cd": "cd policies && sed -n 'w deny.yaml' ../x.txt",
    "ed w FILE": "ed -s x.txt <<< 'w policies/deny.yaml'",
    "perl -ne open >FILE": "perl -ne 'open F, \">policies/deny.yaml\"; print F' x.txt",
    "perl open >>FILE": 'perl -e \'open(F, ">>policies/deny.yaml") or die; print F "mode: off\\n"\'',
    "perl 3-argument open": 'perl -e \'open(my $f, ">", "policies/deny.yaml"); print $f "mode: off\\n"\'',
    "perl open a computed name": 'perl -e \'$d = "polic"; open F, ">${d}ies/deny.yaml"; print F "x"\'',
    "awk print > FILE": "awk '{print > \"policies/deny.yaml\"}' x.txt",
    "awk printf >> FILE": 'awk \'{printf "%s\\n", $0 >> "policies/deny.yaml"}\' x.txt',
    "awk print > a computed name": 'awk \'{print > ("polic" "ies/deny.yaml")}\' x.txt',
    "python open a joined name": "python3 -c \"d = 'poli' + 'cies'; open(d + '/deny.yaml', 'w').write('x')\"",
    "python Path.write_text": "python3 -c \"import pathlib; pathlib.Path('policies/deny.yaml').write_text('x')\"",
    "python open a computed name": (
        "python3 -c \"import os; open(os.path.join(*['policies', 'deny.yaml']), 'w').write('x')\""
    ),
    "node writeFileSync a computed name": (
        "node -e \"require('fs').writeFileSync(['policies', 'deny.yaml'].join('/'), 'x')\""
    ),
    # the program's own change of folder moves its relative writes (adv25)
    "python chdir into policies, then open": (
        "python3 -c \"import os; os.chdir('policies'); open('deny.yaml', 'w').write('mode: off')\""
    ),
    "python chdir in steps, then Path.write_text": (
        "python3 -c \"import os, pathlib; os.chdir('policies'); pathlib.Path('deny.yaml').write_text('x')\""
    ),
    "python chdir to a computed folder": (
        "python3 -c \"import os, sys; os.chdir(sys.argv[1]); open('deny.yaml', 'w').write('x')\" policies"
    ),
    "node process.chdir, then writeFileSync": (
        "node -e \"process.chdir('policies'); require('fs').writeFileSync('deny.yaml', 'x')\""
    ),
    "perl chdir, then open": 'perl -e \'chdir "policies"; open(F, ">deny.yaml"); print F "x"\'',
    # ... and the commands it runs: after its chdir, or in a folder the call names (cwd=, {cwd: ...})
    "python chdir, then os.system cp": (
        "python3 -c \"import os; os.chdir('policies'); os.system('cp ../x.txt deny.yaml')\""
    ),
    "python subprocess.run cwd=": (
        "python3 -c \"import subprocess; subprocess.run(['cp', '../x.txt', 'deny.yaml'], cwd='policies')\""
    ),
    "node execSync {cwd}": (
        "node -e \"require('child_process').execSync('cp ../x.txt deny.yaml', {cwd: 'policies'})\""
    ),
    # a writer called under another name
    "python open under another name (computed)": "python3 -c \"f = open; f('policies/deny.yaml', 'w')\"",
    "python from io import open as o (computed)": (
        "python3 -c \"from io import open as o; o('policies/deny.yaml', 'w')\""
    ),
    "python getattr(builtins, 'open')": (
        "python3 -c \"import builtins; getattr(builtins, 'open')('policies/deny.yaml', 'w').write('x')\""
    ),
    "node destructured writeFileSync: w": (
        "node -e \"const {writeFileSync: w} = require('fs'); w('policies/deny.yaml', 'x')\""
    ),
    # Tcl: an inline language (its program from stdin, a here-string or a written script)
    "tclsh reading its program from a pipe": (
        "echo 'set f [open policies/deny.yaml w]; puts $f {mode: off}; close $f' | tclsh"
    ),
    "tclsh here-string, cd then open": "tclsh <<< 'cd policies; set f [open deny.yaml a]; puts $f x; close $f'",
    "tclsh file copy": "echo 'file copy -force x.txt policies/deny.yaml' | tclsh",
    "tclsh open with flags": "echo 'set f [open policies/deny.yaml {WRONLY TRUNC}]; close $f' | tclsh",
    "zip a new manifest": "zip -q policies/e.yaml x.txt",
    "tar cf a manifest": "tar cf policies/deny.yaml x.txt",
    "tar --create --file": "tar --create --file=policies/e.yaml x.txt",
}


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    """A small project (a policy and the caller's `x.txt`) and its engine, shared by the module.
    HOME, state and config are temporary."""
    tmp = tmp_path_factory.mktemp("engine-files")
    with pytest.MonkeyPatch.context() as mp:
        (tmp / "home").mkdir()
        mp.setenv("HOME", str(tmp / "home"))
        mp.setenv("XDG_STATE_HOME", str(tmp / "state"))
        mp.setenv("XDG_CONFIG_HOME", str(tmp / "config"))
        root = tmp / "project"
        (root / "policies").mkdir(parents=True)
        (root / "hermes-engine.yaml").write_text("workdir: .\n")
        with Engine.load(root) as engine:
            yield root, engine


@pytest.fixture
def project(loaded: tuple[Path, Engine], monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Engine]:
    root, engine = loaded
    for extra in (root / "policies").iterdir():
        extra.unlink()
    for extra in root.iterdir():
        if extra.name not in ("policies", "hermes-engine.yaml"):
            extra.unlink()
    (root / "policies" / "deny.yaml").write_text(POLICY)
    (root / "x.txt").write_text("mode: off\n")
    monkeypatch.setenv("HOME", str(root.parent / "home"))
    monkeypatch.chdir(root)
    return root, engine


def _policies(root: Path) -> dict[str, str]:
    return {p.name: p.read_text(errors="replace") for p in sorted((root / "policies").iterdir())}


def _needs(command: str) -> None:
    for program in ("sed", "ed", "perl", "awk", "python3", "node", "zip", "tar", "tclsh"):
        named = (
            f"{program} -" in command
            or command.startswith(f"{program} ")
            or f"&& {program} " in command
            or command.endswith(f"| {program}")
        )
        if named and shutil.which(program) is None:
            pytest.skip(f"{program} is not installed")


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_a_file_named_in_a_programs_text_is_judged_as_written(
    project: tuple[Path, Engine], tmp_path: Path, name: str
) -> None:
    root, engine = project
    command = PAYLOADS[name]
    _needs(command)
    assert Path.cwd() == root and Path(os.environ["HOME"]).parent == root.parent
    # The harm, under bash in a copy of the project: the policy is rewritten or a manifest added.
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    subprocess.run(["bash", "-c", command], cwd=copy, env=env, check=False, capture_output=True, timeout=RUN_SECONDS)
    assert _policies(copy) != {"deny.yaml": POLICY}, "the payload does no harm: the test proves nothing"
    # Through the engine: refused (a literal name is a hardline deny; a computed one asks), nothing runs.
    verdict = engine.check(command)
    assert verdict.decision != "allow", (command, verdict)
    if "computed" not in name:
        assert (verdict.decision, verdict.hardline) == ("deny", True), (command, verdict)
    result = engine.call("terminal", {"command": command})
    assert not result.ok, command
    assert _policies(root) == {"deny.yaml": POLICY}, "the policy was rewritten or a manifest added"


# The same readings give every other rule about a written or read file its say (verdicts only).
ASKED = [
    "sed -n 'w ~/.bashrc' x.txt",  # a start-up file
    "sed '1r ~/.ssh/id_ed25519' x.txt",  # a credential read into the output
    'perl -e \'open F, ">>$ENV{HOME}/.bashrc"; print F "x"\'',
    "python3 -c \"open(os.path.expanduser('~/.bashrc'), 'a').write('x')\"",
    'ruby -e \'File.write(Dir.home + "/.bashrc", "x")\'',
    "node -e \"require('fs').appendFileSync(require('os').homedir() + '/.bashrc', 'x')\"",
    "python3 -c \"import sys; open(sys.argv[1], 'w').write('x')\" out.txt",  # a name only the run knows
    "awk '{print > $1}' x.txt",
]


@pytest.mark.parametrize("command", ASKED)
def test_other_written_files_named_in_a_programs_text_are_asked(project: tuple[Path, Engine], command: str) -> None:
    _, engine = project
    assert engine.check(command).decision != "allow", command


DENIED = [
    "7z a policies/e.yaml x.txt",
    "7za a -tzip -mx=9 manifests/t.yaml x.txt",
    "zip -q out.zip x.txt -O policies/e.yaml",
    'ruby -e \'File.write("policies/deny.yaml", "x")\'',
    "php -r \"file_put_contents('policies/deny.yaml', 'x');\"",
    "lua -e \"io.open('policies/deny.yaml', 'w'):write('x')\"",
    "python3 -c \"import shutil; shutil.copy('x.txt', 'policies/deny.yaml')\"",
    'perl -e \'my $f = "policies/deny.yaml"; open(F, ">", $f)\'',
    "printf 'w policies/deny.yaml\\n' | ed -s x.txt",
    # git's own output files
    "git archive -o policies/e.yaml HEAD",
    "git diff --output=policies/deny.yaml",
    "git log -p --output=hermes-engine.yaml",
    "git bundle create policies/e.yaml HEAD",
]


@pytest.mark.parametrize("command", DENIED)
def test_engine_files_named_in_a_programs_text_are_denied(project: tuple[Path, Engine], command: str) -> None:
    _, engine = project
    verdict = engine.check(command)
    assert (verdict.decision, verdict.hardline) == ("deny", True), (command, verdict)


NEAR_MISSES = [
    "sed -n 'w out.txt' notes.md",
    "sed 's/a/b/w changes.log' notes.md",
    "sed -n '/x/w /dev/stdout' notes.md",
    "sed 'r header.txt' notes.md",
    "sed -i 's/a/b/' notes.md",
    "ed -s notes.md <<< 'w'",
    "awk '{print > \"out.txt\"}' f",
    "awk -F, '{print $1 > \"/dev/stderr\"}' f",
    "awk '{ if (NF > 3) print $1 }' f",
    "awk '{print ($1 > 3)}' f",
    "perl -e 'open F, \">out.txt\"'",
    "perl -ne 'print if /x/' f",
    "perl -pe 's/a/b/' f",
    'python3 -c "print(1)"',
    # a change of folder, or a writer's name, that leads nowhere near the engine's files
    "python3 -c \"import os; os.chdir('build'); open('out.txt', 'w').write('x')\"",
    "python3 -c \"import os; os.chdir('src'); print(os.listdir('.'))\"",
    "python3 -c \"import subprocess; subprocess.run(['ls', '-l'], cwd='src')\"",
    "node -e \"require('child_process').execSync('ls', {cwd: 'web'})\"",
    "python3 -c \"f = open('a.txt'); print(f.read())\"",
    "python3 -c \"with open('a.txt') as f: print(f.read())\"",
    "python3 -c \"x = {'link': 1}; print(x['link'])\"",
    'node -e "const o = {open: true}; console.log(o)"',
    "node -e \"process.chdir('dist'); require('fs').writeFileSync('out.json', '{}')\"",
    "echo 'set f [open out.txt w]; puts $f x; close $f' | tclsh",
    "echo 'set f [open data.txt]; puts [read $f]; close $f' | tclsh",
    "tclsh <<< 'cd build; set f [open out.txt w]; close $f'",
    "python3 -c \"import json; print(json.load(open('a.json')))\"",
    "python3 -c \"open('out.txt', 'w').write('x')\"",
    "python3 -c \"print(open('a.txt', encoding='utf-8').read())\"",
    "python3 -c \"x = 'a'.replace('a', 'b'); print(x)\"",
    "node -e \"console.log(require('fs').readFileSync('a', 'utf8'))\"",
    "node -e \"require('fs').writeFileSync('out.json', '{}')\"",
    "zip out.zip src/*",
    "zip -r ../backup.zip .",
    "tar czf out.tgz src",
    "tar tf a.tar",
    "tar -cf - . | gzip > /tmp/a.tgz",
    "7z a out.7z src",
    "git archive -o out.tar HEAD",
    "git diff --output=/tmp/d.diff",
    "git format-patch -o patches HEAD~3",
    "git bundle create repo.bundle --all",
    "git log --oneline -5",
]


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_ordinary_outputs_stay_allowed(project: tuple[Path, Engine], command: str) -> None:
    _, engine = project
    assert engine.check(command).decision == "allow", command


# What the readers make of a program's text (engine.policy.inline.code_writes, executors.sed_payloads).
CODE_WRITES = [
    ("python", "open('a.txt', encoding='utf-8').read()", []),
    ("python", "open('a.txt', mode='a')", ["a.txt"]),
    ("python", "import os; open(os.path.join(os.environ['HOME'], '.bashrc'), 'a')", ["~/.bashrc"]),
    ("python", "(Path.home() / '.bashrc').write_text('x')", ["~/.bashrc"]),
    ("python", "p = Path('o.txt'); p.write_text('x')", ["o.txt"]),
    ("python", "import os; os.open('policies/x.yaml', os.O_RDONLY)", []),
    ("python", "import os; os.open('policies/x.yaml', os.O_WRONLY | os.O_CREAT)", ["policies/x.yaml"]),
    ("python", "open(f'out/{n}.json', 'w')", [None]),
    ("python", "open('x', 'w', " + "1, " * 2000 + "1)", [None]),  # a call too long to read
    ("perl", 'open(F, "<", "policies/x.yaml")', []),
    ("perl", 'open(F, "ls |")', []),
    ("perl", 'open F, ">>$ENV{HOME}/.bashrc" or die', ["~/.bashrc"]),
    ("perl", 'open F, ">$f"', [None]),
    ("ruby", 'File.open("x.txt") { |f| puts f.read }', []),
    ("node", "fs.writeFileSync(path.join(os.homedir(), '.bashrc'), 'x')", ["~/.bashrc"]),
    ("node", "fs.openSync('a', 'r')", []),
    ("awk", '{print > "o.txt"; print $1 | "sort"}', ["o.txt"]),
    ("awk", "{if ($1 > 3) print $1}", []),
    # a change of folder: a relative name is also the one under it; a computed folder, a computed name
    ("python", "os.chdir('a'); open('b', 'w')", ["b", "a/b"]),
    ("python", "os.chdir(d); open('b', 'w'); open('/tmp/c', 'w')", ["b", None, "/tmp/c"]),
    ("ruby", "Dir.chdir; File.write('.bashrc', 'x')", [".bashrc", None]),
    ("php", "chdir('p'); fopen('x', 'a');", ["x", "p/x"]),
    ("python", "os.chdir('a'); print(open('b').read())", []),
    # a writer under another name: what it writes is computed
    ("python", "w = Path.write_text", [None, None]),
    ("python", "o = __builtins__.__dict__['open']; o('x', 'w')", [None]),
    ("python", "import shutil as s; s.copy('a', 'b')", [None]),
    ("ruby", "m = File.method(:write); m.call('x', 'y')", [None]),
    ("perl", "my $o = \\&CORE::open; $o->(F, '>x')", [None]),
    ("php", "$f = 'file_put_contents'; $f('x', 'y');", [None]),
    ("python", "status = 'open'; print(status)", []),
    ("ruby", "obj = Foo.new; File.open('a.txt') { |f| f.read }", []),
    # Tcl
    ("tclsh", "set f [open x.txt w]", ["x.txt"]),
    ("tclsh", "set f [open $name w]", [None]),
    ("tclsh", "set f [open x.txt]; set g [open y.txt r]", []),
    ("tclsh", "file rename a.txt b.txt", ["b.txt"]),
    ("tclsh", "file link -symbolic l.txt t.txt", ["l.txt"]),
    ("expect", "cd /etc; set f [open hosts a]", ["hosts", "/etc/hosts"]),
    ("tclsh", "rename open o; set f [o x.txt r]", [None]),
]


@pytest.mark.parametrize(("language", "code", "expected"), CODE_WRITES)
def test_the_files_a_program_opens_for_writing(language: str, code: str, expected: list[str | None]) -> None:
    from engine.policy.inline import code_writes

    assert code_writes(code, language) == expected


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("1{w a b;c}\n}", [("tee", "a b;c}")]),
        ("s/x/y/gw out.txt\nR in.txt", [("tee", "out.txt"), ("cat", "in.txt")]),
        ("/x/ W  o", [("tee", "o")]),
        ("s/a/b/p", []),
    ],
)
def test_the_files_a_sed_script_names(script: str, expected: list[tuple[str, str]]) -> None:
    from engine.policy.executors import sed_payloads

    files: list[tuple[str, str]] = []
    sed_payloads(script, files)
    assert files == expected
