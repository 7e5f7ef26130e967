"""OpenEnv's server modules, imported without the web UI that OpenEnv's packages load with them.

``openenv.core`` and ``openenv.core.env_server`` import everything they hold when any of their
modules is imported, Gradio's web interface among it: of the 6.1 s that ``guessgym.serving.app``
took to import on a busy machine, Gradio was 3.6 s, and a server started from a clean machine was
not ready to play for seconds. A guessgym server needs none of it (it serves OpenEnv's protocol,
not its web page). :func:`defer_openenv_packages` puts those two packages into ``sys.modules``
with their ``__init__`` not yet run, so that importing a module of theirs (``http_server``,
``interfaces``, ``types``, ``env_client``) loads that module and what it imports, and nothing
else; the first access to a name the package itself defines (``from openenv.core import
EnvClient``, ``import *``) runs its ``__init__`` then, whole, so everything OpenEnv offers still
works as OpenEnv wrote it. Where OpenEnv was already imported, or is laid out otherwise, nothing is
changed.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import types
from typing import Any

#: The packages whose ``__init__`` waits for the first name asked of it.
DEFERRED = ("openenv.core", "openenv.core.env_server")


class _DeferredPackage(types.ModuleType):
    """A package whose ``__init__`` runs at the first access to a name it does not have yet."""

    def __getattr__(self, name: str) -> Any:
        spec = self.__dict__.get("__spec__")
        if self.__dict__.get("_guessgym_ran") or spec is None or spec.loader is None:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        self._guessgym_ran = True
        self.__class__ = types.ModuleType  # type: ignore[assignment]  # from here on a module like any other
        spec.loader.exec_module(self)
        return getattr(self, name)


def defer_openenv_packages() -> bool:
    """Put :data:`DEFERRED` into ``sys.modules`` with their ``__init__`` deferred (see the module
    docstring); whether they were (``False``: OpenEnv already imported, or not found as expected)."""
    if any(name in sys.modules for name in DEFERRED):
        return False
    try:
        import openenv  # its own __init__ is light: the version, and names loaded when asked for
    except ImportError:
        return False
    parent: Any = openenv
    made: list[str] = []
    for name in DEFERRED:
        spec = importlib.machinery.PathFinder.find_spec(name, getattr(parent, "__path__", None))
        if spec is None or spec.loader is None or spec.submodule_search_locations is None:
            for done in made:  # not laid out as expected: leave OpenEnv to import itself
                sys.modules.pop(done, None)
            if made:
                delattr(openenv, "core")
            return False
        module = importlib.util.module_from_spec(spec)
        module.__class__ = _DeferredPackage
        sys.modules[name] = module
        setattr(parent, name.rsplit(".", 1)[1], module)
        made.append(name)
        parent = module
    return True


__all__ = ["DEFERRED", "defer_openenv_packages"]
