"""lead44: the engine's own state and keys, read through the terminal.

The file tools were refused the engine's state (file_tool_engine_state_read, a hardline): the audit log, the
HMAC key that signs it, the MCP grants, the key of the record of approved files. The terminal reading the same
files only asked (credential_read), so a human saying yes, or a host running with approvals off, handed the
caller the key: `cat ~/.config/hermes-engine/audit/key`, `tar c ~/.config/hermes-engine | base64`,
`python3 -c 'print(open(KEY).read())'`. Now every reader of the class is the hardline engine_state_read
(policies/secrets.yaml), whatever approves. Listing, `stat` and the engine's own CLI stay allowed, and the
spilled results the model is told to read back are outside the class (engine/policy/places.py).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.conftest import REPO, decision_and_keys


@pytest.fixture
def keyed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Engine, Path, Path]]:
    """The repository's engine in a temporary HOME whose audit key exists, with a human who says yes."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    engine = Engine.load(REPO, config={"workdir": str(work)})
    engine.set_approval_callback(lambda request: "once")
    engine.call("terminal", {"command": "git push -f origin main"})  # audited: the key and the log exist
    [key] = (home / ".config" / "hermes-engine" / "audit").glob("*.key")  # the audit log's HMAC key
    assert key.stat().st_size >= 16
    yield engine, home, key
    engine.close()


def _secret_of(key: Path) -> str:
    data = key.read_bytes()
    return data.hex()[:24] if not data.isascii() else data.decode().strip()[:24]


@pytest.mark.parametrize(
    "template",
    [
        "cat {key}",
        "base64 {key}",
        "xxd -p {key}",
        "od -An -tx1 {key}",
        "cp {key} copied && cat copied",
        "tar cf - {folder} | base64",
        "grep -r . {folder}",
        "cd {folder} && cat */*",
        'python3 -c \'print(open("{key}", "rb").read().hex())\'',
        "xargs -a {key} echo",
        "cat < {key}",
        "head -c 64 ~/.config/hermes-engine/*/* | od -An -tx1",
    ],
)
def test_a_yes_to_every_question_still_does_not_print_the_engine_key(
    keyed: tuple[Engine, Path, Path], template: str
) -> None:
    engine, home, key = keyed
    before = key.read_bytes()
    command = template.format(key=key, folder=home / ".config" / "hermes-engine")
    result = engine.call("terminal", {"command": command})
    shown = f"{result.output}{result.error and result.error.message}"
    assert not result.ok and result.error is not None and "hardline" in result.error.message, (command, shown)
    for secret in (before.hex()[:24], _secret_of(key), before[:16].decode("latin-1")):
        assert secret not in shown, command
    assert key.read_bytes() == before


def test_the_same_reads_of_other_files_are_run_once_approved(keyed: tuple[Engine, Path, Path]) -> None:
    """The near side of the rule: a user's own secret asks (and runs once approved); listing the engine's
    folder, or reading a file beside it, is not a hardline."""
    engine, home, _ = keyed
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nuser-key-material\n")
    (home / ".config" / "other").mkdir(parents=True)
    (home / ".config" / "other" / "settings").write_text("colour = blue\n")
    ran = engine.call("terminal", {"command": "cat ~/.ssh/id_rsa"})  # asked; the callback said yes
    assert ran.ok and "user-key-material" in str(ran.output)
    listed = engine.call("terminal", {"command": "ls -la ~/.config/hermes-engine"})
    assert listed.ok, listed.error
    beside = engine.call("terminal", {"command": "cat ~/.config/other/settings"})
    assert beside.ok and "colour = blue" in str(beside.output)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("cat ~/.local/state/hermes-engine/*/audit.jsonl", "deny"),
        ("less ~/.config/hermes-engine/trust/approved-files.key", "deny"),
        ("ls ~/.config/hermes-engine/trust", "allow"),
        ("stat ~/.config/hermes-engine/trust/known", "allow"),
        ("cat ~/.config/hermes-engine.bak/notes", "allow"),
        ("hermes-engine audit --help", "allow"),
        ("cat ~/.ssh/id_rsa", "ask"),
    ],
)
def test_the_verdicts_by_reader(keyed: tuple[Engine, Path, Path], command: str, expected: str) -> None:
    engine, _, _ = keyed
    decision, keys = decision_and_keys(engine, command)
    assert decision == expected, (command, keys)
    if expected == "deny":
        assert "engine_state_read" in keys, keys


