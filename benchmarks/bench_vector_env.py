"""Steps per second of the batched vector envs against Gymnasium's synchronous vector env.

For each game, both vector environments are built with the same ``num_envs``, reset with the same
seed and stepped with the same pre-drawn random actions (uniform over the guess list, so games
last up to six guesses and autoreset often); the clock covers ``step`` only. Each measurement is
the best of ``--repeat`` runs (the machine is shared). Rows:

* ``sync``: ``gymnasium.make_vec(id, num_envs, vectorization_mode="sync")`` (one ``GuessEnv.step``
  per game, then SyncVectorEnv merges observations and info dicts);
* ``batched``: ``gymnasium.make_vec(id, num_envs, vectorization_mode="vector_entry_point")``, the
  registered batched env with the same observations and infos:
  :class:`guessgym.envs.vector.BatchedGuessEnv` for the single-board ids,
  :class:`guessgym.envs.multiboard_vector.BatchedMultiBoardEnv` for the multi-board ids
  (``quordle``, ``octordle``, ``double-nerdle``; a step counts once per game, whatever its boards);
* ``batched, training``: the single-board engine through the stable-baselines3 adapter used for
  training (no candidate tracking, no info dicts, masks on request), for reference.

The issue's target is a ratio of at least 10 for ``batched`` over ``sync`` (single-board games;
the multi-board rows are printed against the same line).

Usage (from the repository root)::

    python benchmarks/bench_vector_env.py [--num-envs 64] [--steps 500] [--repeat 3] [--games wordle,mini-nerdle]

A script, not a test: it prints, and takes about a minute on two cores.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parents[1]
if str(_ROOT) not in sys.path:  # run as a file from a checkout without installing
    sys.path.insert(0, str(_ROOT))

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402

from guessgym import envs  # noqa: E402
from guessgym.envs.vector import BatchedGuessEnv  # noqa: E402

GAMES = {
    "wordle": "guessgym/Wordle-v1",
    "mini-nerdle": "guessgym/MiniNerdle-v1",
    "micro-nerdle": "guessgym/MicroNerdle-v1",
    "nerdle": "guessgym/Nerdle-v1",
    "wordle-hard": "guessgym/WordleHard-v1",
    "quordle": "guessgym/Quordle-v0",
    "octordle": "guessgym/Octordle-v0",
    "double-nerdle": "guessgym/DoubleNerdle-v0",
}


def _thousands(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def _rate(step: Any, actions: np.ndarray, repeat: int) -> float:
    """Best steps/s (summed over sub-games) of ``step`` over the action rows, of ``repeat`` runs."""
    n_steps, num_envs = actions.shape
    for k in range(min(20, n_steps)):  # warm-up: numba kernels, allocator, caches
        step(actions[k])
    best = 0.0
    for _ in range(repeat):
        start = time.perf_counter()
        for row in actions:
            step(row)
        best = max(best, n_steps * num_envs / (time.perf_counter() - start))
    return best


def bench_game(env_id: str, num_envs: int, n_steps: int, repeat: int, seed: int) -> dict[str, Any]:
    sync = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="sync")
    batched = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point")
    n_guesses = int(batched.single_action_space.n)
    actions = np.random.default_rng(seed).integers(n_guesses, size=(n_steps, num_envs))

    sync.reset(seed=seed)
    sync_rate = _rate(sync.step, actions, repeat)
    sync.close()
    batched.reset(seed=seed)
    batched_rate = _rate(batched.step, actions, repeat)

    train_rate = None
    if env_id in envs.ENV_SPECS:
        from guessgym.training.sb3_vec import BatchedVecEnv

        train_env = BatchedVecEnv(BatchedGuessEnv(num_envs, track_candidates=False, **envs.ENV_SPECS[env_id]))
        train_env.seed(seed)
        train_env.reset()
        train_rate = _rate(train_env.step, actions, repeat)
    return {
        "env_id": env_id,
        "num_envs": num_envs,
        "n_guesses": n_guesses,
        "sync_steps_per_s": round(sync_rate),
        "batched_steps_per_s": round(batched_rate),
        "training_adapter_steps_per_s": None if train_rate is None else round(train_rate),
        "ratio": round(batched_rate / sync_rate, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=500, help="vector steps per timed run")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--games", default="wordle,mini-nerdle,quordle", help=f"comma-separated, from {sorted(GAMES)}")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    args = parser.parse_args(argv)
    names = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = [g for g in names if g not in GAMES]
    if unknown:
        parser.error(f"unknown game(s) {unknown}; choose from {sorted(GAMES)}")

    print(f"num_envs={args.num_envs}, {args.steps} vector steps per run, best of {args.repeat}, random actions")
    header = f"{'game':<14}{'guesses':>8}{'sync steps/s':>15}{'batched steps/s':>18}{'ratio':>8}{'  target':>9}"
    header += f"{'training adapter':>19}"
    print(header)
    print("-" * len(header))
    rows = []
    ok = True
    for name in names:
        row = bench_game(GAMES[name], args.num_envs, args.steps, args.repeat, args.seed)
        rows.append({"game": name, **row})
        met = row["ratio"] >= 10
        ok &= met
        print(
            f"{name:<14}{row['n_guesses']:>8,}{row['sync_steps_per_s']:>15,}{row['batched_steps_per_s']:>18,}"
            f"{row['ratio']:>7.1f}x{'>= 10x' if met else 'MISSED':>9}"
            f"{_thousands(row['training_adapter_steps_per_s']):>19}",
            flush=True,
        )
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
