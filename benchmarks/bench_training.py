"""Training steps per CPU-second of this checkout beside a base revision, measured in one run.

For each algorithm and tier, a fresh interpreter builds the benchmark's model exactly as
``guessgym benchmark run`` does (the tier's shipped hyperparameters, :func:`runner.build`, torch's
and numba's threads pinned once the game is built), trains it for a warm-up, then times
``--steps`` more environment steps of ``model.learn`` and reports steps per CPU-second of the
process (``time.process_time``) and per wall-clock second, and the torch threads it used. The row
``env`` is the ceiling: the same batched environment alone, stepped with random legal guesses.

Base and current alternate within each round (base, current, base, current...) so both see the
same machine load; the best of ``--rounds`` rounds is kept for each. The base revision is checked
out into a temporary ``git worktree`` (:mod:`bench_revisions`).

Usage (from the repository root, on an idle machine)::

    python benchmarks/bench_training.py --base ac1a0c1
    python benchmarks/bench_training.py --base ac1a0c1 --algos ppo --tiers wordle --rounds 3
    python benchmarks/bench_training.py --base ac1a0c1 --algos ppo --tiers wordle --set n_epochs=1   # other settings
    python benchmarks/bench_training.py --json results/benchmarks/training.json   # no base: this checkout
    python benchmarks/bench_training.py --from-json results/benchmarks/training.json --plot training.png

A script, not a test: it prints the rates and the ratio current / base for each row.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_revisions import base_worktree, run_child

#: Environment steps timed per measurement, by tier (after the warm-up), unless ``--steps`` is given.
DEFAULT_STEPS = {"micro-nerdle": 20_000, "mini-nerdle": 20_000, "wordle-100": 20_000, "wordle-500": 10_000,
                 "wordle": 4_000, "wordle-hard": 4_000, "wordle-unseen": 4_000}

MEASURE = r"""
import json, sys, tempfile, time
from pathlib import Path
import numpy as np
import torch as th
from guessgym.training import numerics
from guessgym.training.benchmark.hyperparams import load_hyperparams
from guessgym.training.benchmark.protocol import tier
from guessgym.training.benchmark.runner import RunSpec, build

algo, tier_name, steps, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
overrides = json.loads(sys.argv[5])
t = tier(tier_name)
game = t.training_game()
numerics.pin_threads(threads)
hp = load_hyperparams("ppo" if algo == "env" else algo, t.env_id)
if overrides:
    import dataclasses
    settings = {**hp.algorithm_kwargs, **{k: v for k, v in overrides.items() if k != "n_envs"}}
    hp = dataclasses.replace(hp, n_envs=overrides.get("n_envs", hp.n_envs), algorithm_kwargs=settings)
