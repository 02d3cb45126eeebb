"""File tools: read_file, write_file, patch, search_files, list_dir."""

from __future__ import annotations

import difflib
import fnmatch
import os
import re
import shutil
import subprocess
from pathlib import Path

from engine.dispatch.context import CallContext, ToolFailure

from . import _remote_files
from ._io import atomic_write
from ._paths import display, resolve
from ._runtime import files_elsewhere

_SNIFF = 8192
_MAX_LINE = 2000
_SKIP_DIRS = {
    ".git",
    ".hg",
    ".svn",
    "node_modules",
    "__pycache__",
    ".venv",
    "venv",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".tox",
    "dist",
    "build",
    ".hermes-engine",
}


def _is_binary(head: bytes) -> bool:
    if b"\x00" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A multi-byte character cut at the sniff boundary is still text.
        return exc.start < len(head) - 4
    return False


def _check_text_file(real: Path, raw: str) -> None:
    """Raises:
    ToolFailure: ``real`` is missing, a directory, or binary.
    """
    if not real.exists():
        raise ToolFailure(f"no such file: {raw!r}")
    if real.is_dir():
        raise ToolFailure(f"{raw!r} is a directory; use list_dir")
    with open(real, "rb") as handle:
        if _is_binary(handle.read(_SNIFF)):
            raise ToolFailure(f"{raw!r} is a binary file ({real.stat().st_size} bytes); it is not shown")


def _read_text(real: Path, raw: str) -> str:
    _check_text_file(real, raw)
    return real.read_text(encoding="utf-8", errors="replace")


def read_file(path: str, ctx: CallContext, offset: int = 1, limit: int = 500) -> str:
    if files_elsewhere(ctx):
        return _remote_files.read_file(ctx, path, offset, limit)
    real = resolve(ctx, path)
    _check_text_file(real, path)
    budget = int(ctx.config.get("files", "max_read_chars"))
    out: list[str] = []
    used = 0
    total = 0
    last = offset - 1
    cut_by_budget = False
    with open(real, encoding="utf-8", errors="replace", newline=None) as handle:
        for number, line in enumerate(handle, start=1):
            total = number
            if number < offset or number >= offset + limit or cut_by_budget:
                continue
            text = line.rstrip("\n")
            if len(text) > _MAX_LINE:
                text = text[:_MAX_LINE] + f"…[+{len(text) - _MAX_LINE} chars]"
            entry = f"{number:>6}|{text}"
            if used + len(entry) > budget and out:
                cut_by_budget = True
                continue
            out.append(entry)
            used += len(entry) + 1
            last = number
    if total == 0:
        return f"{display(ctx, real)} is empty"
    if offset > total:
        raise ToolFailure(f"offset {offset} is past the end of {path!r} ({total} lines)")
    body = "\n".join(out)
    if last < total:
        body += f"\n[lines {offset}-{last} of {total}; call again with offset={last + 1} for more]"
    return body


def write_file(path: str, content: str, ctx: CallContext) -> str:
    if files_elsewhere(ctx):
        return _remote_files.write_file(ctx, path, content)
    real = resolve(ctx, path, write=True)
    if real.is_dir():
        raise ToolFailure(f"{path!r} is a directory")
    existed = real.exists()
    size = atomic_write(real, content)
    lines = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
    verb = "replaced" if existed else "created"
    return f"{verb} {display(ctx, real)} ({size} bytes, {lines} lines)"


