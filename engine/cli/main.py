"""``hermes-engine``: parse the command line, then run one command.

Exit codes (engine.errors): 0 ok, 1 the input is invalid (or a call failed),
2 usage error, 3 internal error (a bug: please report it).
"""

from __future__ import annotations

import functools
import json
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from engine.cli.options import _Cli, _one_shot_heap, project_root, root_options, run_group
from engine.cli.prompt import prompt
from engine.compile.loader import LoadResult, ProjectLoader, load_reporting
from engine.definitions.build import Strict
from engine.definitions.formats import FORMATS
from engine.engine import Engine, ToolInfo
from engine.errors import (
    EXIT_INVALID,
    Problem,
    UsageError,
)
from engine.policy.approval import OUTCOMES
from engine.reload.events import ReloadEvent
from engine.schemas import SCHEMA_NAMES, load_schema


def load_engine(ctx: click.Context) -> Engine:
    with _one_shot_heap(ctx):
        engine = Engine.load(project_root(ctx))
    if any(m.kind == "McpServer" for m in engine.snapshot.manifests):
        from engine.mcp.client import settle  # noqa: PLC0415

        settle(engine)  # a one-shot command shows what the servers offer, or why they do not
        ctx.call_on_close(engine.close)
    return engine


def _version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``--version``: the version and the build (compiled with mypyc or pure Python, docs/compiled.md)."""
    if not value or ctx.resilient_parsing:
        return
    from importlib.metadata import version  # noqa: PLC0415

    from engine.build import build_name  # noqa: PLC0415

    click.echo(f"hermes-engine, version {version('hermes-engine')}, {build_name()}")
    ctx.exit()


@click.group(cls=_Cli, context_settings={"help_option_names": ["-h", "--help"]})
@root_options
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_version,
    help="Show the version and the build (compiled (mypyc) or pure Python), and exit.",
)
def cli() -> None:
    """A declarative tool engine for LLM agents.

    The project root (current directory, or --root PATH) holds manifests/,
    toolsets/, policies/ and an optional hermes-engine.yaml.
    """


def _connect(loader: ProjectLoader, result: LoadResult) -> LoadResult:
    """The load again with every McpServer connected: their listings' warnings and connection errors."""
    from engine.mcp.client import check_connections  # noqa: PLC0415

    with Engine(loader, result) as engine:
        failed = check_connections(engine)
        final = engine.last_result
    problems = sorted([*final.problems, *failed])
    ok = not any(p.severity == "error" for p in problems)
    return LoadResult(final.snapshot if ok else None, problems, final.counts, final.documents, final.files)


@cli.command("list")
@root_options
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array.")
@click.option("--toolset", default=None, help="Only tools of this toolset (includes followed).")
@click.pass_context
def list_tools(ctx: click.Context, as_json: bool, toolset: str | None) -> None:
    """List tools with their toolset, availability and source."""
    engine = load_engine(ctx)
    infos = engine.list_tools(toolset)
    if toolset is None and any(m.kind == "McpServer" for m in engine.snapshot.manifests):
        from engine.mcp.client import server_rows  # noqa: PLC0415
        from engine.mcp.manifest import tool_name  # noqa: PLC0415

        # A declared server that offers no tool (yet) still gets a row saying why.
        infos += [
            ToolInfo(tool_name(s.name, "") + "*", s.toolset, False, f"{s.state}: {s.reason}", s.source)
            for s in server_rows(engine)
            if s.tools == 0
        ]
    if as_json:
        click.echo(json.dumps([i.as_dict() for i in infos], indent=2))
        return
    width = max((len(i.name) for i in infos), default=4)
    for info in infos:
        state = "available" if info.available else f"unavailable: {info.reason}"
        click.echo(f"{info.name:<{width}}  {info.toolset:<12} {state:<12}  {info.source}")


@cli.command()
@root_options
@click.option("--format", "fmt", type=click.Choice(list(FORMATS)), default="openai", show_default=True)
@click.option("--enable", multiple=True, help="Offer only these toolsets (repeatable; default: the config's).")
@click.option("--disable", multiple=True, help="Remove these toolsets (repeatable).")
@click.option(
    "--budget-tokens",
    type=click.IntRange(min=1),
    default=None,
    help="List only the tools that fit in this many tokens, plus tool_search/tool_describe/tool_call "
    "for the rest (default: the config's tool_search.budget_tokens).",
)
@click.option(
    "--strict",
    "strict",
    type=click.Choice(["auto", "true", "false"]),
    default=None,
    help="OpenAI strict mode for the openai formats (default: the config's openai.strict, auto).",
)
@click.pass_context
def schema(
    ctx: click.Context,
    fmt: str,
    enable: tuple[str, ...],
    disable: tuple[str, ...],
    budget_tokens: int | None,
    strict: str | None,
) -> None:
    """Print the definitions of available tools as a JSON array."""
    engine = load_engine(ctx)
    mode: Strict | None = None if strict is None else "auto" if strict == "auto" else strict == "true"
    definitions = engine.definitions(
        fmt, enabled=enable or None, disabled=disable or None, budget_tokens=budget_tokens, strict=mode
    )
    click.echo(json.dumps(definitions, indent=2, ensure_ascii=False))


