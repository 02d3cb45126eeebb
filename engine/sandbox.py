"""A Jinja sandbox whose renders end: bounded in time, in memory and in output size.

A manifest author (or a tool caller who can write manifests) controls the
template. Jinja's sandbox stops attribute tricks but not work: nested
``range(100000)`` loops, ``"x" * 10**10``, ``"x"|center(10**10)``,
``"%999999999d" % 1``, ``2 ** 10**9``, a namespace doubling a string in a loop.

- **Single allocations** that one C call could make huge — repetition, powers,
  concatenation (``+`` and ``~``), printf and format widths, the padding methods
  and filters, ``replace``, ``batch`` fill, ``tojson`` indent — are checked
  before they run, so no one value exceeds MAX_TEXT.
- **Work and memory** of Python-level work (every loop a template runs is Python
  code) are watched by a trace function on the rendering thread, which stops the
  render past a number of steps (calls, and lines of template code: the same
  template stops at the same step on any machine, however busy), past a backstop
  of CPU time of the rendering thread (what other processes do does not count), or
  when the process has grown by more than the allowance while rendering.
- **Output** is streamed and cut at its limit.

Past any limit the render raises :class:`RenderLimit`: at load a located
``template-render`` error, at run time the static fallback.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from types import FrameType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2

# Trace events (calls, and lines of template code) one render may take: about half a second of
# work on an idle machine. Counted, not timed, so a busy machine refuses no template it would
# otherwise render.
RENDER_STEPS = 1_000_000
# CPU seconds of the rendering thread (not wall time): a backstop for steps that each do much
# work in C; other processes on the machine do not add to it.
RENDER_SECONDS = 2.0
MAX_TEXT = 1_000_000  # characters of any one value a template builds, and of its output
MAX_GROWTH = 256 * 1024 * 1024  # bytes the process may grow by while one template renders
_MAX_INT_BITS = 1 << 16
_TEMPLATE_FILE = "<template>"  # the code Jinja compiles from_string() templates to
# A width or precision in a printf or format spec: `%-999999d`, `{:>999999}`, `{:.999999f}`.
_WIDTHS = re.compile(r"(\d+)")
_PRINTF = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")


class RenderLimit(BaseException):
    """A render went past its time, memory or size limit.

    Not an Exception: code a template calls must not be able to catch and ignore it.
    """


def _check_size(size: int, what: str) -> None:
    if size > MAX_TEXT:
        raise RenderLimit(f"{what} would be {size:,} long (the limit is {MAX_TEXT:,})")


def _sized(value: Any) -> bool:
    return isinstance(value, (str, bytes, list, tuple))


def _check_binop(operator: str, left: Any, right: Any) -> None:
    if operator == "*":
        for seq, times in ((left, right), (right, left)):
            if _sized(seq) and isinstance(times, int):
                _check_size(len(seq) * max(times, 0), "a repeated value")
        if isinstance(left, int) and isinstance(right, int) and left.bit_length() + right.bit_length() > _MAX_INT_BITS:
            raise RenderLimit("an integer product past the size limit")
    elif operator == "**":
        powers = isinstance(left, int) and isinstance(right, int) and abs(left) > 1 and right > 0
        if powers and right * left.bit_length() > _MAX_INT_BITS:
            raise RenderLimit("an integer power past the size limit")
    elif operator == "%" and isinstance(left, str):
        for width, precision in _PRINTF.findall(left):
            for number in (width, precision):
                if number == "*":
                    raise RenderLimit("printf widths from arguments (`%*d`) are not allowed")
                if number:
                    _check_size(int(number), "a printf field")
    elif operator == "+" and _sized(left) and _sized(right):
        _check_size(len(left) + len(right), "a concatenation")


def _check_spec(spec: str) -> None:
    for number in _WIDTHS.findall(spec):
        _check_size(int(number), "a format field")


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0


def _check_str_call(method: str, text: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
    if method in ("center", "ljust", "rjust", "zfill") and args:
        _check_size(_int(args[0]), f"str.{method}")
    elif method == "expandtabs":
        size = _int(args[0] if args else kwargs.get("tabsize", 8))
        _check_size(len(text) + text.count("\t") * size, "str.expandtabs")
    elif method == "replace" and len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        old, new = args[0], args[1]
        hits = len(text) + 1 if not old else text.count(old)
        _check_size(len(text) + hits * max(len(new) - len(old), 0), "str.replace")
    elif method == "join" and args and _sized(args[0]):
        _check_size(len(text) * len(args[0]) + sum(len(x) for x in args[0] if isinstance(x, str)), "str.join")


def _bounded_filters(filters: dict[str, Callable[..., Any]]) -> None:
    """Wrap the filters that can build a huge value in one call."""
    center, indent, replace, batch, fmt = (
        filters["center"],
        filters["indent"],
        filters["replace"],
        filters["batch"],
        filters["format"],
    )

    def bounded_center(value: Any, width: int = 80) -> Any:
        _check_size(_int(width), "center")
        return center(value, width)

    def bounded_indent(value: Any, width: Any = 4, *args: Any, **kwargs: Any) -> Any:
        size = len(width) if isinstance(width, str) else _int(width)
        _check_size(len(str(value)) + (str(value).count("\n") + 1) * size, "indent")
        return indent(value, width, *args, **kwargs)

    def bounded_replace(eval_ctx: Any, value: Any, old: Any, new: Any, count: Any = None) -> Any:
        _check_str_call("replace", str(value), (str(old), str(new)), {})
        return replace(eval_ctx, value, old, new, count)

    def bounded_batch(value: Any, linecount: int, fill_with: Any = None) -> Any:
        _check_size(_int(linecount), "batch")
        return batch(value, linecount, fill_with)

    def bounded_format(value: Any, *args: Any, **kwargs: Any) -> Any:
        _check_binop("%", str(value), None)
        return fmt(value, *args, **kwargs)

    for name, wrapped, original in (
        ("center", bounded_center, center),
        ("indent", bounded_indent, indent),
        ("replace", bounded_replace, replace),
        ("batch", bounded_batch, batch),
        ("format", bounded_format, fmt),
    ):
        # Keep how Jinja passes context to the filter (replace takes the eval context).
        for marker in ("jinja_pass_arg",):
            if hasattr(original, marker):
                setattr(wrapped, marker, getattr(original, marker))
        filters[name] = wrapped


def _tojson(value: Any, indent: int | None = None) -> str:
    """Plain JSON (the default tojson escapes for HTML); an indent of at most 8."""
    return json.dumps(value, indent=None if indent is None else max(0, min(_int(indent), 8)))


@cache
def environment() -> jinja2.Environment:
    """The one sandboxed environment every manifest template is compiled in."""
    # Imported on first use: projects without templates never pay for Jinja.
    import jinja2  # noqa: PLC0415
    import jinja2.compiler  # noqa: PLC0415
    import jinja2.sandbox  # noqa: PLC0415

    class _Formatter(jinja2.sandbox.SandboxedFormatter):
        def format_field(self, value: Any, format_spec: str) -> Any:
            _check_spec(format_spec)
            return super().format_field(value, format_spec)

    class _Generator(jinja2.compiler.CodeGenerator):
        def visit_Concat(self, node: Any, frame: Any) -> None:
            # `a ~ b` joins through the environment, so a doubling loop meets the size limit.
            self.write("environment.bounded_join((")
            for arg in node.nodes:
                self.visit(arg, frame)
                self.write(", ")
            self.write("))")

    class _Sandbox(jinja2.sandbox.ImmutableSandboxedEnvironment):
        intercepted_binops = frozenset({"*", "**", "%", "+"})
        code_generator_class = _Generator

        @staticmethod
        def bounded_join(values: tuple[Any, ...]) -> str:
            texts = [str(v) for v in values]
            _check_size(sum(len(t) for t in texts), "a concatenation")
            return "".join(texts)

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            _check_binop(operator, left, right)
            return super().call_binop(context, operator, left, right)

        def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
            owner = getattr(__obj, "__self__", None)
            if isinstance(owner, str):
                _check_str_call(getattr(__obj, "__name__", ""), owner, args, kwargs)
            return super().call(__context, __obj, *args, **kwargs)

        def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
            wrapped = super().wrap_str_format(value)
            if wrapped is None:
                return None
            text: str = value.__self__
            vformat = _Formatter(self).vformat
            is_map = value.__name__ == "format_map"

            def bounded(*args: Any, **kwargs: Any) -> str:
                if is_map:
                    if kwargs or len(args) != 1:
                        raise TypeError("format_map() takes exactly one mapping")
                    return str(vformat(text, (), args[0]))
                return str(vformat(text, args, kwargs))

            return bounded

    env = _Sandbox(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=False)
    _bounded_filters(env.filters)
    env.filters["tojson"] = _tojson
    env.globals.pop("lipsum", None)  # n paragraphs of filler text on request: nothing a schema needs
    return env


def _grown() -> Callable[[], int]:
    """Bytes the process's peak resident size grew by since this call."""
    try:
        import resource  # noqa: PLC0415
    except ImportError:  # not on Windows: the time limit still holds
        return lambda: 0
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss is bytes on macOS, KiB on Linux
    start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    def grown() -> int:
        return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - start) * scale

    return grown


