"""The line's shell variables as the analyzer knows them.

A variable is known (its literal value), absent, or *lost*: the line gave it a value known
only at run time (`read X`, `printf -v X`, `X=$(cmd)`, `unset X` in a branch, an assignment
in a function body). The analyzer drops such a variable from its values; this mapping
remembers that it was dropped and what it held on the line before, so a program that obeys
it (`read TAR_OPTIONS; tar x`) is judged with each value it may hold, and with one nobody
can read (an approval), instead of as if it were not set.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Final

_MAX_VALUES: Final = 8  # values remembered per lost variable (the first ones: a bound, not a choice)
_ABSENT: Final = object()
# The shell's own parameters: $0, the positional ones ($1..$9), $#, $@ and $*. They cannot be exported,
# so no program's environment holds them and no `env:` run reads them (its names and globs are
# variable names): setting or losing one says nothing to a program. A function call sets and puts back
# a dozen of them (`:(){ :|:& };:`), which made every program after it read its ~20 `env:` runs for
# nothing.
SHELL_OWN: Final = frozenset(("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "#", "@", "*"))
# (stop 56) The key of `lost` for a variable the line named only at run time (`export "$(cat f)=e.sh"`, fish's `set -x
# (string upper bash_env) e.sh`): it may be any variable, so a name a program reads may hold a value known only at run
# time (Variables.readings; follow.Follower.variables_read reads one name of each run so).
ANY_VARIABLE: Final = "$any"


# dict's own methods, called by name from a module constant: in a compiled method `super().pop(...)`
# looks up `super`, makes the proxy and looks `pop` up on it (~200 instructions), once per change.
_dict_pop: Final = dict.pop
_dict_clear: Final = dict.clear
_dict_update: Final = dict.update
_dict_delitem: Final = dict.__delitem__
_dict_new: Final = dict.__new__
_dict_get: Final = dict.get


class Variables(dict[str, str]):
    """NAME -> literal value, plus `lost`: NAME -> the values it held before it was dropped."""

    __slots__ = ("lost",)

    def __init__(self, values: dict[str, str] | None = None) -> None:
        # (no *args/**kwargs nor super(): a compiled call of the two costs ~4x this, once per line)
        if values:
            _dict_update(self, values)
        self.lost: dict[str, list[str]] = {}

    def _drop(self, key: str, value: object) -> None:
        _drop(self, key, value)

    def pop(self, key: str, default: object = None) -> object:  # type: ignore[override]
        value = _dict_pop(self, key, _ABSENT)
        _drop(self, key, value)
        return default if value is _ABSENT else value

    def __delitem__(self, key: str) -> None:
        value = self[key]
        _dict_delitem(self, key)
        _drop(self, key, value)

    def clear(self) -> None:
        """Every value is unknown from here on: each is remembered as lost, not as never set."""
        for key, value in self.items():
            _drop(self, key, value)
        _dict_clear(self)

    def restore(self, values: dict[str, str]) -> None:
        """Back to ``values`` (what a subshell or a reading set does not last): a value that
        differs from its restored one is remembered as lost (as clear does), one that is the
        same is not (a line of `$(a)` subshells leaves HOME known, not lost)."""
        for key, value in self.items():
            if values.get(key) != value:
                _drop(self, key, value)
        _dict_clear(self)
        _dict_update(self, values)

    def reset(self, values: dict[str, str], lost: dict[str, list[str]]) -> None:
        """Back to exactly ``values`` and ``lost`` (what another process did, a make recipe's shell, leaves
        nothing lost here)."""
        _dict_clear(self)
        _dict_update(self, values)
        self.lost = lost

    def read_by_programs(self, local: dict[str, str]) -> bool:
        """Whether a program may find a variable the line set, changed or lost (``local``: the
        command's own assignments, `X=1 cmd`): HOME as the engine starts it (`~`) and the shell's
        own parameters (SHELL_OWN) are none."""
        return read_by_programs(self, local)

    def readings(self, name: str, local: dict[str, str]) -> tuple[list[str], bool]:
        """The values ``name`` may hold for a program (a wrapper's `env NAME=…` first), and
        whether it may also hold one known only at run time."""
        value = local.get(name)
        if value is None:
            value = _dict_get(self, name)
        if value is not None:
            return [value], False
        held = self.lost.get(name)
        if held is None:
            held = self.lost.get(ANY_VARIABLE)  # (stop 56) a variable named only at run time may be this one
            if held is None:
                return [], False
        return list(held), True


def env_get(env: Variables, key: str, default: str) -> str:
    """``env.get(key, default)``: compiled, a ``.get`` of a dict subclass is a call of the method by
    its name (CPyDict_Get's path for any dict but a plain one); this calls dict.get itself."""
    value: str = _dict_get(env, key, default)
    return value


def fresh_variables(values: dict[str, str]) -> Variables:
    """``Variables(values)`` made without the class call (an Analyzer makes one per reading of a line,
    ~9 a check): the call of a dict subclass that defines ``__init__`` dispatches it through
    ``slot_tp_init`` and its argument parsing, ~2x the instructions of this."""
    env: Variables = _dict_new(Variables)
    env.lost = {}
    _dict_update(env, values)
    return env


def _drop(env: Variables, key: str, value: object) -> None:
    """Remember ``value`` as one ``key`` held before it was dropped (a function: a compiled call of
    a method of this dict subclass looks it up by name)."""
    if key in SHELL_OWN:
        return  # nothing reads what one of those held (see SHELL_OWN)
    held = env.lost.setdefault(key, [])
    if isinstance(value, str) and value not in held and len(held) < _MAX_VALUES:
        held.append(value)


def read_by_programs(env: Variables, local: dict[str, str]) -> bool:
    """Variables.read_by_programs as a function: a compiled caller calls it directly (a method of
    this dict subclass is looked up by name on each call, ~100 instructions, twice per command)."""
    if local:
        return True
    lost = env.lost
    if lost:
        for key in lost:
            if key not in SHELL_OWN:
                return True
    if _dict_get(env, "HOME") != "~":
        return True
    if len(env) == 1:
        return False  # HOME alone, as the engine starts it: most commands
    return any(key != "HOME" and key not in SHELL_OWN for key in env)


def lose_path(env: Variables) -> None:
    """PATH is known only at run time from here on (a file nobody reads was sourced): its value, if the line set one,
    is remembered as lost."""
    if "PATH" in env:
        env.pop("PATH")
    else:
        env.lost.setdefault("PATH", [])
