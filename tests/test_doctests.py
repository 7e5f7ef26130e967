"""The docstring examples of every module of the installed package, run as tests.

The library folders (``envs/``, ``agents/``...) install as ``guessgym.envs``, ``guessgym.agents``...;
pytest's own ``--doctest-modules`` would import them by their folder names instead, so the modules
are imported here by their package names and their examples run with :mod:`doctest`.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


#: The packages of the distribution. Listed rather than discovered from ``guessgym.__path__``: an
#: editable install maps the subpackages to the root folders, which that path does not contain.
PACKAGES = ("guessgym", "guessgym.envs", "guessgym.envs.chat", "guessgym.agents", "guessgym.baselines",
            "guessgym.training")


def _modules() -> list[str]:
    names = set(PACKAGES)
    for package in PACKAGES:
        path = importlib.import_module(package).__path__
        names.update(f"{package}.{info.name}" for info in pkgutil.iter_modules(path) if not info.ispkg)
    return sorted(names)


MODULES = _modules()


def test_every_library_module_is_collected() -> None:
    for module in ("guessgym.envs.game", "guessgym.agents.evaluate", "guessgym.baselines.minimax",
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
