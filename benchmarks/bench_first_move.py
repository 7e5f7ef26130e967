"""The first move of a game judged from nothing: how long the value of an opener takes.

Judging a game's first move needs the opener's whole tree: the fewest guesses over every answer
with optimal play after it (``StateValues.after`` at the start). This draws a seeded sample of
openers from every guess (weak ones included), and for each one solves its tree from a cold memo
(a new ``StateValues`` with no cache folder; the numba kernels compiled once beforehand, untimed),
in normal and hard mode, measuring CPU seconds of this one process, bounded by ``--budget`` per
opener (an opener past it is counted as over budget, not waited for). Prints the median, the 90th
percentile and the worst, and the slowest openers. Issue 42's aim: a median under 5 s and none over
60 s on one core; issue 52's: normal mode median <= 1.5 s and none over 20 s, hard mode median <= 4 s
and none over 60 s.

With ``--base REV`` the same openers are solved side by side by this checkout and by a worktree of
``REV``, each in a process of its own that keeps running (its kernels compiled once, untimed), the
two taking turns opener by opener (which side goes first alternates), so both see the same load;
each side's figures are printed, with the ratio of medians and the median of the per-opener
ratios.

Usage (from the repository root)::

    python benchmarks/bench_first_move.py [--openers 100] [--seed 0] [--budget 60] [--modes normal hard]
                                          [--base REV] [--out results/benchmarks/first_move.txt]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
#: Where a side-by-side worker imports guessgym from (the base's worktree); this checkout otherwise.
IMPORT_ROOT = os.environ.get("BENCH_FIRST_MOVE_ROOT", str(ROOT))
sys.path.insert(0, IMPORT_ROOT)

sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_revisions import base_worktree, import_root  # noqa: E402

import guessgym  # noqa: E402
from guessgym.baselines.move_values import StateValues, ValuesTimedOut  # noqa: E402
from guessgym.envs.game import make_game  # noqa: E402

IDS = {"normal": "guessgym/Wordle-v1", "hard": "guessgym/WordleHard-v1"}


def opener_seconds(game: object, guess: int, budget: float) -> tuple[float, int] | None:
    """CPU seconds to solve ``guess``'s tree from a cold memo and its total, or None past ``budget``."""
    values = StateValues(game)  # type: ignore[arg-type]
    values.set_budget(budget)
    start = time.process_time()
    try:
        total, _ = values.after(values.everyone, guess, game.max_attempts, values.all_guesses)  # type: ignore[attr-defined]
    except ValuesTimedOut:
        return None
    return time.process_time() - start, total


def worker(mode: str, budget: float) -> int:
    """A side of the side-by-side run: compile, say which code it loaded, then solve each opener
    index read from stdin and print its CPU seconds and total (``over``: past the budget), until
    stdin ends."""
    game = make_game(IDS[mode])
    opener_seconds(game, game.guess_index["salet"], budget)  # compiles the kernels (untimed)
    print("ready", Path(guessgym.__file__).resolve().parents[1], flush=True)
    for line in sys.stdin:
        got = opener_seconds(game, int(line), budget)
        print("over" if got is None else f"{got[0]:.6f} {got[1]}", flush=True)
    return 0