def patch(
    path: str,
    ctx: CallContext,
    old_string: str | None = None,
    new_string: str | None = None,
    replace_all: bool = False,
    diff: str | None = None,
) -> str:
    if files_elsewhere(ctx):
        return _remote_files.patch(ctx, path, old_string, new_string, replace_all, diff)
    real = resolve(ctx, path, write=True)
    original = _read_text(real, path)
    if diff is not None:
        if old_string is not None or new_string is not None:
            raise ToolFailure("give either diff or old_string/new_string, not both")
        updated = apply_unified_diff(original, diff)
    else:
        if old_string is None or new_string is None:
            raise ToolFailure("give old_string and new_string (or a unified diff)")
        if old_string == "":
            raise ToolFailure("old_string must not be empty")
        count = original.count(old_string)
        if count == 0:
            raise ToolFailure(f"old_string was not found in {path!r}; read the file again and copy the text exactly")
        if count > 1 and not replace_all:
            raise ToolFailure(
                f"old_string occurs {count} times in {path!r}; add surrounding lines to make it unique "
                "or set replace_all: true"
            )
        updated = original.replace(old_string, new_string)
    if updated == original:
        return f"{display(ctx, real)} unchanged"
    atomic_write(real, updated)
    shown = display(ctx, real)
    change = difflib.unified_diff(
        original.splitlines(keepends=True), updated.splitlines(keepends=True), f"a/{shown}", f"b/{shown}", n=2
    )
    return "".join(change)


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def apply_unified_diff(original: str, diff: str) -> str:
    """Apply a unified diff to ``original``; every hunk's context must match.

    Raises:
        ToolFailure: the diff is malformed or a hunk does not apply.
    """
    lines = original.splitlines(keepends=True)
    diff_lines = diff.splitlines()
    hunks: list[tuple[int, list[str]]] = []
    i = 0
    while i < len(diff_lines):
        match = _HUNK.match(diff_lines[i])
        if not match:
            i += 1
            continue
        start = int(match.group(1))
        body: list[str] = []
        i += 1
        while i < len(diff_lines) and not _HUNK.match(diff_lines[i]) and not diff_lines[i].startswith("--- "):
            line = diff_lines[i]
            if line.startswith(("+", "-", " ")) or line == "":
                body.append(line if line else " ")
            elif line.startswith("\\"):
                pass  # "\ No newline at end of file"
            else:
                raise ToolFailure(f"malformed diff line: {line!r}")
            i += 1
        hunks.append((start, body))
    if not hunks:
        raise ToolFailure("the diff has no @@ hunks")
    result: list[str] = []
    cursor = 0
    for start, body in hunks:
        old = [b[1:] for b in body if b[0] in " -"]
        new = [b[1:] for b in body if b[0] in " +"]
        at = _find_hunk(lines, old, max(start - 1, 0), cursor)
        if at is None:
            raise ToolFailure(f"hunk at line {start} does not apply: its context lines differ from the file")
        result.extend(lines[cursor:at])
        ending = "\n"
        result.extend(text + ending for text in new)
        cursor = at + len(old)
    result.extend(lines[cursor:])
    text = "".join(result)
    if not original.endswith("\n") and text.endswith("\n") and cursor >= len(lines):
        text = text[:-1]
    return text


def _find_hunk(lines: list[str], old: list[str], hint: int, floor: int) -> int | None:
    stripped = [line.rstrip("\r\n") for line in lines]
    size = len(old)
    for delta in range(len(lines) + 1):
        for at in (hint + delta, hint - delta):
            if floor <= at <= len(lines) - size and stripped[at : at + size] == old:
                return at
    return None


def search_files(
    pattern: str,
    ctx: CallContext,
    mode: str = "content",
    path: str = ".",
    include: str | None = None,
    ignore_case: bool = False,
    max_results: int = 100,
) -> str:
    if files_elsewhere(ctx):
        return _remote_files.search_files(ctx, pattern, mode, path, include, ignore_case, max_results)
    base = resolve(ctx, path)
    if not base.is_dir():
        raise ToolFailure(f"{path!r} is not a directory")
    if mode == "files":
        hits = _find_files(base, pattern, max_results + 1)
        lines = [display(ctx, p) for p in hits]
    else:
        try:
            regex = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
        except re.error as exc:
            raise ToolFailure(f"invalid regular expression: {exc}") from None
        rg = shutil.which("rg")
        raw = (
            _ripgrep(rg, pattern, base, include, ignore_case, max_results + 1)
            if rg
            else _python_grep(regex, base, include, max_results + 1)
        )
        lines = [f"{display(ctx, Path(p))}:{n}:{text[:_MAX_LINE]}" for p, n, text in raw]
    if not lines:
        return f"no matches for {pattern!r} in {display(ctx, base)}"
    more = len(lines) > max_results
    body = "\n".join(lines[:max_results])
    return body + (f"\n[more than {max_results} results; narrow the search]" if more else "")


