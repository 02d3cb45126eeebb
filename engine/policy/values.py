"""String operators of `${...}` on values the line makes known, as bash evaluates them.

Each function returns None when the result is not certain (a glob pattern this module does not
evaluate exactly, a character set or locale it does not model, text past its limits): the
analyzer then takes the word as known only at run time. A wrong literal would turn a harmful
command into a harmless-looking one, so anything doubtful is None.
"""

from __future__ import annotations

import re

MAX_VALUE = 4096  # longer values are not evaluated (the matching below is quadratic)
_DEFAULT_IFS = " \t\n"
_CLASS = re.compile(r"\[:[a-z]+:\]|\[[.=]")  # [[:alpha:]], [[.a.]], [[=a=]]: locale-dependent


def glob_regex(parts: list[tuple[str, bool]]) -> re.Pattern[str] | None:
    """The regular expression of a bash pattern made of (text, quoted) parts: `*`, `?` and
    bracket expressions in unquoted text, a backslash quoting the next character. None for an
    extglob group (`+(a)`: its meaning depends on `shopt extglob`) or a character class."""
    out: list[str] = []
    for text, quoted in parts:
        if quoted:
            out.append(re.escape(text))
            continue
        i, n = 0, len(text)
        while i < n:
            ch = text[i]
            if ch in "?*+@!" and i + 1 < n and text[i + 1] == "(":
                return None
            if ch == "*":
                out.append(".*")
            elif ch == "?":
                out.append(".")
            elif ch == "\\":
                if i + 1 < n:
                    i += 1
                    out.append(re.escape(text[i]))
                else:
                    out.append(re.escape("\\"))
            elif ch == "[":
                end, bracket = _bracket(text, i)
                if end < 0:
                    return None
                if bracket is None:
                    out.append(re.escape("["))
                else:
                    out.append(bracket)
                    i = end
            else:
                out.append(re.escape(ch))
            i += 1
    try:
        return re.compile("".join(out), re.DOTALL)
    except re.error:
        return None


def _bracket(text: str, start: int) -> tuple[int, str | None]:
    """A bracket expression at ``start``: (index of its `]`, its regex); (start, None) when the
    `[` is a plain character (no `]` closes it); (-1, None) when it cannot be read for certain."""
    i = start + 1
    n = len(text)
    negate = i < n and text[i] in "!^"
    if negate:
        i += 1
    body_start = i
    if i < n and text[i] == "]":
        i += 1  # `[]a]`: a leading ] is a member
    while i < n and text[i] != "]":
        if text[i] == "\\" or (text[i] == "[" and _CLASS.match(text, i)):
            return -1, None
        i += 1
    if i >= n:
        return start, None
    body = text[body_start:i]
    members: list[str] = []
    j = 0
    while j < len(body):
        if j + 2 < len(body) and body[j + 1] == "-":
            low, high = body[j], body[j + 2]
            if not (low.isascii() and high.isascii()) or low > high:
                return -1, None
            members.append(re.escape(low) + "-" + re.escape(high))
            j += 3
        else:
            members.append(re.escape(body[j]))
            j += 1
    return i, "[" + ("^" if negate else "") + "".join(members) + "]"


def remove(value: str, pattern: re.Pattern[str], op: str) -> str | None:
    """`${x#p}`, `${x##p}` (a prefix), `${x%p}`, `${x%%p}` (a suffix): shortest, or longest when
    doubled. None when the case of letters would change the result (a range like `[a-z]` covers
    capitals in some locales when `globasciiranges` is off)."""
    result = _removed(value, pattern, op)
    folded = re.compile(pattern.pattern, re.DOTALL | re.IGNORECASE)
    return result if _removed(value, folded, op) == result else None


def _removed(value: str, pattern: re.Pattern[str], op: str) -> str:
    n = len(value)
    if op in ("#", "##"):
        ends = range(n, -1, -1) if op == "##" else range(n + 1)
        for end in ends:
            if pattern.fullmatch(value, 0, end):
                return value[end:]
        return value
    starts = range(n + 1) if op == "%%" else range(n, -1, -1)
    for begin in starts:
        if pattern.fullmatch(value, begin, n):
            return value[:begin]
    return value


