"""guessgym's exact solver beside Alex Selby's C++ Wordle solver, the reference that published the optima.

Issue 28 asks for per-opener speed at least equal to the reference's: the exact SALET tree (normal
and hard mode) and refuting openers against the best total 7,897. Given ``--reference PATH`` (the
reference's source file ``wordle.cpp``, a folder holding it, or a built executable), this builds it
with ``g++ -O3 -march=native`` in a temporary folder (the source is MIT-licensed and published by
its author with the Wordle optima at github.com/alex1770/wordle; guessgym does not ship it), writes
guessgym's NYT lists in the reference's format and runs each case on both, alternating, best of
``--rounds``. Without ``--reference`` it times guessgym alone.

Each guessgym case runs in a fresh process with an empty memo, its pattern matrix built before the
clock starts; both sides are timed in CPU seconds of their process (the reference prints its own,
its scoring table also built before its clock starts), so a machine shared with other work slows
neither side's figure more than the other's. Both totals (or bounds) are printed and must agree: the tree's total, or
for a refuted opener a lower bound of at least 7,897 on both sides. The last column is guessgym's
time over the reference's (at most 1.0 is the issue's target).

The first case (issue 65, aim 4) times each side as a user runs it, the whole process from the shell
to the tree written: ``guessgym solve --opener salet --no-memo --out F`` (imports, numba's kernels
loaded from their cache, the pattern matrix read from guessgym's cache folder and verified, the search,
the tree checked against the environment and written) against ``wordle -h H -a A -w salet -p F``
(its score table built, the search, the tree written). Both are timed by the operating system
(``getrusage`` of the children, one run at a time): CPU seconds of the child, wall time beside them.
``--no-memo`` keeps guessgym from answering from the subproblems a previous run saved, which the
reference has no counterpart of.
guessgym runs once untimed first, so its matrix is cached as after a user's first solve.

Usage (from the repository root)::

    python benchmarks/bench_reference.py --reference ~/src/wordle/wordle.cpp [--rounds 2] [--openers roset weize]
    python benchmarks/bench_reference.py --reference ~/src/wordle/wordle.cpp --rounds 5 --whole-process-only
    python benchmarks/bench_reference.py            # guessgym alone
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_revisions import run_child  # noqa: E402

#: Refuted against 7,897: five ranked 50-90 by guessgym's move ordering (issue 28: 3.0-3.7x slower than the
#: reference), then weak openers (issue 28: 9.5x to 1,300x slower).
OPENERS = ("roset", "tares", "raine", "strae", "arose", "twoer", "laves", "byrls", "perdy", "weize")
BOUND = 7897
TIMEOUT = 1800
#: The line in which the reference prints its total.
REFERENCE_TOTAL = r"Best first guess score =\s*([0-9]+)"

CHILD = r"""
import json, sys, time
from guessgym.envs.game import make_game
from guessgym.baselines.optimal import ExactSearch, SearchKernel
from guessgym.envs.matrix import PatternMatrix
case, word, hard = sys.argv[1], sys.argv[2], sys.argv[3] == "hard"
game = make_game("guessgym/WordleHard-v1" if hard else "guessgym/Wordle-v1", word_list="nyt")
PatternMatrix.for_game(game)
search = ExactSearch(game)
from guessgym.baselines.optimal import solve
kernel = SearchKernel(game, search.mt, 0, 0.0, None)
started, cpu = time.perf_counter(), time.process_time()
if case == "tree":
    value = solve(game, opener=word).total
else:
    value = search.opener_cost(kernel, game.guess_index[word], int(sys.argv[4]))[1]
print(json.dumps({"seconds": time.process_time() - cpu, "wall": time.perf_counter() - started, "value": value}))
"""


def build_reference(path: Path, folder: Path) -> Path:
    """The reference's executable: ``path`` itself, or built from ``path`` (the source or its folder)."""
    if path.is_dir():
        path = path / "wordle.cpp"
    if not path.is_file():
        sys.exit(f"--reference: {path} is not a file (give wordle.cpp, its folder, or a built executable)")
    if path.suffix != ".cpp":
        if not os.access(path, os.X_OK):
            sys.exit(f"--reference: {path} is neither a .cpp source nor an executable")
        return path
    compiler = shutil.which("g++") or shutil.which("clang++")
    if compiler is None:
        sys.exit("--reference: building the source needs g++ or clang++ on PATH")
    binary = folder / "wordle"
    subprocess.run([compiler, "-O3", "-march=native", '-DCOMMITDESC="bench_reference"', "-o", str(binary), str(path)],
                   check=True, timeout=600)
    return binary


def write_lists(folder: Path) -> tuple[Path, Path]:
    from guessgym.envs.game import make_game

    game = make_game("guessgym/Wordle-v1", word_list="nyt")
    hidden, allowed = folder / "wordlist_hidden", folder / "wordlist_all"
    hidden.write_text("\n".join(game.answers) + "\n")
    allowed.write_text("\n".join(game.guesses) + "\n")
    return hidden, allowed


def run_reference(binary: Path, lists: tuple[Path, Path], case: str, word: str, hard: bool, folder: Path
                  ) -> dict[str, float]:
    args = [str(binary), "-h", str(lists[0]), "-a", str(lists[1]), "-w", word, *(["-H"] if hard else [])]
    args += ["-p", str(folder / "tree.txt")] if case == "tree" else ["-b", str(BOUND)]
    out = subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT, cwd=folder)
    if out.returncode != 0:
        sys.exit(f"the reference failed on {word}:\n{out.stdout[-2000:]}{out.stderr[-2000:]}")
    seconds = re.search(r"Time taken = ([0-9.]+)s", out.stdout)
    value = re.search(REFERENCE_TOTAL, out.stdout)
    if seconds is None or value is None:
        sys.exit(f"the reference's output has no time or score:\n{out.stdout[-2000:]}")
    return {"seconds": float(seconds.group(1)), "value": int(value.group(1))}