class _Watchdog:
    """A trace function that stops Python-level work past a deadline or a memory allowance."""

    def __init__(self, steps: int, seconds: float, growth: int) -> None:
        self.steps = steps
        self.deadline = time.thread_time() + seconds
        self.seconds = seconds
        self.growth = growth
        self.grown = _grown()
        self.events = 0

    def __call__(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        # Every call (a generator's resume included) is counted; lines only in template code,
        # where a template's own loops run. Helpers get bounded inputs (no value exceeds MAX_TEXT).
        self.tick()
        return self.local if frame.f_code.co_filename == _TEMPLATE_FILE else None

    def local(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any]:
        self.tick()
        return self.local

    def tick(self) -> None:
        # Every 16 events: one value is at most MAX_TEXT characters, so the process cannot
        # outgrow the allowance by more than 16 of them between two checks.
        self.events += 1
        if not self.events & 0xF:
            if self.events > self.steps:
                raise RenderLimit(f"rendering took more than {self.steps:,} steps")
            if time.thread_time() > self.deadline:
                raise RenderLimit(f"rendering took more than {self.seconds:g} s of CPU time")
            if self.grown() > self.growth:
                raise RenderLimit(f"rendering used more than {self.growth // (1 << 20)} MiB")


def render(template: jinja2.Template, values: Mapping[str, Any]) -> str:
    """``template`` rendered with ``values`` within the limits.

    Raises:
        RenderLimit: past the time, memory or size limit.
        Exception: whatever the template's own expressions raise.
    """
    watchdog = _Watchdog(RENDER_STEPS, RENDER_SECONDS, MAX_GROWTH)
    previous = sys.gettrace()
    sys.settrace(watchdog)
    try:
        chunks: list[str] = []
        size = 0
        stream: Iterator[str] = template.generate(values)
        for chunk in stream:
            size += len(chunk)
            _check_size(size, "the rendered text")
            chunks.append(chunk)
        return "".join(chunks)
    finally:
        sys.settrace(previous)