def substitute(value: str, pattern: re.Pattern[str], replacement: str, mode: str) -> str | None:
    """`${x/p/r}` (the first match), `${x//p/r}` (every one), `${x/#p/r}` (at the start),
    `${x/%p/r}` (at the end): bash takes the longest match at the leftmost place."""
    n = len(value)
    if mode == "/#":
        for end in range(n, -1, -1):
            if pattern.fullmatch(value, 0, end):
                return replacement + value[end:]
        return value
    if mode == "/%":
        for begin in range(n + 1):
            if pattern.fullmatch(value, begin, n):
                return value[:begin] + replacement
        return value
    out: list[str] = []
    i = 0
    replaced = False
    while i <= n:
        found = -1
        if not (replaced and mode == "/"):
            for end in range(n, i - 1, -1):
                if pattern.fullmatch(value, i, end):
                    found = end
                    break
        if found < 0:
            if i < n:
                out.append(value[i])
            i += 1
            continue
        if found == i:
            return None  # an empty match: bash's handling is not modelled
        out.append(replacement)
        replaced = True
        i = found
    return "".join(out)


def substring(value: str, offset: int, length: int | None) -> str | None:
    """`${x:offset}`, `${x:offset:length}` (negative ones count from the end); None where bash fails."""
    n = len(value)
    if offset < 0:
        offset += n
        if offset < 0:
            return ""
    if offset > n:
        return ""
    if length is None:
        return value[offset:]
    if length >= 0:
        return value[offset : offset + length]
    end = n + length
    if end < offset:
        return None  # "substring expression < 0": the command does not run
    return value[offset:end]


def case_changed(value: str, op: str) -> str | None:
    """`${x^}`, `${x^^}`, `${x,}`, `${x,,}`, `${x@U}`, `${x@u}`, `${x@L}` on ASCII text."""
    if op in ("^^", "@U"):
        return value.upper()
    if op in (",,", "@L"):
        return value.lower()
    if op in ("^", "@u"):
        return value[:1].upper() + value[1:]
    if op == ",":
        return value[:1].lower() + value[1:]
    return None


def quoted(value: str) -> str | None:
    """`${x@Q}`: the value quoted for reuse as input (printable text only)."""
    if not all(" " <= ch <= "~" for ch in value):
        return None
    return "'" + value.replace("'", "'\\''") + "'"


def read_fields(line: str, count: int, ifs: str) -> list[str] | None:
    """The values `read NAME...` (``count`` names) gives its names from ``line`` (already
    without its newline): split at IFS whitespace, the last name taking the rest. Only the
    default IFS and an empty one are modelled."""
    if ifs == "":
        return [line] + [""] * (count - 1)
    if ifs != _DEFAULT_IFS:
        return None if any(c in " \t\n" for c in ifs) else _read_delimited(line, count, ifs)
    stripped = line.strip(_DEFAULT_IFS)
    if count == 1:  # one name takes the whole line (re.split's maxsplit=0 would split it all: rt10)
        return [stripped]
    fields = re.split(r"[ \t\n]+", stripped, maxsplit=count - 1) if stripped else []
    return fields + [""] * (count - len(fields))


def _read_delimited(line: str, count: int, ifs: str) -> list[str]:
    """(rev58) read's fields when IFS holds no blank (`IFS=, read -r a b <<< "x.o,y.o"`), as bash 5.2 splits them
    (compared with it): each IFS character ends a field, blanks are kept, and the last name takes the rest, less one
    trailing IFS character when the rest holds no other (`x:y:` gives `x` and `y`; `x:y:z` gives `x` and `y:z`)."""
    fields: list[str] = []
    rest = line
    while len(fields) < count - 1:
        cut = next((i for i, c in enumerate(rest) if c in ifs), -1)
        if cut < 0:
            break
        fields.append(rest[:cut])
        rest = rest[cut + 1 :]
    if rest and rest[-1] in ifs and not any(c in ifs for c in rest[:-1]):
        rest = rest[:-1]
    fields.append(rest)
    return fields + [""] * (count - len(fields))