def run_whole(args: list[str], folder: Path, env: dict[str, str]) -> dict[str, float]:
    """One whole process: its CPU seconds (user + system, the operating system's count for the children
    reaped, one at a time here), wall seconds and the total it printed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    out = subprocess.run(args, cwd=folder, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        sys.exit(f"{' '.join(args)} failed:\n{out.stdout[-2000:]}{out.stderr[-2000:]}")
    value = re.search(r"total ([0-9,]+) over|" + REFERENCE_TOTAL, out.stdout + out.stderr)
    if value is None:
        sys.exit(f"{' '.join(args)} printed no total:\n{out.stdout[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"seconds": cpu, "wall": wall, "value": int((value.group(1) or value.group(2)).replace(",", ""))}


def run_guessgym(case: str, word: str, hard: bool) -> dict[str, float]:
    result: dict[str, float] = run_child(CHILD, [case, word, "hard" if hard else "normal", str(BOUND)],
                                         timeout=TIMEOUT)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", type=Path, help="the reference's wordle.cpp, its folder, or its executable")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds; the best time of each side is kept")
    parser.add_argument("--openers", nargs="+", default=list(OPENERS), help="openers to refute against 7,897")
    parser.add_argument("--no-trees", action="store_true", help="skip the SALET trees")
    parser.add_argument("--whole-process-only", action="store_true",
                        help="only the whole-process case (guessgym solve --opener salet against the reference's run)")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    cases = [("whole", "salet", False)]
    if not args.whole_process_only:
        cases += [] if args.no_trees else [("tree", "salet", False), ("tree", "salet", True)]
        cases += [("refute", w.lower(), False) for w in args.openers]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        binary = build_reference(args.reference.expanduser(), folder) if args.reference else None
        lists = write_lists(folder)
        print(f"bench_reference: best of {args.rounds} alternating rounds; {platform.machine()}, "
              f"{os.cpu_count()} CPUs, Python {platform.python_version()}; "
              f"reference: {args.reference if binary else 'not given (guessgym alone)'}")
        run_guessgym("refute", "weize", False)  # numba compiles the kernels into its cache once, untimed
        env = {**os.environ, "GUESSGYM_CACHE_DIR": str(folder / "cache")}
        cli = shutil.which("guessgym")
        whole = {"guessgym": [*([cli] if cli else [sys.executable, "-m", "guessgym"]), "solve", "--opener", "salet",
                              "--no-memo", "--out", str(folder / "guessgym-salet.txt")]}
        if binary is not None:
            whole["reference"] = [str(binary), "-h", str(lists[0]), "-a", str(lists[1]), "-w", "salet",
                                  "-p", str(folder / "tree.txt")]
        run_whole(whole["guessgym"], folder, env)  # the pattern matrix cached, as a first solve leaves it
        print(f"{'case':24s} {'guessgym s':>11s} {'value':>6s} {'reference s':>12s} {'value':>6s} {'ratio':>7s}")
        ratios = []
        for case, word, hard in cases:
            best: dict[str, dict[str, float]] = {}
            for _ in range(args.rounds):
                for side in ("guessgym", "reference") if binary is not None else ("guessgym",):
                    if case == "whole":
                        r = run_whole(whole[side], folder, env)
                    elif side == "guessgym":
                        r = run_guessgym(case, word, hard)
                    else:
                        r = run_reference(binary, lists, case, word, hard, folder)  # type: ignore[arg-type]
                    if side not in best or r["seconds"] < best[side]["seconds"]:
                        best[side] = r
            ours = best["guessgym"]
            names = {"whole": "solve salet, process", "tree": "SALET tree", "refute": "refute " + word}
            label = f"{names[case]}{' (hard)' if hard else ''}"
            if case == "refute":
                assert ours["value"] >= BOUND, f"{word}: guessgym did not refute it ({ours['value']})"
            line = f"{label:24s} {ours['seconds']:11.2f} {int(ours['value']):6d}"
            if "reference" in best:
                ref = best["reference"]
                if case in ("tree", "whole"):
                    assert ref["value"] == ours["value"], f"{label}: totals differ ({ours['value']} vs {ref['value']})"
                else:
                    assert ref["value"] >= BOUND, f"{word}: the reference did not refute it ({ref['value']})"
                ratio = ours["seconds"] / max(ref["seconds"], 0.01)  # the reference prints hundredths
                ratios.append(ratio)
                line += f" {ref['seconds']:12.2f} {int(ref['value']):6d} {ratio:7.3f}"
            if case == "whole":
                line += f"   wall {ours['wall']:.2f} s" + (
                    f" against {best['reference']['wall']:.2f} s" if "reference" in best else "")
            print(line, flush=True)
        if ratios:
            print(f"guessgym / reference: at most {max(ratios):.2f}, geometric mean "
                  f"{math.prod(ratios) ** (1 / len(ratios)):.2f} "
                  f"({sum(r <= 1.0 for r in ratios)} of {len(ratios)} cases at most 1.0)")
    return 0


if __name__ == "__main__":
    started = time.perf_counter()
    code = main()
    print(f"({time.perf_counter() - started:.0f} s in all)", file=sys.stderr)
    sys.exit(code)
