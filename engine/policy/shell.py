"""Tokens → the simple commands a shell would run, wrappers and disguises removed.

`sudo env X=1 nice /usr/bin/rm -rf /` is seen at every stage (sudo, env, nice,
rm); `bash -c '...'`, `eval`, `ssh host ...`, `find -exec`, `xargs`, command
substitutions, here-documents fed to a shell and inline interpreter programs
are followed into the commands they run. Variables assigned earlier on the
line are substituted; `$(echo rm)` is evaluated. What cannot be known statically
is marked ``dynamic`` so a policy can treat it as possibly anything.
"""

from __future__ import annotations

import base64
import binascii
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.policy.lexer import ARITH, LIT, REDIRECT_OPS, SUB, VAR, ShellSyntaxError, Token, tokenize

MAX_DEPTH = 8
MAX_COMMANDS = 512


@dataclass(slots=True)
class Command:
    """One simple command as it would run, at one unwrapping stage."""

    name: str  # lower-case basename of argv[0]; "" when only known at run time
    argv: tuple[str, ...]
    dynamic: tuple[bool, ...]  # per word: contains an unresolved expansion
    redirects: tuple[tuple[str, str], ...] = ()  # (operator, target)
    stdin: str = ""  # data it reads: here-docs, here-strings, literal text piped in
    fed_by: frozenset[str] = frozenset()  # commands whose output reaches it
    via: tuple[str, ...] = ()  # wrappers and interpreters it was found inside
    code: str | None = None  # an interpreter's inline program
    depth: int = 0
    cwd: str | None = None  # set when an earlier `cd` on the line moved away from the working directory

    @property
    def is_dynamic(self) -> bool:
        return not self.name

    @property
    def text(self) -> str:
        return " ".join(self.argv)


class TooComplex(ShellSyntaxError):
    pass


# -- wrappers ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Wrapper:
    value_options: frozenset[str] = frozenset()  # options that consume the next word
    skip_positionals: int = 0  # leading positionals that are not the command (timeout DURATION)
    assignments: bool = False  # NAME=VALUE words are skipped (env)


def _w(values: str = "", skip: int = 0, assignments: bool = False) -> _Wrapper:
    return _Wrapper(frozenset(values.split()), skip, assignments)


