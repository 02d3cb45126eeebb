"""File tools: read_file, write_file, patch, search_files, list_dir."""

from __future__ import annotations

import difflib
import fnmatch
import os
import re
import shutil
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from engine.dispatch.context import CallContext, ToolFailure

from . import _remote_files
from ._io import confined_write, kind_of, open_regular
from ._links import hard_links
from ._paths import SKIPPED, allowed_roots, classes_of, display, resolve, root_of
from ._runtime import files_elsewhere

_SNIFF = 8192
_MAX_LINE = 2000
# A search stops here and says so (the manifest's timeout is the call's hard limit).
_SEARCH_SECONDS = 20.0
_MAX_LISTED = 2000
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


def _open_text(ctx: CallContext, real: Path, raw: str) -> int:
    """A descriptor of the regular text file ``real``, opened without following a link on the way.

    Raises:
        ToolFailure: missing, a directory, a special file, binary, or changed on the way.
    """
    fd = open_regular(root_of(ctx, real), real, raw)
    try:
        # Judged on the opened descriptor: a name swapped for a link to a key after this is not read.
        refused = hard_links(ctx).refusal(real, os.fstat(fd), raw)
        if refused is not None:
            raise ToolFailure(refused, recoverable=False)
        head = os.pread(fd, _SNIFF, 0)
        if _is_binary(head):
            raise ToolFailure(f"{raw!r} is a binary file ({os.fstat(fd).st_size} bytes); it is not shown")
    except BaseException:
        os.close(fd)
        raise
    return fd


def _read_text(ctx: CallContext, real: Path, raw: str) -> str:
    with open(_open_text(ctx, real, raw), encoding="utf-8", errors="replace", closefd=True) as handle:
        return handle.read()


def _write(ctx: CallContext, real: Path, raw: str, content: str) -> tuple[bool, int]:
    payload = content.encode("utf-8")
    existed = confined_write(root_of(ctx, real), real, raw, payload, ctx.state_dir / "tmp-writes")
    return existed, len(payload)


def read_file(path: str, ctx: CallContext, offset: int = 1, limit: int = 500) -> str:
    if files_elsewhere(ctx):
        return _remote_files.read_file(ctx, path, offset, limit)
    real = resolve(ctx, path)
    fd = _open_text(ctx, real, path)
    budget = int(ctx.config.get("files", "max_read_chars"))
    out: list[str] = []
    used = 0
    total = 0
    last = offset - 1
    cut_by_budget = False
    with open(fd, encoding="utf-8", errors="replace", newline=None, closefd=True) as handle:
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
    existed, size = _write(ctx, real, path, content)
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
    original = _read_text(ctx, real, path)
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
    _write(ctx, real, path, updated)
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
    scope = _Scope(ctx)
    if mode == "files":
        hits = _find_files(base, pattern, max_results + 1, scope)
        lines = [display(ctx, p) for p in hits]
    else:
        try:
            regex = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
        except re.error as exc:
            raise ToolFailure(f"invalid regular expression: {exc}") from None
        rg = shutil.which("rg")
        raw = (
            _ripgrep(rg, pattern, base, include, ignore_case, max_results + 1, scope)
            if rg
            else _python_grep(regex, base, include, max_results + 1, scope)
        )
        lines = [f"{display(ctx, Path(p))}:{n}:{text[:_MAX_LINE]}" for p, n, text in raw]
    notes = scope.notes()
    if not lines:
        return f"no matches for {pattern!r} in {display(ctx, base)}" + notes
    more = len(lines) > max_results
    body = "\n".join(lines[:max_results])
    return body + (f"\n[more than {max_results} results; narrow the search]" if more else "") + notes


class _Scope:
    """What a search may look into: regular files inside the roots, not secrets or the
    engine's state (reading one of those asks on its own), within the time limit."""

    def __init__(self, ctx: CallContext) -> None:
        self.ctx = ctx
        self.roots = allowed_roots(ctx)
        self.deadline = time.monotonic() + _SEARCH_SECONDS
        self.skipped: list[str] = []
        self.linked: list[str] = []
        self.links = hard_links(ctx)
        self.timed_out = False

    def expired(self) -> bool:
        if time.monotonic() > self.deadline:
            self.timed_out = True
        return self.timed_out

    def admits(self, file: Path) -> Path | None:
        """The real path of ``file`` when the search may read it."""
        try:
            info = file.lstat()
        except OSError:
            return None
        real = file
        if stat.S_ISLNK(info.st_mode):
            real = Path(os.path.realpath(file))
            if not any(real == root or real.is_relative_to(root) for root in self.roots):
                return None  # a link out of the roots is never followed
            try:
                info = real.stat()
            except OSError:
                return None
        if not stat.S_ISREG(info.st_mode):
            return None  # FIFOs, sockets and devices would block or never end
        if classes_of(self.ctx, real) & SKIPPED:
            _note(self.skipped, display(self.ctx, file))
            return None
        if not self.admits_links(real, info, file):
            return None
        return real

    def admits_links(self, real: Path, info: os.stat_result, file: Path) -> bool:
        """Whether a file with these stats may be read under this name (see handlers._links)."""
        if info.st_nlink > 1 and self.links.refusal(real, info, str(file)) is not None:
            _note(self.linked, display(self.ctx, file))
            return False
        return True

    def notes(self) -> str:
        out = ""
        if self.skipped:
            out += f"\n[not searched: {_named(self.skipped)} (secret files; read_file asks for each)]"
        if self.linked:
            out += (
                f"\n[not searched: {_named(self.linked)} (hard links with names outside the working directory, "
                "which may be secrets)]"
            )
        if self.timed_out:
            out += f"\n[search stopped after {_SEARCH_SECONDS:g}s; results are partial: narrow the path or pattern]"
        return out