def _interactive() -> bool:
    """Someone at a terminal can answer an approval prompt."""
    return sys.stdin.isatty() and sys.stderr.isatty()


@cli.command()
@root_options
@click.argument("tool")
@click.argument("args_json", required=False, default=None)
@click.option("--json", "as_json", is_flag=True, help="Print the whole ToolResult as JSON.")
@click.option("--session", "session_id", default=None, help="Session id (todo, memory and approvals are per session).")
@click.option(
    "--approve",
    type=click.Choice(OUTCOMES),
    default=None,
    help="Answer an approval prompt without asking (scripts, tests). Without it and without a TTY, "
    "a call that needs approval is denied.",
)
@click.pass_context
def call(
    ctx: click.Context, tool: str, args_json: str | None, as_json: bool, session_id: str | None, approve: str | None
) -> None:
    """Run TOOL with ARGS_JSON (a JSON object; - reads stdin) and print what the model would see.

    Exit 0 when the call succeeded, 1 when the result is an error.
    """
    if args_json == "-":
        args_json = sys.stdin.read()
    with load_engine(ctx) as engine:
        if approve is not None:
            engine.set_approval_callback(lambda request: approve)
        elif _interactive():
            engine.set_approval_callback(prompt)
        result = engine.call_batch([(tool, args_json)], session_id=session_id)[0]
    if as_json:
        click.echo(json.dumps(result.as_dict(), indent=2, ensure_ascii=False))
    else:
        click.echo(result.output)
    ctx.exit(0 if result.ok else EXIT_INVALID)


def _emit(event: dict[str, Any], text: str, as_json: bool) -> None:
    click.echo(json.dumps(event, ensure_ascii=False) if as_json else text)


def _error_event(generation: int, problems: list[Problem], as_json: bool) -> None:
    errors = [p for p in problems if p.severity == "error"]
    lines = [p.format() for p in errors] + [f"generation {generation} keeps serving: {len(errors)} error(s)"]
    _emit(
        {"event": "error", "generation": generation, "errors": [p.as_dict() for p in errors]}, "\n".join(lines), as_json
    )


@cli.command()
@root_options
@click.option("--json", "as_json", is_flag=True, help="One JSON object per event, one per line.")
@click.pass_context
def dev(ctx: click.Context, as_json: bool) -> None:
    """Watch the project and reload on every save until interrupted (Ctrl-C or SIGTERM exits 0)."""
    root = project_root(ctx)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    # Ctrl-C the same way, also when the shell that started dev left SIGINT ignored (a background job without job
    # control inherits it so: a `nohup … &` CI run's dev test hung on a Ctrl-C nobody read)
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    # The dev loop is a person saving in an editor: what it loads, it approves.
    loader = ProjectLoader(root, pin="approve")
    started = time.perf_counter()
    result = load_reporting(loader)
    try:
        while result.snapshot is None:
            # A broken project at start-up is normal while editing: report (once the watch is
            # armed, so a fix saved the moment the error shows is seen), wait, try again.
            report_error = functools.partial(_error_event, 0, result.problems, as_json)
            if not _wait_for_change(loader, stop, report_error):
                return
            started = time.perf_counter()
            result = load_reporting(loader)
        engine = Engine(loader, result)

        def report(event: ReloadEvent) -> None:
            if event.ok:
                _emit(event.as_dict(), event.summary(), as_json)
            else:
                _error_event(event.old_generation, list(event.problems), as_json)

        engine.on_reload(report)
        with engine, engine.watch():
            # "ready" only now: the watcher is armed (start() returned), so a save made the
            # moment a client reads this line is reloaded.
            ms = (time.perf_counter() - started) * 1000
            _emit(
                {"event": "ready", "generation": engine.generation, "tools": len(engine.tools)},
                f"generation {engine.generation}: ready, {len(engine.tools)} tools ({ms:.0f} ms)",
                as_json,
            )
            while not stop.wait(0.2):
                pass
    except KeyboardInterrupt:
        pass


def _wait_for_change(loader: ProjectLoader, stop: threading.Event, armed: Callable[[], None]) -> bool:
    """Block until something under the root changes; False when asked to stop.

    ``armed`` is called once the watch is in place (watchfiles yields only after its
    watcher is set up), or once it is known that it cannot be.
    """
    import watchfiles  # noqa: PLC0415

    told = False
    try:
        for changes in watchfiles.watch(
            loader.root,
            stop_event=stop,
            debounce=250,
            step=10,
            raise_interrupt=False,
            yield_on_timeout=True,
            rust_timeout=200,
        ):
            if not told:
                told = True
                armed()
            if stop.is_set():
                return False
            if changes:
                return True
    except Exception:  # the root went away, or cannot be watched: look again shortly
        if not told:
            armed()
        return not stop.wait(0.5)
    if not told:
        armed()
    return False