class Side:
    """A worker process of one side (``tree``: a worktree of the base; ``None``: this checkout)."""

    def __init__(self, tree: Path | None, mode: str, budget: float) -> None:
        env = dict(os.environ)
        root = ROOT if tree is None else import_root(tree)
        env["BENCH_FIRST_MOVE_ROOT"] = str(root)
        script = str(Path(__file__).resolve())
        self.process = subprocess.Popen([sys.executable, script, "--worker", mode, "--budget", str(budget)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
                                        cwd=tempfile.gettempdir())
        name = "base" if tree else "current"
        ready = self._line().split(" ", 1)
        if ready[0] != "ready":
            sys.exit(f"the {name} worker did not start")
        if Path(ready[1]).resolve() != root.resolve():  # the base's code, not this checkout's
            sys.exit(f"the {name} worker loaded guessgym from {ready[1]}, not {root}")

    def _line(self) -> str:
        assert self.process.stdout is not None
        return self.process.stdout.readline().strip()

    def solve(self, guess: int) -> tuple[float, int] | None:
        assert self.process.stdin is not None
        self.process.stdin.write(f"{guess}\n")
        self.process.stdin.flush()
        answer = self._line()
        if not answer:
            sys.exit("a worker ended early")
        if answer == "over":
            return None
        seconds, total = answer.split()
        return float(seconds), int(total)

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


def summary(label: str, timed: list[tuple[float, str]], over: list[str], budget: float) -> list[str]:
    """A side's median, 90th percentile, worst and slowest openers."""
    times = sorted(t for t, _ in timed) + [float("inf")] * len(over)  # over budget: slower than any timed

    def shown(t: float) -> str:
        return f"{t:.2f} s" if t != float("inf") else f"over {budget:g} s"

    median = statistics.median(times)
    p90 = times[int(0.9 * (len(times) - 1))]
    slowest = ", ".join(f"{w} {t:.1f} s" for t, w in sorted(timed, reverse=True)[:5])
    worst = max((t for t, _ in timed), default=float("nan"))
    return [f"{label}median {shown(median)}; 90th percentile {shown(p90)}; worst timed {worst:.2f} s; "
            f"over the {budget:g} s budget: {len(over)} ({', '.join(over) or 'none'})",
            f"{label}slowest timed: {slowest}"]


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        return worker(sys.argv[2], float(sys.argv[4]))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--openers", type=int, default=100, help="openers drawn per mode (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget", type=float, default=60.0, help="seconds per opener (default: %(default)s)")
    parser.add_argument("--modes", nargs="+", choices=sorted(IDS), default=["normal", "hard"])
    parser.add_argument("--base", help="a git revision to run side by side (a temporary worktree)")
    parser.add_argument("--out", help="also write the report to this file")
    args = parser.parse_args()
    lines = [f"# python benchmarks/bench_first_move.py --openers {args.openers} --seed {args.seed} --budget "
             f"{args.budget:g} --modes {' '.join(args.modes)}{f' --base {args.base}' if args.base else ''}", ""]
    if args.base:
        with base_worktree(args.base) as base:
            assert base is not None
            for mode in args.modes:
                lines += side_by_side(base, mode, args.openers, args.seed, args.budget)
        return report(lines, args.out)
    for mode in args.modes:
        game = make_game(IDS[mode])
        rng = np.random.default_rng(args.seed)
        openers = [int(g) for g in rng.choice(len(game.guesses), size=args.openers, replace=False)]
        opener_seconds(game, game.guess_index["salet"], args.budget)  # compiles the kernels (untimed)
        timed: list[tuple[float, str]] = []
        over: list[str] = []
        for n, guess in enumerate(openers, start=1):
            got = opener_seconds(game, guess, args.budget)
            seconds = None if got is None else got[0]
            word = game.guesses[guess]
            if seconds is None:
                over.append(word)
            else:
                timed.append((seconds, word))
            print(f"{mode} {n}/{len(openers)} {word}: {'over budget' if seconds is None else f'{seconds:.2f} s'}",
                  file=sys.stderr, flush=True)
        lines += [f"## {IDS[mode]} ({len(game.answers):,} answers, {len(game.guesses):,} guesses), {len(openers)} "
                  f"openers, CPU seconds per opener, cold memo",
                  *summary("", timed, over, args.budget), ""]
    return report(lines, args.out)


def side_by_side(base: Path, mode: str, count: int, seed: int, budget: float) -> list[str]:
    """The report lines of one mode, base and current taking turns opener by opener."""
    game = make_game(IDS[mode])
    openers = [int(g) for g in np.random.default_rng(seed).choice(len(game.guesses), size=count, replace=False)]
    sides = {"base": Side(base, mode, budget), "current": Side(None, mode, budget)}
    got: dict[str, dict[str, float | None]] = {"base": {}, "current": {}}
    totals: dict[str, dict[str, int]] = {"base": {}, "current": {}}
    try:
        for n, guess in enumerate(openers, start=1):
            word = game.guesses[guess]
            for name in (("base", "current") if n % 2 else ("current", "base")):
                answer = sides[name].solve(guess)
                got[name][word] = None if answer is None else answer[0]
                if answer is not None:
                    totals[name][word] = answer[1]
            print(f"{mode} {n}/{count} {word}: base {got['base'][word]}, current {got['current'][word]}, totals "
                  f"{totals['base'].get(word)} {totals['current'].get(word)}", file=sys.stderr, flush=True)
    finally:
        for side in sides.values():
            side.close()
    lines = [f"## {IDS[mode]} ({len(game.answers):,} answers, {len(game.guesses):,} guesses), {count} openers, "
             "CPU seconds per opener, cold memo, side by side"]
    medians = {}
    for name in ("base", "current"):
        timed = [(t, w) for w, t in got[name].items() if t is not None]
        over = [w for w, t in got[name].items() if t is None]
        lines += summary(f"{name}: ", timed, over, budget)
        medians[name] = statistics.median([t if t is not None else float("inf") for t in got[name].values()])
    ratios = [b / c for w, c in got["current"].items() if c and (b := got["base"][w])]
    both = [w for w in totals["base"] if w in totals["current"]]
    differ = [f"{w} {totals['base'][w]} against {totals['current'][w]}" for w in both
              if totals["base"][w] != totals["current"][w]]
    lines += [f"median base / median current: {medians['base'] / medians['current']:.2f}x; median of the "
              f"per-opener ratios (both timed): {statistics.median(ratios):.2f}x over {len(ratios)} openers",
              f"totals: the same for all {len(both)} openers both sides solved" if not differ
              else f"totals DIFFER: {'; '.join(differ)}", ""]
    return lines


def report(lines: list[str], out: str | None) -> int:
    text = "\n".join(lines)
    print(text)
    if out:
        Path(out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
