"""fp46 (stop 46, issue 8): the false-alarm rate on a third corpus of ordinary commands taken from real sources, and
stop 45's three kept false alarms fixed as rules.

MEASURED: tests/data/ordinary-46.jsonl holds 564 commands, none of fp44's or fp45's corpora, each with its source
(repository@commit:path): `run:` steps of GitHub Actions workflows, Makefile and justfile recipes, package.json
scripts and the shell blocks of README/CONTRIBUTING files of pallets/flask, psf/black, sharkdp/bat, cli/cli,
pydantic/pydantic, casey/just, tokio-rs/tokio, pytest-dev/pytest, junegunn/fzf, prettier/prettier,
golangci/golangci-lint and expressjs/express (at most 60 a repository, drawn at random with seed 46 from 1049
candidates). Left out by rule, not by verdict: lines only a GitHub runner can run (`${{ }}`, $GITHUB_OUTPUT ...),
Makefile recipe lines holding make's own syntax (`$(VAR)`, `${VAR}`, `$@`, `$<`), justfile `{{ }}` lines, here-
documents, fragments of loops and case arms, lines of another language and lines whose first word is no program.
Judged in fp44's developer project: 34 of 564 flagged (6.0%) before and after this stop's fixes. Of the 34, 33 are
genuine risks (ACCEPTED says why for each: downloaded scripts run, archives unpacked beside the engine's files,
system files written, force pushes, uninstalls, `rm -f $(find . -name '*~')` (backquoted), whose found names are split and
globbed ...). FALSE ALARMS: 1 of 564 (0.2%): `grep -qF "${V}" install.ps1` (kept; allowed since xf47).

FIXED (stop 45's kept false alarms, none in this corpus; each a rule, its dangerous neighbours still refused):
1. `jq --arg k ~/.ssh/id_rsa '.path = $k' cfg.json` asked (credential_read: the `*` option row read --arg's VALUE as
   a path). The VALUE of a `NAME VALUE` binding (argv.PAIR, `arg==` in a grammar) is a text the program hands its
   filter: no option value a matcher reads (matchers.shape). `--rawfile`/`--slurpfile` (undeclared: a file),
   `--arg=k v . KEY`, `-f KEY`, a key as an operand and `--arg k "$(cat KEY)"` still ask.
2. `grep -rn '.key' src` asked (project_exfiltration: the pattern word `.key`, read as a folder, "held a secret"
   because its own name is a key's, View._holds). A pattern word (Grammar.pattern) whose classes are a file's
   (credential, secret, shell history) loses secret_holder with them; a holder found by a walk stays (`grep -rn '.key' ~`,
   a tree with a .env below), as do `grep -rn -e x .key`, `grep -rn .key .key`, `grep -rn -f .key src`, `grep -r x ~/.ssh`.
3. `yq eval-all '. as $i ireduce ({}; . * $i)' *.yml` asked (engine_files_unknown_writer: yq was no described
   writer, so a glob that may name an engine file asked). yq's row has mikefarah/yq v4's grammar and describes its
   writes: -i / --inplace rewrites each file operand (judged as `tee FILE`: `yq -i '.a = 1' policies/deny.yaml` is
   now engine_files_write, denied); --split-exp / -s naming an engine file still asks; --expression / --from-file
   give the filter (`yq --expression '.a' .env`, `yq e KEY --from-file x` ask); an undeclared option keeps it a path.

KEPT (false alarm, strict xfail until xf47): `grep -qF "${V}" install.ps1` (read_computed_path). A quoted variable
where grep reads its pattern may be an option word (`-Rv`: every line of the working tree, links followed); since
xf47 grep's -q (Grammar.quiet_with: it prints nothing) lets it through; without -q it still asks. `grep -e "$V" f` is allowed. Also still asking: `grep -- "$V" f` (after
`--` the word is the pattern for certain; computed classes are not dropped from patterns: jq/yq/sed filters are code).
"""

# ruff: noqa: E501
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from engine import Engine
from tests.conftest import REPO
from tests.redteam.harm import SECRET, Case, assert_verdict, flagged_verdicts, run_confined, verdict_cases
from tests.redteam.test_fp44 import developer_project  # noqa: F401  (the project fp44's corpus is judged in)

CORPUS = REPO / "tests" / "data" / "ordinary-46.jsonl"
EARLIER = [REPO / "tests" / "data" / "ordinary-44.jsonl", REPO / "tests" / "data" / "ordinary-45.jsonl"]

