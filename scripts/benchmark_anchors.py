"""Compute the RL benchmark's anchors: each tier's optimum and random-consistent mean.

    python scripts/benchmark_anchors.py                 # every tier not in the file yet
    python scripts/benchmark_anchors.py --tier wordle-100 --redo

The optimum: the shipped proven tree's total where the scored game is a registered game with one
(guessgym.agents.optima), otherwise the exact solver's proof over every opener
(guessgym.baselines.opener_search.prove), or, with --openers N, the best of the N most promising
openers' exact trees (an upper bound; ``proven`` false, the scope says so). The random-consistent
mean: the baseline's mean score (a loss counting max_attempts + 1) over every scored answer for
each of the protocol's ANCHOR_SEEDS, through the shared evaluation loop. Writes
training/benchmark/data/anchors.json (tiers in protocol order; the others are kept).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from guessgym.agents.optima import known_optimum
from guessgym.baselines.opener_search import prove
from guessgym.baselines.optimal import solve
from guessgym.baselines.random_consistent import RandomConsistentAgent
from guessgym.evaluation.evaluate import evaluate
from guessgym.training.benchmark.protocol import ANCHOR_SEEDS, PROTOCOL_VERSION, TIERS, tier

PATH = Path(__file__).resolve().parents[1] / "training" / "benchmark" / "data" / "anchors.json"


def anchors(name: str, openers: int | None) -> dict[str, object]:
    t = tier(name)
    game = t.scored_game()
    known = known_optimum(game)
    started = time.perf_counter()
    if known is not None and known.proven:
        total, proven, scope = known.total, True, f"every opener (shipped tree {known.tree})"
    elif openers is None:
        result = prove(game)
        total, proven, scope = result.total, result.proven, "every opener"
    else:
        result = solve(game, openers=openers)
        total, proven, scope = result.total, False, f"the best of the {openers} most promising openers"
    print(f"{name}: optimum {total} over {len(game.answers)} answers ({scope}; {time.perf_counter() - started:.1f} s)",
          file=sys.stderr)
    means, wins = [], []
    for seed in ANCHOR_SEEDS:
        result = evaluate(RandomConsistentAgent(seed=seed), game, seed=seed)
        means.append(result.mean_guesses_with_failures)
        wins.append(result.win_rate)
    command = f"python scripts/benchmark_anchors.py --tier {name}" + (f" --openers {openers}" if openers else "")
    return {"answers": len(game.answers), "optimum_total": int(total), "proven": bool(proven), "scope": scope,
            "random_mean": round(statistics.fmean(means), 6),
            "random_stderr": round(statistics.stdev(means) / len(means) ** 0.5, 6),
            "random_win_rate": round(statistics.fmean(wins), 6), "command": command}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tier", action="append", help="a tier (repeatable; default: every tier missing)")
    parser.add_argument("--redo", action="store_true", help="recompute tiers already in the file")
    parser.add_argument("--openers", type=int, help="search only the N most promising openers (an upper bound)")
    args = parser.parse_args()
    data = json.loads(PATH.read_text()) if PATH.is_file() else {"protocol": PROTOCOL_VERSION, "tiers": {}}
    names = args.tier or [t.name for t in TIERS]
    for name in names:
        if name in data["tiers"] and not args.redo and not args.tier:
            continue
        data["tiers"][name] = anchors(name, args.openers)
        order = [t.name for t in TIERS]
        data["tiers"] = {k: data["tiers"][k] for k in order if k in data["tiers"]}
        PATH.write_text(json.dumps(data, indent=2) + "\n")
        print(f"{name}: {data['tiers'][name]}")


if __name__ == "__main__":
    main()
