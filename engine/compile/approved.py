"""Approved engine files: what a tool call writes never becomes what the engine loads.

The engine's own files -- the config, every manifest, the handler sources, the plugin
folders -- decide what a tool call may do. A caller steered by a prompt injection that
manages to write one of them (through a computed file name, an unusual writer, a hard
link, a background process: text detection cannot see them all) would otherwise relax
the policy for every call after the next reload.

So a load compares the SHA-256 of every such file with the record of the last *approved*
contents, before any handler or plugin code is imported:

- a file changed, added or removed since the record is a located ``unapproved-change``
  error: a reload keeps the current generation serving, a start fails, and the message
  says which file changed and how to approve it;
- the record is written only by human actions: ``hermes-engine trust`` (which lists the
  changes and asks), the ``dev`` loop (a person saving in an editor), a host that loads
  with ``Engine.load(..., approve_changes=True)``, and the first load of a project that has
  no record yet (trust on first use, like ``direnv allow`` and SSH host keys);
- the record lives outside the project, in the project's default state dir (whatever the
  config says: the config is one of the files it vouches for), and carries an HMAC under a
  key in the user's config dir, next to the audit keys. A record that does not verify is
  an error, never an approval.

``integrity: off`` in ``hermes-engine.yaml`` turns the check off -- honoured only when that
config itself is the approved one (or there is no record yet).

What this does not stop: a caller that runs arbitrary code as the same user can also
forge the record (it can read the key). The text detector denies the direct spellings,
and the sandbox runtime (project mounted read-only, state and config dirs absent) is the
containment for code execution; see SECURITY.md.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import Problem
from engine.source.project import CONFIG_NAMES, Pack, is_ignored_name, manifest_files
from engine.state_files import APPROVED_RECORD_NAME

__all__ = [
    "RECORD_NAME",
    "ApprovedFiles",
    "Change",
    "approve",
    "changes",
    "engine_files",
    "record_path",
]

RECORD_NAME = APPROVED_RECORD_NAME
_KEY_NAME = "approved-files"
_PLUGIN_SUFFIXES = (".py", ".yaml", ".yml", ".json", ".toml", ".cfg", ".txt", ".pth")


@dataclass(frozen=True, slots=True)
class Change:
    """One engine file whose content is not the approved one."""

    path: str  # as shown to the user: relative to the project root
    state: str  # "changed" | "added" | "removed"

    def problem(self, generation: int | None, *, warning: bool = False) -> Problem:
        keeps = f"; generation {generation} keeps serving" if generation else ""
        what = {"changed": "changed", "added": "appeared", "removed": "was removed"}[self.state]
        refused = "a host refuses to load it until it is approved" if warning else f"so it is not loaded{keeps}"
        return Problem(
            self.path,
            1,
            1,
            "unapproved-change",
            f"{self.path} {what} since the engine's files were last approved -- a tool call may have "
            f"written it, {refused}. Review it, then run `hermes-engine trust` to approve "
            "the change (or `hermes-engine dev`, which approves the saves it reloads)",
            severity="warning" if warning else "error",
        )


# -- which files ------------------------------------------------------------------------


def _handler_files(pack: Pack) -> Iterator[Path]:
    for prefix in pack.handler_roots:
        top = prefix.split(".", 1)[0]
        module = pack.package_root / f"{top}.py"
        if os.path.isfile(module):  # os.path: a name too long for the file system is just absent
            yield module
        package = pack.package_root / top
        if os.path.isdir(package):
            yield from sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)


def _plugin_files(root: Path, folders: Iterable[str]) -> Iterator[Path]:
    for written in folders:
        folder = Path(os.path.normpath(root / Path(str(written)).expanduser()))
        if not folder.is_relative_to(root) or not os.path.isdir(folder):
            continue  # the plugin manager refuses it, with a located error
        for path in sorted(folder.rglob("*")):
            rel = path.relative_to(folder).parts
            if "__pycache__" in rel or any(is_ignored_name(part) for part in rel):
                continue
            if path.suffix in _PLUGIN_SUFFIXES and (os.path.isfile(path) or os.path.islink(path)):
                yield path


def code_files(root: Path, packs: Iterable[Pack], plugin_folders: Iterable[str] = ()) -> list[Path]:
    """The handler modules and plugin files of the project at ``root``: what a load imports, not parses."""
    found = [path for pack in packs if pack.root.is_relative_to(root) for path in _handler_files(pack)]
    return found + list(_plugin_files(root, plugin_folders))


def engine_files(root: Path, packs: Iterable[Pack], plugin_folders: Iterable[str] = ()) -> dict[str, Path]:
    """Every file of the project a load reads or imports, by its path relative to ``root``.

    The builtin pack counts only when it *is* the project (a checkout of hermes-engine):
    installed, it belongs to the engine, and an upgrade is not a change to approve.
    """
    found: dict[str, Path] = {}

    def add(path: Path) -> None:
        try:
            rel = path.relative_to(root).as_posix()
        except ValueError:
            return
        found.setdefault(rel, path)

    for name in CONFIG_NAMES:
        add(root / name)
    for pack in packs:
        if not pack.root.is_relative_to(root):
            continue
        for path in manifest_files(pack):
            add(path)
        for path in _handler_files(pack):
            add(path)
    for path in _plugin_files(root, plugin_folders):
        add(path)
    return {rel: path for rel, path in found.items() if os.path.lexists(path)}


# -- digests ----------------------------------------------------------------------------


def record_stamp(root: Path) -> tuple[int, ...] | None:
    """The stat of the project's record (changes whenever it is written)."""
    return _stat_key(record_path(root))


