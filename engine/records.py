"""Plain value classes for the modules a judging start imports, instead of ``@dataclass``.

``@dataclass`` works out each class when its module is imported (its fields, their annotations,
then source text for each generated method, ``exec``'d): about a fifth of a millisecond a class,
and the ``guard``/``check`` start imports dozens. A :class:`Record` subclass writes its
``__slots__`` and ``__init__`` itself (compiled with its module, kept in its ``.pyc``) and gets
from here what a slotted dataclass gets besides, with the same behaviour:

- ``==`` between two instances of the same class compares the fields (all but those the class
  names in ``uncompared``, in ``__slots__`` order); another class gives ``NotImplemented``;
- an :class:`OrderedRecord` orders (``<``, ``<=``, ``>``, ``>=``) by the same fields, as tuples;
- ``frozen=True``: assigning or deleting a field raises ``dataclasses.FrozenInstanceError``, and
  the instance hashes by its compared fields; otherwise it is unhashable, as an ``eq`` dataclass;
- ``repr`` is ``Name(field=value, ...)``; copying and pickling keep every field (a frozen one too);
- :func:`replace` is ``dataclasses.replace`` for them (a new instance through ``__init__``).

The type checker reads them as the plain classes they are: it does not flag an assignment to a
frozen record's field (the assignment raises at run time, as a frozen dataclass' does).
"""

from __future__ import annotations

import sys
from _thread import get_ident
from operator import attrgetter

TYPE_CHECKING = False  # not typing's: a guard/check start does not import typing (mypy reads it as typing's)
if TYPE_CHECKING:
    from typing import Any, Protocol, TypeVar

    _T = TypeVar("_T")

    class _Fielded(Protocol):
        """A record, or a native class written to behave as one (NATIVE_RECORDS): its fields by name."""

        @property
        def _fields(self) -> tuple[str, ...]: ...

    _R = TypeVar("_R", bound="_Fielded")

__all__ = [
    "MISSING",
    "NATIVE_RECORDS",
    "FrozenRecord",
    "Interpreted",
    "OrderedRecord",
    "Record",
    "field_setters",
    "fields_repr",
    "init_fields",
    "native_record",
    "rebuild",
    "replace",
    "settable",
]

# The default of a parameter whose default is made per instance (a dataclass' ``default_factory``).
MISSING: Any = type("_Missing", (), {"__repr__": lambda self: "MISSING", "__slots__": ()})()


def _values(names: tuple[str, ...]) -> Any:
    """The compared fields of an instance, as a tuple (also for one field)."""
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    if not names:
        return lambda obj: ()
    return attrgetter(*names)


_REPRING: set[tuple[int, Any]] = set()

# Classes written to behave as records that are native under mypyc (docs/compiled.md) and live in
# the compiled policy: each names its fields in a `_fields` class attribute, and the guard's cache
# pickles them as it does records (field by field; a native instance's `__new__` runs `__init__`,
# so each takes no required argument).
NATIVE_RECORDS: set[type] = set()
# The fields a native record's class declares `Final` (read-only after __init__), per class, in the pure
# Python build (native_record); mypyc's build refuses the assignment itself.
_READ_ONLY: dict[type, frozenset[str]] = {}


def native_record(cls: type[_T]) -> type[_T]:
    """Registers ``cls`` as one of NATIVE_RECORDS. Its fields declared ``Final`` are read-only after its
    ``__init__``: under mypyc a native class refuses their assignment (``attribute 'f' of 'C' objects is not
    writable``); in the pure Python build this gives the class a ``__setattr__`` and ``__delattr__`` that do
    the same once the field holds a value (nothing else in the engine's process, a handler bound by dotted
    path included, can change the policy a check reads)."""
    NATIVE_RECORDS.add(cls)
    cls.__reduce__ = _reduce_native  # type: ignore[method-assign]
    module = sys.modules.get(cls.__module__)
    if module is not None and str(getattr(module, "__file__", "")).endswith(".py"):
        annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 (inspect: a slower start)
        _READ_ONLY[cls] = frozenset(
            name for name, kind in annotations.items() if isinstance(kind, str) and kind.startswith("Final[")
        )
        cls.__setattr__ = _assign_once  # type: ignore[method-assign]
        cls.__delattr__ = _refuse_delete  # type: ignore[method-assign]
    return cls


