"""Tokens → the simple commands a shell would run, wrappers and disguises removed.

`sudo env X=1 nice /usr/bin/rm -rf /` is seen at every stage (sudo, env, nice,
rm); `bash -c '...'`, `eval`, `ssh host ...`, `find -exec`, `xargs`, command
substitutions, here-documents fed to a shell and inline interpreter programs
are followed into the commands they run. Variables assigned earlier on the
line are substituted; `$(echo rm)` is evaluated. What cannot be known statically
is marked ``dynamic`` so a policy can treat it as possibly anything.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Any

from engine.policy.commands import (
    ASSIGNMENT,
    SCRIPT_RUNNERS,
    SHELLS,
    command_name,
    decode_filter,
    download_targets,
    embedded_shell,
    find_exec,
    find_roots,
    inline_code,
    inner_command,
    option_value,
    printed_text,
    runs_script_file,
    script_operand,
    shell_payload,
    ssh_command,
)
from engine.policy.lexer import (
    ARITH,
    LIT,
    REDIRECT_OPS,
    SUB,
    VAR,
    ShellSyntaxError,
    Token,
    expand_braces,
    tokenize,
)
from engine.policy.paths import file_operand

MAX_DEPTH = 8
MAX_COMMANDS = 512
_NOTHING: frozenset[str] = frozenset()
# Commands whose arguments may hold more commands to follow (see Analyzer._follow).
_FOLLOWED = SHELLS | {"eval", "su", "sg", "script", "ssh", "find", "env", "source", ".", "at", "batch"}
_WRITE_REDIRECTS = frozenset({">", ">|", ">>", "&>", "&>>"})
_FILE_WRITERS = frozenset({"tee", "curl", "wget"})  # write files named by their arguments


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
    text: str = field(init=False, default="")  # the words joined, as rules and messages show them
    shape: Any = field(init=False, default=None)  # flags and positionals, filled by the first matcher that needs them

    def __post_init__(self) -> None:
        self.text = " ".join(self.argv)

    @property
    def is_dynamic(self) -> bool:
        return not self.name


@dataclass(slots=True)
class _Written:
    writers: frozenset[str]
    content: str | None


class TooComplex(ShellSyntaxError):
    pass


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
        "]]",
    }
)
_CLAUSE_HEADERS = frozenset({"for", "select", "case"})


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
    words: list[Token] = []
    redirects: list[tuple[str, Token | None]] = []
    i = 0
    n = len(tokens)
    while i <= n:
        token = tokens[i] if i < n else None
        i += 1
        if token is not None and token.kind == "word":
            if words or token.literal not in _KEYWORDS:
                words.append(token)
            continue
        if token is not None and token.kind == "op" and token.value in REDIRECT_OPS:
            target = tokens[i] if i < n and tokens[i].kind == "word" else None
            redirects.append((token.value, target))
            if target is not None:
                i += 1
            continue
        # An operator or a newline (or the end) ends the simple command ...
        if words or redirects:
            pipeline.append(_Raw(words, redirects))
            words, redirects = [], []
        # ... and all but a pipe end the pipeline.
        if pipeline and (token is None or token.value not in ("|", "|&")):
            pipelines.append(pipeline)
            pipeline = []
    return pipelines


class Analyzer:
    """Turns one command line into every simple command it would run."""

    def __init__(self) -> None:
        self.commands: list[Command] = []
        self.env: dict[str, str] = {"HOME": "~"}
        self.cwd: str | None = None
        # Files written earlier on the line (by redirections, tee, curl -o, wget): who wrote
        # them and, when it is literal, what. A later command that runs or reads one is fed
        # by its writers; a shell that runs one runs its text.
        self.files: dict[str, _Written] = {}

    def analyze(self, text: str, *, depth: int = 0, via: tuple[str, ...] = ()) -> None:
        if depth > MAX_DEPTH:
            raise TooComplex(f"commands nested more than {MAX_DEPTH} levels deep")
        for pipeline in _split(tokenize(text)):
            self._pipeline(pipeline, depth, via)

    # -- words -------------------------------------------------------------------

    def _resolve(self, token: Token) -> _Word:
        literal = token.literal
        if literal is not None and not token.brace:
            return _Word([literal], False, token.quoted, [])
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
        texts = [joined]
        if token.brace and not token.quoted:
            texts, complete = expand_braces(joined)
            if not complete:
                raise TooComplex("a brace expansion past its limits (64 words, 64 groups, 16 levels)")
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
        return printed_text(command_name(words[0] or ""), [w for w in words[1:] if w is not None])

    # -- commands ----------------------------------------------------------------

    def _pipeline(self, pipeline: list[_Raw], depth: int, via: tuple[str, ...]) -> str | None:
        """Analyze one pipeline; return the literal data it finally writes, if knowable."""
        upstream: frozenset[str] = _NOTHING
        data: str | None = None  # literal data flowing down the pipe
        for raw in pipeline:
            stages, data = self._simple(raw, depth, via, upstream, data)
            if stages:
                # What fed a stage (substitutions, files it read) flows on down the pipe too.
                upstream = upstream.union(c.name or "$dynamic" for c in stages)
                fed = [c.fed_by for c in stages if c.fed_by is not upstream]
                if fed:
                    upstream = upstream.union(*fed)
        return data

    def _simple(
        self,
        raw: _Raw,
        depth: int,
        via: tuple[str, ...],
        fed_by: frozenset[str],
        piped: str | None,
    ) -> tuple[list[Command], str | None]:
        extra_fed: frozenset[str] = fed_by
        # (texts, dynamic) per word; texts has more than one entry after brace expansion.
        words: list[tuple[list[str], bool]]
        if all(t.literal is not None and not t.brace for t in raw.words):
            words = [([t.literal], False) for t in raw.words]  # type: ignore[list-item]
        else:
            resolved = [self._resolve(t) for t in raw.words]
            words = [(w.texts, w.dynamic) for w in resolved]
            if any(w.subs for w in resolved):
                names = set(fed_by)
                for word in resolved:
                    for sub in word.subs:
                        self.analyze(sub, depth=depth + 1, via=(*via, "$()"))
                        names.update(_names_in(sub))
                extra_fed = frozenset(names)
        redirects: list[tuple[str, str]] = []
        stdin = piped or ""
        if raw.redirects:
            stdin_parts: list[str] = []
            for op, target in raw.redirects:
                if target is None:
                    continue
                if target.heredoc is not None and op in ("<<", "<<-"):
                    stdin_parts.append(target.heredoc.body or "")
                    continue
                resolved_target = self._resolve(target)
                for sub in resolved_target.subs:
                    self.analyze(sub, depth=depth + 1, via=(*via, "$()"))
                if op == "<<<":
                    stdin_parts.append(resolved_target.texts[0])
                else:
                    redirects.append((op, resolved_target.texts[0]))
            if piped is not None:
                stdin_parts.append(piped)
            stdin = "\n".join(stdin_parts)

        # Leading NAME=value words set variables (for this command, or the rest of the line).
        argv: list[str] = []
        dynamic: list[bool] = []
        assigning = True
        for texts, is_dynamic in words:
            text = texts[0]
            match = ASSIGNMENT.match(text) if assigning and "=" in text else None
            if match is not None:
                if is_dynamic:
                    self.env.pop(match.group(1), None)
                else:
                    self.env[match.group(1)] = text[match.end() :]
                continue
            assigning = False
            if len(texts) == 1:
                argv.append(text)
                dynamic.append(is_dynamic)
            else:
                argv.extend(texts)
                dynamic.extend([is_dynamic] * len(texts))
        if not argv:
            if not redirects:
                return [], None
            # `> file` (or `X=1 > file`) still opens, and truncates, its targets: judge it as
            # the null command `:` with those redirections.
            argv, dynamic = [":"], [False]
        first = raw.words[0] if raw.words else None
        if first is not None and first.literal in _CLAUSE_HEADERS:
            return [], None
        stages = self._unwrap(argv, dynamic, redirects, stdin, extra_fed, via, depth)
        output = self._output(stages[-1] if stages else None, stdin)
        if stages and (redirects or stages[-1].name in _FILE_WRITERS):
            self._record_writes(stages[-1], stages, redirects, stdin, output)
        return stages, output

    def _output(self, command: Command | None, stdin: str) -> str | None:
        """Literal data this command writes to its stdout, when it only echoes text."""
        if command is None or any(command.dynamic):
            return None
        if command.name in ("echo", "printf"):
            return printed_text(command.name, command.argv[1:])
        if stdin:
            return decode_filter(command.argv, stdin)
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
            fed = fed_by | self._read_from(name, argv, redirects) if self.files else fed_by
            command = Command(
                name, tuple(argv), tuple(dynamic), tuple(redirects), stdin, fed, via, None, depth, self.cwd
            )
            code = inline_code(command.name, command.argv, command.stdin)
            if code is not None:
                command.code = code
            self._emit(command)
            stages.append(command)
            if not name:
                break
            written = self.files.get(self._file_key(argv[0])) if self.files and "/" in argv[0] else None
            if written is not None:
                # `./fetched.sh`: a file written on this line, run by its interpreter.
                runner = Command(
                    "sh",
                    ("sh", *argv),
                    (False, *dynamic),
                    tuple(redirects),
                    stdin,
                    fed | written.writers,
                    (*via, argv[0]),
                    None,
                    depth,
                    self.cwd,
                )
                self._emit(runner)
                stages.append(runner)
                self._follow(runner, depth)
                break
            if name in ("cd", "pushd") and not via:
                self._change_directory(argv, dynamic)
            self._follow(command, depth)
            inner = inner_command(name, argv)
            if inner is None:
                break
            dynamic = dynamic[len(argv) - len(inner) :]
            argv = inner
            via = (*via, name)
        return stages

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
        name = command.name
        if name not in _FOLLOWED and not command.code:
            return
        argv = list(command.argv)
        via = (*command.via, name)
        if name in SHELLS or name in ("source", "."):
            payload = shell_payload(argv) if name in SHELLS else None
            script = script_operand(name, argv) if payload is None else None
            content = self._content(script) if script is not None else None
            if payload is not None:
                self.analyze(payload, depth=depth + 1, via=via)
            elif content is not None:
                self.analyze(content, depth=depth + 1, via=(*via, script or ""))
            elif name in SHELLS and command.stdin and not runs_script_file(argv):
                self.analyze(command.stdin, depth=depth + 1, via=(*via, "stdin"))
        elif name in ("at", "batch"):
            # Commands for later: from -f FILE (when written on this line) or from stdin.
            script = option_value(argv, ("-f",))
            content = self._content(script) if script is not None else command.stdin
            if content:
                self.analyze(content, depth=depth + 1, via=(*via, "stdin"))
        elif name == "eval" and len(argv) > 1:
            self.analyze(" ".join(argv[1:]), depth=depth + 1, via=via)
        elif name in ("su", "sg", "script"):
            payload = option_value(argv, ("-c", "--command"))
            if payload is not None:
                self.analyze(payload, depth=depth + 1, via=via)
        elif name == "ssh":
            remote = ssh_command(argv)
            if remote:
                self.analyze(remote, depth=depth + 1, via=via)
        elif name == "find":
            roots = find_roots(argv)
            for exec_argv in find_exec(argv):
                # `{}` stands for what find found: something under each starting point.
                for root in roots:
                    found = root.rstrip("/") + "/*" if root not in (".", "") else "./*"
                    expanded = [found if word == "{}" else word for word in exec_argv]
                    self._unwrap(expanded, [False] * len(expanded), [], "", command.fed_by, via, depth + 1)
        elif name == "env" and ("-S" in argv or any(a.startswith("--split-string") for a in argv)):
            payload = option_value(argv, ("-S", "--split-string"))
            if payload:
                self.analyze(payload, depth=depth + 1, via=via)
        if command.code:
            for script in embedded_shell(command.code):
                self.analyze(script, depth=depth + 1, via=via)

    # -- files written and read on the same line ------------------------------------

    def _file_key(self, word: str) -> str:
        path = file_operand(word)
        if self.cwd is not None and self.cwd != "$unknown" and path and not path.startswith(("/", "~")):
            path = posixpath.join(self.cwd, path)
        return posixpath.normpath(path) if path else path

    def _content(self, word: str) -> str | None:
        entry = self.files.get(self._file_key(word))
        return entry.content if entry is not None else None

    def _read_from(self, name: str, argv: list[str], redirects: list[tuple[str, str]]) -> frozenset[str]:
        """Writers of the files this command reads: for a script runner, only its script."""
        if name in SCRIPT_RUNNERS:
            script = script_operand(name, argv)
            words = [script] if script is not None else []
        else:
            words = argv[1:]
        words += [target for op, target in redirects if op in ("<", "<>")]
        writers: set[str] = set()
        for word in words:
            entry = self.files.get(self._file_key(word))
            if entry is not None:
                writers |= entry.writers
        return frozenset(writers)

    def _record_writes(
        self, last: Command, stages: list[Command], redirects: list[tuple[str, str]], stdin: str, output: str | None
    ) -> None:
        targets = [(t, op.endswith(">>"), output) for op, t in redirects if op in _WRITE_REDIRECTS]
        if last.name == "tee":
            append = any(a in ("-a", "--append") for a in last.argv[1:])
            targets += [(a, append, stdin or None) for a in last.argv[1:] if not a.startswith("-")]
        targets += [(t, False, None) for t in download_targets(last.name, last.argv)]
        if not targets:
            return
        writers = frozenset(c.name or "$dynamic" for c in stages) | last.fed_by
        for target, append, data in targets:
            key = self._file_key(target)
            old = self.files.get(key)
            if append and old is not None:
                both = None if old.content is None or data is None else old.content + "\n" + data
                self.files[key] = _Written(writers | old.writers, both)
            else:
                self.files[key] = _Written(writers, data)


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