WRAPPERS: dict[str, _Wrapper] = {
    "sudo": _w("-u -g -h -p -C -D -r -t -U -T -R --user --group --host --prompt --chdir --role --type"),
    "doas": _w("-u -C"),
    "pkexec": _w("--user"),
    "env": _w("-u -C -S --unset --chdir --split-string", assignments=True),
    "nice": _w("-n --adjustment"),
    "nohup": _w(),
    "timeout": _w("-s -k --signal --kill-after", skip=1),
    "stdbuf": _w("-i -o -e --input --output --error"),
    "xargs": _w(
        "-n -I -i -P -d -L -l -s -E -e -a --max-args --replace --max-procs --delimiter --max-lines "
        "--max-chars --eof --arg-file"
    ),
    "busybox": _w(),
    "command": _w(),
    "builtin": _w(),
    "exec": _w("-a"),
    "time": _w("-f -o --format --output"),
    "setsid": _w(),
    "chrt": _w(skip=1),
    "ionice": _w("-c -n -p -t --class --classdata --pid"),
    "taskset": _w("-c --cpu-list", skip=1),
    "unbuffer": _w(),
    "torsocks": _w(),
    "proxychains": _w("-f"),
    "proxychains4": _w("-f"),
    "strace": _w("-o -p -e -s -u -P -E"),
    "ltrace": _w("-o -p -e -s -u"),
    "watch": _w("-n -d --interval --differences"),
    "flock": _w("-w -E --timeout --conflict-exit-code", skip=1),
    "chroot": _w("--userspec --groups", skip=1),
    "runuser": _w("-u -g -G --user --group"),
    "faketime": _w("-f", skip=1),
    "caffeinate": _w("-t -w"),
    "systemd-run": _w("-u -p -M -E --unit --property --machine --setenv --description --slice"),
    "firejail": _w(),
    "nsenter": _w("-t -S -G --target --setuid --setgid"),
    "unshare": _w(),
    "catchsegv": _w(),
}
# numeric option words some wrappers take (`nice -10 cmd`)
_NUMERIC_OPTION = re.compile(r"^-\d+$")

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "rbash", "busybox-sh"})
INTERPRETER_CODE_FLAGS: dict[str, frozenset[str]] = {
    "python": frozenset({"-c"}),
    "perl": frozenset({"-e", "-E"}),
    "ruby": frozenset({"-e"}),
    "node": frozenset({"-e", "--eval", "-p", "--print"}),
    "nodejs": frozenset({"-e", "--eval", "-p", "--print"}),
    "deno": frozenset({"eval"}),
    "bun": frozenset({"-e", "--eval"}),
    "php": frozenset({"-r"}),
    "osascript": frozenset({"-e"}),
    "lua": frozenset({"-e"}),
    "rscript": frozenset({"-e"}),
    "powershell": frozenset({"-c", "-command"}),
    "pwsh": frozenset({"-c", "-command"}),
}
_AWKS = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})
_PYTHON = re.compile(r"^python[0-9.]*$")
_EMBEDDED_SHELL = re.compile(
    r"(?:system|popen|exec[lvpe]*|spawn\w*|check_output|check_call|getoutput|getstatusoutput|call|run|Popen"
    r"|shell_exec|passthru|proc_open|execSync|spawnSync|exec_command)\s*\(\s*"
    r"(\[[^\]]*\]|\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')",
    re.DOTALL,
)
_BACKTICK_CODE = re.compile(r"`([^`]+)`|%x\(([^)]*)\)|qx[({]([^)}]*)[)}]")
_QUOTED = re.compile(r"\"((?:[^\"\\]|\\.)*)\"|'((?:[^'\\]|\\.)*)'")
_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=")
_SSH_VALUE_OPTIONS = frozenset(
    [
        "-b",
        "-c",
        "-D",
        "-E",
        "-e",
        "-F",
        "-I",
        "-i",
        "-J",
        "-L",
        "-l",
        "-m",
        "-O",
        "-o",
        "-p",
        "-Q",
        "-R",
        "-S",
        "-W",
        "-w",
    ]
)
# Pipeline filters that pass literal data through (or decode it) on its way to a sink.
_PASS_THROUGH = frozenset({"cat", "tee", "tr", "head", "tail", "sort", "uniq", "dos2unix", "fold"})
_KEYWORDS = frozenset(
    {
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "do",
        "done",
        "while",
        "until",
        "!",
        "{",
        "}",
        "time",
        "coproc",
        "function",
        "[[",
        "]]",
    }
)
_CLAUSE_HEADERS = frozenset({"for", "select", "case"})


def basename(word: str) -> str:
    name = word.rsplit("/", 1)[-1]
    return name.lower()


def command_name(word: str) -> str:
    """The name patterns match: basename, lower-case, python3.11 → python."""
    name = basename(word)
    if _PYTHON.match(name):
        return "python"
    return name


@dataclass(slots=True)
class _Word:
    texts: list[str]  # more than one after brace expansion
    dynamic: bool
    quoted: bool
    subs: list[str]


@dataclass(slots=True)
class _Raw:
    words: list[Token] = field(default_factory=list)
    redirects: list[tuple[str, Token | None]] = field(default_factory=list)


def _split(tokens: list[Token]) -> list[list[_Raw]]:
    """Tokens → pipelines of raw simple commands."""
    pipelines: list[list[_Raw]] = []
    pipeline: list[_Raw] = []
    current = _Raw()

    def end_command() -> None:
        nonlocal current
        if current.words or current.redirects:
            pipeline.append(current)
        current = _Raw()

    def end_pipeline() -> None:
        nonlocal pipeline
        end_command()
        if pipeline:
            pipelines.append(pipeline)
        pipeline = []

    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.kind == "op":
            if token.value in REDIRECT_OPS:
                target = tokens[i + 1] if i + 1 < len(tokens) and tokens[i + 1].kind == "word" else None
                current.redirects.append((token.value, target))
                i += 2 if target is not None else 1
                continue
            if token.value in ("|", "|&"):
                end_command()
            else:
                end_pipeline()
        elif token.kind == "nl":
            end_pipeline()
        else:
            word = token.literal
            if not current.words and word in _KEYWORDS:
                i += 1
                continue
            current.words.append(token)
        i += 1
    end_pipeline()
    return pipelines


