"""``hermes-engine check`` and ``hermes-engine guard``: the commands that judge one call and exit.

They read the compiled project from its cache (engine.guard.cache) and import only the
policy machinery, so a warm start costs little more than the interpreter's own. Run as
``hermes-engine check|guard ...`` they are dispatched here without importing the rest of
the command line (engine.cli.__init__); they are also commands of the full group.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from engine.cli.options import _Cli, _one_shot_heap, project_root, root_options, run_group
from engine.cli.plain import validate_report
from engine.cli.reporters import REPORTERS
from engine.config import TARGETS
from engine.errors import EXIT_INVALID


@click.command()
@root_options
@click.argument("command")
@click.option("--tool", default="terminal", show_default=True, help="Judge COMMAND as this tool's argument.")
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as JSON.")
@click.pass_context
def check(ctx: click.Context, command: str, tool: str, as_json: bool) -> None:
    """Judge COMMAND with the project's policies: allow, ask or deny (exit 0 only for allow)."""
    from engine.cli.verdict import check_output  # noqa: PLC0415

    code, text = check_output(project_root(ctx), command, tool, as_json)
    click.echo(text)
    ctx.exit(code)


@click.command()
@root_options
@click.option("--format", "fmt", type=click.Choice(sorted(REPORTERS)), default="text", show_default=True)
@click.option(
    "--strict",
    "strict",
    multiple=True,
    type=click.Choice(["openai"]),
    help="Also report, as errors, each tool this provider's strict mode cannot take, and why.",
)
@click.option(
    "--target",
    "targets",
    multiple=True,
    type=click.Choice(TARGETS),
    help="Warn about what these providers would refuse (repeatable; default: the config's targets, all but gemini).",
)
@click.option("--connect", is_flag=True, help="Also connect to each McpServer and list its tools.")
@click.pass_context
def validate(ctx: click.Context, fmt: str, strict: tuple[str, ...], targets: tuple[str, ...], connect: bool) -> None:
    """Check every manifest; exit 0 when valid, 1 when not."""
    root = project_root(ctx)
    if not (strict or targets or connect):
        code, text = validate_report(root, fmt, lambda: _one_shot_heap(ctx))
        click.echo(text)
        ctx.exit(code)
    from engine.compile.loader import ProjectLoader  # noqa: PLC0415

    with _one_shot_heap(ctx):
        loader = ProjectLoader(root, pin="report")
        result = loader.load(strict=strict, targets=targets or None)
    if connect and result.ok:
        from engine.cli.main import _connect  # noqa: PLC0415

        result = _connect(loader, result)
    click.echo(REPORTERS[fmt](result, root=loader.root))
    ctx.exit(0 if result.ok else EXIT_INVALID)


AGENT_CHOICE = click.Choice(["claude-code", "codex", "gemini"])


@click.group(cls=_Cli, invoke_without_command=True)
@root_options
@click.option("--for", "agent", type=AGENT_CHOICE, default=None, help="The agent whose hook event is on stdin.")
@click.option("--serve", is_flag=True, help="Answer hook events over HTTP instead (loopback only, token required).")
@click.option("--port", default=8766, show_default=True, type=click.IntRange(0, 65535), help="--serve: port (0: any).")
@click.pass_context
def guard(ctx: click.Context, agent: str | None, serve: bool, port: int) -> None:
    """Judge a coding agent's tool call before it runs (a pre-tool hook).

    Reads the hook event JSON (Claude Code PreToolUse, Codex PreToolUse, Gemini CLI
    BeforeTool) on stdin and answers in that agent's protocol: allow, ask (the agent's own
    prompt) or deny, with a reason. Exit 2 on any failure: every agent blocks the call.

    With --serve, answers the same events POSTed to http://127.0.0.1:PORT/guard/AGENT
    with `Authorization: Bearer $HERMES_ENGINE_GUARD_TOKEN`.
    """
    if ctx.invoked_subcommand is not None:
        return
    if serve:
        from engine.guard.serve import serve_forever  # noqa: PLC0415

        serve_forever(project_root(ctx), port)
        return
    if agent is None:
        raise click.UsageError("name the agent: --for claude-code|codex|gemini")
    from engine.guard.hook import fail, run  # noqa: PLC0415

    try:
        data = sys.stdin.buffer.read()
        code, out, err = run(agent, data, project_root(ctx))
    except BaseException as exc:  # fail closed: an agent reads exit 2 as "block"
        code, out, err = fail(f"internal error ({type(exc).__name__})")
    if out:
        click.echo(out)
    if err:
        click.echo(err, err=True, nl=False)
    ctx.exit(code)


@guard.command()
@click.option("--for", "agent", type=click.Choice(["claude-code"]), default="claude-code", show_default=True)
@click.option("--project", "scope", flag_value="project", default=True, help="The project's .claude/settings.json.")
@click.option("--user", "scope", flag_value="user", help="~/.claude/settings.json.")
@click.option("--settings", "settings_file", type=click.Path(path_type=Path, dir_okay=False), help="This file instead.")
@click.pass_context
def install(ctx: click.Context, agent: str, scope: str, settings_file: Path | None) -> None:
    """Add the guard hook to the agent's settings (merged; a backup first; idempotent)."""
    from engine.guard.install import install as do_install  # noqa: PLC0415
    from engine.guard.install import settings_path  # noqa: PLC0415

    path = settings_file or settings_path(scope, Path(os.getcwd()))
    click.echo(do_install(path, _hook_command(ctx, scope)))


@guard.command()
@click.option("--for", "agent", type=click.Choice(["claude-code"]), default="claude-code", show_default=True)
@click.option("--project", "scope", flag_value="project", default=True, help="The project's .claude/settings.json.")
@click.option("--user", "scope", flag_value="user", help="~/.claude/settings.json.")
@click.option("--settings", "settings_file", type=click.Path(path_type=Path, dir_okay=False), help="This file instead.")
def uninstall(agent: str, scope: str, settings_file: Path | None) -> None:
    """Remove exactly the hook `guard install` added (a backup first)."""
    from engine.guard.install import settings_path  # noqa: PLC0415
    from engine.guard.install import uninstall as do_uninstall  # noqa: PLC0415

    path = settings_file or settings_path(scope, Path(os.getcwd()))
    click.echo(do_uninstall(path))


def _hook_command(ctx: click.Context, scope: str) -> str:
    """The command the agent runs: this interpreter's engine, for the project (--root when given)."""
    import shlex  # noqa: PLC0415

    argv = [sys.executable, "-m", "engine", "guard", "--for", "claude-code"]
    obj = ctx.find_root().ensure_object(dict)
    if obj.get("root") is not None or obj.get("builtin"):
        argv += ["--root", str(project_root(ctx).resolve())]
    elif scope == "project":
        argv += ["--root", str(Path.cwd().resolve())]
    return shlex.join(argv)


def run_fast(argv: list[str]) -> None:
    """Run ``check``, ``guard`` or ``validate`` as their own program (``hermes-engine check|guard|validate ...``)."""
    from engine.guard.deferred import release_collection  # noqa: PLC0415

    release_collection()  # not a plain judging call after all (engine.cli): collections as usual
    group = _Cli(name="hermes-engine", commands={"check": check, "guard": guard, "validate": validate})
    # A hook that cannot even read its options still blocks the call.
    sys.exit(run_group(group, argv, failed_usage=2 if argv[:1] == ["guard"] else None))
