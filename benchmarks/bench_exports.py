"""Minari exports of the optimum's games: wall time, peak memory and bytes on disk, this checkout
against another revision, side by side in one run.

Issue 51: the full Wordle export (``guessgym export-demos --env guessgym/Wordle-v1 --format
minari``) took 6 min 37 s on an idle 2-core machine and wrote 156 MB. Each measurement runs the
export in a fresh interpreter (the base revision's code from a temporary ``git worktree``), into a
fresh datasets root, with a pattern-matrix cache filled beforehand by a warm-up export of a few
games, so both sides pay the same cold start; base and current alternate, best of ``--rounds``.
The current side's dataset is then loaded by Minari itself and every episode replayed in the
environment Minari recovers (the bytes saved must not cost a dataset Minari cannot read).

Usage (from the repository root)::

    python benchmarks/bench_exports.py [--base REV] [--env guessgym/Wordle-v1] [--games N] [--rounds 1]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_revisions import base_worktree, run_child  # noqa: E402

CHILD = r"""
import json, os, resource, sys, time
import guessgym
from guessgym.training.minari_demos import export_minari
env_id, out, games = sys.argv[1], sys.argv[2], None if sys.argv[3] == "all" else int(sys.argv[3])
started = time.perf_counter()
made = export_minari(env_id, out, games=games)
seconds = time.perf_counter() - started
size = sum(os.lstat(os.path.join(d, f)).st_blocks * 512 for d, _, files in os.walk(out) for f in files)
apparent = sum(os.lstat(os.path.join(d, f)).st_size for d, _, files in os.walk(out) for f in files)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": seconds, "disk": size, "bytes": apparent, "peak": peak, "steps": made["steps"],
                  "episodes": made["episodes"], "dataset": made["dataset_id"], "file": guessgym.__file__}))
"""

REPLAY = r"""
import json, sys
import numpy as np
import minari
dataset = minari.load_dataset(sys.argv[1])
env = dataset.recover_environment()
metadata = dataset.storage.get_episode_metadata(range(dataset.total_episodes))
checked = 0
for episode, meta in zip(dataset.iterate_episodes(), metadata):
    obs, _ = env.reset(options=meta["options"])
    for key in obs:
        assert np.array_equal(episode.observations[key][0], obs[key]), key
    for step, action in enumerate(episode.actions):
        obs, reward, terminated, truncated, _ = env.step(int(action))
        assert reward == episode.rewards[step] and terminated == episode.terminations[step]
        for key in obs:
            assert np.array_equal(episode.observations[key][step + 1], obs[key]), key
    checked += 1
print(json.dumps({"episodes": checked, "steps": int(dataset.total_steps)}))
"""


def measure(tree: Path | None, env_id: str, games: str, cache: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="guessgym-minari-") as out:
        row: dict[str, float] = run_child(CHILD, [env_id, out, games], tree=tree, env={"GUESSGYM_CACHE_DIR": cache},
                                          timeout=3600)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="a git revision to compare with (a temporary worktree)")
    parser.add_argument("--env", default="guessgym/Wordle-v1")
    parser.add_argument("--games", default="all", help="every answer (all) or a seeded sample of N")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    with base_worktree(args.base) as base, tempfile.TemporaryDirectory(prefix="guessgym-cache-") as cache:
        for tree in ([base] if base is not None else []) + [None]:  # warm-up: the matrix and the kernels
            measure(tree, args.env, "3", cache)
        best: dict[str, dict[str, float]] = {}
        for _ in range(args.rounds):
            for side, tree in (("base", base), ("current", None)):
                if side == "base" and base is None:
                    continue
                row = measure(tree, args.env, args.games, cache)
                print(f"  {side}: {row['seconds']:.1f} s, {row['disk'] / 1e6:.1f} MB on disk "
                      f"({row['bytes'] / 1e6:.1f} MB of files), peak {row['peak'] / 2**20:.0f} MiB", flush=True)
                if side not in best or row["seconds"] < best[side]["seconds"]:
                    best[side] = row
        print(f"\n{args.env}, {args.games} games ({best['current']['episodes']:,} episodes, "
              f"{best['current']['steps']:,} steps), best of {args.rounds}:")
        print(f"{'':10s} {'seconds':>9s} {'MB on disk':>11s} {'MB of files':>12s} {'peak MiB':>9s}")
        for side in ("base", "current"):
            if side in best:
                r = best[side]
                print(f"{side:10s} {r['seconds']:9.1f} {r['disk'] / 1e6:11.1f} {r['bytes'] / 1e6:12.1f} "
                      f"{r['peak'] / 2**20:9.0f}")
        if "base" in best:
            b, c = best["base"], best["current"]
            print(f"{'base/cur':10s} {b['seconds'] / c['seconds']:8.1f}x {b['disk'] / c['disk']:10.1f}x "
                  f"{b['bytes'] / c['bytes']:11.1f}x {b['peak'] / c['peak']:8.2f}x")
        with tempfile.TemporaryDirectory(prefix="guessgym-minari-") as out:  # the current dataset, read by Minari
            made = run_child(CHILD, [args.env, out, args.games], env={"GUESSGYM_CACHE_DIR": cache}, timeout=3600)
            replayed = run_child(REPLAY, [str(made["dataset"])], env={"MINARI_DATASETS_PATH": out}, timeout=3600)
        print(f"\nMinari loaded the current dataset and every one of its {replayed['episodes']:,} episodes "
              f"({replayed['steps']:,} steps) replayed to the same observations, rewards and ends")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