FETCHED = "runs a script fetched from the network"
UNPACK = "unpacks an archive the engine cannot read into a folder holding its own files"
SYSTEM_WRITE = "writes a system file (a CI runner's set-up step, run here on the host)"
UNINSTALL = "removes an installed package"
DISCARD = "discards uncommitted work"
REMOTE = "force-pushes or deletes a remote branch"
RUNTIME_TARGET = "writes a file named only at run time"
SPLIT = "deletes names a search printed, split and globbed by the shell (a name holding a blank names another path)"
PRINTED = "runs what a program printed"
RUNTIME_READ = "reads a path named only at run time"

# The flagged ones of the corpus (commands quoted as their sources wrote them), each with why the engine is right
# to ask; the one kept false alarm says so.
ACCEPTED: dict[str, str] = {
    # (cfg49) cp's destination may be a folder: ~/.rpmmacros/rpmmacros is a file of the home's dot folders (home_config);
    # ~/.rpmmacros itself is rpm's configuration, whose `%(CMD)` rpmbuild runs
    "cp script/rpmmacros ~/.rpmmacros": "writes rpm's macro file in the home (rpmbuild runs its %(...))",
    "git checkout -- .": DISCARD,
    # (merge46) env46's rule: a package index the line names is code fetched from a source the caller chose, read as
    # `curl URL | sh` (pydantic's docs job installs from its private index)
    "uv pip install --default-index https://pydantic:${PPPR_TOKEN}@pppr.pydantic.dev/simple/ mkdocs-material": (
        "installs from a package index the line names (env46)"
    ),
    'git reset --hard "${TAG_NAME}"': DISCARD,
    "curl -fsSL https://github.com/golangci/golangci-lint/releases/download/v${LINT_VERSION}/golangci-lint-${LINT_VERSION}-linux-amd64.tar.gz | tar xz --strip-components 1 --wildcards \\*/golangci-lint": UNPACK,
    "tar xf linux-${KERNEL_VERSION}.tar.xz": UNPACK,
    "sudo apt-get remove -y '^dotnet-.*'": UNINSTALL,
    "uv pip uninstall --system pydantic pydantic-core": UNINSTALL,
    "uv pip uninstall pydantic pydantic-core": UNINSTALL,
    'curl -sSfL https://golangci-lint.run/install.sh | sh -s -- -b "./install-golangci-lint"': FETCHED,
    "bash <(curl https://raw.githubusercontent.com/rhysd/actionlint/main/scripts/download-actionlint.bash)": FETCHED,
    "wget -qO- https://apt.fury.io/nushell/gpg.key | sudo gpg --dearmor -o /etc/apt/keyrings/fury-nushell.gpg": SYSTEM_WRITE,
    'gh pr comment "$NUMBER" --body "$(cat .github/new-linter-checklist.md)" $edit_last': "posts a project file's text to a network service",
    "sudo install -d -m 0755 /etc/apt/keyrings": SYSTEM_WRITE,
    "echo 0 | sudo tee /proc/sys/kernel/apparmor_restrict_unprivileged_userns": SYSTEM_WRITE,
    'install -Dm644 "CHANGELOG.md" "${DPKG_DIR}/usr/share/doc/${DPKG_BASENAME}/changelog"': SYSTEM_WRITE
    + " (DPKG_DIR unset: /usr/share/doc)",
    'install -Dm644 "LICENSE-APACHE" "${DPKG_DIR}/usr/share/doc/${DPKG_BASENAME}/LICENSE-APACHE"': SYSTEM_WRITE
    + " (DPKG_DIR unset: /usr/share/doc)",
    'chmod 644 "${DPKG_DIR}/usr/share/doc/${DPKG_BASENAME}/copyright"': "changes modes outside the project (DPKG_DIR unset)",
    "mount -t proc proc /proc": "mounts over a system folder",
    "git push origin temp --follow-tags --force": REMOTE,
    "git push origin --delete temp": REMOTE,
    "make install && ./install --all && LC_ALL=C tmux new-session -d && ruby test/test_go.rb --verbose": "runs a script the engine cannot read (./install, made by make install)",
    'export FZF_CTRL_T_COMMAND="$FZF_DEFAULT_COMMAND"': "sets a command line fzf runs from a variable the engine does not read",
    'eval "$(fzf --bash)"': PRINTED,
    'echo -e "# stderr:" >> $output': RUNTIME_TARGET,
    'echo -e "# stdout:" >> $output': RUNTIME_TARGET,
    'echo -e "\\`\\`\\`\\n" >> $output': RUNTIME_TARGET,
    'echo -e "\\`\\`\\`py" >> $output': RUNTIME_TARGET,
    'echo "**Python $(basename $FILE)**" >> $output': RUNTIME_TARGET,
    'echo -e "$(jq .testenvs.fuzz.test[-1].output $FILE -r)\\n" >> $output': RUNTIME_TARGET + "; " + RUNTIME_READ,
    'echo -e "$(jq .testenvs.fuzz.test[-1].err $FILE -r)" >> $output': RUNTIME_TARGET + "; " + RUNTIME_READ,
    "LC_ALL=en_US.UTF8 sort -u <(sed '1d' $FILE)": RUNTIME_READ,
    "rm -f `find . -type f -name '*~' `": SPLIT,
    "rm -f `find . -type f -name '*~'`": SPLIT,
}


