"""What every ``hermes-engine`` command shares and that costs nothing to import: the group class
that maps exceptions to exit codes, and the --root/--builtin options.

Kept apart from engine.cli.main so the commands that must start fast (``guard``, ``check``
from the compiled-project cache) can be run without importing the whole engine.
"""

from __future__ import annotations

import contextlib
import os
import sys
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import click

from engine.errors import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERNAL,
    EXIT_INVALID,
    EXIT_USAGE,
    HermesError,
    UsageError,
    ValidationFailed,
)

F = TypeVar("F", bound=Callable[..., Any])


class _Cli(click.Group):
    """Maps the engine's exceptions to exit codes; nothing reaches the user as a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except UsageError as exc:
            click.echo(f"error: {exc}", err=True)
            ctx.exit(EXIT_USAGE)
        except ValidationFailed as exc:
            for problem in exc.problems:
                click.echo(problem.format(), err=True)
            click.echo(f"invalid: {len(exc.errors)} error(s); run `hermes-engine validate` for details", err=True)
            ctx.exit(EXIT_INVALID)
        except HermesError as exc:
            click.echo(f"error: {exc}", err=True)
            ctx.exit(EXIT_INVALID)
        except KeyboardInterrupt:
            ctx.exit(130)
        except BrokenPipeError:
            # Nobody reads any more: stop quietly, and keep the interpreter's final flush quiet too.
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
            ctx.exit(EXIT_BROKEN_PIPE)
        except Exception as exc:
            click.echo(f"internal error: {type(exc).__name__}: {exc}", err=True)
            click.echo("this is a bug in hermes-engine; please report it with the command you ran", err=True)
            if os.environ.get("HERMES_ENGINE_DEBUG"):
                traceback.print_exc()
            ctx.exit(EXIT_INTERNAL)


def _remember_root(ctx: click.Context, _param: click.Parameter, value: Path | None) -> Path | None:
    if value is not None:
        ctx.find_root().ensure_object(dict)["root"] = value
    return value


def _remember_builtin(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
    if value:
        ctx.find_root().ensure_object(dict)["builtin"] = True
    return value


def root_options(func: F) -> F:
    """--root and --builtin, accepted by the group and by every command."""
    func = click.option(
        "--builtin",
        is_flag=True,
        expose_value=False,
        callback=_remember_builtin,
        is_eager=True,
        help="Use the builtin pack itself as the project.",
    )(func)
    return click.option(
        "--root",
        type=click.Path(path_type=Path, file_okay=False),
        expose_value=False,
        callback=_remember_root,
        is_eager=True,
        help="Project root (default: the current directory).",
    )(func)


def project_root(ctx: click.Context) -> Path:
    obj = ctx.find_root().ensure_object(dict)
    if obj.get("builtin"):
        from engine.source.project import builtin_pack_dir  # noqa: PLC0415

        return builtin_pack_dir()
    root: Path | None = obj.get("root")
    return root if root is not None else Path.cwd()


def run_group(group: click.Group, argv: list[str] | None, *, failed_usage: int | None = None) -> int:
    """Run ``group`` as the program and return its exit code: click's own exits, 130 on abort, a
    usage error shown and its code (or ``failed_usage`` when the caller must exit otherwise)."""
    import click.exceptions  # noqa: PLC0415

    try:
        code = group.main(
            args=argv, prog_name="hermes-engine", standalone_mode=False, obj={"exits_after_command": True}
        )
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        code = 130
    except click.ClickException as exc:
        exc.show()
        code = exc.exit_code if failed_usage is None else failed_usage
    return int(code or 0)


@contextlib.contextmanager
def _one_shot_heap(ctx: click.Context) -> Iterator[None]:
    """Around the load of a one-shot command: what it builds lives until the process exits.

    The cyclic GC stays off while loading and the result is frozen out of its reach, so
    the pass the first allocation after a big load would trigger (a third of a second's
    work on 1,000 tools is spent scanning objects that can never be garbage) is skipped.
    Not for `dev`: a long-running process must be able to collect replaced generations.
    """
    # main() says the process ends with the command; embedded (tests, CliRunner): leave the host's GC alone.
    if not ctx.find_root().ensure_object(dict).get("exits_after_command"):
        yield
        return
    from engine.cli.plain import one_shot_heap  # noqa: PLC0415

    with one_shot_heap():
        yield
