"""The transfer protocol's evaluation lists and their exact optima (docs: "Transfer protocol").

Builds the split of ``guessgym.training.transfer`` (seed 0, a fifth of the words unseen), and for
each list of unseen words, normal and hard mode, proves its optimum over every opener with the
exact solver, writing ``results/transfer/lists.json``: the lists' sizes and fingerprints, the
unseen words themselves, and each optimum (total, mean, deepest answer, opener, proven bound,
seconds). Lists already recorded are kept; ``--redo`` solves them again.

Usage (from the repository root)::

    python scripts/transfer_lists.py [--redo]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path
from typing import Any

from guessgym.baselines.optimal import solve
from guessgym.infra.atomic import atomic_write_text
from guessgym.infra.inputs import script_main
from guessgym.training.transfer import transfer_split, unseen_games

OUT = Path("results/transfer/lists.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redo", action="store_true", help="solve every list again")
    args = parser.parse_args()
    split = transfer_split()
    previous: dict[str, Any] = json.loads(OUT.read_text()) if OUT.is_file() and not args.redo else {}
    lists: dict[str, Any] = dict(previous.get("lists", {}))
    for name, game in unseen_games(split).items():
        if name in lists and lists[name].get("fingerprint") == game.fingerprint:
            continue
        start = time.perf_counter()
        result = solve(game, proof=True)
        lists[name] = {"answers": len(game.answers), "guesses": len(game.guesses), "hard_mode": game.hard_mode,
                       "fingerprint": game.fingerprint, "total": result.total, "mean": round(result.mean, 4),
                       "max": result.tree.max_depth, "opener": result.tree.root.guess,
                       "lower_bound": result.lower_bound, "proven": result.proven,
                       "seconds": round(time.perf_counter() - start, 1)}
        print(f"{name}: {len(game.answers)} answers / {len(game.guesses)} guesses: optimum {result.total} "
              f"({result.tree.root.guess}, proven {result.proven}) in {lists[name]['seconds']} s", flush=True)
    data = {"command": "python scripts/transfer_lists.py", "python": platform.python_version(),
            "split": {"source": "nyt2023", "seed": split.seed, "unseen_share": split.unseen_share,
                      "training_words": len(split.training_words), "unseen_words": len(split.unseen_words),
                      "training_answers": len(split.training_answers), "unseen_answers": len(split.unseen_answers)},
            "lists": lists, "unseen_words": list(split.unseen_words), "unseen_answers": list(split.unseen_answers)}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(OUT, json.dumps(data, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    script_main(main)
