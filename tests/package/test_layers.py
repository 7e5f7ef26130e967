"""The package's import graph: no circle anywhere, and no import from a lower layer to a higher one.

The layers are the ones :mod:`guessgym`'s docstring writes down (each imports only those below
it, and itself)::

    guessgym (cli/, main_job, play, assist)       the command line and the main job
    serving                                       the games in OpenEnv's protocol
    adapters                                      the games in other trainers' forms (SkyRL)
    training                                      training learned agents
    evaluation                                    the shared loop, results, reports
    baselines                                     the research documents' solvers
    agents                                        the Agent protocol and the players
    envs                                          the game core and the Gymnasium classes
    infra                                         atomic files, the log, the pool, caches

Inside ``envs`` the game core (rules, scoring, matrices, candidates, the engine) imports none of
the Gymnasium classes. The graph is read from the source with :mod:`ast` (every ``import``, at
module level, inside a function, or under ``if TYPE_CHECKING:``: a type a module names is a
dependency as real as a call), as the package is laid out, so a circle that only a lazy or a
type-checking import hides still fails.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import guessgym

PACKAGE = Path(guessgym.__file__).parent
#: Lowest first.
LAYERS = ("infra", "envs", "agents", "baselines", "evaluation", "training", "adapters", "serving")
#: The modules of ``envs`` that make the game core (they must not import the env classes).
GAME_CORE = ("answer_stream", "buckets", "candidates", "engine", "equations", "families", "game", "hosts", "kinds",
             "mask_pool", "matrix", "options", "registration", "rewards", "scoring", "wordlists")


def _modules() -> dict[str, Path]:
    modules = {}
    paths = [Path(folder, f) for folder, _, files in os.walk(PACKAGE, followlinks=True) for f in files
             if f.endswith(".py")]  # the subpackages are links to the root folders
    for path in paths:
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if "data" in parts:
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(["guessgym", *parts])] = path
    return modules


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The package's modules that ``name`` imports."""
    is_package = path.name == "__init__.py"
    package = name.split(".") if is_package else name.split(".")[:-1]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                target = f"{module}.{alias.name}"
                found.add(target if target in MODULES else module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in found if m in MODULES and m != name}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _layer(module: str) -> int:
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else len(LAYERS)


def test_the_graph_is_read_from_the_whole_package() -> None:
    for module in ("guessgym.envs.engine", "guessgym.evaluation.evaluate", "guessgym.infra.pool",
                   "guessgym.cli.common", "guessgym.agents.llm.client"):
        assert module in GRAPH
    assert "guessgym.envs.families" in GRAPH["guessgym.envs.env"]
    assert "guessgym.infra.pool" in GRAPH["guessgym.evaluation.backends"]


def test_no_import_goes_up_a_layer() -> None:
    upward = sorted(f"{a} -> {b}" for a, targets in GRAPH.items() for b in targets if _layer(b) > _layer(a))
    assert not upward, "imports from a lower layer to a higher one:\n" + "\n".join(upward)


def test_the_game_core_imports_no_env_class() -> None:
    core = {f"guessgym.envs.{name}" for name in GAME_CORE}
    classes = {m for m in GRAPH if m.startswith("guessgym.envs.") and m not in core}
    wrong = sorted(f"{a} -> {b}" for a in core for b in GRAPH[a] if b in classes)
    assert not wrong, "the game core imports env classes:\n" + "\n".join(wrong)


def test_there_is_no_import_circle() -> None:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def connect(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(GRAPH[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in sorted(GRAPH):
        if v not in index:
            connect(v)
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


def test_no_module_is_over_about_600_lines() -> None:
    sizes = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in MODULES.items()}
    long = {name: n for name, n in sizes.items() if n > 620}
    assert not long, long
