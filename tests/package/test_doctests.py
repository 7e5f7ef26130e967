"""The docstring examples of every module of the installed package, run as tests.

The library folders (``envs/``, ``agents/``...) are the subpackages ``guessgym.envs``,
``guessgym.agents``...; pytest's own ``--doctest-modules`` would import them by their folder names,
so the modules are imported here by their package names and their examples run with :mod:`doctest`.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def _modules() -> list[str]:
    """Every module of the package, found from ``guessgym.__path__`` (the checkout is laid out as
    the package installs, so the subpackages are found there)."""
    import guessgym

    return sorted({"guessgym"} | {info.name for info in pkgutil.walk_packages(guessgym.__path__, "guessgym.")})


MODULES = _modules()


def test_every_library_module_is_collected() -> None:
    for module in ("guessgym.envs.game", "guessgym.evaluation.evaluate", "guessgym.baselines.minimax",
                   "guessgym.training.config", "guessgym.cli"):
        assert module in MODULES


@pytest.mark.parametrize("module_name", MODULES)
def test_docstring_examples(module_name: str) -> None:
    module = importlib.import_module(module_name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report: list[str] = []
    for test in finder.find(module, module_name):
        runner.run(test, out=report.append)
    results = runner.summarize(verbose=False)
    assert results.failed == 0, "".join(report)
