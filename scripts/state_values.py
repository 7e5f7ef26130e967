"""Rebuild the solved states the package ships for the main job's move analysis.

The move analysis judges every move against optimal play (:mod:`guessgym.evaluation.analysis`),
which needs the exact value ``T*`` of every state the agents' games reach. Solved from nothing
that is about a minute of search on two cores (the least-worst agent's Wordle states alone ran
past the 90 s budget on a first run), and for classic Nerdle with every equation as a guess a
2.4 GB transposed matrix; each is a fact about the game, the same on every machine. This script
solves them once, as a run of the main job with no time budget and nothing shipped or cached,
and writes each game's solved states (the exact search's memo: exact values and proven floors,
16 bytes a state) to ``envs/data/state_values/memo-<fingerprint>-e-w0.npz``, where
:class:`~guessgym.baselines.move_values.StateValues` reads them. A state missing from them (an
agent changed) is searched as before, so the files make the analysis faster, never different;
``tests/baselines/test_shipped_values.py`` checks their values against fresh solves and that a
sample of the main job's games finds every state in them.

Usage (from the repository root; about five minutes on two cores)::

    python scripts/state_values.py
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from guessgym.baselines import move_values
from guessgym.baselines.memo_store import MemoStore, shipped_folder
from guessgym.envs.game import make_game
from guessgym.infra.atomic import atomic_path
from guessgym.main_job import MAIN_JOB, run_main_job


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=shipped_folder(),
                        help="the folder written (default: the package's envs/data/state_values)")
    args = parser.parse_args(argv)
    move_values.SHIPPED = False  # from nothing: the old files must not be in the new ones
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="guessgym-state-values-") as memo_dir:
        outcomes = run_main_job(memo_dir=memo_dir, analysis_budget=math.inf,
                                notice=lambda text: print(text, file=sys.stderr))
        for outcome in outcomes:
            note = outcome.result.meta.get("analysis_note") if outcome.result is not None else None
            if note:
                print(f"{outcome.entry.describe()}: {note}", file=sys.stderr)
                return 1
        args.out.mkdir(parents=True, exist_ok=True)
        games = {}
        for entry in MAIN_JOB:
            game = make_game(entry.env_id, **dict(entry.env_kwargs))
            games[game.fingerprint] = game
        for game in games.values():
            source = MemoStore(memo_dir, game, 0)
            if not source.path.is_file():
                continue
            with np.load(source.path) as data:
                arrays = {name: data[name] for name in data.files}
            target = MemoStore(args.out, game, 0).path
            with atomic_path(target, suffix=".npz") as tmp:
                np.savez_compressed(tmp, **arrays)
            meta = json.loads(str(arrays["meta"]))
            print(f"{target}: {arrays['exact_keys'].size:,} solved states, {arrays['floor_keys'].size:,} floors "
                  f"({meta['game']}, {target.stat().st_size / 1024:.0f} KiB)")
    print(f"done in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
