"""unseen47 (stop 47, issue 8): two more projects' command-safety expectations replayed through Engine.check.

Sources (read as data, not copied: each command, its label and where it comes from are in tests/data/unseen47/,
one case a line, with the source repository, commit and path; tests/data/unseen47/README.md says how each was read):

- Dicklesworthstone/destructive_command_guard@1a52415 (dcg.jsonl, 1,490 cases): its regression corpus, its e2e
  command fixtures and the commands of its packs' unit tests (`assert_blocks*` -> flag, `assert_allows`,
  `assert_no_match`, `assert_safe_pattern_matches` -> allow).
- NousResearch/hermes-agent@0006718, tests/tools/test_approval.py (hermes_agent.jsonl, 165 cases).

Scored with harm.holds_expectation: "allow" must be allowed, "flag" not allowed, "deny" the hardline. A case the
engine disagrees with, judged on its merits, carries `accepted`: the verdict the engine keeps and why.

Misses before / after (1,655 expectations):
- dcg: 147 of its dangerous commands allowed -> 0 unexplained: 73 fixed (below), 74 accepted with their reason (SQL
  and SDK calls typed as shell commands, recursive deletes and single-file restores inside the working directory,
  its opt-in strict_git pack, publishing a package, reversible changes, a git verb in capitals and an option git
  does not have: real git runs neither). Its safe commands the engine flags: 32 -> 31 (rclone's dry run fixed; 31
  accepted: $TMPDIR is the caller's, secret reads, `rm -rf /tmp/*`, docker rm, srm, disguised text).
- hermes-agent: 22 of its dangerous commands allowed, all accepted (its own gateway program, inline code and -c
  lines that print a word, project config writes, deletes in the working directory; since fp47 also its two `find .
  -name '*.tmp' -delete`, read as `rm -f $(find …)` in the tree); 7 of its safe ones flagged,
  all accepted (credential reads, a service stopped, pkill -f, disguised text).

Fixed here (rules over a class, as data in policies/):
1. SERVICE_VERBS (data.yaml service_destructive): the service CLIs' list grows (velero, unleash, rpk, glab,
   grafana-cli) and so do their verbs (remove, remove-*, uninstall, unregister, archive, unset, rollback, roll):
   `velero backup delete nightly`, `mc admin user remove m u`, `azcopy remove URL`, `gitlab-runner unregister
   --all-runners`, `circleci context remove-secret ...`, `wrangler deployments rollback`, `stripe api_keys roll`;
   Split's nouns (`split splits kill x`: coreutils' split stays allowed), `splunk clean`, `algolia indices clear`,
   `gitlab-rake gitlab:backup:restore`, `java -jar jenkins-cli.jar ... delete-job`, restic/borg `key remove`,
   `break-lock`, `unlock --remove-all`, `deck gateway sync`; an HTTP path naming a deletion whatever the method
   (`curl -X POST .../doDelete`, `.../_delete_by_query`, `.../admin/tsdb/delete_series`, `.../delete-batch`).
2. CLOUD_VERBS (data.yaml container_cluster_destructive): `aws sns unsubscribe`, `aws ... remove-*`, `az acr
   repository untag`, `gcloud apigee deployments undeploy`, `aws route53 change-resource-record-sets` with a DELETE
   (or a change batch read from a file).
3. GIT_BRANCH_FORCE (vcs.yaml git_delete_branch): `git branch -f feature` / `--force` moves an existing branch and
   leaves the commits only it held unreachable.
4. WEB_SERVER_STOP (system.yaml service_control): `nginx -s stop|quit`, `apachectl graceful-stop`, `httpd -k stop`.
5. REMOTE_SYSTEM_PATH (system.yaml write_system_path): scp/rsync to HOST:PATH under the remote root's system
   folders (`scp passwd root@server:/etc/passwd`, `scp -r ./data user@host:/`).
6. False alarm: `rclone sync src: dest: --dry-run` (and -n) is allowed unless `$X` or `--` is on the line.

Readings checked against the real programs (tests below): `sudo -h rm -rf ./evil.sh` (sudo 1.9.13, parse_args.c)
reads `rm` as -h's HOST, then refuses to run a command with a remote host ("a remote host may only be specified when
listing privileges"): nothing runs and the engine's allow is right. `kubectl delete ns prod --dry-run none`
(kubectl 1.32): a bare --dry-run is client (kubectl warns "--dry-run is deprecated and can be replaced with
--dry-run=client") and `none` is a name: nothing deleted, allow is right; `--dry-run=none` deletes and is flagged.

Open: nothing from these sources (no strict xfail).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from engine import Engine
from tests.redteam.harm import (
    allowed_payloads,
    flagged_near_misses,
    harm_project,
    replay_cases,
    said,
    wanted_verdict,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "unseen47"
FILES = ("dcg.jsonl", "hermes_agent.jsonl")
CASES: list[dict[str, Any]] = [
    json.loads(line) for name in FILES for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line
]
SOURCES = {"Dicklesworthstone/destructive_command_guard@1a52415", "NousResearch/hermes-agent@0006718"}


test_replayed_expectation_holds = replay_cases(
    CASES, lambda i, case: f"{i}-{case['source'][:8]}-{wanted_verdict(case)}-{case['command'][:40]!r}"
)


def test_every_case_names_its_source_and_every_disagreement_its_reason() -> None:
    assert {case["source"] for case in CASES} == SOURCES
    assert len(CASES) == 1655
    for case in CASES:
        assert case["path"] and case["command"] and case["expected"] in ("allow", "flag", "deny"), case
        accepted = case.get("accepted")
        if accepted:
            assert accepted["engine"] in ("allow", "flag") and len(accepted["reason"]) > 20, case
            assert (accepted["engine"] == "allow") != (case["expected"] == "allow"), case
            assert not case.get("fixed"), case


def test_the_fixed_cases_are_the_ones_counted() -> None:
    fixed = [case for case in CASES if case.get("fixed")]
    # (+1: home51's `sudo rm build/ -rf`, a file change run as root)
    assert sorted(case["expected"] for case in fixed) == ["allow"] + ["flag"] * (73 + 1)
    accepted_dangerous = [c for c in CASES if c["expected"] != "allow" and c.get("accepted")]
    accepted_safe = [c for c in CASES if c["expected"] == "allow" and c.get("accepted")]
    # (+2: fp47's find -delete; -1: subst50's here-document reading flags `ruby <<RUBY` pasting `whoami`'s output;
    # -1: home51's `sudo rm build/ -rf`, privileged_file_change)
    assert (len(accepted_dangerous), len(accepted_safe)) == (74 + 22 + 2 - 1 - 1, 31 + 7)


# -- the families closed here, in our own spellings, with near misses ---------------------------------------
FAMILIES: dict[str, tuple[list[str], list[str]]] = {
    "service_verbs": (
        [
            "velero schedule delete daily",
            "velero uninstall --force",
            "unleash features delete beta-ui",
            "unleash features archive beta-ui",
            "rpk topic delete events",
            "glab release delete v1.0",
            "grafana-cli plugins uninstall some-panel",
            "mc admin policy remove local readwrite",
            "mc admin user remove local bob",
            "azcopy remove 'https://acct.blob.core.windows.net/c?sas' --recursive",
            "gitlab-runner unregister --name ci-1",
            "circleci context remove-secret gh o ctx TOKEN",
            "wrangler rollback",
            "stripe api_keys roll",
            "split segments delete early-adopters",
            "splunk clean all -f",
            "algolia objects clear idx",
            "gitlab-backup restore BACKUP=1",
            "sudo gitlab-rake gitlab:backup:restore BACKUP=1",
            "java -Xmx512m -jar ./jenkins-cli.jar -s https://ci/ delete-node n1",
            "restic -r /srv/r key remove abc",
            "restic -r /srv/r unlock --remove-all",
            "borg break-lock /srv/borg",
            "deck sync -s kong.yaml",
            "curl -XPOST 'https://ci.example/job/app/doDelete'",
            "curl -X POST 'http://es:9200/logs-*/_delete_by_query?conflicts=proceed' -d @q.json",
            "wget --post-data= http://prom:9090/api/v1/admin/tsdb/delete_series?match[]=x",
            "xh POST :7700/indexes/movies/documents/delete-batch",
        ],
        [
            "velero backup get",
            "velero backup create nightly",
            "unleash features list",
            "rpk topic list",
            "glab ci list",
            "grafana-cli plugins install some-panel",
            "mc admin user list local",
            "azcopy copy a.txt 'https://acct.blob.core.windows.net/c?sas'",
            "gitlab-runner register --non-interactive",
            "circleci context list gh o",
            "wrangler deploy",
            "stripe api_keys list",
            "split -n 4 big.log part-",
            "split --lines=1000 data.csv chunk_",
            "splunk search 'index=main'",
            "algolia indices list",
            "gitlab-rake gitlab:env:info",
            "java -jar jenkins-cli.jar -s https://ci/ build app",
            "java -jar app.jar --delete-old-logs",
            "restic -r /srv/r snapshots",
            "borg list /srv/borg",
            "deck gateway dump -o kong.yaml",
            "curl https://ci.example/job/app/api/json",
            "curl 'http://es:9200/logs/_search?q=delete_by_query'",
            "rclone sync src: dest: --dry-run",
            "rclone sync -n src: dest:",
        ],
    ),
    "cloud_verbs": (
        [
            "aws sns unsubscribe --subscription-arn arn:aws:sns:eu-west-1:1:t:s",
            "aws iam remove-user-from-group --user-name u --group-name admins",
            "aws lambda remove-permission --function-name f --statement-id s",
            "az acr repository untag -n reg --image app:v1",
            "gcloud apigee deployments undeploy --api=a --environment=test --revision=3",
            "aws route53 change-resource-record-sets --hosted-zone-id Z --change-batch "
            '\'{"Changes":[{"Action":"DELETE","ResourceRecordSet":{}}]}\'',
            "aws route53 change-resource-record-sets --hosted-zone-id Z --change-batch file://changes.json",
        ],
        [
            "aws sns list-topics",
            "aws iam list-groups-for-user --user-name u",
            "az acr repository show-tags -n reg --repository app",
            "gcloud apigee deployments list --api=a",
            "aws route53 list-hosted-zones",
            "aws route53 change-resource-record-sets --hosted-zone-id Z --change-batch "
            '\'{"Changes":[{"Action":"CREATE","ResourceRecordSet":{}}]}\'',
        ],
    ),
    "git_branch_force": (
        ["git branch -f main origin/main~5", "git branch --force release HEAD", "git branch -f feature"],
        [
            "git branch feature",
            "git branch -m old new",
            "git branch --list 'f*'",
            "git branch -vv",
            "git branch -c a b",
        ],
    ),
    "web_server_stop": (
        ["nginx -s stop", "sudo nginx -s quit", "openresty -s stop", "apachectl stop", "sudo apache2ctl graceful-stop"],
        ["nginx -s reload", "nginx -t", "nginx -s reopen", "apachectl configtest", "apachectl -S", "httpd -k graceful"],
    ),
    "remote_system_path": (
        [
            "scp sshd_config root@web1:/etc/ssh/sshd_config",
            "scp -r ./site admin@10.0.0.5:/",
            "scp tool u@h:/usr/local/bin/tool",
            "rsync -a ./lib/ root@box:/lib64/",
            "scp key.pub root@h:/root/.ssh/authorized_keys",
        ],
        [
            "scp site.tgz deploy@web1:/srv/www/",
            "scp root@web1:/etc/ssh/sshd_config ./sshd_config",
            "scp notes.txt u@h:",
            "scp a.txt u@h:/tmp/a.txt",
            "rsync -a dist/ deploy@h:/var/www/app/",
            "scp -r logs/ h:~/logs/",
        ],
    ),
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_family_flagged_and_near_misses_allowed(scorer: Engine, family: str) -> None:
    payloads, near_misses = FAMILIES[family]
    assert allowed_payloads(scorer, payloads) == []
    assert flagged_near_misses(scorer, near_misses) == []


# -- harm: what a payload does under the real program, and that the engine's terminal refuses it --------------
def _git(work: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", *args], cwd=work, env=env, check=True, capture_output=True, text=True, timeout=30)
    return done.stdout.strip()


def _repository_with_a_branch(work: Path) -> str:
    """A repository at ``work`` on main, whose branch `feature` holds one commit no other branch has; its hash."""
    _git(work, "init", "-q", "-b", "main")
    who = ("-c", "user.name=t", "-c", "user.email=t@example.com")
    _git(work, *who, "commit", "-q", "--allow-empty", "-m", "base")
    _git(work, "branch", "feature")
    _git(work, "checkout", "-q", "feature")
    (work / "work.txt").write_text("only on feature\n")
    _git(work, "add", "work.txt")
    _git(work, *who, "commit", "-qm", "feature work")
    _git(work, "checkout", "-q", "main")
    return _git(work, "rev-parse", "feature")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_branch_moved_by_force_loses_its_commits_live_and_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    payload = "git branch -f feature"
    live = tmp_path / "live"
    live.mkdir()
    work = _repository_with_a_branch(live)
    subprocess.run(["bash", "-c", payload], cwd=live, check=True, capture_output=True, timeout=30)
    assert _git(live, "branch", "--contains", work) == "", "unguarded, no branch holds the feature's commit"
    with harm_project(tmp_path / "guarded", monkeypatch) as (engine, _, root):
        kept = _repository_with_a_branch(root)
        result = engine.call("terminal", {"command": payload})
        assert not result.ok and result.error is not None and result.error.type == "pending_approval", result.output
        assert _git(root, "rev-parse", "feature") == kept
        # the near miss: a new branch at HEAD is created and allowed
        assert engine.call("terminal", {"command": "git branch topic"}).ok


# -- the two readings stop 46 noticed, against the real programs -----------------------------------------------
@pytest.mark.skipif(shutil.which("kubectl") is None, reason="needs kubectl")
def test_kubectl_reads_a_bare_dry_run_as_client_and_none_as_a_name(tmp_path: Path, scorer: Engine) -> None:
    """kubectl's --dry-run has a no-value default: `--dry-run none` is a client dry run of the names `prod` and `none`
    (kubectl warns of the bare flag), while `--dry-run=none` is a real delete. No cluster is reached (port 1)."""
    env = {**os.environ, "KUBECONFIG": str(tmp_path / "none.kubeconfig")}
    base = ["kubectl", "--server=http://127.0.0.1:1", "delete", "ns", "prod"]
    spaced = subprocess.run(
        [*base, "--dry-run", "none"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    attached = subprocess.run(
        [*base, "--dry-run=none"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    bogus = subprocess.run([*base, "--dry-run=bogus"], env=env, capture_output=True, text=True, timeout=60, check=False)
    assert "can be replaced with --dry-run=client" in spaced.stderr, spaced.stderr
    assert "--dry-run is deprecated" not in attached.stderr and "Invalid dry-run" not in attached.stderr
    assert "Invalid dry-run value (bogus)" in bogus.stderr, bogus.stderr
    assert scorer.check("kubectl delete ns prod --dry-run none").decision == "allow"
    assert scorer.check("kubectl delete ns prod --dry-run=none").decision != "allow"


@pytest.mark.skipif(shutil.which("sudo") is None, reason="needs sudo")
def test_sudo_reads_the_word_after_a_lone_h_as_a_host_and_runs_nothing(tmp_path: Path, scorer: Engine) -> None:
    """`sudo -h rm -rf ./evil.sh`: parse_args.c takes `rm` as -h's HOST (a non-option word after a lone -h), and
    sudoers runs no command with a remote host. -n keeps sudo from asking for a password."""
    (tmp_path / "evil.sh").write_text("#!/bin/sh\ntouch ran\n")
    (tmp_path / "evil.sh").chmod(0o755)
    done = subprocess.run(
        ["sudo", "-n", "-h", "rm", "-rf", "./evil.sh"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0, done
    assert (tmp_path / "evil.sh").is_file() and not (tmp_path / "ran").exists()
    assert scorer.check("sudo -h rm -rf ./evil.sh").decision == "allow"
    # a host then a command: the engine judges the command (sudo refuses it, another policy plugin may not)
    verdict = scorer.check("sudo -h host rm -rf ~")
    assert verdict.decision == "deny" and verdict.hardline, said("sudo -h host rm -rf ~", verdict)
