"""Speed of the foundation, measured against the targets of issue 2, in one run.

Measures, and prints side by side with the targets:

1. the numba scoring kernel's compile time (reported apart from the matrix timings);
2. the full Wordle pattern matrix, 12,947 x 2,309 (target: at most 0.5 s; warm, best of N);
3. the full classic Nerdle pattern matrix, 17,723 x 17,723 (target: at most 10 s; warm, best of N);
4. classic Nerdle answer generation against a straightforward port of the report's generator
   (``benchmarks/naive_nerdle_generator.py``; target: at least 20 times faster), and what that
   port produces compared with the 17,723 answers;
5. single-environment steps per second through ``gymnasium.make`` for Wordle and classic Nerdle
   with random masked actions (target: at least 20,000), counting everything in the loop (drawing
   the action, ``step``, and ``reset`` at the end of each game).

Usage (from the repository root)::

    python benchmarks/bench_envs.py [--repeat 3] [--steps 100000] [--json results.json]

This is a script, not a test: it prints, and takes about a minute on two cores.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parents[1]
if str(_ROOT) not in sys.path:  # run as a file from a checkout without installing
    sys.path.insert(0, str(_ROOT))

import gymnasium as gym  # noqa: E402
import numba  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks import naive_nerdle_generator  # noqa: E402
from guessgym import envs  # noqa: E402, F401  (registers the guessgym/* ids)
from guessgym.envs import scoring  # noqa: E402
from guessgym.envs.equations import generate_equations  # noqa: E402
from guessgym.envs.game import nerdle, wordle  # noqa: E402


def best_of(repeat: int, fn: Callable[[], object]) -> tuple[float, list[float]]:
    """Best and all wall times of ``repeat`` calls of ``fn``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), times


def measure_compile() -> dict[str, float]:
    """The first call of the package's kernel in this process (a load from numba's disk cache, or
    a compile if there is none yet), then a cold compile of the same kernel (a fresh dispatcher,
    numba's disk cache bypassed)."""
    tiny = scoring.encode(["abc", "bca"], "abc")
    start = time.perf_counter()
    scoring.pattern_matrix(tiny, tiny, 3)
    first = time.perf_counter() - start
    fresh = numba.njit(parallel=True, nogil=True)(scoring._fill_matrix.py_func)
    out = np.empty((2, 2), dtype=np.uint8)
    start = time.perf_counter()
    fresh(tiny, tiny, 3, out)
    cold = time.perf_counter() - start
    return {"cold_compile_s": cold, "first_call_s": first}


def measure_matrix(game_factory: Callable[[], Any], repeat: int) -> dict[str, Any]:
    game = game_factory()
    g, a = game.guess_codes, game.answer_codes
    scoring.pattern_matrix(g[:2], a[:2], game.n_symbols)  # compiled/loaded before timing
    best, times = best_of(repeat, lambda: scoring.pattern_matrix(g, a, game.n_symbols))
    return {"shape": [len(game.guesses), len(game.answers)], "best_s": best, "times_s": times}


def measure_generation(repeat: int, run_naive: bool) -> dict[str, Any]:
    ours = generate_equations.__wrapped__  # bypass the lru_cache: time the real work
    best, times = best_of(repeat, lambda: ours(8))
    result: dict[str, Any] = {"ours_best_s": best, "ours_times_s": times, "ours_count": len(ours(8))}
    if run_naive:
        reference = set(ours(8))
        start = time.perf_counter()
        literal = naive_nerdle_generator.generate_valid_equations()
        result["naive_s"] = time.perf_counter() - start
        produced = set(literal)
        result["naive_count"] = len(literal)
        result["naive_missing"] = len(reference - produced)
        result["naive_extra"] = len(produced - reference)
        result["naive_extra_examples"] = sorted(produced - reference)[:6]
        result["naive_missing_examples"] = sorted(reference - produced)[:6]
        fixed = naive_nerdle_generator.generate_valid_equations(exact_division=True)
        result["naive_fixed_count"] = len(fixed)
        result["naive_fixed_equals_ours"] = set(fixed) == reference
        naive_nerdle_generator.cache.clear()
    return result


