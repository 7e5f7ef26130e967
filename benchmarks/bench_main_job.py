"""README command 1, ``guessgym compare``, this checkout against another revision: wall time and peak
memory from an empty cache and from the cache that run filled, side by side in one run, and the
same results.

Issue 51, aim 1: the main job took 7 min 33 s and 4.3 GB from an empty cache on 2 cores, 5 min 2 s
warm. Each side runs the command in a fresh process (the base revision's code from a temporary
``git worktree``), first with an empty ``GUESSGYM_CACHE_DIR`` (cold), then again with the cache
that run filled (warm); the sides alternate (base cold, current cold, base warm, current warm).
numba's compiled kernels are kept in that folder too (``NUMBA_CACHE_DIR``), so a cold run compiles
them, as a fresh install's first command does, on both sides alike (before 2026-11-29 the current
checkout's kernels were already compiled in its source folder and the base worktree's were not,
which counted the base's compiling against it: against 7ce1b2b 283 s cold against 187 s the old
way, 263 s against 236 s with both compiling, ``results/benchmarks/main_job.md``).
Every result file of the two sides' runs is then compared with the timings left out (``wall_seconds``,
``seconds_per_game`` and the like), and every move analysis byte for byte: a change that is only
faster prints ``same results``.

Usage (from the repository root; about 25 minutes for every answer)::

    python benchmarks/bench_main_job.py --base 308a065 [--sample 100] [--warm-only | --cold-only]
        [--analysis-budget S]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_revisions import base_worktree, import_root  # noqa: E402

#: Result fields that say how and when the run went, not what it found: timings, and the backend
#: that played (a deterministic solver's games are now played as a tree, ``backend: tree``).
TIMINGS = {"wall_seconds", "seconds", "seconds_per_game", "s_per_game", "time", "elapsed", "python", "platform",
           "created", "date", "command", "backend", "n_jobs"}


#: Runs the command in a fresh process and prints the peak resident memory of the largest process
#: of its tree (the command's own, or a worker's), in KiB, and the CPU seconds of the whole tree.
WRAP = r"""
import resource, subprocess, sys
code = subprocess.run(sys.argv[1:]).returncode
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(usage.ru_maxrss, usage.ru_utime + usage.ru_stime)
sys.exit(code)
"""


def run(tree: Path | None, cache: Path, out: Path, sample: int | None,
        analysis_budget: float | None = None) -> dict[str, float]:
    """``guessgym compare`` in a fresh process; its wall seconds and the peak resident memory of its
    largest process."""
    env = {**os.environ, "GUESSGYM_CACHE_DIR": str(cache), "NUMBA_CACHE_DIR": str(cache / "numba")}
    if tree is not None:
        env["PYTHONPATH"] = str(import_root(tree))
    argv = [sys.executable, "-m", "guessgym", "compare", "--out", str(out), "--no-progress"]
    if sample is not None:
        argv += ["--sample", str(sample)]
    if analysis_budget is not None:
        argv += ["--analysis-budget", f"{analysis_budget:g}"]
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", WRAP, *argv], env=env, cwd=tempfile.gettempdir(),
                          capture_output=True, text=True, timeout=3600)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        sys.exit(f"compare failed ({tree or 'current'}):\n{done.stderr[-3000:]}")
    peak, cpu = done.stdout.strip().splitlines()[-1].split()
    return {"seconds": seconds, "peak": float(peak) * 1024.0, "cpu": float(cpu)}


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def differences(a: Path, b: Path) -> list[str]:
    """What differs between two runs' folders: result JSON without timings, analyses byte for byte."""
    found = []
    names = sorted({p.name for p in a.iterdir()} | {p.name for p in b.iterdir()})
    for name in names:
        if name.endswith(".json"):
            if not (a / name).is_file() or not (b / name).is_file():
                found.append(f"{name}: only in one run")
                continue
            x, y = (_strip(json.loads((d / name).read_text())) for d in (a, b))
            if x != y:
                keys = sorted(k for k in set(x) | set(y) if x.get(k) != y.get(k))
                meta = sorted(k for k in set(x.get("meta", {})) | set(y.get("meta", {}))
                              if x.get("meta", {}).get(k) != y.get("meta", {}).get(k))
                found.append(f"{name}: {keys} (meta: {meta})")
        elif name.endswith(".analysis.json.gz"):
            if gzip.decompress((a / name).read_bytes()) != gzip.decompress((b / name).read_bytes()):
                found.append(f"{name}: the moves differ")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="a git revision to compare with (a temporary worktree)")
    parser.add_argument("--sample", type=int, help="a seeded sample of this many answers per game (default: every one)")
    parser.add_argument("--warm-only", action="store_true", help="fill each side's cache unmeasured, then time warm")
    parser.add_argument("--cold-only", action="store_true", help="time each side from an empty cache only")
    parser.add_argument("--analysis-budget", type=float, metavar="S", help="compare's --analysis-budget on both sides")
    args = parser.parse_args()
    rows: dict[tuple[str, str], dict[str, float]] = {}
    with base_worktree(args.base) as base, tempfile.TemporaryDirectory(prefix="guessgym-main-job-") as tmp:
        sides = [("base", base)] if base is not None else []
        sides.append(("current", None))
        work = Path(tmp)
        stages = ("cold",) if args.cold_only else ("cold", "warm")
        for stage in stages:
            for side, tree in sides:
                out = work / f"{side}-{stage}"
                row = run(tree, work / f"cache-{side}", out, args.sample, args.analysis_budget)
                if stage == "cold" and args.warm_only:
                    continue
                rows[side, stage] = row
                print(f"  {side} {stage}: {row['seconds']:.1f} s wall, {row['cpu']:.0f} CPU-s, "
                      f"peak {row['peak'] / 2**30:.2f} GiB", flush=True)
        options = (f" --sample {args.sample}" if args.sample else "") + \
            (f" --analysis-budget {args.analysis_budget:g}" if args.analysis_budget is not None else "")
        print(f"\nguessgym compare{options} (every entry of the main job):")
        print(f"{'':8s} {'cold s':>8s} {'cold CPU':>9s} {'warm s':>8s} {'warm CPU':>9s} {'peak GiB':>9s}")
        nan = float("nan")
        for side, _ in sides:
            cold, warm = rows.get((side, "cold")), rows.get((side, "warm"))
            peak = max(r["peak"] for r in (cold, warm) if r is not None)
            print(f"{side:8s} {cold['seconds'] if cold else nan:8.1f} {cold['cpu'] if cold else nan:9.0f} "
                  f"{warm['seconds'] if warm else nan:8.1f} {warm['cpu'] if warm else nan:9.0f} {peak / 2**30:9.2f}")
        if base is not None:
            compared = stages[-1]
            found = differences(work / f"base-{compared}", work / f"current-{compared}")
            print("\nsame results" if not found else "\nresults differ:\n  " + "\n  ".join(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