def _stat_key(path: Path) -> tuple[int, ...] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    # ctime too: ``touch -d`` can put an mtime back, nothing can put a ctime back.
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_dev)


@dataclass(slots=True)
class _Digests:
    """SHA-256 per file, reused while a file's stat (ctime included) is unchanged."""

    cache: dict[Path, tuple[tuple[int, ...], str]] = field(default_factory=dict)

    def of(self, files: Mapping[str, Path], force: set[Path], trust_stat: bool = False) -> dict[str, str]:
        """``trust_stat``: the watcher named every changed file (``force``): the others keep their digest
        without a stat (as the loader keeps their parse)."""
        out: dict[str, str] = {}
        for rel, path in files.items():
            cached = self.cache.get(path)
            if trust_stat and cached is not None and path not in force:
                out[rel] = cached[1]
                continue
            key = _stat_key(path)
            if cached is not None and key is not None and cached[0] == key and path not in force:
                out[rel] = cached[1]
                continue
            try:
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError as exc:
                digest = f"unreadable:{type(exc).__name__}"
            if key is not None:
                self.cache[path] = (key, digest)
            out[rel] = digest
        return out


def changes(approved: Mapping[str, str], current: Mapping[str, str]) -> list[Change]:
    found = [Change(rel, "changed") for rel in current if rel in approved and approved[rel] != current[rel]]
    found += [Change(rel, "added") for rel in current if rel not in approved]
    found += [Change(rel, "removed") for rel in approved if rel not in current]
    return sorted(found, key=lambda c: c.path)


# -- the record -------------------------------------------------------------------------


def record_path(root: Path) -> Path:
    """Where the record of the project at ``root`` lives: its default state dir, whatever the config says."""
    from engine.config import default_state_dir  # noqa: PLC0415

    return default_state_dir(root) / RECORD_NAME


def _mac_key(create: bool) -> bytes | None:
    from engine.policy.audit import _Keys, key_dir  # noqa: PLC0415

    directory = key_dir().parent / "trust"  # beside the audit keys, in the user's config dir
    keys = _Keys(directory / f"{_KEY_NAME}.key", directory / f"{_KEY_NAME}.head")
    return keys.create() if create else keys.load()


def _mac(key: bytes, root: Path, files: Mapping[str, str]) -> str:
    body = json.dumps([str(root), sorted(files.items())], separators=(",", ":"))
    return hmac.new(key, body.encode("utf-8", "surrogateescape"), hashlib.sha256).hexdigest()


class RecordError(Exception):
    """The record exists but cannot be trusted (damaged, forged, or its key is gone)."""