_BRACE = re.compile(r"\{([^{}]*,[^{}]*)\}")


def _expand_braces(text: str) -> list[str]:
    match = _BRACE.search(text)
    if match is None:
        return [text]
    out: list[str] = []
    for option in match.group(1).split(","):
        out.extend(_expand_braces(text[: match.start()] + option + text[match.end() :]))
        if len(out) > 64:
            break
    return out


def _decode(filter_argv: tuple[str, ...], data: str) -> str | None:
    """Data after a decoding filter, or None when the filter is not understood."""
    name = command_name(filter_argv[0])
    flags = {a for a in filter_argv[1:] if a.startswith("-")}
    if name in ("base64", "base32") and ({"-d", "--decode", "-D"} & flags):
        try:
            raw = base64.b64decode(data.strip()) if name == "base64" else base64.b32decode(data.strip())
        except (binascii.Error, ValueError):
            return None
        return raw.decode("utf-8", errors="replace")
    if name == "xxd" and "-r" in flags:
        try:
            return binascii.unhexlify(re.sub(r"\s+", "", data)).decode("utf-8", errors="replace")
        except (binascii.Error, ValueError):
            return None
    if name == "rev":
        return "\n".join(line[::-1] for line in data.split("\n"))
    if name in _PASS_THROUGH:
        return data
    return None


