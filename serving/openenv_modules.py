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

The same holds for OpenEnv's MCP module (``env_server.mcp_environment``, which imports FastMCP and
the MCP SDK: 1.2 s of a 2.5 s start on an idle machine). ``http_server`` imports one helper of it,
``get_server_tools``, called only for an environment that serves MCP tools, which a guessgym game
does not: the module is deferred too, that helper standing in for the real one until called, and
any other name asked of the module runs it whole.

A deferred module runs once, under a lock: the first thread to ask a name of it runs it, and the
others wait until it has run, so names asked from several threads at once are all found.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import threading
import types
from typing import Any

#: The packages whose ``__init__`` waits for the first name asked of it.
DEFERRED = ("openenv.core", "openenv.core.env_server")
#: Modules deferred the same way, each with the functions that stand in for its own until called.
DEFERRED_MODULES: dict[str, tuple[str, ...]] = {"openenv.core.env_server.mcp_environment": ("get_server_tools",)}


#: Held while a deferred module runs: the first thread to ask runs it, the others wait for it to finish
#: (a module half run answered 7 of 8 threads' first names with ImportError or AttributeError).
_RUNNING = threading.RLock()


class _DeferredPackage(types.ModuleType):
    """A package (its ``__init__``) or module whose code runs at the first access to a name it does
    not have yet, once, whichever thread asks first; the others wait for it. The import system's
    own question, ``__path__`` of a module that is not a package (asked by every ``from module
    import name``), does not run it; any other name does. While it runs, a name it asks of itself
    in its own thread is missing, as in any module under import."""

    def __getattr__(self, name: str) -> Any:
        spec = self.__dict__.get("__spec__")
        if name == "__path__" or spec is None or spec.loader is None:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        with _RUNNING:
            if not self.__dict__.get("_guessgym_ran"):  # the first to ask, and not the thread running it
                self._guessgym_ran = True
                try:
                    spec.loader.exec_module(self)
                finally:
                    self.__class__ = types.ModuleType  # type: ignore[assignment]  # from here on a module like any
            elif isinstance(self, _DeferredPackage):  # asked by its own code while it runs
                raise AttributeError(f"module {self.__name__!r} has no attribute {name!r} (it is being imported)")
        return types.ModuleType.__getattribute__(self, name)


def _stand_in(module: types.ModuleType, name: str) -> Any:
    """A function that runs ``module`` at its first call and calls the module's own ``name``."""
    def stand_in(*args: Any, **kwargs: Any) -> Any:
        with _RUNNING:
            real = module.__dict__.get(name)
            if real is None or real is stand_in:
                module.__dict__.pop(name, None)
                real = getattr(module, name)  # runs the module, which defines its own
        return real(*args, **kwargs)

    stand_in.__name__ = stand_in.__qualname__ = name
    return stand_in


def _defer_modules(package: types.ModuleType) -> None:
    """Put :data:`DEFERRED_MODULES` found in ``package`` into ``sys.modules``, deferred."""
    for name, names in DEFERRED_MODULES.items():
        if name in sys.modules or name.rsplit(".", 1)[0] != package.__name__:
            continue
        spec = importlib.machinery.PathFinder.find_spec(name, getattr(package, "__path__", None))
        if spec is None or spec.loader is None:
            continue
        module = importlib.util.module_from_spec(spec)
        module.__class__ = _DeferredPackage
        for function in names:
            setattr(module, function, _stand_in(module, function))
        sys.modules[name] = module
        setattr(package, name.rsplit(".", 1)[1], module)


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
    _defer_modules(parent)
    return True


__all__ = ["DEFERRED", "DEFERRED_MODULES", "defer_openenv_packages"]