def settable(cls: type) -> bool:
    """Whether a native record's fields take a value through their own setters (``vars(cls)[f].__set__``): in
    the pure Python build (past the write-once ``__setattr__``); under mypyc a `Final` field has no setter."""
    return cls in _READ_ONLY


def _reduce_native(self: Any) -> tuple[Any, ...]:
    cls = type(self)
    return (rebuild, (cls, tuple(getattr(self, name) for name in cls.__dict__["_fields"])))


_REBUILD: dict[type, tuple[Any, ...]] = {}


def rebuild(cls: Any, values: tuple[Any, ...]) -> Any:
    """A native record read back from its fields' ``values`` (a pickle's, the guard cache's): in the pure
    build set field by field, as a record is (past the write-once ``__setattr__``); under mypyc through
    ``__init__`` (a read-only field takes no value otherwise), which works out the fields it derives."""
    how = _REBUILD.get(cls)
    if how is None:
        fields = cls.__dict__["_fields"]
        how = _REBUILD[cls] = (
            field_setters(cls) if settable(cls) else tuple(fields.index(name) for name in init_fields(cls))
        )
    if settable(cls):
        obj = cls.__new__(cls)
        for setter, value in zip(how, values, strict=True):
            setter(obj, value)
        return obj
    return cls(*[values[i] for i in how])


def init_fields(cls: type) -> tuple[str, ...]:
    """A native record's ``__init__`` parameters, in order: its fields but those ``__init__`` works out
    (``_init_fields`` where the class has such fields, e.g. a Matcher's ``_checks``)."""
    found: tuple[str, ...] = cls.__dict__.get("_init_fields") or cls.__dict__["_fields"]
    return found


def _assign_once(self: Any, name: str, value: Any) -> None:
    if name in _READ_ONLY[type(self)]:
        try:
            type(self).__dict__[name].__get__(self)
        except AttributeError:
            pass  # not set yet: __init__ sets it
        else:
            raise AttributeError(f"attribute {name!r} of {type(self).__name__!r} objects is not writable")
    object.__setattr__(self, name, value)


def _refuse_delete(self: Any, name: str) -> None:
    if name in _READ_ONLY[type(self)]:
        raise AttributeError(f"attribute {name!r} of {type(self).__name__!r} objects is not writable")
    object.__delattr__(self, name)


class Interpreted(type):
    """A metaclass that adds nothing: mypyc compiles a class whose metaclass is this one as a plain
    Python class (not a native one), so it keeps ``__slots__``, ``__init_subclass__`` and its base
    (records, a ``frozenset`` subclass) exactly as without mypyc. See docs/compiled.md."""