class Analyzer:
    """Turns one command line into every simple command it would run."""

    def __init__(self) -> None:
        self.commands: list[Command] = []
        self.env: dict[str, str] = {"HOME": "~"}
        self.cwd: str | None = None

    def analyze(self, text: str, *, depth: int = 0, via: tuple[str, ...] = ()) -> None:
        if depth > MAX_DEPTH:
            raise TooComplex(f"commands nested more than {MAX_DEPTH} levels deep")
        for pipeline in _split(tokenize(text)):
            self._pipeline(pipeline, depth, via)

    # -- words -------------------------------------------------------------------

    def _resolve(self, token: Token) -> _Word:
        parts: list[str] = []
        dynamic = False
        subs: list[str] = []
        for seg in token.segs:
            if seg.kind == LIT:
                parts.append(seg.text)
            elif seg.kind == VAR:
                value = self.env.get(seg.text)
                if value is None:
                    parts.append("$" + seg.text)
                    dynamic = True
                else:
                    parts.append(value)
            elif seg.kind == SUB:
                subs.append(seg.text)
                static = self._static_output(seg.text)
                if static is None:
                    parts.append(f"$({seg.text})")
                    dynamic = True
                else:
                    parts.append(static)
            elif seg.kind == ARITH:
                parts.append(f"$(({seg.text}))")
                dynamic = True
        joined = "".join(parts)
        texts = _expand_braces(joined) if token.brace and not token.quoted else [joined]
        return _Word(texts, dynamic, token.quoted, subs)

    def _static_output(self, script: str) -> str | None:
        """What `$(echo rm)` prints, when that is knowable without running anything."""
        try:
            pipelines = _split(tokenize(script))
        except ShellSyntaxError:
            return None
        if len(pipelines) != 1:
            return None
        if len(pipelines[0]) > 1:
            # `$(echo cm0gLXJmIC8= | base64 -d)`: literal data through decoders is knowable.
            try:
                return Analyzer()._pipeline(pipelines[0], MAX_DEPTH, ("$()",))
            except ShellSyntaxError:
                return None
        raw = pipelines[0][0]
        words = [w.literal for w in raw.words]
        if raw.redirects or not words or any(w is None for w in words):
            return None
        name = command_name(words[0] or "")
        args = [w for w in words[1:] if w is not None]
        if name == "echo":
            return " ".join(a for a in args if a not in ("-n", "-e", "-E"))
        if name == "printf" and args and "%" not in args[0]:
            return args[0].replace("\\n", "\n")
        return None

    # -- commands ----------------------------------------------------------------

    def _pipeline(self, pipeline: list[_Raw], depth: int, via: tuple[str, ...]) -> str | None:
        """Analyze one pipeline; return the literal data it finally writes, if knowable."""
        upstream: set[str] = set()
        data: str | None = None  # literal data flowing down the pipe
        for raw in pipeline:
            stages, data = self._simple(raw, depth, via, frozenset(upstream), data)
            upstream.update(c.name or "$dynamic" for c in stages)
        return data

    def _simple(
        self,
        raw: _Raw,
        depth: int,
        via: tuple[str, ...],
        fed_by: frozenset[str],
        piped: str | None,
    ) -> tuple[list[Command], str | None]:
        words: list[_Word] = [self._resolve(t) for t in raw.words]
        for word in words:
            for sub in word.subs:
                self.analyze(sub, depth=depth + 1, via=(*via, "$()"))
        redirects: list[tuple[str, str]] = []
        stdin_parts: list[str] = []
        for op, target in raw.redirects:
            if target is None:
                continue
            if target.heredoc is not None and op in ("<<", "<<-"):
                stdin_parts.append(target.heredoc.body or "")
                continue
            resolved = self._resolve(target)
            for sub in resolved.subs:
                self.analyze(sub, depth=depth + 1, via=(*via, "$()"))
            if op == "<<<":
                stdin_parts.append(resolved.texts[0])
            else:
                redirects.append((op, resolved.texts[0]))
        if piped is not None:
            stdin_parts.append(piped)
        stdin = "\n".join(stdin_parts)

        # Leading NAME=value words set variables (for this command, or the rest of the line).
        argv: list[str] = []
        dynamic: list[bool] = []
        extra_fed = set(fed_by)
        for word in words:
            for sub in word.subs:
                extra_fed.update(_names_in(sub))
        assigning = True
        for word in words:
            text = word.texts[0]
            match = _ASSIGNMENT.match(text) if assigning else None
            if match is not None:
                if word.dynamic:
                    self.env.pop(match.group(1), None)
                else:
                    self.env[match.group(1)] = text[match.end() :]
                continue
            assigning = False
            argv.extend(word.texts)
            dynamic.extend([word.dynamic] * len(word.texts))
        if not argv:
            return [], None
        first = raw.words[0] if raw.words else None
        if first is not None and first.literal in _CLAUSE_HEADERS:
            return [], None
        stages = self._unwrap(argv, dynamic, redirects, stdin, frozenset(extra_fed), via, depth)
        return stages, self._output(stages[-1] if stages else None, stdin)

    def _output(self, command: Command | None, stdin: str) -> str | None:
        """Literal data this command writes to its stdout, when it only echoes text."""
        if command is None or any(command.dynamic):
            return None
        if command.name == "echo":
            return " ".join(a for a in command.argv[1:] if a not in ("-n", "-e", "-E"))
        if command.name == "printf" and len(command.argv) > 1:
            return command.argv[1].replace("\\n", "\n")
        if stdin:
            return _decode(command.argv, stdin)
        return None

    def _emit(self, command: Command) -> None:
        if len(self.commands) >= MAX_COMMANDS:
            raise TooComplex(f"more than {MAX_COMMANDS} commands")
        self.commands.append(command)

    def _unwrap(
        self,
        argv: list[str],
        dynamic: list[bool],
        redirects: list[tuple[str, str]],
        stdin: str,
        fed_by: frozenset[str],
        via: tuple[str, ...],
        depth: int,
    ) -> list[Command]:
        stages: list[Command] = []
        while argv:
            name = "" if dynamic[0] else command_name(argv[0])
            command = Command(
                name, tuple(argv), tuple(dynamic), tuple(redirects), stdin, fed_by, via, None, depth, self.cwd
            )
            code = self._code(command)
            if code is not None:
                command.code = code
            self._emit(command)
            stages.append(command)
            if not name:
                break
            if name in ("cd", "pushd") and not via:
                self._change_directory(argv, dynamic)
            self._follow(command, depth)
            inner = self._inner(name, argv)
            if inner is None:
                break
            dynamic = dynamic[len(argv) - len(inner) :]
            argv = inner
            via = (*via, name)
        return stages

    def _inner(self, name: str, argv: list[str]) -> list[str] | None:
        """The command a wrapper runs, or None when ``argv`` is not a wrapper."""
        if name == "python" and len(argv) > 2 and argv[1] == "-m":
            return argv[2:]
        if name == "command" and any(a in ("-v", "-V") for a in argv[1:3]):
            return None  # a lookup, not an execution
        if name == "find":
            return None  # its -exec payloads are followed separately
        spec = WRAPPERS.get(name)
        if spec is None:
            return None
        i = 1
        skipped = 0
        while i < len(argv):
            word = argv[i]
            if word == "--":
                i += 1
                break
            if spec.assignments and _ASSIGNMENT.match(word):
                i += 1
                continue
            if word.startswith("-") and len(word) > 1:
                option = word.split("=", 1)[0]
                if option in spec.value_options and "=" not in word:
                    i += 2
                else:
                    i += 1
                continue
            if _NUMERIC_OPTION.match(word):
                i += 1
                continue
            if skipped < spec.skip_positionals:
                skipped += 1
                i += 1
                continue
            break
        return argv[i:] or None

    def _change_directory(self, argv: list[str], dynamic: list[bool]) -> None:
        """Follow `cd` so later relative paths on the line are judged where they land."""
        target = next((a for a in argv[1:] if not a.startswith("-")), "~")
        if any(dynamic[1:]):
            self.cwd = "$unknown"
        elif target.startswith(("/", "~")):
            self.cwd = target
        elif self.cwd is not None and self.cwd != "$unknown":
            self.cwd = posixpath.join(self.cwd, target)

    # -- payloads a command runs ---------------------------------------------------

    def _follow(self, command: Command, depth: int) -> None:
        name, argv = command.name, list(command.argv)
        via = (*command.via, name)
        if name in SHELLS:
            payload = _shell_payload(argv)
            if payload is not None:
                self.analyze(payload, depth=depth + 1, via=via)
            elif command.stdin and not _runs_script_file(argv):
                self.analyze(command.stdin, depth=depth + 1, via=(*via, "stdin"))
        elif name == "eval" and len(argv) > 1:
            self.analyze(" ".join(argv[1:]), depth=depth + 1, via=via)
        elif name in ("su", "sg", "script"):
            payload = _option_value(argv, ("-c", "--command"))
            if payload is not None:
                self.analyze(payload, depth=depth + 1, via=via)
        elif name == "ssh":
            remote = _ssh_command(argv)
            if remote:
                self.analyze(remote, depth=depth + 1, via=via)
        elif name == "find":
            roots = _find_roots(argv)
            for exec_argv in _find_exec(argv):
                # `{}` stands for what find found: something under each starting point.
                for root in roots:
                    found = root.rstrip("/") + "/*" if root not in (".", "") else "./*"
                    expanded = [found if word == "{}" else word for word in exec_argv]
                    self._unwrap(expanded, [False] * len(expanded), [], "", command.fed_by, via, depth + 1)
        elif name == "env" and ("-S" in argv or any(a.startswith("--split-string") for a in argv)):
            payload = _option_value(argv, ("-S", "--split-string"))
            if payload:
                self.analyze(payload, depth=depth + 1, via=via)
        if command.code:
            for script in _embedded_shell(command.code):
                self.analyze(script, depth=depth + 1, via=via)

    def _code(self, command: Command) -> str | None:
        name = command.name
        argv = command.argv
        if name in _AWKS:
            if "-f" in argv:
                return None
            positional = [a for a in argv[1:] if not a.startswith("-")]
            return positional[0] if positional else None
        flags = INTERPRETER_CODE_FLAGS.get(name)
        if flags is None:
            return None
        lowered = [a.lower() for a in argv]
        if name in ("powershell", "pwsh"):
            for i, word in enumerate(lowered[1:-1], start=1):
                if word in ("-encodedcommand", "-enc", "-e", "-ec"):
                    try:
                        return base64.b64decode(argv[i + 1]).decode("utf-16-le", errors="replace")
                    except (binascii.Error, ValueError):
                        return argv[i + 1]
        if any(a in flags for a in lowered[1:]):
            return " ".join(argv[1:])
        if command.stdin and (len(argv) == 1 or argv[1] == "-"):
            return command.stdin
        return None


