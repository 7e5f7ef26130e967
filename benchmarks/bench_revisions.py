"""Steps per second of this checkout against another revision, measured side by side in one run.

The base revision is checked out into a temporary ``git worktree`` (for revisions with the
``guessgym`` namespace, imported through a folder of links, :func:`import_root`, since only an
install maps the root folders to ``guessgym.*``); every measurement runs in a fresh subprocess,
which reports the file it imported, so a run never measures the installed checkout twice. Base
and current alternate (base, current, base, current...), so both see the same machine load; the
best of ``--rounds`` rounds is kept for each. Revisions before the single
namespace import the library as top-level ``envs``/``training``; later ones as ``guessgym.*``.

Measurements (random actions drawn in advance from a seeded generator; masked in hard mode):

* ``single``: one environment through ``gymnasium.make`` (env checker included), whole games;
* ``batched``: :class:`BatchedGuessEnv` with 64 games (Gymnasium vector API, infos and masks);
* ``sb3``: the same engine through the stable-baselines3 ``VecEnv`` adapter used for training;
* ``solver``: the exact search (:func:`guessgym.baselines.optimal.solve`), in solves per second:
  Wordle's SALET tree, Mini Nerdle over every opener (revisions with the solver only).

Usage (from the repository root)::

    python benchmarks/bench_revisions.py --base 3209a02 [--rounds 5]

A script, not a test: it prints the rates and the ratio current / base for each row.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

# Runs in the subprocess: prints a JSON dict of rates. {ns} is "" (old layout) or "guessgym." (new).
MEASURE = r"""
import json, sys, time
import numpy as np
import gymnasium as gym
NEW = {new}
if NEW:
    import guessgym
    from guessgym.envs.vector import BatchedGuessEnv
    from guessgym.training.sb3_vec import BatchedVecEnv
else:
    import envs
    from envs.vector import BatchedGuessEnv
    from training.sb3_vec import BatchedVecEnv
kind, env_id, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
if env_id not in gym.registry:  # the same game under the other version of the ids (v0 before 0.3)
    for other in (env_id.replace("-v1", "-v0"), env_id.replace("-v0", "-v1")):
        if other in gym.registry:
            env_id = other
            break
rng = np.random.default_rng(0)
if kind == "solver":  # the exact search: one opener (Wordle's SALET) or every opener (small games)
    from guessgym.baselines.optimal import solve
    game = gym.make(env_id).unwrapped.game
    options = {"opener": "salet"} if game.kind == "wordle" else {"openers": "all"}
    def run():
        solve(game, **options)
    count = 1
    sys.modules.setdefault("_measured", sys.modules[solve.__module__])
elif kind == "single":
    env = gym.make(env_id)
    n = env.action_space.n
    acts = rng.integers(n, size=steps).tolist()
    hard = env.unwrapped.game.hard_mode
    def run():
        obs, info = env.reset(seed=0)
        for a in acts:
            if hard:
                allowed = np.flatnonzero(info["action_mask"])
                a = int(allowed[a % len(allowed)])
            obs, r, term, trunc, info = env.step(a)
            if term:
                obs, info = env.reset()
    count = steps
