"""Where a single Wordle environment's step goes: the step through ``gymnasium.make``'s wrappers,
unwrapped, and the parts of it timed alone (nanoseconds per call, best of 5).

The parts: the engine's rule for one game (``engine.play_one``: candidates filtered, board written),
the compiled kernel's call alone on a game that has ended (what calling it costs before it does
anything), the observation mask from the pool, the board and tiles copies, the info dict, and a
reset (once per game: about one step in six with random guesses). What ``bench_peers.py`` compares
is the wrapped step with resets.

Then the batched environment's step for 64 games (``make_vec(..., "vector_entry_point")``, random
guesses) and its parts: the engine's rule for all 64 games (``engine.play``), the observations
(board, tiles and the pooled masks), the info dicts, and the autoreset of 9 games (about one game in
seven ends each step).

Usage (from the repository root)::

    python benchmarks/bench_step_parts.py
"""

from __future__ import annotations

import itertools
import sys
import timeit
from collections.abc import Callable
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))

import gymnasium as gym  # noqa: E402

import guessgym  # noqa: E402, F401
from guessgym.envs.engine import _play_one_kernel  # noqa: E402


def timed(fn: Callable[[], object], number: int) -> float:
    """Nanoseconds per call of ``fn``, best of 5 runs of ``number`` calls."""
    return min(timeit.repeat(fn, number=number, repeat=5)) / number * 1e9


def main() -> int:
    wrapped = gym.make("guessgym/Wordle-v1")
    env = wrapped.unwrapped
    wrapped.reset(seed=0)
    engine = env.engine
    guesses = itertools.cycle([100, 200, 300, 400, 500, 600])  # six guesses: a game ends on the sixth

    def wrapped_step() -> None:
        if wrapped.step(next(guesses))[2]:
            wrapped.reset()

    def unwrapped_step() -> None:
        if env.step(next(guesses))[2]:
            env.reset()

    def rule() -> None:
        if engine.play_one(0, next(guesses))[1]:
            env.reset()

    state, dense = engine._kernel_state, engine._dense
    rows = [
        ("step through gymnasium.make's wrappers", wrapped_step, 200_000),
        ("step, unwrapped", unwrapped_step, 200_000),
        ("engine.play_one (the rule)", rule, 200_000),
        ("kernel call on an ended game", lambda: _play_one_kernel(dense, 5, 1, 5, *state), 200_000),
        ("observation mask from the pool", lambda: env._masks.get(False), 200_000),
        ("board and tiles copies", lambda: (env._board.copy(), env._tiles.copy()), 200_000),
        ("info dict", lambda: env._info("crane", 5, 1, 100, "", None), 200_000),
        ("reset (once per game)", lambda: env.reset(), 50_000),
    ]
    for name, fn, number in rows:
        print(f"{name:40s} {timed(fn, number):7,.0f} ns")
    batched_parts()
    return 0


def batched_parts() -> None:
    import numpy as np

    from guessgym.envs.engine import DONE, StepResult

    venv = gym.make_vec("guessgym/Wordle-v1", num_envs=64, vectorization_mode="vector_entry_point")
    batched = venv.unwrapped
    venv.reset(seed=0)
    actions = np.random.default_rng(0).integers(batched.single_action_space.n, size=(4096, 64))
    rows_iter = itertools.cycle(actions)
    played = StepResult(np.zeros(64), np.zeros(64, bool), np.full(64, 3), np.zeros(64, bool), None)
    masks = batched.observations()["action_mask"]
    nine = np.arange(9)

    def rule() -> None:
        row = next(rows_iter)
        running = np.flatnonzero(batched.engine.status[:, DONE] == 0)
        batched.engine.play(row, running)
        batched.start_games(np.flatnonzero(batched.engine.status[:, DONE] != 0))

    rows = [
        ("batched step, 64 games", lambda: venv.step(next(rows_iter)), 5_000),
        ("  the rule for 64 games (and restarts)", rule, 5_000),
        ("  observations (board, tiles, masks)", batched.observations, 20_000),
        ("  info dicts", lambda: batched._step_infos(actions[0], played, np.zeros(64, bool), masks), 20_000),
        ("  autoreset of 9 games", lambda: batched.start_games(nine), 20_000),
    ]
    for name, fn, number in rows:
        print(f"{name:40s} {timed(fn, number):7,.0f} ns")


if __name__ == "__main__":
    raise SystemExit(main())
