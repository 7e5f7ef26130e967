"""Old public names kept for one release after a rename, each use warning with the new name.

A module that a rename emptied keeps its old names through :func:`moved_names`; a class attribute
that was renamed keeps its old name through :class:`RenamedAttribute`. Both raise
:class:`DeprecationWarning` on use, naming the replacement, and return the same object, so old code
keeps working unchanged until the name is removed (the CHANGELOG says when).
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any


def warn_renamed(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn that ``old`` is now ``new`` (both dotted names as a user would write them)."""
    warnings.warn(f"{old} is renamed {new}; the old name will be removed in the next release",
                  DeprecationWarning, stacklevel=stacklevel)


def moved_names(old_module: str, names: dict[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``old_module`` whose ``names`` (old name -> ``"module:new name"``)
    load the new object on use and warn; any other name is an AttributeError."""

    def __getattr__(name: str) -> Any:
        target = names.get(name)
        if target is None:
            raise AttributeError(f"module {old_module!r} has no attribute {name!r}")
        module, new = target.split(":")
        warn_renamed(f"{old_module}.{name}", f"{module}.{new}")
        return getattr(importlib.import_module(module), new)

    return __getattr__


class RenamedAttribute:
    """A class attribute renamed ``new``: reading the old name (on the class or an instance) warns
    and returns the new attribute."""

    def __init__(self, new: str) -> None:
        self.new = new
        self.old = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.old = name

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        cls = owner if owner is not None else type(instance)
        warn_renamed(f"{cls.__name__}.{self.old}", f"{cls.__name__}.{self.new}")
        return getattr(cls if instance is None else instance, self.new)


__all__ = ["RenamedAttribute", "moved_names", "warn_renamed"]