def _option_value(argv: list[str] | tuple[str, ...], names: Iterable[str]) -> str | None:
    wanted = tuple(names)
    for i, word in enumerate(argv[1:], start=1):
        if word in wanted and i + 1 < len(argv):
            return argv[i + 1]
        for name in wanted:
            if name.startswith("--") and word.startswith(name + "="):
                return word[len(name) + 1 :]
    return None


def _shell_payload(argv: list[str]) -> str | None:
    """The command string of `sh -c '...'` (flags may be clustered: -lc, -xec)."""
    for i, word in enumerate(argv[1:], start=1):
        if word == "--":
            return None
        if word.startswith("-") and not word.startswith("--") and "c" in word[1:]:
            return argv[i + 1] if i + 1 < len(argv) else None
        if not word.startswith("-") and not word.startswith("+"):
            return None
    return None


def _runs_script_file(argv: list[str]) -> bool:
    """`bash script.sh` reads the script, not stdin; `bash -s` and bare `bash` read stdin."""
    for word in argv[1:]:
        if word == "-s":
            return False
        if not word.startswith(("-", "+")):
            return True
    return False


def _ssh_command(argv: list[str]) -> str | None:
    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        i += 2 if argv[i] in _SSH_VALUE_OPTIONS else 1
    if i + 1 < len(argv):
        return " ".join(argv[i + 1 :])
    return None