def corpus() -> list[dict[str, str]]:
    return [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]


def test_the_ordinary_corpus_46(developer_project: Engine) -> None:  # noqa: F811
    entries = corpus()
    commands = [e["command"] for e in entries]
    assert len(commands) == len(set(commands)) >= 400
    assert all(e["source"] and e["family"] for e in entries)
    old = {json.loads(line)["command"] for path in EARLIER for line in path.read_text().splitlines() if line.strip()}
    assert not old & set(commands), "an earlier corpus reused"
    flagged = flagged_verdicts(developer_project, commands)
    new = {c: why for c, why in flagged.items() if c not in ACCEPTED}
    assert not new, f"new false alarms: {new}"
    assert set(ACCEPTED) <= set(commands), "an accepted command left the corpus"
    assert set(flagged) == set(ACCEPTED), f"accepted but allowed now (update ACCEPTED): {set(ACCEPTED) - set(flagged)}"
    false_alarms = [c for c, why in ACCEPTED.items() if why.startswith("FALSE ALARM")]
    assert len(false_alarms) / len(commands) <= 0.03  # 0 / 564 since xf47
    # 34 at start46; 35 with env46's package-index rule (the merge); 34 since xf47 (`grep -qF "${V}" f` allowed);
    # 35 since cfg49 (a write of the home's ~/.rpmmacros); 34 since fp49 (`rm -rf \`find . -name __pycache__\``, a
    # listing of the tree no other command of the line may make names in)
    assert len(flagged) == 34


def test_stop_45s_kept_false_alarms_now_allowed(developer_project: Engine) -> None:  # noqa: F811
    kept = [
        "yq eval-all '. as $item ireduce ({}; . * $item )' *.yml",  # ordinary-45.jsonl
        "grep -rn '.key' src",
        "jq --arg k ~/.ssh/id_rsa '.path = $k' cfg.json",
    ]
    assert flagged_verdicts(developer_project, kept) == {}


