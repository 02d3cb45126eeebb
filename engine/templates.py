"""Jinja templates in tool manifests: descriptions and schema text that depend on context.

A string in a tool's description or parameters that contains ``{{`` or ``{%`` is
a template, and so is every value of its ``overrides:`` mapping (JSON Pointer into
the definition → template). Templates render when definitions are built, with:

- ``available_tools``: names of the tools being offered (after availability checks),
- ``toolsets``: names of the toolsets whose tools are offered,
- ``config``: the project config, ``platform``: ``sys.platform``,
- ``env``: only the environment variables the manifest lists in ``template_env``.

The environment is sandboxed and undefined names are errors; a render is bounded
in time, memory and size (engine.sandbox). Everything is compiled and
test-rendered at load (a mistake, or a template past a limit, is a located
validation error); a rendered schema is validated again, and at run time a
failing render falls back to the static text with a logged warning, so a model
never receives a broken schema.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import jsonschema_rs

from engine.errors import Problem
from engine.sandbox import RenderLimit, environment
from engine.sandbox import render as bounded_render
from engine.source.yamlfile import Document

if TYPE_CHECKING:
    import jinja2

log = logging.getLogger("hermes_engine.templates")
_META = jsonschema_rs.Draft202012Validator({"$ref": "https://json-schema.org/draft/2020-12/schema"})


def is_template(text: Any) -> bool:
    return isinstance(text, str) and ("{{" in text or "{%" in text)


@dataclass(frozen=True, slots=True)
class ToolTemplates:
    """The compiled templates of one tool, by JSON Pointer into its definition."""

    templates: tuple[tuple[tuple[str | int, ...], jinja2.Template, bool], ...]  # (path, template, from override)
    env_names: tuple[str, ...]
    # The load-time rendering (every tool available): what a failed render falls back to.
    fallback: tuple[str, Mapping[str, Any]] = ("", {})

    def render(
        self, description: str, parameters: Mapping[str, Any], context: Mapping[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        """(description, parameters) rendered.

        Raises:
            ValueError: a template failed, or the rendered schema is invalid.
        """
        document: dict[str, Any] = {"description": description, "parameters": copy.deepcopy(dict(parameters))}
        values = {**context, "env": {name: os.environ.get(name, "") for name in self.env_names}}
        for path, template, override in self.templates:
            where = "/" + "/".join(map(str, path))
            try:
                text = bounded_render(template, values)
            except RenderLimit as exc:
                raise ValueError(f"{where}: stopped: {exc}") from None
            except Exception as exc:  # a template can fail in any way its expressions can (1 // 0)
                raise ValueError(f"{where}: {type(exc).__name__}: {exc}") from None
            _assign(document, path, text, override)
        if not isinstance(document["description"], str):
            raise ValueError("/description must render to text")
        params = document["parameters"]
        if not isinstance(params, dict) or params.get("type") != "object" or not _META.is_valid(params):
            raise ValueError("the rendered parameters are not a valid JSON Schema object")
        return document["description"], params


def _assign(document: dict[str, Any], path: tuple[str | int, ...], text: str, override: bool) -> None:
    parent: Any = document
    for segment in path[:-1]:
        parent = parent[segment]
    last = path[-1]
    current = (
        parent[last]
        if isinstance(parent, dict) and last in parent
        else (parent[last] if isinstance(parent, list) and isinstance(last, int) and last < len(parent) else None)
    )
    value: Any = text
    if override and current is not None and not isinstance(current, str):
        try:
            value = json.loads(text)  # an override of a list or number renders JSON
        except ValueError as exc:
            raise ValueError(f"{'/' + '/'.join(map(str, path))}: the override must render JSON ({exc})") from None
    parent[last] = value


def _strings(value: Any, path: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, (*path, index))


def _holds_template(value: Any) -> bool:
    """Whether a string :func:`_strings` yields from ``value`` is a template."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "{{" in item or "{%" in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _pointer_path(pointer: str) -> tuple[str | int, ...]:
    parts: list[str | int] = []
    for raw in pointer.lstrip("/").split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        parts.append(int(part) if part.isdigit() else part)
    return tuple(parts)


def sample_context(tool_names: list[str], toolset_names: list[str], config: Mapping[str, Any]) -> dict[str, Any]:
    """The context templates are test-rendered with at load: everything available."""
    return {
        "available_tools": sorted(tool_names),
        "toolsets": sorted(toolset_names),
        "config": dict(config),
        "platform": sys.platform,
    }


def compile_tool(doc: Document, context: Mapping[str, Any]) -> tuple[ToolTemplates | None, list[Problem]]:
    """Compile and test-render a Tool manifest's templates; None when it has none."""
    data = doc.data
    found: list[tuple[tuple[str | int, ...], list[str | int], str, bool]] = []
    if is_template(data.get("description")):
        found.append((("description",), ["description"], data["description"], False))
    parameters = data.get("parameters")
    if _holds_template(parameters):  # most schemas hold none: no walk naming every string's path
        for path, text in _strings(parameters, ("parameters",)):
            if is_template(text):
                found.append((path, list(path), text, False))
    for pointer, text in (data.get("overrides") or {}).items():
        path = _pointer_path(pointer)
        if path[0] not in ("description", "parameters"):
            message = f"override {pointer!r} must point into /description or /parameters"
            return None, [doc.problem(["overrides", pointer], "template-pointer", message, key=True)]
        found.append((path, ["overrides", pointer], text, True))
    if not found:
        return None, []
    import jinja2  # noqa: PLC0415  (already imported by environment())

    problems: list[Problem] = []
    compiled: list[tuple[tuple[str | int, ...], jinja2.Template, bool]] = []
    for path, where, text, override in found:
        try:
            compiled.append((path, environment().from_string(text), override))
        except jinja2.TemplateSyntaxError as exc:
            message = f"template syntax error (line {exc.lineno}): {exc.message}"
            problems.append(doc.problem(where, "template-syntax", message))
        except (RecursionError, MemoryError) as exc:  # `{{ ((((...)))) }}` thousands deep
            message = f"template too deeply nested to compile ({type(exc).__name__})"
            problems.append(doc.problem(where, "template-syntax", message))
    if problems:
        return None, problems
    templates = ToolTemplates(tuple(compiled), tuple(data.get("template_env") or ()))
    try:
        rendered = templates.render(data["description"], data["parameters"], context)
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        return None, [doc.problem(found[0][1], "template-render", f"template does not render: {exc}")]
    return ToolTemplates(templates.templates, templates.env_names, rendered), []


def render_or_fallback(
    name: str,
    templates: ToolTemplates,
    description: str,
    parameters: Mapping[str, Any],
    context: Mapping[str, Any],
) -> tuple[str, Mapping[str, Any]]:
    try:
        return templates.render(description, parameters, context)
    except ValueError as exc:
        log.warning("templates of tool %s failed to render (%s); using the text rendered at load", name, exc)
        return templates.fallback
