"""``hermes-engine audit``: check and read the project's audit log.

Only the config is read (not the manifests), so checking a long log does not
wait for a full project load.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from engine.cli.main import cli
from engine.cli.options import project_root, root_options
from engine.cli.prompt import printable
from engine.config import normalise
from engine.errors import EXIT_INVALID, Problem, UsageError, ValidationFailed
from engine.policy.audit import AuditError, AuditReport, audit_path, key_dir, tail, verify
from engine.source.project import CONFIG_NAMES
from engine.source.yamlfile import parse_file


def _log_path(ctx: click.Context) -> Path:
    root = project_root(ctx)
    if not root.is_dir():
        raise UsageError(f"{root} is not a directory")
    config_file = root / CONFIG_NAMES[0]
    document = None
    problems: list[Problem] = []
    if config_file.exists():
        parsed = parse_file(config_file, CONFIG_NAMES[0])
        problems.extend(parsed.problems)
        document = parsed.documents[0] if parsed.documents else None
    config, config_problems = normalise(document, root)
    problems.extend(config_problems)
    if any(p.severity == "error" for p in problems):
        raise ValidationFailed(problems)
    return audit_path(config)


@cli.group()
@root_options
def audit() -> None:
    """Check and read the audit log (every decision on a guarded call, HMAC-chained)."""


@audit.command("verify")
@root_options
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def verify_command(ctx: click.Context, as_json: bool) -> None:
    """Check every record and the chain up to the head; exit 0 intact, 1 tampered or damaged."""
    path = _log_path(ctx)
    try:
        report = verify(path)
    except AuditError as exc:
        report = AuditReport(str(path))
        report.bad(None, None, str(exc))
    if as_json:
        click.echo(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
    else:
        _print_report(report)
    ctx.exit(0 if report.intact else EXIT_INVALID)


def _print_report(report: AuditReport) -> None:
    if report.intact:
        click.echo(f"intact: {report.records} records in {printable(report.path)}")
        return
    where = f"seq {report.first_bad_seq}" if report.first_bad_seq is not None else "its head"
    click.echo(f"tampered or damaged: {printable(report.path)}, first bad record at {where}")
    for problem in report.problems:
        line = f"line {problem['line']}" if problem["line"] is not None else "head"
        click.echo(f"  {line} (seq {problem['seq']}): {printable(problem['problem'])}")
    for brk in report.breaks:
        click.echo(f"  line {brk['line']} (seq {brk['seq']}): new segment after damage: {printable(brk['found'])}")
    click.echo(f"  {report.records} records verify; keys and heads live in {key_dir()}")


@audit.command("tail")
@root_options
@click.option("-n", "--lines", "count", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="One JSON record per line, as stored.")
@click.pass_context
def tail_command(ctx: click.Context, count: int, as_json: bool) -> None:
    """Print the last records of the audit log (oldest first)."""
    for record in tail(_log_path(ctx), count):
        if as_json:
            click.echo(json.dumps(record, ensure_ascii=False))
        elif "unreadable" in record:
            click.echo(f"? unreadable line: {printable(str(record['unreadable']))}")
        elif record.get("event") == "break":
            click.echo(f"{record.get('seq')} {record.get('ts')} BREAK {printable(str(record.get('found')))}")
        else:
            allowed = "allowed" if record.get("allowed") else "refused"
            keys = ",".join(map(str, record.get("keys") or ())) or "-"
            fields = (record.get("seq"), record.get("ts"), record.get("tool"), record.get("outcome"), allowed, keys)
            head = " ".join(printable(str(f)) for f in fields)
            click.echo(f"{head}  {printable(str(record.get('command', '')))}")
