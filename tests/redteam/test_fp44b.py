"""fp44b (stop 44, issue 8): false alarms fixed as general rules, the payloads beside them kept.

FIXED:
1. A PATTERN OR A FILTER IS NO FILE: `grep .key f`, `grep -n '.pem' notes.txt`, `rg '.key' src`, `ag`/`ack`,
   `jq '.key' f.json`, `yq '.key' f.yaml`, `awk '/.key/' f` asked (credential_read: the word matched the credential
   glob `*.key`). A grammar's `pattern` field (policies: grep's row in printers.yaml, rg/ag/yq/awk in executors.yaml,
   jq/gojq/jaq in printers.yaml, now with a getopt) names the options that give the pattern (grep -e/-f, rg -e/-f,
   jq -f, awk -f/-e/-E); without one, and with no option the grammar does not know, the first operand is read by no
   path class (matchers._pattern, as holes39's host operands; the word only once on the line). Payloads kept:
   `grep x ~/.ssh/id_rsa`, `grep -f KEY x`, `grep KEY -f x` (GNU grep permutes), `jq . ~/.aws/credentials.json`,
   `jq -f KEY x`, `jq --rawfile a KEY`, `rg -e x .env`, `rg .env -e x`, `grep -r KEY ~`, `grep .env .env`,
   `yq KEY --from-file x`, `awk 'BEGIN{getline l < "KEY"}'` (code_paths).
   A pattern word loses only a file's classes (credential, secret, shell_history: matchers._Pattern).
2. `kubectl get secret x -o name` / `-o wide` (and oc's) asked (secret_store_read: any -o word). The rule reads the
   format: -o/--output with any value but `name` or `wide` (which print no data) asks; `-o yaml`, `-ojson`,
   `-o=json`, `--output=jsonpath=...`, `-o name -o yaml` (the last wins) stay ask.
3. `LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 cmd` asked (the library read as a shell script). A preload
   list made only of libraries in the system's library folders (/lib, /usr/lib, their 32/64/x32 forms, no `..`, no
   dot name, no `$ORIGIN`/`$LIB`) is allowed: writing there is itself a system write (write_system_path asks), and a
   library there can already replace libc for every program, so preloading it adds nothing. One the session wrote
   there is still read as machine code (asks); /usr/local/lib, /tmp, ./x.so and mixed lists ask.

MEASURED: tests/data/ordinary-44.jsonl (fp44's corpus): 18 of 595 flagged before and after (3.0%: none of its
commands is of these families; test_fp44 still passes). The near misses below: 28 ordinary commands of these families,
24 flagged at start44 (all but `egrep '\\.env' README.md`, `awk -F: '/.pem/{print $2}' f`, `kubectl get secret/db
--output=wide`, `oc get secret x -o name`), none now.

OPEN: `yq e '.key' f.yaml` / `yq eval ...` still asks (yq's verb comes first; the filter is the second operand),
and any option the grammar does not know keeps the filter a path (`jq --arg k v '.key' f`, `ugrep -i '.key' src`):
fail closed, accepted (strict xfail below for yq's verb). A pattern word keeps a folder's classes (secret_parent, a
link's): `grep -rn '.key' src` and `ack '.key' src` (recursive: `.key` read as a folder that may hold keys) still
ask. Found here, closed by xf45: `ln -s ../../home src && grep -R x src` with `src` an existing
folder makes src/home -> the home, and grep -R prints the key: was allowed (the line's `grep -R . src` was refused only
through its pattern `.`, which is why a pattern keeps a folder's classes). adv41's `ln -s ~ vendor/h; cd vendor;
unzip -o /tmp/a.zip` fails on main (HEAD 1fd3de0) already.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import Case, assert_verdict, run_confined, verdict_cases

# -- 1. a pattern or a filter operand ----------------------------------------------------------------------------
PATTERN_PAYLOADS: dict[str, Case] = {
    "grep a key": ({}, "grep x ~/.ssh/id_rsa"),
    "grep -f key": ({}, "grep -f ~/.ssh/id_rsa x"),
    "grep key -f (permuted)": ({}, "grep ~/.ssh/id_rsa -f x"),
    "grep --file=key": ({}, "grep --file=$HOME/.ssh/id_rsa x"),
    "grep -e then key": ({}, "grep -e x -- ~/.ssh/id_rsa"),
    "grep .env .env": ({}, "grep .env .env"),
    "grep -r home": ({}, "grep -r KEY ~"),
    "egrep .pem on a key": ({}, "egrep -n '.pem' ~/.ssh/id_ed25519"),
    "jq aws credentials": ({}, "jq . ~/.aws/credentials.json"),
    "jq -f key": ({}, "jq -f ~/.ssh/id_rsa x.json"),
    "jq --rawfile": ({}, "jq -n --rawfile a ~/.ssh/id_rsa '$a'"),
    "jq filter then .env": ({}, "jq -r '.key' .env"),
    "rg -e x .env": ({}, "rg -e x .env"),
    "rg .env -e x": ({}, "rg .env -e x"),
    "rg --file key": ({}, "rg --file ~/.ssh/id_rsa src"),
    "yq key --from-file": ({}, "yq ~/.ssh/id_rsa --from-file x"),
    "ugrep -f key": ({}, "ugrep -f ~/.ssh/id_rsa x"),
    "awk reads a key": ({}, "awk '{print}' ~/.ssh/id_rsa"),
    "awk -f key": ({}, "awk -f ~/.ssh/id_rsa x"),
    "awk getline a key": ({}, "awk 'BEGIN{while((getline l < \"/home/u/.ssh/id_rsa\")>0)print l}'"),
    "awk getline .env": ({}, "awk 'BEGIN{while((getline l < \".env\")>0)print l}'"),
    "awk on .env": ({}, "awk '/x/' .env"),
}
PATTERN_NEAR: dict[str, Case] = {
    "jq .key": ({}, "jq '.key' f.json"),
    "jq -r .key": ({}, "jq -r '.key' f.json"),
    "jq -c .pem": ({}, "jq -c '.certs[].pem' data/items.json"),
    "gojq .key": ({}, "gojq '.key' f.json"),
    "yq .key": ({}, "yq '.key' f.yaml"),
    "grep .key": ({}, "grep .key f"),
    "grep -n .pem": ({}, "grep -n '.pem' notes.txt"),
    "egrep .env": ({}, "egrep '\\.env' README.md"),
    "grep -i id_rsa": ({}, "grep -i 'id_rsa' docs/setup.md"),
    "rg .key src": ({}, "rg '.key' src"),
    "rg -i .pem": ({}, "rg -i '.pem' src tests"),
    "ag .key": ({}, "ag '.key' src"),
    "awk /.key/": ({}, "awk '/.key/' f"),
    "awk -F: /.pem/": ({}, "awk -F: '/.pem/{print $2}' f"),
    "piped grep .key": ({}, "cat f | grep '.key'"),
    "git log | grep .env": ({}, "git log --oneline | grep '.env'"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PATTERN_PAYLOADS, PATTERN_NEAR))
def test_a_pattern_operand_is_no_file(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


def test_grep_reads_its_file_not_its_pattern(tmp_path: Path) -> None:
    """The harm the near miss does not do: `grep .key notes` prints notes' lines, never the key file `.key` names
    (a file `a.key` beside it stays unread); `grep -f KEY x` and `grep x KEY` do read the key."""
    _, _, said = run_confined(tmp_path / "a", "printf 'K3Y\\n' > a.key; printf 'see a.key\\n' > notes; grep .key notes")
    assert said == "see a.key\n"
    _, _, said = run_confined(tmp_path / "b", "grep -h . ~/.ssh/id_ed25519")
    assert "secret key" in said


# -- 2. kubectl's output formats -----------------------------------------------------------------------------------
KUBECTL_PAYLOADS: dict[str, Case] = {
    "-o yaml": ({}, "kubectl get secret x -o yaml"),
    "-ojson": ({}, "kubectl get secret x -ojson"),
    "-o=json": ({}, "kubectl get secret x -o=json"),
    "--output=jsonpath": ({}, "kubectl get secret x --output=jsonpath={.data}"),
    "--output json": ({}, "kubectl get secret x --output json"),
    "name then yaml": ({}, "kubectl get secret x -o name -o yaml"),
    "go-template": ({}, "kubectl get secret/x -o go-template={{.data}}"),
    "custom-columns": ({}, "kubectl get secrets -o custom-columns=D:.data"),
    "a name-like format": ({}, "kubectl get secret x -o namex"),
    "oc yaml": ({}, "oc get secret/db -o yaml"),
}
KUBECTL_NEAR: dict[str, Case] = {
    "-o name": ({}, "kubectl get secret x -o name"),
    "-o wide": ({}, "kubectl get secret x -o wide"),
    "-oname": ({}, "kubectl get secrets -oname"),
    "-o=name": ({}, "kubectl get secret x -o=name"),
    "--output name": ({}, "kubectl -n prod get secret x --output name"),
    "--output=wide": ({}, "kubectl get secret/db --output=wide"),
    "oc -o name": ({}, "oc get secret x -o name"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(KUBECTL_PAYLOADS, KUBECTL_NEAR))
def test_kubectl_formats_that_print_no_data(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


# -- 3. a system library preloaded ---------------------------------------------------------------------------------
ELF = "printf '\\177ELF' > "
PRELOAD_PAYLOADS: dict[str, Case] = {
    "a written one": ({}, f"{ELF}a.so; LD_PRELOAD=./a.so ls"),
    "written into /usr/lib": ({}, f"{ELF}/usr/lib/x.so; LD_PRELOAD=/usr/lib/x.so ls"),
    "copied into /usr/lib": (
        {},
        "cp a.so /usr/lib/x86_64-linux-gnu/libjemalloc.so.2; LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 ls",
    ),
    "written by the session": ({"a.so": "\x7fELF"}, "LD_PRELOAD=ROOT/a.so ls"),
    "a system one and another": ({}, "LD_PRELOAD='/usr/lib/libjemalloc.so.2 ./evil.so' ls"),
    "colon list, a relative one": ({}, "LD_PRELOAD=/usr/lib/libjemalloc.so.2:evil.so ls"),
    "climbing out": ({}, "LD_PRELOAD=/usr/lib/../../tmp/evil.so ls"),
    "$ORIGIN": ({}, "LD_PRELOAD='/usr/lib/$ORIGIN/evil.so' ls"),
    "/usr/local/lib": ({}, "LD_PRELOAD=/usr/local/lib/x.so ls"),
    "/tmp": ({}, "LD_PRELOAD=/tmp/x.so ls"),
    "a dot name": ({}, "LD_PRELOAD=/usr/lib/.x.so ls"),
    "BASH_ENV in /usr/lib": ({}, "BASH_ENV=/usr/lib/x.sh bash -c ls"),
}
PRELOAD_NEAR: dict[str, Case] = {
    "jemalloc": ({}, "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 ls"),
    "two system ones": ({}, "LD_PRELOAD=/lib/x86_64-linux-gnu/libjemalloc.so.2:/usr/lib64/libtcmalloc.so.4 ls"),
    "exported": ({}, "export LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2; python3 app.py"),
    "LD_AUDIT": ({}, "LD_AUDIT=/usr/lib/x86_64-linux-gnu/libpcprofile.so ls"),
    "blank list": ({}, "LD_PRELOAD='/lib/libA.so /usr/lib64/libB.so' ls"),
}


@pytest.mark.parametrize(("case", "allowed", "session"), verdict_cases(PRELOAD_PAYLOADS, PRELOAD_NEAR))
def test_a_system_library_preloaded(
    plain_project: tuple[Path, Engine], case: Case, allowed: bool, session: str
) -> None:
    assert_verdict(plain_project, case, allowed, session)


# -- open ----------------------------------------------------------------------------------------------------------
# (fp45: closed, yq's row reads its verbs e/eval/ea/eval-all, each with the filter as its first operand)
def test_yq_eval_filter_is_no_file(plain_project: tuple[Path, Engine]) -> None:
    assert_verdict(plain_project, ({}, "yq e '.key' f.yaml"), True, "near-yq-e")


# (xf45) closed: the word as written is walked too (links.LinkFollower._tree_links), src/home among its links
def test_a_link_into_an_existing_folder_then_grep_r(plain_project: tuple[Path, Engine]) -> None:
    # work/src exists: `ln -s ../../home src` makes work/src/home, which `../../home` from work/src reaches
    files = {"src/a.py": "x = 1\n"}
    assert_verdict(plain_project, (files, "ln -s ../../home src && grep -R x src"), False, "payload-link-src")