def _find_roots(argv: list[str]) -> list[str]:
    roots = []
    for word in argv[1:]:
        if word.startswith(("-", "(", "!")) or word in (")", ","):
            break
        roots.append(word)
    return roots or ["."]


def _find_exec(argv: list[str]) -> list[list[str]]:
    out: list[list[str]] = []
    i = 1
    while i < len(argv):
        if argv[i] in ("-exec", "-execdir", "-ok", "-okdir"):
            end = i + 1
            while end < len(argv) and argv[end] not in (";", "+"):
                end += 1
            if end > i + 1:
                out.append(argv[i + 1 : end])
            i = end
        i += 1
    return out


def _embedded_shell(code: str) -> list[str]:
    """Shell commands an inline program hands to system(), subprocess, backticks..."""
    scripts: list[str] = []
    for match in _EMBEDDED_SHELL.finditer(code):
        literal = match.group(1)
        if literal.startswith("["):
            items = [a or b for a, b in _QUOTED.findall(literal)]
            if items:
                scripts.append(" ".join(items))
        else:
            scripts.append(literal[1:-1].replace('\\"', '"').replace("\\'", "'"))
    for match in _BACKTICK_CODE.finditer(code):
        script = next((g for g in match.groups() if g), None)
        if script:
            scripts.append(script)
    return scripts


def _names_in(script: str) -> set[str]:
    """Command names inside a substitution (for fed_by), without recursing further."""
    try:
        pipelines = _split(tokenize(script))
    except ShellSyntaxError:
        return {"$dynamic"}
    names: set[str] = set()
    for pipeline in pipelines:
        for raw in pipeline:
            if raw.words:
                literal = raw.words[0].literal
                names.add(command_name(literal) if literal else "$dynamic")
    return names


def parse(text: str) -> list[Command]:
    """Every simple command ``text`` would run, at each unwrapping stage.

    Raises:
        ShellSyntaxError: the text cannot be parsed (unbalanced quotes, too long, too deep).
    """
    analyzer = Analyzer()
    analyzer.analyze(text)
    return analyzer.commands
