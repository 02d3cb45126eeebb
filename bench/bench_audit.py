"""Verifying an audit log of 100,000 records: the HMAC chain against plain-hash floors.

    python -m bench.bench_audit [--records 100000]

The log is written as the engine writes it (same record shape, same key and
head files), in a temporary project whose config dir is also temporary. Peers:
reading and splitting the file (the I/O floor); a SHA-256 chain that parses
every line as JSON and re-serialises it (the unkeyed format the engine used
before); the same chain without JSON (the cheapest hash-per-line check).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.common import once, table


def write_log(root: Path, records: int) -> Path:
    """A project whose audit log holds ``records`` decisions, chained as AuditLog.append chains them."""
    from engine.policy.audit import GENESIS, _Keys, _line, _Signer

    (root / "hermes-engine.yaml").write_text("state_dir: .state\n")
    log = root / ".state" / "audit.jsonl"
    log.parent.mkdir(parents=True)
    keys = _Keys.of(log)
    signer = _Signer(keys.create())
    previous = GENESIS
    chunks: list[bytes] = []
    for seq in range(1, records + 1):
        entry = {
            "seq": seq,
            "ts": "2025-01-01T00:00:00+0000",
            "tool": "terminal",
            "session_id": "s1",
            "task_id": None,
            "decision": "ask" if seq % 3 else "allow",
            "hardline": False,
            "outcome": "once" if seq % 3 else "allow",
            "allowed": True,
            "keys": ["git_force_push"] if seq % 3 else [],
            "command": f"git push --force origin feature-{seq} 2>/dev/null && npm run build -- --out dist/{seq}",
        }
        line, previous = _line(signer, previous, entry)
        chunks.append(line)
    log.write_bytes(b"".join(chunks))
    keys.write_head(log, records, previous)
    return log


def read_floor(log: Path) -> int:
    return len(log.read_bytes().split(b"\n"))


def sha256_json_chain(log: Path) -> int:
    previous = "0" * 64
    n = 0
    with open(log, encoding="utf-8") as handle:
        for line in handle:
            entry = json.loads(line)
            entry.pop("mac", None)
            body = json.dumps(entry, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
            previous = hashlib.sha256((previous + body).encode("utf-8")).hexdigest()
            n += 1
    return n


def sha256_chain(log: Path) -> int:
    previous = b"0" * 64
    n = 0
    for line in log.read_bytes().split(b"\n"):
        if line:
            previous = hashlib.sha256(previous + line[:-74]).hexdigest().encode()
            n += 1
    return n


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=100_000)
    opts = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="hermes-bench-audit-"))
    os.environ["XDG_CONFIG_HOME"] = str(base / "config")
    root = base / "project"
    root.mkdir()
    log = write_log(root, opts.records)

    from engine.policy.audit import verify

    report = verify(log)
    assert report.intact and report.records == opts.records, report.as_dict()
    command = [sys.executable, "-m", "engine", "--root", str(root), "audit", "verify"]

    def cli() -> None:
        subprocess.run(command, check=True, capture_output=True)

    rows = []
    results = {
        "hermes verify() (HMAC chain + head)": once(lambda: verify(log)),
        "hermes-engine audit verify (process)": once(cli, repeat=5),
        "floor: read + split lines": once(lambda: read_floor(log)),
        "peer: SHA-256 chain, no JSON": once(lambda: sha256_chain(log)),
        "peer: SHA-256 chain over json.loads/dumps": once(lambda: sha256_json_chain(log), repeat=3),
    }
    ours = results["hermes verify() (HMAC chain + head)"][0]
    for name, (median, best) in results.items():
        rows.append((name, f"{median * 1000:.0f} ms", f"{best * 1000:.0f} ms", f"{median / ours:.2f}x"))
    size = log.stat().st_size / 1e6
    title = f"Verifying {opts.records:,} audit records ({size:.1f} MB)"
    print(table(title, rows, ("check", "median", "min", "vs verify()")))
    target = results["hermes-engine audit verify (process)"][0]
    print(f"\ntarget: `hermes-engine audit verify` on 100,000 records <= 1 s: {target:.2f} s")


if __name__ == "__main__":
    main()
