"""The audit log: one JSON line per decision, chained to the one before by an HMAC.

Each line is ``{"seq": N, ..., "mac": "<hex>"}``: the MAC is HMAC-SHA256, under a
key only the engine's user can read, over the previous line's MAC and this
line's bytes up to ``,"mac"``. The key and the *head* (the last seq and MAC
written) live outside the work tree and the state dir, in the user's config
directory (:func:`key_dir`), one pair per log. So a line edited, inserted,
deleted or re-chained with a plain hash no longer verifies, and a log cut short
no longer reaches its head.

Damage never stops auditing: when the writer finds the log's end does not match
its head (a cut line, garbage, records missing), it appends a ``break`` record
chained from the head and goes on; :func:`verify` reports the damage and checks
the segment after it. Appends are serialised across processes by a file lock.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

from engine.config import audit_path
from engine.digests import sha256
from engine.policy.redact import MAX_FIELD, redact
from engine.records import MISSING, Record
from engine.state_files import keep_aside, key_dir, locked, read_key

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["MAX_FIELD", "AuditLog", "AuditReport", "audit_path", "key_dir", "redact", "tail", "verify"]


def _log() -> Any:
    """The audit logger (logging is imported when there is something to say: a guard start pays
    for every import, and a healthy log never speaks)."""
    import logging  # noqa: PLC0415

    return logging.getLogger("hermes_engine.audit")


GENESIS = b"0" * 64
_MAC_FIELD = b',"mac":"'
_SUFFIX = len(_MAC_FIELD) + 64 + 2  # ,"mac":"<64 hex>"}
_SEQ = b'{"seq":'
_BREAK = b',"event":"break"'
_TAIL_BYTES = 1 << 16
_MAX_PROBLEMS = 20


def _log_id(path: Path) -> str:
    return sha256(str(path.resolve()).encode("utf-8")).hexdigest()[:32]


class _Keys(Record):
    """The key and the head file of one log."""

    __slots__ = ("key_file", "head_file")  # noqa: RUF023  (the fields' order)

    key_file: Path
    head_file: Path

    def __init__(self, key_file: Path, head_file: Path) -> None:
        self.key_file = key_file
        self.head_file = head_file

    @classmethod
    def of(cls, log_path: Path) -> _Keys:
        ident = _log_id(log_path)
        directory = key_dir()
        return cls(directory / f"{ident}.key", directory / f"{ident}.head")

    def load(self) -> bytes | None:
        try:
            return read_key(self.key_file)
        except OSError as exc:
            raise AuditError(f"cannot read the audit key {self.key_file}: {exc}") from exc
        except ValueError as exc:
            raise AuditError(f"the audit key {self.key_file} is damaged ({exc})") from exc

    def create(self) -> bytes:
        """The key, created (0600, in a 0700 directory) when there is none yet."""
        existing = self.load()
        if existing is not None:
            return existing
        directory = self.key_file.parent
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        import secrets  # noqa: PLC0415
        import tempfile  # noqa: PLC0415

        fd, tmp = tempfile.mkstemp(prefix=".key.", dir=directory)  # mkstemp creates 0600
        try:
            with os.fdopen(fd, "w", encoding="ascii") as handle:
                handle.write(secrets.token_hex(32) + "\n")
                handle.flush()
                os.fsync(handle.fileno())
            # Atomic create-if-absent: of two first uses at once, one key wins and both read it.
            with contextlib.suppress(FileExistsError):
                os.link(tmp, self.key_file)
        finally:
            os.unlink(tmp)
        key = self.load()
        assert key is not None
        return key

    def head(self) -> tuple[tuple[int, bytes] | None, str | None]:
        """The last (seq, mac) written, and what went wrong reading it (the file is then set aside)."""
        try:
            raw = self.head_file.read_bytes()
        except FileNotFoundError:
            return None, None
        try:
            data = json.loads(raw)
            seq, mac = int(data["seq"]), str(data["mac"]).encode("ascii")
            if seq < 0 or len(mac) != 64:
                raise ValueError("out of range")
        except (ValueError, KeyError, TypeError, UnicodeEncodeError) as exc:
            kept = keep_aside(self.head_file)
            _log().error("the audit head %s is damaged (%s); kept as %s", self.head_file, exc, kept)
            return None, f"the head file was damaged and kept as {kept.name}"
        return (seq, mac), None

    def write_head(self, log_path: Path, seq: int, mac: bytes) -> None:
        data = json.dumps({"log": str(log_path.resolve()), "seq": seq, "mac": mac.decode("ascii")})
        # A fresh 0600 file beside the head (as mkstemp makes, without importing tempfile).
        tmp = str(self.head_file.parent / f".head.{os.getpid()}.{os.urandom(8).hex()}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(data + "\n")
        os.replace(tmp, self.head_file)


class AuditError(Exception):
    """The audit log cannot be written or checked (the message names the file)."""


def _split(line: bytes) -> tuple[bytes, bytes] | None:
    """(body, mac) of a record line, or None when it is not one."""
    if len(line) <= _SUFFIX or line[-_SUFFIX : -_SUFFIX + len(_MAC_FIELD)] != _MAC_FIELD or line[-2:] != b'"}':
        return None
    return line[:-_SUFFIX], line[-66:-2]


def _seq_of(body: bytes) -> tuple[int, bool] | None:
    """(seq, is a break record) from a record body, or None when it does not start as one."""
    if not body.startswith(_SEQ):
        return None
    end = body.find(b",", 7)
    digits = body[7:end] if end > 0 else b""
    if not digits.isdigit():
        return None
    return int(digits), body.startswith(_BREAK, end)


class _Signer:
    """HMAC-SHA256 (RFC 2104) built on SHA-256 copies (engine.digests: no OpenSSL to load): the same MAC
    as ``hmac``, a third of the cost."""

    def __init__(self, key: bytes) -> None:
        block = key.ljust(64, b"\0")
        self._inner = sha256(bytes(b ^ 0x36 for b in block))
        self._outer = sha256(bytes(b ^ 0x5C for b in block))

    def pads(self) -> tuple[Any, Any]:
        """The keyed inner and outer hash states (copied per message)."""
        return self._inner, self._outer

    def mac(self, previous: bytes, body: bytes) -> bytes:
        inner = self._inner.copy()
        inner.update(previous)
        inner.update(body)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.hexdigest().encode("ascii")


def _last_line(path: Path) -> tuple[bytes | None, bool]:
    """The last line of the log and whether the file ends with a newline."""
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            if size == 0:
                return None, True
            handle.seek(max(0, size - _TAIL_BYTES))
            data = handle.read()
    except FileNotFoundError:
        return None, True
    ends = data.endswith(b"\n")
    lines = data.rstrip(b"\n").rsplit(b"\n", 1)
    return lines[-1], ends


class AuditLog:
    def __init__(self, path: Path) -> None:
        self.path = path

    def append(self, record: dict[str, Any]) -> dict[str, Any]:
        """Append ``record``; a damaged log gets a break record first and auditing goes on.

        Raises:
            OSError, AuditError: the log, its key or its head cannot be written.
        """
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = _Keys.of(self.path)
        with locked(Path(str(self.path) + ".lock"), timeout=10):
            key_problem = None
            try:
                key = keys.create()
            except AuditError as exc:
                kept = keep_aside(keys.key_file)
                _log().error("%s; kept as %s, a new key starts a new segment", exc, kept)
                key_problem = f"the key was damaged and kept as {kept.name}"
                key = keys.create()
                keys.head_file.unlink(missing_ok=True)
            signer = _Signer(key)
            head, head_problem = keys.head()
            head_problem = "; ".join(p for p in (key_problem, head_problem) if p) or None
            last, ends_clean = _last_line(self.path)
            seq, previous, found = self._continue_from(signer, head, last, ends_clean)
            if head_problem:
                found = head_problem + (f"; {found}" if found else "")
            lines: list[bytes] = []
            if found is not None:
                _log().error("the audit log %s is damaged (%s); a new segment starts", self.path, found)
                brk = {"seq": seq + 1, "event": "break", "ts": _now(), "prev": previous.decode(), "found": found}
                line, previous = _line(signer, previous, brk)
                lines.append(line)
                seq += 1
            entry = {"seq": seq + 1, "ts": _now(), **record}
            line, previous = _line(signer, previous, entry)
            lines.append(line)
            with open(self.path, "ab") as handle:
                if not ends_clean:
                    handle.write(b"\n")  # never glue a record to a torn line
                handle.write(b"".join(lines))
                handle.flush()
                os.fsync(handle.fileno())
            keys.write_head(self.path, seq + 1, previous)
        return entry

    @staticmethod
    def _continue_from(
        signer: _Signer, head: tuple[int, bytes] | None, last: bytes | None, ends_clean: bool
    ) -> tuple[int, bytes, str | None]:
        """(seq, mac) to chain the next record from, and the damage found at the log's end (if any)."""
        parts = _split(last) if last is not None else None
        tail = _seq_of(parts[0]) if parts is not None else None
        if head is None:
            if last is None:
                return 0, GENESIS, None
            start = tail[0] if tail is not None else 0
            return start, GENESIS, "the log has records but no head (its key directory was reset or replaced)"
        seq, mac = head
        if last is None:
            return seq, mac, None if seq == 0 else f"the log is empty but its head says {seq} records"
        if parts is not None and tail is not None and ends_clean:
            if (tail[0], parts[1]) == (seq, mac):
                return seq, mac, None
            # The record after the head, written just before a crash kept the head from moving.
            if tail[0] == seq + 1 and signer.mac(mac, parts[0]) == parts[1]:
                return seq + 1, parts[1], None
        what = "a torn or foreign last line" if parts is None or tail is None else f"its last record is seq {tail[0]}"
        return seq, mac, f"the log does not end at its head (seq {seq}): {what}"


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def _line(signer: _Signer, previous: bytes, entry: dict[str, Any]) -> tuple[bytes, bytes]:
    text = json.dumps(entry, ensure_ascii=False, separators=(",", ":"), default=str)
    body = text[:-1].encode("utf-8")
    mac = signer.mac(previous, body)
    return body + _MAC_FIELD + mac + b'"}\n', mac