@cli.command()
@root_options
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True)
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="HTTP: address to bind (not loopback: a token is required)."
)
@click.option(
    "--port", default=8765, show_default=True, type=click.IntRange(0, 65535), help="HTTP: port (0: any free one)."
)
@click.option("--enable", multiple=True, help="Offer only these toolsets (repeatable; default: the config's).")
@click.option("--disable", multiple=True, help="Remove these toolsets (repeatable).")
@click.option(
    "--stateless", is_flag=True, help="HTTP: no server-side sessions (several processes behind one balancer)."
)
@click.option("--allow-origin", "origins", multiple=True, help="HTTP: a browser Origin allowed besides loopback ones.")
@click.option(
    "--grants", default=None, help="SQLite file for session approval grants (default: STATE_DIR/mcp-grants.sqlite)."
)
@click.pass_context
def serve(
    ctx: click.Context,
    transport: str,
    host: str,
    port: int,
    enable: tuple[str, ...],
    disable: tuple[str, ...],
    stateless: bool,
    origins: tuple[str, ...],
    grants: str | None,
) -> None:
    """Serve the tools to MCP clients (stdio, or streamable HTTP at /mcp), reloading on save.

    HTTP binds 127.0.0.1 by default; any other address needs a bearer token in
    HERMES_ENGINE_MCP_TOKEN, which clients then send as `Authorization: Bearer TOKEN`.
    """
    from engine.mcp.transports import serve as run  # noqa: PLC0415

    engine = Engine.load(project_root(ctx))
    run(
        engine,
        transport=transport,
        host=host,
        port=port,
        enabled=enable or None,
        disabled=disable,
        stateless=stateless,
        origins=origins,
        grants=grants,
    )


@cli.command("plugins")
@root_options
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object.")
@click.pass_context
def plugins_command(ctx: click.Context, as_json: bool) -> None:
    """List plugins: installed and configured, their state and what each added.

    Exit 0 when the project loads, 1 when it does not (a failed plugin fails the load).
    """
    loader = ProjectLoader(project_root(ctx))
    loader.plugins.list_installed = True
    with _one_shot_heap(ctx):
        result = loader.load()
    reports = result.plugins.reports if result.plugins is not None else []
    others = [p for p in result.errors if not p.message.startswith("plugin ")]
    if as_json:
        payload = {
            "ok": result.ok,
            "plugins": [r.as_dict() for r in reports],
            "errors": [p.as_dict() for p in result.errors],
        }
        click.echo(json.dumps(payload, indent=2))
        ctx.exit(0 if result.ok else EXIT_INVALID)
    if not reports:
        click.echo("no plugins (none installed in the entry point group hermes_engine.plugins, none configured)")
    width = max((len(r.name) for r in reports), default=4)
    for report in reports:
        click.echo(f"{report.name:<{width}}  {report.state:<8}  {report.origin}")
        if report.reason:
            click.echo(f"{'':<{width}}  {'':<8}  {report.reason}")
        for what, items in report.added.items():
            if items:
                click.echo(f"{'':<{width}}  {'':<8}  {what}: {', '.join(items)}")
    if others:
        click.echo(f"the project does not load: {len(others)} other error(s); run `hermes-engine validate`", err=True)
    ctx.exit(0 if result.ok else EXIT_INVALID)


@cli.command("json-schema")
@root_options
@click.argument("kind", required=False, type=click.Choice(list(SCHEMA_NAMES)))
@click.option(
    "--write",
    "write_dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="Write every schema as KIND.schema.json into this directory (for editors).",
)
def json_schema(kind: str | None, write_dir: Path | None) -> None:
    """Print the JSON Schema of a manifest kind (or write them all for an editor)."""
    if write_dir is not None:
        write_dir.mkdir(parents=True, exist_ok=True)
        for name in SCHEMA_NAMES:
            target = write_dir / f"{name}.schema.json"
            target.write_text(json.dumps(load_schema(name), indent=2) + "\n", encoding="utf-8")
            click.echo(str(target))
        return
    if kind is None:
        raise UsageError(f"name a kind: {', '.join(SCHEMA_NAMES)} (or use --write DIR)")
    click.echo(json.dumps(load_schema(kind), indent=2))


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    sys.exit(run_group(cli, argv))


# Command groups kept in their own modules add themselves to `cli` (they use its options from here).
from engine.cli import audit as _audit  # noqa: E402, F401
from engine.cli import fast as _fast  # noqa: E402
from engine.cli.trust import trust as _trust  # noqa: E402

cli.add_command(_fast.check)
cli.add_command(_fast.guard)
cli.add_command(_trust)
cli.add_command(_fast.validate)
