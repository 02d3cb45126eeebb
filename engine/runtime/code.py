"""How ``execute_code`` runs a snippet: the one command line that is both judged and run.

The policy reads the snippet exactly as the shell will receive it, as an inline program
(``python3 -c CODE``, ``node -e CODE``), so the programs table and every pattern about
inline programs apply to it as they do to the same line typed into the terminal.
"""

from __future__ import annotations

import shlex

# language -> the interpreter and the option that takes the program text
INTERPRETERS: dict[str, tuple[str, str]] = {
    "python": ("python3", "-c"),
    "javascript": ("node", "-e"),
}
DEFAULT_LANGUAGE = "python"


def inline_command(language: object, code: str) -> str:
    """The shell command that runs ``code``; an unknown language is read as Python (the
    arguments were validated against an enum before a handler sees them)."""
    interpreter, option = INTERPRETERS.get(str(language or DEFAULT_LANGUAGE), INTERPRETERS[DEFAULT_LANGUAGE])
    return f"{interpreter} {option} {shlex.quote(code)}"