# -- 1. the VALUE of a `NAME VALUE` binding ------------------------------------------------------------------------
JQ_PAYLOADS: dict[str, Case] = {
    "a key as the file": ({}, "jq --arg k ~/.ssh/id_rsa . ~/.ssh/id_rsa"),
    "--rawfile": ({}, "jq -n --rawfile k ~/.ssh/id_rsa '$k'"),
    "--slurpfile": ({}, "jq -n --slurpfile k ~/.aws/credentials '$k'"),
    "--arg= spelling": ({}, "jq --arg=k ~/.ssh/id_rsa . ~/.ssh/id_rsa"),
    "-f a key": ({}, "jq --arg k v -f ~/.ssh/id_rsa cfg.json"),
    "a key's text as the value": ({}, "jq --arg k \"$(cat ~/.ssh/id_rsa)\" '.p = $k' cfg.json"),
    ".env as the file": ({}, "jq --arg k .env '.p = $k' .env"),
    "--argjson then a key": ({}, "jq --argjson k '\"x\"' . ~/.ssh/id_rsa"),
}
JQ_NEAR: dict[str, Case] = {
    "a key's path as text": ({}, "jq --arg k ~/.ssh/id_rsa '.path = $k' cfg.json"),
    ".env as text": ({}, "jq --arg env .env '.envFile = $env' cfg.json"),
    "aws credentials as text": ({}, "jq -n --arg p ~/.aws/credentials '{credentials_file: $p}'"),
    "gojq": ({}, "gojq --arg k ~/.ssh/id_ed25519.pub '.key = $k' cfg.json"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(JQ_PAYLOADS, JQ_NEAR))
def test_a_binding_value_is_a_text(plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(plain_project, case, allowed, session)


@pytest.mark.skipif(shutil.which("jq") is None, reason="needs jq")
def test_jq_arg_passes_the_path_not_the_key(tmp_path: Path) -> None:
    """The harm the near miss does not do: jq writes the key's path into its output, never the key's text; the
    payload `--rawfile` prints it."""
    setup = "printf '{}' > cfg.json; "
    _, _, said = run_confined(tmp_path / "arg", setup + "jq -c --arg k ~/.ssh/id_ed25519 '.path = $k' cfg.json")
    assert "id_ed25519" in said and SECRET not in said, said
    _, _, said = run_confined(tmp_path / "raw", "jq -n --rawfile k ~/.ssh/id_ed25519 '$k'")
    assert SECRET in said, said


# -- 2. a pattern spelling a key holds no secret -------------------------------------------------------------------
PATTERN_PAYLOADS: dict[str, Case] = {
    "the home's keys": ({}, "grep -rn '.key' ~/.ssh"),
    "-e, then the folder": ({".key/k": "SECRET\n"}, "grep -rn -e x .key"),
    "the folder twice": ({".key/k": "SECRET\n"}, "grep -rn .key .key"),
    "-f a key": ({}, "grep -rn -f .key src"),
    "the home searched": ({}, "grep -rn '.key' ~"),
    "ack the home": ({}, "ack '.pem' ~/.ssh"),
}
PATTERN_NEAR: dict[str, Case] = {
    "grep -rn .key src": ({"src/a.py": "k = cfg.key\n"}, "grep -rn '.key' src"),
    "grep -rn id_rsa": ({"src/a.py": "x = 1\n"}, "grep -rn 'id_rsa' src"),
    "grep -rln .pem": ({"src/a.py": "x = 1\n"}, "grep -rln '\\.pem' src tests"),
    "ack": ({"src/a.py": "x = 1\n"}, "ack '.key' src"),
    "rg": ({"src/a.py": "x = 1\n"}, "rg -n '.env' src"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PATTERN_PAYLOADS, PATTERN_NEAR))
def test_a_pattern_spelling_a_key_holds_none(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


def test_grep_never_opens_its_pattern(tmp_path: Path) -> None:
    """The harm the near miss does not do: a folder `.key` beside src holding a secret is never searched by `grep -rn
    '.key' src` (the word is the pattern); naming it as the folder prints the secret."""
    setup = "mkdir -p .key src && echo TOPSECRET > .key/k && echo 'k = cfg.key' > src/a.py; "
    _, _, said = run_confined(tmp_path / "near", setup + "grep -rn '.key' src")
    assert said == "src/a.py:1:k = cfg.key\n", said
    _, _, said = run_confined(tmp_path / "payload", setup + "grep -rn -e T .key")
    assert "TOPSECRET" in said, said


# -- 3. yq's writes described --------------------------------------------------------------------------------------
YQ_PAYLOADS: dict[str, Case] = {
    "-i the policy": ({}, "yq -i '.a = 1' policies/deny.yaml"),
    "e --inplace the config": ({}, "yq e --inplace '.workdir = \"/\"' hermes-engine.yaml"),
    "-i a glob": ({}, "yq e -i '.a = 1' *.yaml"),
    "-i a start-up file": ({}, "yq -i '.a = 1' ~/.bashrc"),
    "--split-exp over the policies": ({}, "yq --split-exp '.a' policies/*.yaml"),
    "-s a glob": ({}, "yq -s '\"policies/\" + .name' *.yaml"),
    "--expression, .env the file": ({}, "yq --expression '.a' .env"),
    "--from-file, a key the file": ({}, "yq e ~/.ssh/id_rsa --from-file x"),
    "load()": ({}, "yq ea '.a = load(\"/home/u/.ssh/id_rsa\")' *.yml"),
    "an undeclared option": ({}, "yq --no-such '.a' .env"),
}
YQ_NEAR: dict[str, Case] = {
    "eval-all ireduce over a glob": ({}, "yq eval-all '. as $i ireduce ({}; . * $i)' *.yml"),
    "ea the policies read": ({}, "yq ea '.key' policies/*.yaml"),
    "-o json": ({}, "yq -o json '.key' deploy.yaml"),
    "-i a project file": ({}, "yq -i '.version = \"1.2.3\"' chart/Chart.yaml"),
    "e -P": ({}, "yq e -P '.a' deploy.yaml"),
    "-r": ({}, "yq -r '.a' deploy.yaml"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(YQ_PAYLOADS, YQ_NEAR))
def test_yq_is_a_described_writer(plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str) -> None:
    assert_verdict(plain_project, case, allowed, session)


def test_yq_inplace_on_an_engine_file_is_denied(plain_project: tuple[Path, Engine]) -> None:
    """-i's writes are judged as `tee FILE`: the engine's own policy is a hardline deny, no longer a question."""
    _, engine = plain_project
    verdict = engine.check("yq -i '.patterns = []' policies/deny.yaml")
    assert verdict.decision == "deny" and "engine_files_write" in [m.key for m in verdict.matches]


# -- open ----------------------------------------------------------------------------------------------------------
def test_grep_pattern_from_a_variable(developer_project: Engine) -> None:  # noqa: F811
    assert flagged_verdicts(developer_project, ['grep -qF "${V}" install.ps1']) == {}