class Record(metaclass=Interpreted):
    """Base of a slotted value class: ``class Point(Record, frozen=True): __slots__ = ("x", "y")``
    with its own ``__init__``. See the module's documentation."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _compared: Any = None
    _frozen = False

    def __init_subclass__(cls, *, frozen: bool | None = None, uncompared: tuple[str, ...] = (), **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if frozen is None:  # as its base: a FrozenRecord's subclass is frozen
            frozen = cls._frozen
        slots = cls.__dict__.get("__slots__")
        if not isinstance(slots, tuple) or any(vars(base).get("__slots__") for base in cls.__mro__[1:-1]):
            raise TypeError(f"{cls.__qualname__}: a Record names its fields in a __slots__ tuple, and only there")
        cls._fields = slots
        unknown = set(uncompared).difference(slots)
        if unknown:
            raise TypeError(f"{cls.__qualname__}: uncompared names no field: {', '.join(sorted(unknown))}")
        # The fields == and hash (and an OrderedRecord's order) read: all but `uncompared`, in slot order.
        cls._compared = staticmethod(_values(tuple(f for f in slots if f not in uncompared)))
        setattr(cls, "__match_args__", slots)  # noqa: B010  (not declared on Record: a class of its own)
        cls._frozen = frozen
        if frozen:
            cls.__setattr__ = _frozen_setattr  # type: ignore[method-assign,assignment]
            cls.__delattr__ = _frozen_delattr  # type: ignore[method-assign,assignment]
            if "__hash__" not in cls.__dict__:
                cls.__hash__ = Record.__hash__  # type: ignore[method-assign]
        elif "__hash__" not in cls.__dict__:
            cls.__hash__ = None  # type: ignore[assignment]  # as an eq dataclass: unhashable

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            result: bool = self._compared(self) == self._compared(other)
            return result
        return NotImplemented

    def __hash__(self) -> int:  # frozen ones only (see __init_subclass__)
        return hash(self._compared(self))

    def __repr__(self) -> str:
        return fields_repr(self, self._fields)

    def __getstate__(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        for name, value in zip(self._fields, state, strict=True):
            object.__setattr__(self, name, value)


class OrderedRecord(Record):
    """A record that also orders (``<``, ``<=``, ``>``, ``>=``) by its compared fields, as tuples."""

    __slots__ = ()

    def __lt__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            result: bool = self._compared(self) < self._compared(other)
            return result
        return NotImplemented

    def __le__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            result: bool = self._compared(self) <= self._compared(other)
            return result
        return NotImplemented

    def __gt__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            result: bool = self._compared(self) > self._compared(other)
            return result
        return NotImplemented

    def __ge__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            result: bool = self._compared(self) >= self._compared(other)
            return result
        return NotImplemented


def fields_repr(obj: object, names: tuple[str, ...]) -> str:
    """``Name(field=value, ...)`` (``...`` for an instance met again inside itself): a record's
    repr, and that of a native value class (docs/compiled.md) written to behave as a record."""
    key = (id(obj), get_ident())
    if key in _REPRING:
        return "..."
    _REPRING.add(key)
    try:
        inner = ", ".join(f"{name}={getattr(obj, name)!r}" for name in names)
    finally:
        _REPRING.discard(key)
    return f"{type(obj).__qualname__}({inner})"


def _frozen_setattr(self: Record, name: str, value: Any) -> None:
    from dataclasses import FrozenInstanceError  # noqa: PLC0415

    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Record, name: str) -> None:
    from dataclasses import FrozenInstanceError  # noqa: PLC0415

    raise FrozenInstanceError(f"cannot delete field {name!r}")


def field_setters(cls: type[Record]) -> tuple[Any, ...]:
    """The setters of a record's fields, in ``__slots__`` order (each called as ``setter(obj, value)``,
    past a frozen record's ``__setattr__`` as ``object.__setattr__`` is). For the ``__init__`` of a
    record made on every check in a module mypyc compiles: there ``object.__setattr__(self, "f", v)``
    looks up the builtin, its attribute and the field's descriptor on each call (~3x the time)."""
    return tuple(vars(cls)[name].__set__ for name in cls._fields)


def replace(obj: _R, /, **changes: Any) -> _R:
    """A new ``obj`` with ``changes``, made through its class' ``__init__`` (``dataclasses.replace``).
    Every field of a record passed here must be an ``__init__`` parameter of the same name."""
    values = {name: getattr(obj, name) for name in obj._fields}
    unknown = set(changes) - set(values)
    if unknown:
        raise TypeError(f"{type(obj).__qualname__} has no field {sorted(unknown)[0]!r}")
    values.update(changes)
    return type(obj)(**values)


class FrozenRecord(Record, frozen=True):
    """``class Point(FrozenRecord)`` is ``class Point(Record, frozen=True)``. A module mypyc compiles
    spells it so: mypyc drops a class statement's keywords (see docs/compiled.md)."""

    __slots__ = ()