def _walk(base: Path) -> list[Path]:
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        out.extend(Path(dirpath) / f for f in sorted(filenames))
    return out


def _find_files(base: Path, pattern: str, limit: int) -> list[Path]:
    glob = pattern if "/" in pattern or pattern.startswith("**") else f"**/{pattern}"
    hits: list[Path] = []
    for file in _walk(base):
        rel = file.relative_to(base).as_posix()
        if fnmatch.fnmatch(rel, glob) or fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(file.name, pattern):
            hits.append(file)
            if len(hits) >= limit:
                break
    return hits


def _python_grep(regex: re.Pattern[str], base: Path, include: str | None, limit: int) -> list[tuple[str, int, str]]:
    hits: list[tuple[str, int, str]] = []
    for file in _walk(base):
        if include and not fnmatch.fnmatch(file.name, include):
            continue
        try:
            with open(file, "rb") as handle:
                if _is_binary(handle.read(_SNIFF)):
                    continue
            with open(file, encoding="utf-8", errors="replace") as handle:
                for number, line in enumerate(handle, start=1):
                    if regex.search(line):
                        hits.append((str(file), number, line.rstrip("\n")))
                        if len(hits) >= limit:
                            return hits
        except OSError:
            continue
    return hits


def _ripgrep(
    rg: str, pattern: str, base: Path, include: str | None, ignore_case: bool, limit: int
) -> list[tuple[str, int, str]]:
    cmd = [rg, "--line-number", "--no-heading", "--color", "never", "--with-filename", "--sort", "path"]
    for skipped in sorted(_SKIP_DIRS):
        cmd += ["--glob", f"!{skipped}/"]
    if ignore_case:
        cmd.append("--ignore-case")
    if include:
        cmd += ["--glob", include]
    cmd += ["--regexp", pattern, "--", str(base)]
    proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=60, check=False)
    if proc.returncode not in (0, 1):
        raise ToolFailure(f"ripgrep failed: {proc.stderr.strip()[:500]}")
    hits: list[tuple[str, int, str]] = []
    for line in proc.stdout.splitlines():
        file, _, rest = line.partition(":")
        number, _, text = rest.partition(":")
        if number.isdigit():
            hits.append((file, int(number), text))
            if len(hits) >= limit:
                break
    return hits


def list_dir(ctx: CallContext, path: str = ".", hidden: bool = False) -> str:
    if files_elsewhere(ctx):
        return _remote_files.list_dir(ctx, path, hidden)
    real = resolve(ctx, path)
    if not real.exists():
        raise ToolFailure(f"no such directory: {path!r}")
    if not real.is_dir():
        raise ToolFailure(f"{path!r} is a file; use read_file")
    entries = sorted(real.iterdir(), key=lambda p: (not p.is_dir(), p.name.lower()))
    lines: list[str] = []
    for entry in entries:
        if not hidden and entry.name.startswith("."):
            continue
        if entry.is_symlink():
            lines.append(f"{entry.name} -> {os.readlink(entry)}")
        elif entry.is_dir():
            lines.append(f"{entry.name}/")
        else:
            lines.append(f"{entry.name}  ({entry.stat().st_size} bytes)")
    header = f"{display(ctx, real)}/ ({len(lines)} entries)"
    return "\n".join([header, *lines]) if lines else f"{display(ctx, real)}/ is empty"
