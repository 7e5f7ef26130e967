"""Evaluation results of this checkout against another revision: the same records, bit for bit.

Runs ``guessgym evaluate --guesses`` for a few agents and kinds of game (plain, hard mode, a
randomised agent, multi-board, Absurdle uncapped and capped, won and lost, a shipped learned
model) in this checkout and in a ``git worktree`` of ``--base``, and compares the result JSON with
the timings left out (wall seconds, seconds per game). A refactoring that changes no behaviour
prints ``SAME`` on every line.

Usage (from the repository root)::

    python scripts/same_results.py --base 37b1102
    python scripts/same_results.py --base 37b1102 --ignore description   # docstrings changed on purpose
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_revisions import import_root  # noqa: E402

CASES = [
    ["--agent", "least-worst", "--env", "guessgym/MicroNerdle-v1"],
    ["--agent", "random-consistent", "--env", "guessgym/MiniNerdle-v1", "--answers", "40", "--seed", "3"],
    ["--agent", "multi-expected-size", "--env", "guessgym/Quordle-v0", "--answers", "6", "--seed", "2"],
    ["--agent", "least-worst", "--env", "guessgym/Absurdle-v0"],
    ["--agent", "random-consistent", "--env", "guessgym/Absurdle-v0", "--answers", "5", "--env-kwargs",
     "max_attempts=6", "kind=nerdle", "length=6"],
    ["--agent", "random-consistent", "--env", "guessgym/Absurdle-v0", "--answers", "3", "--env-kwargs",
     "max_attempts=3"],
    ["--agent", "pattern-entropy", "--env", "guessgym/WordleHard-v1", "--answers", "30"],
    ["--agent", "pretrained:mini-nerdle", "--answers", "50"],
]


def evaluate(root: Path, args: list[str], out: Path) -> dict[str, object]:
    """The result JSON of one evaluation with ``root``'s code, its timings removed."""
    env = dict(os.environ, PYTHONPATH=str(root))
    code = "import sys; from guessgym.cli import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run([sys.executable, "-c", code, "evaluate", *args, "--out", str(out), "--guesses",
                           "--no-progress"], env=env, cwd=tempfile.gettempdir(), capture_output=True, text=True,
                          timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"{root}: {' '.join(args)}: {done.stderr[-2000:]}")
    data = json.loads(next(out.glob("*.json")).read_text())
    data["meta"].pop("wall_seconds", None)
    data["records"].pop("seconds", None)
    data["summary"] = {k: v for k, v in data["summary"].items() if "second" not in k}
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the revision to compare with (a commit)")
    parser.add_argument("--ignore", nargs="*", default=[], metavar="FIELD",
                        help="top-level fields a change meant to alter (e.g. description, after an agent's docstring "
                             "changed); each differing field is named either way")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "base"
        subprocess.run(["git", "worktree", "add", "--detach", str(tree), args.base], cwd=ROOT, check=True,
                       capture_output=True)
        try:
            base_root = import_root(tree)
            differ = 0
            for i, case in enumerate(CASES):
                outs = [Path(tmp) / f"{side}{i}" for side in ("base", "current")]
                for out in outs:
                    out.mkdir()
                before, after = evaluate(base_root, case, outs[0]), evaluate(ROOT, case, outs[1])
                fields = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
                same = not set(fields) - set(args.ignore)
                differ += not same
                told = f"  (differs in {', '.join(fields)})" if fields else ""
                print(f"{'SAME' if same else 'DIFF'}  {' '.join(case)}{told}", flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
