"""Shared fixtures and helpers for the test suite.

* A test that takes an ``env_id`` argument runs once for every registered id (``guessgym.envs.ENV_SPECS``).
* ``masked_action(rng, mask)`` (a fixture returning the function): a seeded random allowed action.
* ``isolated_cache``: a fresh, empty pattern-matrix cache directory for tests that inspect it.
* Hypothesis runs without deadlines (the first call of a numba kernel compiles or loads it).
* The session runs on the pinned CPU code paths of portable training (``PORTABLE_ENV``), set
  before torch is first used: tests call ``train`` in this process after other tests used torch,
  as ``guessgym train`` never does.
* Where the old ``gym`` is installed (the ``bench`` extra brings it), stable-baselines3 imports
  it and gym prints an "unmaintained" banner on stderr once per process; it is imported here,
  with stderr set aside, so the banner never lands in the stderr a test checks (it is neither
  guessgym's output nor in the README's test environment).
* ``GUESSGYM_COMPILE_LOG=FOLDER`` logs every numba compile of each process there
  (``benchmarks/bench_suite.py`` reads it).
* Where openai-agents is installed (verifiers needs it), its top-level module ``agents`` is found
  in its own files first, when something imports it: the checkout's ``agents/`` folder has the same
  name, and ``python -m pytest`` from the repository root puts that folder first on ``sys.path`` (an
  installed guessgym has no top-level ``agents``; only a checkout shadows it).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from guessgym.training.numerics import PORTABLE_ENV

os.environ.update(PORTABLE_ENV)


def _log_numba_compiles(folder: Path) -> None:
    """Append each numba compile of this process (seconds, function) to ``folder/<pid>.tsv``: set by
    ``benchmarks/bench_suite.py`` (``GUESSGYM_COMPILE_LOG``) to say what a fresh clone's suite spends
    compiling. Only the outermost compile is written (a kernel's callees compile inside it)."""
    import time

    from numba.core import event

    out = folder / f"{os.getpid()}.tsv"
    folder.mkdir(parents=True, exist_ok=True)

    class Compiles(event.Listener):
        depth = 0
        started = 0.0

        def on_start(self, ev: event.Event) -> None:
            if self.depth == 0:
                self.started = time.perf_counter()
            self.depth += 1

        def on_end(self, ev: event.Event) -> None:
            self.depth -= 1
            if self.depth == 0:
                name = getattr(ev.data.get("dispatcher"), "__qualname__", "?")
                with out.open("a", encoding="utf-8") as f:
                    f.write(f"{time.perf_counter() - self.started:.3f}\t{name}\n")

    event.register("numba:compile", Compiles())


if os.environ.get("GUESSGYM_COMPILE_LOG"):
    _log_numba_compiles(Path(os.environ["GUESSGYM_COMPILE_LOG"]))


def _find_openai_agents_first() -> None:
    import importlib.abc
    import importlib.machinery
    import importlib.util
    import sys
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        folder = Path(str(distribution("openai-agents").locate_file("agents")))
    except PackageNotFoundError:
        return
    if "agents" in sys.modules or not (folder / "__init__.py").is_file():
        return

    class OpenAIAgentsFirst(importlib.abc.MetaPathFinder):
        """``import agents`` finds openai-agents' package, when it is imported (not before: seconds)."""

        def find_spec(self, name: str, path: object = None,
                      target: object = None) -> importlib.machinery.ModuleSpec | None:
            if name != "agents":
                return None
            return importlib.util.spec_from_file_location("agents", folder / "__init__.py",
                                                          submodule_search_locations=[str(folder)])

    sys.meta_path.insert(0, OpenAIAgentsFirst())


_find_openai_agents_first()


def _import_old_gym_quietly() -> None:
    import contextlib
    import importlib.util
    import io

    if importlib.util.find_spec("gym") is not None:
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            import gym  # noqa: F401


_import_old_gym_quietly()

from guessgym import envs  # noqa: E402  (after the quiet import above)
from guessgym.envs.matrix import PatternMatrix  # noqa: E402

settings.register_profile(
    "guessgym", deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("guessgym-thorough", parent=settings.get_profile("guessgym"), max_examples=2000)
settings.load_profile("guessgym")


def _parametrized_names(marker: pytest.Mark) -> set[str]:
    names = marker.args[0] if marker.args else marker.kwargs.get("argnames", ())
    if isinstance(names, str):
        names = names.split(",")
    return {n.strip() for n in names}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize every test that asks for ``env_id`` over all registered environment ids
    (unless the test parametrizes ``env_id`` itself)."""
    if "env_id" not in metafunc.fixturenames:
        return
    if any("env_id" in _parametrized_names(m) for m in metafunc.definition.iter_markers("parametrize")):
        return
    metafunc.parametrize("env_id", list(envs.ENV_SPECS))


def _masked_action(rng: np.random.Generator, mask: np.ndarray) -> int:
    allowed = np.flatnonzero(mask)
    assert allowed.size, "no action is allowed"
    return int(allowed[rng.integers(allowed.size)])


@pytest.fixture
def masked_action() -> Callable[[np.random.Generator, np.ndarray], int]:
    """A function drawing a uniformly random allowed action (``mask`` is 1/True where allowed)."""
    return _masked_action


@pytest.fixture
def isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty cache directory, and no matrices memoised in the process, for this test only."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("GUESSGYM_CACHE_DIR", str(cache))
    saved = dict(PatternMatrix._instances)
    PatternMatrix.clear_memory()
    yield cache
    PatternMatrix.clear_memory()
    PatternMatrix._instances.update(saved)


@pytest.fixture
def nothing_shipped(monkeypatch: pytest.MonkeyPatch) -> None:
    """No solved states from the package (the main job's games' states are shipped, so a move
    analysis' budget would otherwise never run out on them): a test of the budget solves from nothing."""
    from guessgym.baselines import move_values

    monkeypatch.setattr(move_values, "SHIPPED", False)


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_a_temporary_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """stable-baselines3 creates a folder ``/tmp/SB3-<date>`` for every ``learn()`` without a
    logger; point it at this session's temporary folder so the suite leaves nothing in /tmp."""
    previous = os.environ.get("SB3_LOGDIR")
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3-logs"))
    yield
    if previous is None:
        os.environ.pop("SB3_LOGDIR", None)
    else:
        os.environ["SB3_LOGDIR"] = previous
