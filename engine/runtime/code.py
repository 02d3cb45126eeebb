"""How ``execute_code`` runs a snippet: the one command line that is both judged and run.

The policy reads the snippet exactly as the shell will receive it, as an inline program
(``python3 -c CODE``, ``node -e CODE``), so the programs table and every pattern about
inline programs apply to it as they do to the same line typed into the terminal. The command
line for each language is the one table guard uses for MCP tools that run code
(engine.policy.arguments.CODE_LANGUAGES).
"""

from __future__ import annotations

from engine.policy.arguments import CODE_LANGUAGES, code_command, code_language

DEFAULT_LANGUAGE = "python"


def inline_command(language: object, code: str) -> str:
    """The shell command that runs ``code``; an unknown language (or a shell's: the tool runs
    programs, not command lines) is read as Python (the arguments were validated against an enum
    before a handler sees them)."""
    name = code_language(str(language or DEFAULT_LANGUAGE))
    if name is None or not CODE_LANGUAGES[name]:
        name = DEFAULT_LANGUAGE
    return code_command(name, code)
