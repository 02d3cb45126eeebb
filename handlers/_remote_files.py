"""The file tools on a runtime's own filesystem (a container, an ssh host).

Paths are the runtime's: relative ones start at its working directory. The host's path
rules do not apply there (the runtime is the boundary), but the policy still judges every
path argument as it does for the host.
"""

from __future__ import annotations

import difflib
import re
import shlex

from engine.dispatch.context import CallContext, ToolFailure

from . import _runtime

_MAX_LINE = 2000
_SNIFF = 8192


def _text(data: bytes, path: str) -> str:
    head = data[:_SNIFF]
    if b"\x00" in head:
        raise ToolFailure(f"{path!r} is a binary file; it is not shown")
    return data.decode("utf-8", errors="replace")


def read_file(ctx: CallContext, path: str, offset: int, limit: int) -> str:
    budget = int(ctx.config.get("files", "max_read_chars"))
    with _runtime.runtime(ctx) as live:
        text = _text(live.read_file(path, budget * 4 + 1), path)
    lines = text.splitlines()
    if not lines:
        return f"{path} is empty"
    if offset > len(lines):
        raise ToolFailure(f"offset {offset} is past the end of {path!r} ({len(lines)} lines)")
    out: list[str] = []
    used = 0
    last = offset - 1
    for number in range(offset, min(len(lines), offset + limit - 1) + 1):
        line = lines[number - 1]
        if len(line) > _MAX_LINE:
            line = line[:_MAX_LINE] + f"…[+{len(line) - _MAX_LINE} chars]"
        entry = f"{number:>6}|{line}"
        if used + len(entry) > budget and out:
            break
        out.append(entry)
        used += len(entry) + 1
        last = number
    body = "\n".join(out)
    if last < len(lines):
        body += f"\n[lines {offset}-{last} of {len(lines)}; call again with offset={last + 1} for more]"
    return body


def write_file(ctx: CallContext, path: str, content: str) -> str:
    data = content.encode("utf-8")
    with _runtime.runtime(ctx) as live:
        live.write_file(path, data)
        where = live.resolve(path)
    return f"wrote {where} ({len(data)} bytes) in runtime {ctx.runtime.name!r}"


def patch(
    ctx: CallContext, path: str, old_string: str | None, new_string: str | None, replace_all: bool, diff: str | None
) -> str:
    with _runtime.runtime(ctx) as live:
        original = _text(live.read_file(path, 64 * 1024 * 1024), path)
        if diff is not None:
            if old_string is not None or new_string is not None:
                raise ToolFailure("give either diff or old_string/new_string, not both")
            from .files import apply_unified_diff  # noqa: PLC0415 - files imports this module

            updated = apply_unified_diff(original, diff)
        else:
            if not old_string or new_string is None:
                raise ToolFailure("give old_string (not empty) and new_string (or a unified diff)")
            count = original.count(old_string)
            if count == 0:
                raise ToolFailure(f"old_string was not found in {path!r}; read the file again, copy the text exactly")
            if count > 1 and not replace_all:
                raise ToolFailure(f"old_string occurs {count} times in {path!r}; make it unique or set replace_all")
            updated = original.replace(old_string, new_string)
        if updated == original:
            return f"{path} unchanged"
        live.write_file(path, updated.encode("utf-8"))
    change = difflib.unified_diff(
        original.splitlines(keepends=True), updated.splitlines(keepends=True), f"a/{path}", f"b/{path}", n=2
    )
    return "".join(change)


def list_dir(ctx: CallContext, path: str, hidden: bool) -> str:
    with _runtime.runtime(ctx) as live:
        entries = live.list_dir(path)
        where = live.resolve(path)
    entries.sort(key=lambda e: (e.kind != "dir", e.name.lower()))
    lines = []
    for entry in entries:
        if not hidden and entry.name.startswith("."):
            continue
        if entry.kind == "link":
            lines.append(f"{entry.name} -> {entry.target}")
        elif entry.kind == "dir":
            lines.append(f"{entry.name}/")
        else:
            lines.append(f"{entry.name}  ({entry.size} bytes)")
    return "\n".join([f"{where}/ ({len(lines)} entries)", *lines]) if lines else f"{where}/ is empty"


def search_files(
    ctx: CallContext, pattern: str, mode: str, path: str, include: str | None, ignore_case: bool, max_results: int
) -> str:
    """grep/find in the runtime (POSIX tools; patterns are extended regular expressions there)."""
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ToolFailure(f"invalid regular expression: {exc}") from None
    with _runtime.runtime(ctx) as live:
        base = live.resolve(path)
        if mode == "files":
            command = f"find {shlex.quote(base)} -name {shlex.quote(pattern)} -not -path '*/.git/*' 2>/dev/null"
        else:  # POSIX find and grep only: busybox images have no grep -r --include
            flags = "-nHE" + ("i" if ignore_case else "")
            only = f" -name {shlex.quote(include)}" if include else ""
            # Secrets are not searched, as on the host (a read of each asks): hidden folders and
            # files (`~/.ssh`, `.env`, `.aws`) are never entered, nor files with a secret's name.
            command = (
                f"find {shlex.quote(base)} -mindepth 1 -name '.*' -prune -o -type f{only} {_not_secret(ctx)} "
                f"-exec grep {flags} -e {shlex.quote(pattern)} {{}} + 2>/dev/null"
            )
        command += f" | head -n {max_results + 1}"
        result = live.exec(command, env=_runtime.env(ctx), timeout=60)
    found = [line for line in result.output.splitlines() if line]
    if not found:
        return f"no matches for {pattern!r} in {base}"
    more = len(found) > max_results
    body = "\n".join(line[:_MAX_LINE] for line in found[:max_results])
    return body + (f"\n[more than {max_results} results; narrow the search]" if more else "")


def _not_secret(ctx: CallContext) -> str:
    """find tests leaving out the files a secret's name marks (`*.pem`, `id_rsa`: the policy's classes)."""
    names = ctx.paths.secret_names() if ctx.paths is not None else []
    return " ".join(f"! -name {shlex.quote(n)}" for n in names)
