"""Optional dependencies: imported where they are used, with a one-line error naming the extra.

The core install (environments, scoring, baselines, evaluation, command line) needs none of them.
Learned agents and training need the ``train`` extra (torch, stable-baselines3, sb3-contrib),
plots the ``plots`` extra (matplotlib), and the Ray backend the ``ray`` extra.

Examples:
    >>> require("numpy", extra="core", purpose="scoring").__name__
    'numpy'
    >>> try:
    ...     require("no_such_module_xyz", extra="train", purpose="learned agents")
    ... except DependencyNotInstalled as exc:
    ...     print(exc)
    learned agents need no_such_module_xyz, which is not installed: pip install "guessgym[train]"
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: The modules each extra provides (what :func:`require_extra` checks).
EXTRAS: dict[str, tuple[str, ...]] = {
    "train": ("torch", "stable_baselines3", "sb3_contrib"),
    "plots": ("matplotlib",),
    "benchmark": ("torch", "stable_baselines3", "sb3_contrib", "yaml", "rliable", "matplotlib"),
    "zoo": ("rl_zoo3",),
    "llm": ("httpx",),
    "ray": ("ray",),
    "datasets": ("datasets",),
    "minari": ("minari", "pyarrow", "h5py"),
    "openenv": ("openenv", "fastapi", "uvicorn", "websockets"),
    "skyrl": ("skyrl_gym",),
    "verifiers": ("verifiers", "datasets"),
    "nemo-gym": ("nemo_gym", "resources_servers"),
}


class DependencyNotInstalled(ImportError):
    """An optional dependency is missing; the message says which extra to install."""


def require(module: str, *, extra: str, purpose: str) -> ModuleType:
    """Import ``module``, or raise :class:`DependencyNotInstalled` naming ``extra``."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if exc.name is not None and exc.name != module and not module.startswith(exc.name + "."):
            raise  # the module exists but something it imports is broken: show the real error
        raise DependencyNotInstalled(
            f'{purpose} need {module}, which is not installed: pip install "guessgym[{extra}]"'
        ) from None


def require_extra(extra: str, purpose: str) -> None:
    """Check that every module of ``extra`` (see :data:`EXTRAS`) can be imported."""
    for module in EXTRAS[extra]:
        require(module, extra=extra, purpose=purpose)


__all__ = ["EXTRAS", "DependencyNotInstalled", "require", "require_extra"]