def _draw(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A uniformly random allowed action: rejection sampling (exact), with a scan as fallback."""
    n = mask.shape[0]
    for _ in range(32):
        a = int(rng.integers(n))
        if mask[a]:
            return a
    allowed = np.flatnonzero(mask)
    return int(allowed[rng.integers(allowed.size)])


def measure_steps(env_id: str, steps: int, repeat: int) -> dict[str, Any]:
    env = gym.make(env_id)
    rng = np.random.default_rng(12345)  # not the env's seed: actions must not mirror answers

    def run() -> None:
        obs, info = env.reset(seed=0)
        for _ in range(steps):
            obs, reward, terminated, truncated, info = env.step(_draw(rng, info["action_mask"]))
            if terminated or truncated:
                obs, info = env.reset()

    run()  # warm-up (loads the matrix)
    best, times = best_of(repeat, run)
    episodes = 0
    obs, info = env.reset(seed=1)
    for _ in range(2000):
        obs, _, terminated, _, info = env.step(_draw(rng, info["action_mask"]))
        if terminated:
            episodes += 1
            obs, info = env.reset()
    env.close()
    return {"steps": steps, "best_s": best, "steps_per_s": steps / best, "times_s": times,
            "mean_episode_length": 2000 / max(episodes, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed repetitions; the best counts (default 3)")
    parser.add_argument("--steps", type=int, default=100_000, help="environment steps per repetition")
    parser.add_argument("--json", type=Path, default=None, help="also write the results as JSON here")
    parser.add_argument("--skip-naive", action="store_true", help="do not run the slow report generator port")
    args = parser.parse_args(argv)

    command = "python " + " ".join(shlex.quote(a) for a in [os.path.relpath(__file__), *(argv or sys.argv[1:])])
    print(f"command: {command}")
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}, "
        f"gymnasium {gym.__version__}; {os.cpu_count()} CPUs, numba threads {numba.get_num_threads()}"
    )
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average (1 min) before the run: {load:.2f}; other processes on these cores slow every figure")
    print("running ...", flush=True)

    results: dict[str, Any] = {"command": command, "repeat": args.repeat, "load_average_before": load,
                               "cpus": os.cpu_count(), "numba_threads": numba.get_num_threads()}
    results["compile"] = measure_compile()
    results["wordle_matrix"] = measure_matrix(wordle, args.repeat)
    results["nerdle_matrix"] = measure_matrix(lambda: nerdle(8), args.repeat)
    results["generation"] = measure_generation(args.repeat, not args.skip_naive)
    results["steps"] = {
        env_id: measure_steps(env_id, args.steps, args.repeat)
        for env_id in ("guessgym/Wordle-v1", "guessgym/Nerdle-v1")
    }

    rows: list[tuple[str, str, str, str, str]] = []

    def add(name: str, measured: str, target: str, ratio: float | None, ok: bool | None) -> None:
        rows.append((name, measured, target, "" if ratio is None else f"{ratio:.2f}x",
                     "" if ok is None else ("yes" if ok else "NO")))

    c = results["compile"]
    add("numba kernel: cold compile (no disk cache)", f"{c['cold_compile_s']:.2f} s", "(reported apart)", None, None)
    add("numba kernel: first call (numba disk cache)", f"{c['first_call_s']:.2f} s", "(reported apart)", None, None)
    w = results["wordle_matrix"]
    add("Wordle matrix 12,947 x 2,309 (warm, best)", f"{w['best_s']:.3f} s", "<= 0.5 s", 0.5 / w["best_s"],
        w["best_s"] <= 0.5)
    n = results["nerdle_matrix"]
    add("Nerdle matrix 17,723 x 17,723 (warm, best)", f"{n['best_s']:.2f} s", "<= 10 s", 10 / n["best_s"],
        n["best_s"] <= 10)
    gen = results["generation"]
    add(f"classic answers, ours ({gen['ours_count']:,})", f"{gen['ours_best_s'] * 1000:.1f} ms", "", None, None)
    if "naive_s" in gen:
        speedup = gen["naive_s"] / gen["ours_best_s"]
        gen["speedup"] = speedup
        add(f"classic answers, report port ({gen['naive_count']:,})", f"{gen['naive_s']:.2f} s", "", None, None)
        add("generation speed-up (port / ours)", f"{speedup:.0f}x", ">= 20x", speedup / 20, speedup >= 20)
    for env_id, s in results["steps"].items():
        add(f"{env_id} steps/s (masked random)", f"{s['steps_per_s']:,.0f}", ">= 20,000", s["steps_per_s"] / 20000,
            s["steps_per_s"] >= 20000)

    headers = ("measurement", "measured", "target", "measured vs target", "met")
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(wd) for h, wd in zip(headers, widths))
    print()
    print(line)
    print("  ".join("-" * wd for wd in widths))
    for r in rows:
        print("  ".join(v.ljust(wd) for v, wd in zip(r, widths)))
    print()
    print("ratios are target/measured for times and measured/target for rates: above 1 means the target is met")
    if "naive_s" in gen:
        print(
            f"report port (literal): {gen['naive_count']:,} equations, {gen['naive_missing']:,} of the 17,723 "
            f"missing, {gen['naive_extra']:,} malformed extra (e.g. {', '.join(gen['naive_extra_examples'][:3])}); "
            f"with exact division: {gen['naive_fixed_count']:,} "
            f"({'identical to' if gen['naive_fixed_equals_ours'] else 'different from'} ours)"
        )
    for env_id, s in results["steps"].items():
        print(f"{env_id}: mean episode length {s['mean_episode_length']:.2f} steps under random masked play")

    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
