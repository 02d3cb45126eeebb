"""Which classes a path-like word belongs to: root, home, block_device, credential...

Classes are declared in DangerPatterns manifests as globs over normalised paths
(``~`` for the home directory, ``**`` crossing ``/``, ``{a,b}`` alternatives, a
leading ``!`` excluding, ``\\*`` a literal star). A few classes are computed
here because no glob can express them: ``relative``, ``escapes_workdir``,
``absolute``, ``variable`` (only known at run time), ``remote`` and ``url``.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from engine.policy.regexes import Regex, compile_linear

COMPUTED_CLASSES = frozenset({"relative", "escapes_workdir", "absolute", "variable", "remote", "url", "workdir"})
# When the working directory itself is one of these, a relative path is as
# dangerous as the absolute path it names.
_CRITICAL_CWD_CLASSES = ("root", "system_top", "home_top")

_HOME_VARS = re.compile(
    r"^(?:\$HOME|\$\{HOME\}|\$ENV\{HOME\}|%USERPROFILE%|%HOMEPATH%|\$env:(?:USERPROFILE|HOME)|\$\{env:(?:USERPROFILE|HOME)\})"
    r"(?=[/\\]|$)",
    re.IGNORECASE,
)
# A Windows home directory (`C:\Users\me\...`, `C:/Users/me/...`): folded like `~`.
_WINDOWS_HOME = re.compile(r"^[A-Za-z]:/(?:Users|Documents and Settings)/[^/]+(?=/|$)", re.IGNORECASE)
_REMOTE = re.compile(r"^[\w.-]+@[\w.-]+:|^[\w.-]+:(?!//)[^\s]*$")
URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_WINDOWS = re.compile(r"^[A-Za-z]:[\\/]")
_FORM_FILE = re.compile(r"^[\w.-]+=[@<](.+)$")


class GlobError(ValueError):
    pass


def glob_to_regex(glob: str) -> str:
    """Translate one class glob to a regex (anchored by the caller).

    Raises:
        GlobError: an unbalanced ``[`` or ``{``.
    """
    out: list[str] = []
    i = 0
    n = len(glob)
    while i < n:
        ch = glob[i]
        if ch == "\\" and i + 1 < n:
            out.append(re.escape(glob[i + 1]))
            i += 2
            continue
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = glob.find("]", i + 1)
            if end < 0:
                raise GlobError(f"unbalanced '[' in {glob!r}")
            body = glob[i + 1 : end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append(f"[{body}]")
            i = end
        elif ch == "{":
            end = glob.find("}", i + 1)
            if end < 0:
                raise GlobError(f"unbalanced '{{' in {glob!r}")
            options = glob[i + 1 : end].split(",")
            out.append("(?:" + "|".join(glob_to_regex(o) for o in options) + ")")
            i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


_MAX_ALTERNATIVES = 256
_BRACES = re.compile(r"\{([^{}]*)\}")


def _expand_alternatives(glob: str) -> list[str] | None:
    """Every alternative a glob's braces spell out; None past _MAX_ALTERNATIVES (a glob of
    braces after braces multiplies them: an author's typo must not exhaust memory)."""
    pending = [glob]
    out: list[str] = []
    while pending:
        text = pending.pop()
        match = _BRACES.search(text)
        if match is None:
            out.append(text)
            continue
        options = match.group(1).split(",")
        if len(out) + len(pending) + len(options) > _MAX_ALTERNATIVES:
            return None
        pending.extend(text[: match.start()] + o + text[match.end() :] for o in reversed(options))
    return out


def literal_fragments(glob: str) -> list[str]:
    """For each alternative a glob spells out, its longest literal run (for trigger checks).

    A path matching the glob contains at least one of the returned strings ("" when
    there are too many alternatives to list: every path then qualifies).
    """
    alternatives = _expand_alternatives(glob.lstrip("!"))
    if alternatives is None:
        return [""]
    out: list[str] = []
    for alternative in alternatives:
        # `**/` may match nothing at all, so the text after it is all a path must contain.
        cleaned = re.sub(r"\[[^\]]*\]|\\.|\*\*/", "*", alternative)
        runs = [f for f in re.split(r"[*?]+", cleaned) if f]
        out.append(max(runs, key=len, default=""))
    return out


@dataclass(frozen=True, slots=True)
class _Class:
    include: Regex
    exclude: Regex | None


def file_operand(word: str) -> str:
    """The file a word names for reading: curl's `@file`, `name=@file` and `name=<file` forms."""
    form = _FORM_FILE.match(word)
    if form is not None:
        return form.group(1)
    if word.startswith("@") and len(word) > 1:
        return word[1:]
    return word


def normalize_path(word: str) -> tuple[str, set[str]]:
    """(normalised path, computed classes) for a word used as a path."""
    computed: set[str] = set()
    text = word.strip()
    if text.startswith("file://"):
        text = text[len("file://") :]
    text = file_operand(text)
    if URL.match(text):
        return text, {"url"}
    if _WINDOWS.match(text):
        text = text.replace("\\", "/")
        home = _WINDOWS_HOME.match(text)
        if home is None:
            return text, {"absolute", "windows"}
        text = "~" + text[home.end() :]
    if _HOME_VARS.match(text):
        text = _HOME_VARS.sub("~", text).replace("\\", "/")
    if text.startswith("~") and len(text) > 1 and text[1] != "/":
        user, _, rest = text[1:].partition("/")
        text = f"/home/{user}" + (f"/{rest}" if rest else "")
    if "$" in text or "`" in text:
        computed.add("variable")
    if _REMOTE.match(text) and not text.startswith(("/", "~", ".")):
        return text, {"remote"}
    if text.startswith("~"):
        rest = posixpath.normpath("/" + text[1:].lstrip("/")) if text != "~" else "/"
        normalised = "~" + ("" if rest == "/" else rest)
        computed.add("absolute")
        return normalised, computed
    if text.startswith("/"):
        normalised = posixpath.normpath(text)
        if normalised.startswith("//"):
            normalised = "/" + normalised.lstrip("/")
        computed.add("absolute")
        return normalised, computed
    normalised = posixpath.normpath(text) if text else "."
    computed.add("relative")
    if normalised == ".." or normalised.startswith("../"):
        computed.add("escapes_workdir")
    elif normalised in (".", "*"):
        computed.add("workdir")
    return normalised, computed


class PathClassifier:
    """Classifies words against the classes declared in policy manifests."""

    def __init__(self, classes: Mapping[str, Sequence[str]], cwd: str | None = None) -> None:
        compiled: dict[str, _Class] = {}
        for name, globs in classes.items():
            include = [glob_to_regex(g) for g in globs if not g.startswith("!")]
            exclude = [glob_to_regex(g[1:]) for g in globs if g.startswith("!")]
            compiled[name] = _Class(
                compile_linear("(?:" + "|".join(include or [r"\b\B"]) + r")\Z"),
                compile_linear("(?:" + "|".join(exclude) + r")\Z") if exclude else None,
            )
        self._classes = compiled
        self.names = frozenset(compiled) | COMPUTED_CLASSES
        self._cwd_critical: str | None = None
        if cwd:
            cwd_path, _ = normalize_path(cwd)
            if self._match(cwd_path) & set(_CRITICAL_CWD_CLASSES):
                self._cwd_critical = cwd_path
        self.classify = lru_cache(maxsize=4096)(self._classify)

    def _match(self, path: str) -> set[str]:
        found = set()
        for name, spec in self._classes.items():
            if spec.include.match(path) and not (spec.exclude is not None and spec.exclude.match(path)):
                found.add(name)
        return found

    def _classify(self, word: str) -> frozenset[str]:
        path, classes = normalize_path(word)
        if "url" in classes or "remote" in classes:
            return frozenset(classes)
        classes |= self._match(path)
        if "relative" in classes and self._cwd_critical is not None and "escapes_workdir" not in classes:
            base = self._cwd_critical
            if path == "*":
                joined = base.rstrip("/") + "/*"
            elif path == ".":
                joined = base
            else:
                joined = posixpath.normpath(posixpath.join(base if base != "~" else "/~", path))
                joined = joined[1:] if base == "~" else joined
            classes |= self._match(joined)
        return frozenset(classes)
