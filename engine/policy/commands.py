"""What the analyzer knows about particular commands.

Wrappers (sudo, env, nice, timeout, xargs ...) and the command they run; shells
and where their script comes from (-c, stdin); interpreters and their inline
programs; find's -exec payloads; ssh's remote command; filters that pass or
decode data on its way down a pipe.
"""

from __future__ import annotations

import base64
import binascii
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.policy.lexer import decode_ansi_c
from engine.policy.paths import URL

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
ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=")

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
PASS_THROUGH = frozenset({"cat", "tee", "tr", "head", "tail", "sort", "uniq", "dos2unix", "fold"})


def basename(word: str) -> str:
    name = word.rsplit("/", 1)[-1]
    return name.lower()


def command_name(word: str) -> str:
    """The name patterns match: basename, lower-case, python3.11 → python."""
    name = basename(word)
    if _PYTHON.match(name):
        return "python"
    return name


def decode_filter(filter_argv: tuple[str, ...], data: str) -> str | None:
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
    if name in PASS_THROUGH:
        return data
    return None


def inner_command(name: str, argv: list[str]) -> list[str] | None:
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
        if spec.assignments and ASSIGNMENT.match(word):
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


def inline_code(name: str, argv: tuple[str, ...], stdin: str) -> str | None:
    """The program an interpreter runs from its command line (or from stdin), if any."""
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
    if stdin and (len(argv) == 1 or argv[1] == "-"):
        return stdin
    return None


def option_value(argv: list[str] | tuple[str, ...], names: Iterable[str]) -> str | None:
    wanted = tuple(names)
    for i, word in enumerate(argv[1:], start=1):
        if word in wanted and i + 1 < len(argv):
            return argv[i + 1]
        for name in wanted:
            if name.startswith("--") and word.startswith(name + "="):
                return word[len(name) + 1 :]
    return None


def shell_payload(argv: list[str]) -> str | None:
    """The command string of `sh -c '...'` (flags may be clustered: -lc, -xec)."""
    for i, word in enumerate(argv[1:], start=1):
        if word == "--":
            return None
        if word.startswith("-") and not word.startswith("--") and "c" in word[1:]:
            return argv[i + 1] if i + 1 < len(argv) else None
        if not word.startswith("-") and not word.startswith("+"):
            return None
    return None


def runs_script_file(argv: list[str]) -> bool:
    """`bash script.sh` reads the script, not stdin; `bash -s` and bare `bash` read stdin."""
    for word in argv[1:]:
        if word == "-s":
            return False
        if not word.startswith(("-", "+")):
            return True
    return False


def ssh_command(argv: list[str]) -> str | None:
    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        i += 2 if argv[i] in _SSH_VALUE_OPTIONS else 1
    if i + 1 < len(argv):
        return " ".join(argv[i + 1 :])
    return None


def find_roots(argv: list[str]) -> list[str]:
    roots = []
    for word in argv[1:]:
        if word.startswith(("-", "(", "!")) or word in (")", ","):
            break
        roots.append(word)
    return roots or ["."]


def find_exec(argv: list[str]) -> list[list[str]]:
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


def embedded_shell(code: str) -> list[str]:
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


# -- files written and run on the same line --------------------------------------------

# Programs that run a script named by their first operand (the script is code, the rest data).
SCRIPT_RUNNERS = SHELLS | frozenset(
    {
        "python",
        "perl",
        "ruby",
        "node",
        "nodejs",
        "php",
        "deno",
        "bun",
        "lua",
        "rscript",
        "powershell",
        "pwsh",
        "source",
        ".",
        "osascript",
        "tclsh",
        "expect",
    }
)
_INTERPRETER_VALUE_OPTIONS = frozenset({"-W", "-X", "-Q", "-I", "-r", "--require", "--import"})


def script_operand(name: str, argv: tuple[str, ...] | list[str]) -> str | None:
    """The file a script runner executes: `bash -x run.sh` -> run.sh, `python3 a.py data` -> a.py.

    None when the code comes from elsewhere (-c, -e, -m, -s, stdin).
    """
    if name in ("source", "."):
        return argv[1] if len(argv) > 1 else None
    inline = INTERPRETER_CODE_FLAGS.get(name, frozenset())
    i = 1
    while i < len(argv):
        word = argv[i]
        if word == "--":
            return argv[i + 1] if i + 1 < len(argv) else None
        if word in ("-", "-s", "-m") or word in inline:
            return None
        if name in SHELLS and word.startswith("-") and not word.startswith("--") and "c" in word[1:]:
            return None
        if word.startswith(("-", "+")):
            i += 2 if word in _INTERPRETER_VALUE_OPTIONS else 1
            continue
        return word
    return None