else:
    kwargs = dict(gym.registry[env_id].kwargs)
    num = 64
    if kind == "batched":
        venv = BatchedGuessEnv(num, **kwargs)
        venv.reset(seed=0)
        step = venv.step
    else:
        venv = BatchedVecEnv(BatchedGuessEnv(num, track_candidates=False, **kwargs))
        venv.reset()
        def step(a):
            venv.step_async(a)
            return venv.step_wait()
    n = len(venv.guesses if kind == "batched" else venv.venv.guesses)
    rows = rng.integers(n, size=(max(1, steps // num), num))
    def run():
        for row in rows:
            step(row)
    count = rows.size
run()  # warm-up (numba's cache, allocator)
best = 0.0
for _ in range(3):
    t = time.perf_counter()
    run()
    best = max(best, count / (time.perf_counter() - t))
measured = sys.modules.get("_measured", sys.modules[BatchedGuessEnv.__module__])
print(json.dumps({"rate": best, "source": measured.__file__}))
"""

ROWS = [
    ("single", "guessgym/Wordle-v1", 60_000),
    ("single", "guessgym/WordleHard-v1", 20_000),
    ("single", "guessgym/Nerdle-v1", 60_000),
    ("batched", "guessgym/Wordle-v1", 64 * 400),
    ("batched", "guessgym/MiniNerdle-v1", 64 * 400),
    ("batched", "guessgym/Nerdle-v1", 64 * 400),
    ("sb3", "guessgym/Wordle-v1", 64 * 400),
    ("sb3", "guessgym/Nerdle-v1", 64 * 400),
    ("solver", "guessgym/Wordle-v1", 1),
    ("solver", "guessgym/MiniNerdle-v1", 1),
]


def is_new_layout(tree: Path) -> bool:
    return (tree / "envs" / "engine.py").is_file() or "guessgym.envs" in (tree / "pyproject.toml").read_text()


#: The root folders the 0.3 layout installed as ``guessgym.<name>`` (pyproject's package-dir).
SUBPACKAGES = ("envs", "agents", "baselines", "training")


def import_root(tree: Path) -> Path:
    """A folder from which ``import guessgym`` loads ``tree``'s code, not the installed checkout's.

    The new layout maps root folders to ``guessgym.*`` only through its (editable) install, so a
    worktree of another revision is not importable as it is: this builds ``<tree>.shim/guessgym``,
    links to the tree's ``guessgym/`` files and its root subpackages, once per tree. Since 0.4 the
    tree holds those links itself (``guessgym/envs -> ../envs``) and is importable as it is."""
    if (tree / "guessgym" / "envs").is_dir():
        return tree
    shim = tree.parent / (tree.name + ".shim")
    package = shim / "guessgym"
    if not package.is_dir():
        package.mkdir(parents=True)
        for entry in (tree / "guessgym").iterdir():
            (package / entry.name).symlink_to(entry)
        for name in SUBPACKAGES:
            if (tree / name).is_dir() and not (package / name).exists():
                (package / name).symlink_to(tree / name)
    return shim


@contextmanager
def base_worktree(revision: str | None) -> Iterator[Path | None]:
    """A temporary ``git worktree`` of ``revision`` (``None``: no base), removed afterwards."""
    if revision is None:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="guessgym-base-") as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), revision],
                       check=True, capture_output=True)
        try:
            yield base
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False)


def fastest_per_item(measure: Callable[[Path | None], dict[str, dict[str, float]]], base: Path | None,
                     rounds: int) -> dict[str, dict[str, dict[str, float]]]:
    """Per side (``"base"``: the worktree ``base``, skipped when ``None``; ``"current"``: this
    checkout), each item's fastest row of ``rounds`` rounds of ``measure(tree)`` (rows keyed by item,
    each with its ``"seconds"``), the sides alternating within a round so both see the same load."""
    best: dict[str, dict[str, dict[str, float]]] = {"base": {}, "current": {}}
    for _ in range(rounds):
        for side, tree in (("base", base), ("current", None)):
            if side == "base" and base is None:
                continue
            for item, row in measure(tree).items():
                if item not in best[side] or row["seconds"] < best[side][item]["seconds"]:
                    best[side][item] = row
    return best


def run_child(code: str, args: list[str], *, tree: Path | None = None, env: dict[str, str] | None = None,
              timeout: float = 3600) -> Any:
    """Run ``code`` in a fresh interpreter that imports ``tree``'s guessgym (``None``: the installed
    checkout) with ``args``, from the temporary folder; the JSON of its last line of output. A
    failure ends the benchmark with the child's error."""
    environ = {**os.environ, **(env or {})}
    if tree is not None:
        environ["PYTHONPATH"] = str(import_root(tree))
    out = subprocess.run([sys.executable, "-c", code, *args], env=environ, capture_output=True, text=True,
                         cwd=tempfile.gettempdir(), timeout=timeout)
    if out.returncode != 0:
        sys.exit(f"{' '.join(args)} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(tree: Path, kind: str, env_id: str, steps: int) -> float:
    """One measurement in a fresh interpreter that imports ``tree``'s code (checked: the
    subprocess reports the file it imported)."""
    new = is_new_layout(tree)
    env = dict(os.environ)
    # The old layout imports top-level envs/training from its own tree; the new one imports
    # guessgym: from the installed checkout for ROOT, from a shim of the worktree otherwise.
    path = (import_root(tree) if tree != ROOT else None) if new else tree
    if path is not None:
        env["PYTHONPATH"] = str(path) + os.pathsep + env.get("PYTHONPATH", "")
    code = MEASURE.replace("{new}", "True" if new else "False")
    out = subprocess.run([sys.executable, "-c", code, kind, env_id, str(steps)], cwd=path or ROOT,
                         env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{kind} {env_id} failed in {tree}:\n{out.stderr[-2000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if not Path(result["source"]).is_relative_to(path or ROOT):
        raise RuntimeError(f"measured {result['source']}, not the code of {tree}")
    return float(result["rate"])


def _rate(value: float) -> str:
    return f"{value:>12,.0f}" if value >= 100 else f"{value:>12.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the revision to compare against (e.g. a commit hash)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds; the best of each side is kept")
    parser.add_argument("--only", help="measure only the rows whose kind or id contains this text (e.g. batched)")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args(argv)
    with base_worktree(args.base) as base:
        assert base is not None
        results = []
        for kind, env_id, steps in ROWS:
            if args.only and args.only not in kind and args.only not in env_id:
                continue
            old = new = 0.0
            for _ in range(args.rounds):
                old = max(old, measure(base, kind, env_id, steps))
                new = max(new, measure(ROOT, kind, env_id, steps))
            results.append({"kind": kind, "env_id": env_id, "base": old, "current": new, "ratio": new / old})
            print(f"{kind:8s} {env_id:26s} base {_rate(old)}/s  current {_rate(new)}/s  "
                  f"current/base {new / old:5.2f}x", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"base": args.base, "rounds": args.rounds, "rows": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
