"""Compute the RL benchmark's anchors: each tier's optimum and random-consistent mean (and, for
protocol 2, the uniform-random mean beside them).

    python scripts/benchmark_anchors.py                         # protocol 1: every tier not in the file yet
    python scripts/benchmark_anchors.py --tier wordle-100 --redo
    python scripts/benchmark_anchors.py --protocol 2            # protocol 2's file

Protocol 1's anchors play the scored game (they know the scored answers only). The optimum: the
shipped proven tree's total where the scored game is a registered game with one
(guessgym.agents.optima), otherwise the exact solver's proof over every opener
(guessgym.baselines.opener_search.prove), or, with --openers N, the best of the N most promising
openers' exact trees (an upper bound; ``proven`` false, the scope says so).

Protocol 2's anchors play the tier's whole list (Tier.full_game: the game a player of it knows)
and are scored on the scored answers only: the optimum is the proven optimal tree of the whole list
(shipped, or proved here) played on them; the random-consistent baseline chooses among the whole
list's remaining candidates; the uniform-random anchor is a uniformly random allowed guess each turn
(what an untrained policy plays), from a generator seeded by each anchor seed.

The random means: the mean score (a loss counting max_attempts + 1) over every scored answer for
each of the protocol's ANCHOR_SEEDS, through the shared evaluation loop (the computation is
guessgym.training.benchmark.anchors, which the tuning study's validation anchors share). Writes
training/benchmark/data/<the protocol's anchors file> (tiers in protocol order; the others are kept).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from guessgym.training.benchmark.anchors import (
    optimal_tree,
    random_consistent,
    scored_indices,
    tree_total,
    uniform_random,
)
from guessgym.training.benchmark.protocol import ANCHOR_SEEDS, Tier, protocol

DATA = Path(__file__).resolve().parents[1] / "training" / "benchmark" / "data"


def anchors(t: Tier, openers: int | None) -> dict[str, object]:
    """The anchors file's entry for tier ``t``."""
    spec = protocol(t.version)
    scored = t.scored_game()
    game = t.full_game() if spec.anchors_know == "full" else scored
    chosen = scored_indices(game, scored.answers)
    started = time.perf_counter()
    tree, proven, scope = optimal_tree(game, openers)
    total = tree_total(tree, scored.answers)
    if spec.anchors_know == "full" and t.scored != "all":
        scope = f"the optimal tree of all {len(game.answers):,} answers ({scope}), on the scored ones"
    print(f"{t.name}: optimum {total} over {len(scored.answers)} answers ({scope}; "
          f"{time.perf_counter() - started:.1f} s)", file=sys.stderr)
    rc = random_consistent(game, chosen, ANCHOR_SEEDS)
    command = ("python scripts/benchmark_anchors.py" + (f" --protocol {t.version}" if t.version != "1" else "")
               + f" --tier {t.name}" + (f" --openers {openers}" if openers else ""))
    entry: dict[str, object] = {
        "answers": len(scored.answers), "optimum_total": int(total), "proven": bool(proven), "scope": scope,
        "random_mean": round(rc.mean, 6), "random_stderr": round(rc.stderr, 6),
        "random_win_rate": round(rc.win_rate, 6), "command": command}
    if spec.anchors_know == "full":
        uniform = uniform_random(game, chosen, ANCHOR_SEEDS)
        entry.update(uniform_mean=round(uniform.mean, 6), uniform_stderr=round(uniform.stderr, 6),
                     uniform_win_rate=round(uniform.win_rate, 6))
    return entry


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--protocol", default="1", help="the protocol version (default 1)")
    parser.add_argument("--tier", action="append", help="a tier (repeatable; default: every tier missing)")
    parser.add_argument("--redo", action="store_true", help="recompute tiers already in the file")
    parser.add_argument("--openers", type=int, help="search only the N most promising openers (an upper bound)")
    args = parser.parse_args()
    spec = protocol(args.protocol)
    path = DATA / spec.anchors_file
    data = json.loads(path.read_text()) if path.is_file() else {"protocol": spec.version, "tiers": {}}
    names = args.tier or [t.name for t in spec.tiers]
    for name in names:
        if name in data["tiers"] and not args.redo and not args.tier:
            continue
        data["tiers"][name] = anchors(spec.tier(name), args.openers)
        order = [t.name for t in spec.tiers]
        data["tiers"] = {k: data["tiers"][k] for k in order if k in data["tiers"]}
        path.write_text(json.dumps(data, indent=2) + "\n")
        print(f"{name}: {data['tiers'][name]}")


if __name__ == "__main__":
    main()