# -- an in-place editor's file known only at run time (fp44's strict xfail) ------------------------------------------

IN_PLACE = [
    'sed -i s/npm/nop/ "$X/policies/deny.yaml"',
    'sed --in-place=.b s/npm/nop/ "$X/../policies/deny.yaml"',
    "sed -i s/npm/nop/ 'a$b/../policies/deny.yaml'",
    'perl -pi -e s/npm/nop/ "$X/policies/deny.yaml"',
    'perl -i -pe s/npm/nop/ "$X/../policies/deny.yaml"',
    "gawk -i inplace 'NR==1' \"$X/policies/deny.yaml\"",
]
IN_PLACE_NEAR = [
    'sed -i "s/$a/$b/" notes.txt',
    'sed -i s/a/b/ "$OUT_DIR/x.txt"',
    'for f in src/*.py; do sed -i "s/x/y/" "$f"; done',
    "find . -name '*.md' -exec sed -i s/a/b/ {} +",
    'sed -n p "$X/policies/deny.yaml"',
    'perl -ne print "$X/policies/deny.yaml"',
]


@pytest.mark.parametrize("command", IN_PLACE)
def test_an_in_place_edit_of_a_file_named_at_run_time_is_not_run_unasked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """Under bash with X=src (and a folder `a$b`) the edit rewrites the project's policy; through the engine,
    with nobody to approve, it does not run."""
    from tests.redteam.conftest import make_project

    root = make_project(tmp_path, monkeypatch, folders=("src", "a$b"))
    monkeypatch.chdir(root)
    policy = root / "policies" / "deny.yaml"
    before = policy.read_text()
    shown = subprocess.run(
        ["bash", "-c", command],
        check=False,
        cwd=root,
        env={**os.environ, "X": "src" if "/../" in command else "."},
        capture_output=True,
        text=True,
    )
    if not command.startswith("gawk") or shutil.which("gawk"):
        assert policy.read_text() != before, (command, shown.stderr)  # the harm, without the engine
    policy.write_text(before)
    engine = Engine.load(root)
    try:
        monkeypatch.setenv("X", "src" if "/../" in command else ".")
        result = engine.call("terminal", {"command": command})
    finally:
        engine.close()
    assert not result.ok and result.error is not None
    assert policy.read_text() == before


@pytest.mark.parametrize("command", IN_PLACE_NEAR)
def test_in_place_edits_of_known_files_stay_allowed(plain_project: tuple[Path, Engine], command: str) -> None:
    _, engine = plain_project
    assert engine.check(command).decision == "allow", command


# -- a name given as written, looked up where the engine works (adv44b's check, from another process folder) --------


def test_a_quoted_dollar_name_linked_to_the_home_is_looked_up_in_the_engine_workdir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """adv44b reads `'$HOME'/*` as the variable once a folder of that exact name exists, but looked it up in the
    process's folder: a host whose `workdir:` is elsewhere let `rm -rf '$HOME'/*` through a link `$HOME -> ~` made
    by an earlier (allowed) `ln -s ~ '$HOME'`, and the home was emptied."""
    from tests.redteam.conftest import make_home

    home = make_home(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    root = tmp_path / "project"
    (root / "w").mkdir(parents=True)
    (root / "hermes-engine.yaml").write_text("workdir: w\n")
    monkeypatch.chdir(root)  # the host's process folder: not where the terminal runs
    with Engine.load(root) as engine:
        made = engine.call("terminal", {"command": "ln -s ~ '$HOME'"})
        assert made.ok and (root / "w" / "$HOME").is_symlink(), made.error
        for command in ("rm -rf '$HOME'/*", "echo 'rm -rf ~' >> '$HOME/.bashrc'"):
            result = engine.call("terminal", {"command": command})
            assert not result.ok, command
        assert (home / "notes.txt").read_text() == "keep me\n" and not (home / ".bashrc").exists()
        assert engine.check("cp x '$PWD/notes'").decision == "allow"  # no such folder there: a plain name