def read_record(root: Path) -> dict[str, str] | None:
    """The approved digests of the project, ``None`` when there is no record yet.

    Raises:
        RecordError: the record or its key cannot be read, or its MAC does not verify.
    """
    path = record_path(root)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        if _known_marker(root).exists():
            raise RecordError(f"{path} was removed after the project was approved") from None
        return None
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc}") from exc
    try:
        data = json.loads(raw)
        files = {str(k): str(v) for k, v in dict(data["files"]).items()}
        mac = str(data["mac"])
    except (ValueError, KeyError, TypeError) as exc:
        raise RecordError(f"{path} is damaged ({exc})") from exc
    try:
        key = _mac_key(create=False)
    except Exception as exc:  # AuditError, OSError: an unreadable key is no key
        raise RecordError(f"cannot read the key of {path}: {exc}") from exc
    if key is None or not hmac.compare_digest(mac, _mac(key, root, files)):
        raise RecordError(f"{path} does not verify against its key; it was not written by the engine")
    return files


def _known_marker(root: Path) -> Path:
    """Kept beside the key (not the record) once a project has a record: a record that goes
    missing afterwards is a removed record, never a first use."""
    from engine.state_files import key_dir  # noqa: PLC0415

    name = hashlib.sha256(str(root).encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return key_dir().parent / "trust" / "known" / name


def write_record(root: Path, files: Mapping[str, str], by: str) -> Path:
    """Record ``files`` as the approved contents of the project (atomically)."""
    key = _mac_key(create=True)
    assert key is not None
    marker = _known_marker(root)
    marker.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    marker.write_text(str(root) + "\n", encoding="utf-8", errors="surrogateescape")
    path = record_path(root)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    body = {
        "root": str(root),
        "approved_by": by,
        "approved_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "files": dict(sorted(files.items())),
        "mac": _mac(key, root, files),
    }
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        # One dumps (the C encoder) rather than dump (the pure-Python one): this runs on every save.
        handle.write(json.dumps(body, separators=(",", ":")) + "\n")
    os.replace(tmp, path)  # atomic: a reader sees the old record or the new one, never a mix
    return path


# -- the check a load makes -------------------------------------------------------------


@dataclass(slots=True)
class ApprovedFiles:
    """The approval state of one project, kept by its loader across reloads."""

    root: Path
    # "enforce": unapproved changes are refused; "approve": what is loaded is approved;
    # "report": unapproved changes are warnings and nothing is written (validate).
    mode: str = "enforce"
    _digests: _Digests = field(default_factory=_Digests)
    # The record's stat when the last check read it: a waiting host reloads once it differs.
    seen_record: tuple[int, ...] | None = None
    # A record was seen (or written) by this loader: its absence later is a removal, not a first use.
    had_record: bool = False
    # The checked digest of each engine file of the current load: what is parsed or imported must match.
    expected: dict[Path, str] = field(default_factory=dict)
    # The engine files of the last check and what they were listed from, reused while a reload names
    # only files already known (the loader reuses its listing the same way).
    _listed: tuple[Any, dict[str, Path]] | None = None

    def check(
        self, packs: Iterable[Pack], plugin_folders: Iterable[str], config_off: bool, force: set[Path], generation: int
    ) -> list[Problem]:
        """The problems that stop this load; approves it first when the mode (or a missing record) says so."""
        where = record_path(self.root)
        self.seen_record = _stat_key(where)
        packs, plugin_folders = list(packs), list(plugin_folders)
        listed_from = (tuple((p.name, p.root, p.handler_roots, p.code_root) for p in packs), tuple(plugin_folders))
        reported = None
        if self.mode == "report":  # validate: say what a host would refuse, write nothing
            try:
                reported = read_record(self.root)
            except RecordError:
                return []
            if reported is None or config_off:
                return []  # nothing to compare with: no file is read (a first validate reads each once, to parse it)
        known = self._listed[1] if self._listed is not None and self._listed[0] == listed_from else None
        reuse = bool(force) and known is not None and all(p in self.expected and p.is_file() for p in force)
        files = known if reuse and known is not None else engine_files(self.root, packs, plugin_folders)
        self._listed = (listed_from, files)
        current = self._digests.of(files, force, trust_stat=reuse)
        if reported is not None:  # report mode, a record to compare with
            return [c.problem(None, warning=True) for c in changes(reported, current)]
        try:
            approved = read_record(self.root)
            if approved is None and self.had_record:
                raise RecordError(f"{where} was removed after this engine loaded the project")
        except RecordError as exc:
            if self.mode == "approve":
                approved = None
            else:
                return [
                    Problem(
                        CONFIG_NAMES[0],
                        1,
                        1,
                        "approval-record-invalid",
                        f"the record of approved engine files cannot be trusted: {exc}. Nothing is loaded; "
                        "review the project's files, then run `hermes-engine trust`",
                    )
                ]
        self.expected = {}
        if approved is not None and self.mode != "approve":
            self.had_record = True
            found = changes(approved, current)
            if config_off and not any(c.path in CONFIG_NAMES for c in found):
                return []  # the approved config itself turns the check off
            keeps = generation - 1 if generation > 1 else None
            if not found:
                self._expect(files, current)
            return [c.problem(keeps) for c in found]
        if config_off and approved is None:
            return []
        if approved == current:  # approving what is approved already: nothing to write
            self.had_record = True
            self._expect(files, current)
            return []
        try:
            write_record(self.root, current, "dev/host approval" if self.mode == "approve" else "first load")
            self.had_record = True
            self._expect(files, current)
        except Exception as exc:  # no key dir, read-only state dir: the check cannot be kept
            return [
                Problem(
                    CONFIG_NAMES[0],
                    1,
                    1,
                    "approval-record-unwritable",
                    f"cannot keep the record of approved engine files at {where}: {exc}. Make it writable, "
                    "or set `integrity: off` in hermes-engine.yaml to run without the check",
                )
            ]
        return []

    def _expect(self, files: Mapping[str, Path], digests: Mapping[str, str]) -> None:
        from engine.compile.binding import EXPECTED_SOURCES  # noqa: PLC0415

        self.expected = {files[rel]: digests[rel] for rel in files}
        for path, digest in self.expected.items():
            if path.suffix == ".py":
                EXPECTED_SOURCES[str(path)] = digest

    def verify_parsed(self, parsed: Iterable[tuple[Path, str, str]]) -> list[Problem]:
        """``(path, display, digest of the bytes parsed)`` of each file the load used: any that is not
        the content just checked changed while loading (or is a stale parse) and is refused."""
        if not self.expected:
            return []
        problems = []
        for path, display, digest in parsed:
            expected = self.expected.get(path)
            if expected is not None and digest and digest != expected:
                problems.append(
                    Problem(
                        display,
                        1,
                        1,
                        "unapproved-change",
                        f"{display} changed while the engine was loading it; what was read is not the "
                        "approved content, so it is not loaded",
                    )
                )
        return problems


def reapprove(path: Path, before: bytes, after: bytes) -> None:
    """The engine itself rewrote ``path`` (an "always" approval added to the config's allowlist):
    when what it replaced was the approved content, the new content is approved in its place."""
    root = path.parent.resolve()
    rel = path.name
    try:
        approved = read_record(root)
    except RecordError:
        return
    if approved is None or approved.get(rel) != hashlib.sha256(before).hexdigest():
        return  # a pending change stays pending
    write_record(root, {**approved, rel: hashlib.sha256(after).hexdigest()}, "an approval saved to the config")


def approve(root: Path, packs: Iterable[Pack], plugin_folders: Iterable[str]) -> tuple[list[Change], Path]:
    """Approve the project's engine files as they are now; returns what changed since the last approval."""
    files = engine_files(root, packs, plugin_folders)
    current = _Digests().of(files, set())
    try:
        approved = read_record(root) or {}
    except RecordError:
        approved = {}
    return changes(approved, current), write_record(root, current, "hermes-engine trust")


def pending(root: Path, packs: Iterable[Pack], plugin_folders: Iterable[str]) -> tuple[list[Change], str | None]:
    """What changed since the last approval, and why the record is unusable (``None`` when it is fine)."""
    files = engine_files(root, packs, plugin_folders)
    current = _Digests().of(files, set())
    try:
        approved = read_record(root)
    except RecordError as exc:
        return changes({}, current), str(exc)
    if approved is None:
        return changes({}, current), "no record yet: the next load approves the files as they are"
    return changes(approved, current), None