class AuditReport(Record):
    """What :func:`verify` found."""

    __slots__ = ("path", "records", "first_bad_seq", "first_bad_line", "problems", "breaks", "head")  # noqa: RUF023  (the fields' order)

    path: str
    records: int
    first_bad_seq: int | None
    first_bad_line: int | None
    problems: list[dict[str, Any]]
    breaks: list[dict[str, Any]]
    head: dict[str, Any] | None

    def __init__(
        self,
        path: str,
        records: int = 0,
        first_bad_seq: int | None = None,
        first_bad_line: int | None = None,
        problems: list[dict[str, Any]] = MISSING,
        breaks: list[dict[str, Any]] = MISSING,
        head: dict[str, Any] | None = None,
    ) -> None:
        self.path = path
        self.records = records
        self.first_bad_seq = first_bad_seq
        self.first_bad_line = first_bad_line
        self.problems = [] if problems is MISSING else problems
        self.breaks = [] if breaks is MISSING else breaks
        self.head = head

    @property
    def intact(self) -> bool:
        return not self.problems and not self.breaks

    def bad(self, line: int | None, seq: int | None, problem: str) -> None:
        if self.first_bad_seq is None or (seq is not None and seq < self.first_bad_seq):
            self.first_bad_seq = seq
        if self.first_bad_line is None and line is not None:
            self.first_bad_line = line
        if len(self.problems) < _MAX_PROBLEMS:
            self.problems.append({"line": line, "seq": seq, "problem": problem})

    def note_break(self, line: int, seq: int) -> None:
        if self.first_bad_seq is None or seq < self.first_bad_seq:
            self.first_bad_seq = seq
        if self.first_bad_line is None:
            self.first_bad_line = line

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "intact": self.intact,
            "records": self.records,
            "first_bad_seq": self.first_bad_seq,
            "first_bad_line": self.first_bad_line,
            "problems": self.problems,
            "breaks": self.breaks,
            "head": self.head,
        }


