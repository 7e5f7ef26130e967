"""How long a move analysis takes once its time budget has run out, this checkout against another
revision, side by side in one run.

Issue 50 made ``guessgym compare`` judge the moves left past ``--analysis-budget`` by proven
bounds; those bounds had no time limit of their own, and on classic Nerdle (least-worst, every
answer) they ran for over ten minutes with a tiny budget. Each side plays the agent's games in a
fresh interpreter (the base revision's code from a temporary ``git worktree``), then times
``analyze(result, time_budget=BUDGET)``, cut off after ``--limit`` seconds (then reported as "over").

Issue 63, item 8: past the budget and the bounds' after it, the games left are no longer judged by
the bounds that cost nothing, move by move (which took longer than solving them exactly would
have): a tiny budget judges less, never more.

Usage (from the repository root)::

    python benchmarks/bench_analysis_budget.py [--base REV] [--budget 2] [--limit 600]
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

from bench_revisions import base_worktree, import_root  # noqa: E402

CHILD = """
import json, sys, time
import guessgym
from guessgym.agents.registry import make_agent
from guessgym.evaluation import evaluate
from guessgym.evaluation.analysis import analyze
agent, env_id, budget = sys.argv[1], sys.argv[2], float(sys.argv[3])
result = evaluate(make_agent(agent), env_id, record_guesses=True)
print(json.dumps({"games": len(result.records)}), flush=True)
start = time.perf_counter()
analysis = analyze(result, time_budget=budget)
seconds = time.perf_counter() - start
summary = analysis.summary(mistakes=0)
print(json.dumps({"games": len(analysis.games), "seconds": seconds, "bounded_moves": summary["bounded_moves"],
                  "unjudged": getattr(analysis, "unjudged", 0), "source": guessgym.__file__}))
"""


def measure(tree: Path | None, agent: str, env_id: str, budget: float, limit: float) -> dict[str, object]:
    """One side's analysis seconds (``None`` when cut off at ``limit``), in a fresh interpreter."""
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(import_root(tree))
    with tempfile.TemporaryDirectory() as cache:
        env["GUESSGYM_CACHE_DIR"] = cache  # the analysis solves from nothing on either side
        proc = subprocess.Popen([sys.executable, "-c", CHILD, agent, env_id, str(budget)], env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tempfile.gettempdir())
        first = proc.stdout.readline() if proc.stdout else ""  # the games played: the analysis's clock starts
        if not first:
            raise SystemExit(f"{agent} on {env_id} failed:\n{proc.communicate()[1][-3000:]}")
        try:
            out, err = proc.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return {"seconds": None, **json.loads(first)}
    if proc.returncode != 0:
        raise SystemExit(f"{agent} on {env_id} failed:\n{err[-3000:]}")
    return json.loads(out.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default=None, help="the revision to compare with (default: none)")
    parser.add_argument("--agent", default="least-worst")
    parser.add_argument("--env", default="guessgym/Nerdle-v1")
    parser.add_argument("--budget", type=float, default=2.0, help="the analysis's time budget, seconds")
    parser.add_argument("--limit", type=float, default=600.0, help="seconds after which a side is cut off")
    args = parser.parse_args(argv)
    print(f"{args.agent} on {args.env}, every answer, analysis budget {args.budget:g} s, cut off at {args.limit:g} s")
    with base_worktree(args.base) as base:
        sides = ([("base " + args.base, base)] if base is not None else []) + [("current", None)]
        for name, tree in sides:
            row = measure(tree, args.agent, args.env, args.budget, args.limit)
            took = f"over {args.limit:g} s (cut off)" if row["seconds"] is None else f"{row['seconds']:.1f} s"
            extra = "" if row["seconds"] is None else f", {row['bounded_moves']:,} moves judged by bounds"
            if row.get("unjudged"):
                extra += f", {row['unjudged']:,} games not judged (past both budgets)"
            print(f"{name:>16}: {row['games']:,} games analysed in {took}{extra}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