with tempfile.TemporaryDirectory() as tmp:
    model, venv = build(RunSpec("ppo" if algo == "env" else algo, t, 0, Path(tmp)), hp, game)
    numerics.pin_threads(threads)
    if algo == "env":
        rng = np.random.default_rng(0)
        obs = venv.reset()
        def run(k):
            global obs
            for _ in range(k // venv.num_envs):
                if "action_mask" in obs:  # a random legal guess (hard mode)
                    weights = rng.random(obs["action_mask"].shape) * obs["action_mask"]
                    actions = weights.argmax(1)
                else:
                    actions = rng.integers(0, len(game.guesses), size=venv.num_envs)
                obs = venv.step(actions)[0]
        run(4 * venv.num_envs)
    else:
        # past one rollout and past the replay buffer's learning_starts: the timed steps all train
        model.learn(max(getattr(model, "n_steps", 1) * hp.n_envs, 2 * getattr(model, "learning_starts", 0), 1000))
        def run(k):
            model.learn(k, reset_num_timesteps=False)
    cpu, wall = time.process_time(), time.perf_counter()
    run(steps)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
print(json.dumps({"steps": steps, "cpu_s": cpu, "wall_s": wall, "threads": th.get_num_threads()}))
"""


def measure(tree: Path | None, algo: str, tier: str, steps: int, threads: int,
            overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """One measurement in a fresh interpreter importing ``tree``'s guessgym (``None``: this checkout),
    with the tier's shipped hyperparameters changed by ``overrides`` (``n_envs`` and algorithm settings)."""
    row: dict[str, Any] = run_child(MEASURE, [algo, tier, str(steps), str(threads), json.dumps(overrides or {})],
                                    tree=tree)
    row["per_cpu_s"] = row["steps"] / max(row["cpu_s"], 1e-9)
    row["per_wall_s"] = row["steps"] / max(row["wall_s"], 1e-9)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="the revision to measure beside this checkout (default: none)")
    parser.add_argument("--algos", default="env,ppo,a2c,dqn,maskable_ppo",
                        help="comma-separated: env (the environment alone) and benchmark algorithm names")
    parser.add_argument("--tiers", default="micro-nerdle,wordle-500,wordle", help="comma-separated tier names")
    parser.add_argument("--steps", type=int, help="steps timed per measurement (default: by tier)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1, the benchmark's)")
    parser.add_argument("--rounds", type=int, default=1, help="rounds; the best of each side is kept")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=INT",
                        help="change a shipped setting for every algorithm measured (n_envs, n_steps, batch_size, "
                             "n_epochs...; whole numbers), on both sides")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    parser.add_argument("--plot", type=Path, help="also draw the rates here (a PNG)")
    parser.add_argument("--from-json", type=Path, help="draw --plot from an earlier --json, measuring nothing")
    args = parser.parse_args(argv)
    if args.from_json:
        if not args.plot:
            parser.error("--from-json needs --plot")
        plot(json.loads(args.from_json.read_text()), args.plot)
        return 0
    algos, tiers = args.algos.split(","), args.tiers.split(",")
    overrides = {}
    for item in args.overrides:
        key, sep, value = item.partition("=")
        if not sep or not value.isdigit():
            parser.error(f"--set {item!r}: expected KEY=WHOLE_NUMBER (n_epochs=1)")
        overrides[key] = int(value)
    best: dict[tuple[str, str, str], dict[str, Any]] = {}
    with base_worktree(args.base) as base:
        for _ in range(args.rounds):
            for tier in tiers:
                for algo in algos:
                    steps = args.steps or DEFAULT_STEPS[tier] * (10 if algo == "env" else 1)
                    for side, tree in (("base", base), ("current", None)):
                        if side == "base" and base is None:
                            continue
                        row = measure(tree, algo, tier, steps, args.threads, overrides)
                        key = (tier, algo, side)
                        if key not in best or row["per_cpu_s"] > best[key]["per_cpu_s"]:
                            best[key] = row
                        print(f"  {tier:13s} {algo:13s} {side:8s} {row['per_cpu_s']:10,.0f} steps/CPU-s "
                              f"{row['per_wall_s']:10,.0f} steps/s  (threads {row['threads']})", flush=True)
    header = f"{'tier':13s} {'algo':13s} " + (f"{'base':>12s} " if args.base else "") + f"{'current':>12s}"
    print(f"\nsteps per CPU-second, best of {args.rounds} round(s), {args.threads} torch thread(s)"
          + (f"; base {args.base}" if args.base else "") + (f"; settings {overrides}" if overrides else ""))
    print(header + ("     ratio" if args.base else ""))
    rows = []
    for tier in tiers:
        for algo in algos:
            cur = best[(tier, algo, "current")]
            line = f"{tier:13s} {algo:13s} "
            out: dict[str, Any] = {"tier": tier, "algo": algo, "current": cur}
            if args.base:
                old = best[(tier, algo, "base")]
                out["base"] = old
                out["ratio"] = cur["per_cpu_s"] / old["per_cpu_s"]
                line += f"{old['per_cpu_s']:12,.0f} {cur['per_cpu_s']:12,.0f} {out['ratio']:8.2f}x"
            else:
                line += f"{cur['per_cpu_s']:12,.0f}"
            print(line)
            rows.append(out)
    result = {"base": args.base, "threads": args.threads, "rounds": args.rounds, "settings": overrides, "rows": rows}
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    if args.plot:
        plot(result, args.plot)
    return 0


def plot(result: dict[str, Any], path: Path) -> None:
    """Steps per CPU-second by algorithm, one panel per tier, base and current side by side (log scale),
    each pair labelled with its ratio; the environment alone drawn as the ceiling line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result["rows"]
    tiers = list(dict.fromkeys(r["tier"] for r in rows))
    fig, axes = plt.subplots(1, len(tiers), figsize=(4.3 * len(tiers), 4.0), squeeze=False, sharey=True)
    for ax, tier in zip(axes[0], tiers):
        mine = [r for r in rows if r["tier"] == tier and r["algo"] != "env"]
        ceiling = [r for r in rows if r["tier"] == tier and r["algo"] == "env"]
        xs = range(len(mine))
        if result.get("base"):
            ax.bar([x - 0.2 for x in xs], [r["base"]["per_cpu_s"] for r in mine], 0.4, color="#9e9e9e",
                   label=f"base {result['base']}")
        ax.bar([x + (0.2 if result.get("base") else 0) for x in xs], [r["current"]["per_cpu_s"] for r in mine],
               0.4, color="#1f77b4", label="this revision")
        for x, r in zip(xs, mine):
            if "ratio" in r:
                ax.text(x, r["current"]["per_cpu_s"] * 1.15, f"{r['ratio']:.1f}x", ha="center", fontsize=9)
        if ceiling:
            ax.axhline(ceiling[0]["current"]["per_cpu_s"], color="black", linestyle="--", linewidth=1,
                       label="environment alone")
        ax.set_yscale("log")
        ax.set_xticks(list(xs), [r["algo"] for r in mine], rotation=20)
        ax.set_title(tier, fontsize=10)
    axes[0][0].set_ylabel("training steps per CPU-second (log scale)")
    axes[0][-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    settings = result.get("settings") or {}
    fig.suptitle(f"Training speed, {result['threads']} torch thread, best of {result['rounds']} rounds"
                 + (f", settings {settings}" if settings else ", the tiers' shipped settings")
                 + " (benchmarks/bench_training.py)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