def verify(path: Path) -> AuditReport:
    """Check every record's MAC and the chain, and that the log reaches its head.

    Raises:
        AuditError: the key cannot be read.
    """
    report = AuditReport(str(path))
    keys = _Keys.of(path)
    key = keys.load()
    head, head_problem = keys.head()
    if head is not None:
        report.head = {"seq": head[0], "mac": head[1].decode()}
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = b""
    if head_problem:
        report.bad(None, None, head_problem)
    if key is None:
        if data.strip():
            report.bad(1, 1, f"no audit key at {keys.key_file}: the log cannot be verified")
        elif head is not None:
            report.bad(None, 1, f"no audit key at {keys.key_file} but a head")
        return report
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    elif lines:
        report.bad(len(lines), None, "the last line is torn (no newline)")
    _walk(_Signer(key), lines, head, report)
    return report


def _walk(signer: _Signer, lines: list[bytes], head: tuple[int, bytes] | None, report: AuditReport) -> None:
    previous, expected = GENESIS, 1
    reached_head = head is None or head[0] == 0
    head_seq, head_mac = head if head is not None else (-1, b"")
    mac_of = signer.mac
    inner, outer = signer.pads()
    marker_at, marker_end = -_SUFFIX, -_SUFFIX + len(_MAC_FIELD)
    for number, line in enumerate(lines, start=1):
        # The common case, inlined: the next record in sequence, whose MAC holds.
        if line.startswith(b'{"seq":%d,"ts"' % expected) and line[marker_at:marker_end] == _MAC_FIELD:
            body, mac = line[:marker_at], line[-66:-2]
            h = inner.copy()
            h.update(previous)
            h.update(body)
            o = outer.copy()
            o.update(h.digest())
            if o.hexdigest().encode("ascii") == mac and line[-2:] == b'"}':
                report.records += 1
                if expected == head_seq and mac == head_mac:
                    reached_head = True
                previous, expected = mac, expected + 1
                continue
        parts = _split(line)
        tail = _seq_of(parts[0]) if parts is not None else None
        if parts is None or tail is None:
            report.bad(number, expected, "not an audit record")
            continue
        body, mac = parts
        seq, is_break = tail
        if is_break:
            # Chained from the head the writer trusted, not from the damaged lines before it.
            fields = _break_fields(body)
            if fields is None or mac_of(str(fields["prev"]).encode("ascii"), body) != mac:
                report.bad(number, seq, "a break record that does not verify")
            else:
                report.breaks.append({"line": number, "seq": seq, "found": fields.get("found", "")})
                report.note_break(number, min(seq, expected))
                reached_head = reached_head or seq >= head_seq
        elif seq != expected or mac_of(previous, body) != mac:
            report.bad(number, expected, "does not verify (edited, inserted, or the record before it is missing)")
        else:
            report.records += 1
            if seq == head_seq and mac == head_mac:
                reached_head = True
        previous, expected = mac, seq + 1  # resynchronise: one bad line is reported once
    if not reached_head:
        report.bad(None, min(expected, head_seq), f"the log ends before its head (seq {head_seq}): records were cut")


def _break_fields(body: bytes) -> dict[str, Any] | None:
    try:
        fields = json.loads(body + b"}")
        str(fields["prev"]).encode("ascii")
    except (ValueError, KeyError, TypeError, UnicodeEncodeError):
        return None
    return fields if isinstance(fields, dict) else None


def tail(path: Path, count: int) -> list[dict[str, Any]]:
    """The last ``count`` lines as records (a line that is not JSON is returned as ``{"unreadable": text}``)."""
    if count <= 0:
        return []
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            chunk = _TAIL_BYTES
            while True:
                start = max(0, size - chunk)
                handle.seek(start)
                data = handle.read()
                if start == 0 or data.count(b"\n") > count:
                    break
                chunk *= 4
    except FileNotFoundError:
        return []
    lines = data.split(b"\n")
    if start > 0:
        lines = lines[1:]  # the first is most likely a partial line
    out: list[dict[str, Any]] = []
    for raw in [line for line in lines if line][-count:]:
        try:
            value = json.loads(raw)
        except ValueError:
            value = None
        out.append(value if isinstance(value, dict) else {"unreadable": raw.decode("utf-8", "replace")})
    return out