def _note(found: list[str], shown: str) -> None:
    found.append(shown if len(found) < 5 else "")


def _named(found: list[str]) -> str:
    named = ", ".join(s for s in found if s)
    more = len(found) - len([s for s in found if s])
    return named + (f" and {more} more" if more else "")


def _walk(base: Path, scope: _Scope) -> Iterator[Path]:
    """Files under ``base``: directories are never entered through a link (os.walk)."""
    for dirpath, dirnames, filenames in os.walk(base):
        if scope.expired():
            return
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            yield Path(dirpath) / name


def _find_files(base: Path, pattern: str, limit: int, scope: _Scope) -> list[Path]:
    glob = pattern if "/" in pattern or pattern.startswith("**") else f"**/{pattern}"
    hits: list[Path] = []
    for file in _walk(base, scope):
        rel = file.relative_to(base).as_posix()
        if fnmatch.fnmatch(rel, glob) or fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(file.name, pattern):
            hits.append(file)
            if len(hits) >= limit:
                break
    return hits


def _python_grep(
    regex: re.Pattern[str], base: Path, include: str | None, limit: int, scope: _Scope
) -> list[tuple[str, int, str]]:
    hits: list[tuple[str, int, str]] = []
    for file in _walk(base, scope):
        if include and not fnmatch.fnmatch(file.name, include):
            continue
        real = scope.admits(file)
        if real is None:
            continue
        try:
            fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            continue
        with open(fd, "rb", closefd=True) as raw:
            opened = os.fstat(fd)
            if not stat.S_ISREG(opened.st_mode) or not scope.admits_links(real, opened, file):
                continue
            if _is_binary(raw.read(_SNIFF)):
                continue
            raw.seek(0)
            for number, line in enumerate(raw, start=1):
                text = line.decode("utf-8", errors="replace")
                if regex.search(text):
                    hits.append((str(file), number, text.rstrip("\r\n")))
                    if len(hits) >= limit:
                        return hits
                if number % 4096 == 0 and scope.expired():
                    return hits
    return hits


def _ripgrep(
    rg: str, pattern: str, base: Path, include: str | None, ignore_case: bool, limit: int, scope: _Scope
) -> list[tuple[str, int, str]]:
    # --no-config: no RIPGREP_CONFIG_PATH can add --follow; rg never follows links otherwise
    # and skips FIFOs, sockets and devices on its walk.
    # --null: a NUL after each file name, so a name holding `:1:` cannot pass for the file name
    # (`a:1:b/key.pem` read as the harmless file `a`, printing the key).
    cmd = [rg, "--no-config", "--line-number", "--no-heading", "--color", "never", "--with-filename", "--null"]
    cmd += ["--sort", "path"]
    for skipped in sorted(_SKIP_DIRS):
        cmd += ["--glob", f"!{skipped}/"]
    if ignore_case:
        cmd.append("--ignore-case")
    if include:
        cmd += ["--glob", include]
    cmd += ["--regexp", pattern, "--", str(base)]
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, errors="replace", timeout=_SEARCH_SECONDS, check=False
        )
    except subprocess.TimeoutExpired as exc:
        scope.timed_out = True
        output = exc.stdout or b""
        stdout = output.decode("utf-8", "replace") if isinstance(output, bytes) else output
        return _rg_hits(stdout, limit, scope)
    if proc.returncode not in (0, 1):
        raise ToolFailure(f"ripgrep failed: {proc.stderr.strip()[:500]}")
    return _rg_hits(proc.stdout, limit, scope)


def _rg_hits(stdout: str, limit: int, scope: _Scope) -> list[tuple[str, int, str]]:
    hits: list[tuple[str, int, str]] = []
    admitted: dict[str, bool] = {}
    for line in stdout.split("\n"):
        file, null, rest = line.partition("\0")
        number, _, text = rest.partition(":")
        if not null or not number.isdigit():
            continue
        ok = admitted.get(file)
        if ok is None:
            ok = admitted[file] = scope.admits(Path(file)) is not None
        if ok:
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
    lines: list[tuple[bool, str, str]] = []
    cut = 0
    with os.scandir(real) as found:
        for entry in found:
            if not hidden and entry.name.startswith("."):
                continue
            if len(lines) >= _MAX_LISTED:
                cut += 1
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISLNK(info.st_mode):
                # The link itself, never what it points at (it may lead out of the roots).
                line, is_dir = f"{entry.name} -> {os.readlink(entry.path)}", False
            elif stat.S_ISDIR(info.st_mode):
                line, is_dir = f"{entry.name}/", True
            elif stat.S_ISREG(info.st_mode):
                line, is_dir = f"{entry.name}  ({info.st_size} bytes)", False
            else:
                line, is_dir = f"{entry.name}  ({kind_of(info.st_mode)})", False
            lines.append((not is_dir, entry.name.lower(), line))
    shown = [line for _, _, line in sorted(lines)]
    if cut:
        shown.append(f"[{cut} more entries not shown]")
    header = f"{display(ctx, real)}/ ({len(lines) + cut} entries)"
    return "\n".join([header, *shown]) if shown else f"{display(ctx, real)}/ is empty"