def split_operation(rest: str) -> tuple[str, str, str] | None:
    """`/pat/rep` (after the name) → (mode, pattern, replacement), the first unquoted `/` ending the pattern."""
    mode = "/"
    body = rest[1:]
    if body[:1] in ("/", "#", "%"):
        mode, body = "/" + body[0], body[1:]
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch == "\\":
            i += 2
            continue
        if ch in "'\"":
            end = body.find(ch, i + 1)
            if end < 0:
                return None
            i = end + 1
            continue
        if ch in "$`":
            return None if "/" in body[i:] else (mode, body, "")  # `${x/$(a/b)/c}`: not read here
        if ch == "/":
            return mode, body[:i], body[i + 1 :]
        i += 1
    return mode, body, ""


_ARITHMETIC_TOKEN = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|[0-9]+)|([A-Za-z_][A-Za-z0-9_]*)|(\*\*|[-+*/%()]))")
_LIMIT = 1 << 63


def arithmetic_value(text: str, env: dict[str, str], depth: int = 0) -> int | None:
    """The value of arithmetic ``text`` (`1-1`, `n*2`, a variable holding an expression), as
    bash's 64-bit arithmetic gives it: + - * / % ** and parentheses on decimal and hex numbers.
    None for anything else (other operators, assignments, octal, an unknown variable)."""
    tokens: list[str | int] = []
    at = 0
    text = text.rstrip()
    while at < len(text):
        match = _ARITHMETIC_TOKEN.match(text, at)
        if match is None:
            return None
        at = match.end()
        number, name, op = match.groups()
        if number is not None:
            if len(number) > 1 and number[0] == "0" and number[1] not in "xX":
                return None  # octal
            tokens.append(int(number, 0))
        elif name is not None:
            value = env.get(name)
            if value is None or depth > 4:
                return None
            inner = arithmetic_value(value, env, depth + 1) if value.strip() else 0
            if inner is None:
                return None
            tokens.append(inner)
        else:
            tokens.append(op)
    if not tokens:
        return 0
    parser = _Arithmetic(tokens)
    result = parser.sum()
    if result is None or parser.at != len(tokens):
        return None
    return result


class _Arithmetic:
    def __init__(self, tokens: list[str | int]) -> None:
        self.tokens = tokens
        self.at = 0

    def _peek(self) -> str | int | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def sum(self) -> int | None:
        left = self.product()
        while left is not None and self._peek() in ("+", "-"):
            op = self.tokens[self.at]
            self.at += 1
            right = self.product()
            left = None if right is None else _checked(left + right if op == "+" else left - right)
        return left

    def product(self) -> int | None:
        left = self.power()
        while left is not None and self._peek() in ("*", "/", "%"):
            op = self.tokens[self.at]
            self.at += 1
            right = self.power()
            if right is None or (op != "*" and right == 0):
                return None
            if op == "*":
                left = _checked(left * right)
            else:
                quotient = abs(left) // abs(right) * (1 if (left < 0) == (right < 0) else -1)
                left = quotient if op == "/" else left - quotient * right
        return left

    def power(self) -> int | None:
        base = self.unary()
        if base is not None and self._peek() == "**":
            self.at += 1
            exponent = self.power()
            if exponent is None or exponent < 0 or exponent > 64:
                return None
            return _checked(base**exponent)
        return base

    def unary(self) -> int | None:
        token = self._peek()
        if token in ("+", "-"):
            self.at += 1
            value = self.unary()
            return None if value is None else (value if token == "+" else -value)
        if token == "(":
            self.at += 1
            value = self.sum()
            if value is None or self._peek() != ")":
                return None
            self.at += 1
            return value
        if isinstance(token, int):
            self.at += 1
            return token
        return None


def _checked(value: int) -> int | None:
    return value if -_LIMIT <= value < _LIMIT else None