def download_targets(name: str, argv: tuple[str, ...] | list[str]) -> list[str]:
    """Files curl or wget save on this command line (``-`` for stdout is left out)."""
    if name not in ("curl", "wget"):
        return []
    words = argv[1:]
    urls = [w for w in words if URL.match(w)]
    out: list[str] = []
    if name == "curl":
        out += [v for v in option_values("o", words) + option_values("output", words) if v != "-"]
        if any(w in ("-O", "--remote-name", "--remote-name-all") or _clustered(w, "O") for w in argv[1:]):
            out += [_url_basename(u) for u in urls]
        return out
    document = option_values("O", words) + option_values("output-document", words)
    if document:
        return [v for v in document if v != "-"]
    prefix = next(iter(option_values("P", words) + option_values("directory-prefix", words)), "")
    return [posixpath.join(prefix, _url_basename(u)) if prefix else _url_basename(u) for u in urls]


def _clustered(word: str, letter: str) -> bool:
    return word.startswith("-") and not word.startswith("--") and letter in word[1:] and word[1:].isalpha()


def option_values(name: str, words: Sequence[str]) -> list[str]:
    """Values of an option among a command's words.

    One letter: `-o V`, `-oV`, and in a cluster of flags `-so V`, `-qO-`.
    Longer: `--name=V`, `-name=V`, `name=V` (dd), `--name V`, `-name V`.
    """
    values: list[str] = []
    for i, word in enumerate(words):
        nxt = words[i + 1] if i + 1 < len(words) else None
        if len(name) == 1:
            if word.startswith("--") or not word.startswith("-"):
                continue
            at = word.find(name, 1)
            if at < 0 or (at > 1 and not word[1:at].isalpha()):  # only flag letters may come before it
                continue
            attached = word[at + 1 :]
            if attached:
                values.append(attached)
            elif nxt is not None:
                values.append(nxt)
            continue
        for prefix in (f"--{name}=", f"-{name}=", f"{name}="):
            if word.startswith(prefix):
                values.append(word[len(prefix) :])
        if word in (f"--{name}", f"-{name}") and nxt is not None:
            values.append(nxt)
    return values


def _url_basename(url: str) -> str:
    path = url.split("://", 1)[-1].split("?", 1)[0].split("#", 1)[0]
    _, _, rest = path.partition("/")
    name = rest.rstrip("/").rsplit("/", 1)[-1]
    return name or "index.html"


_PRINTF_SPEC = re.compile(r"%(%|[-+ #0]*\d*(?:\.\d+)?([sbcdiuxXoq]))")


def printed_text(name: str, args: list[str] | tuple[str, ...]) -> str | None:
    """What `echo ...` or `printf FORMAT ARGS...` writes, escapes decoded; None if not knowable."""
    if name == "echo":
        flags: set[str] = set()
        words = list(args)
        while words and words[0] in ("-n", "-e", "-E", "-ne", "-en"):
            flags.update(words.pop(0)[1:])
        text = " ".join(words)
        return decode_ansi_c(text) if "e" in flags else text
    if name != "printf" or not args:
        return None
    fmt, rest = args[0], list(args[1:])
    out: list[str] = []
    for _ in range(64):  # the format is reused while arguments remain
        at = 0
        consumed = False
        for match in _PRINTF_SPEC.finditer(fmt):
            out.append(decode_ansi_c(fmt[at : match.start()]))  # escapes live in the format only
            at = match.end()
            kind = match.group(2)
            if match.group(1) == "%":
                out.append("%")
                continue
            consumed = True
            value = rest.pop(0) if rest else ""
            if kind in "sq":
                out.append(value)
            elif kind == "b":
                out.append(decode_ansi_c(value))
            elif kind == "c":
                out.append(value[:1])
            else:
                return None  # numbers are rarely how a command is spelled; do not guess
        out.append(decode_ansi_c(fmt[at:]))
        if not rest or not consumed:
            break
    return "".join(out)
