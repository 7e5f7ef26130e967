"""Where a fresh clone's test suite spends its minutes (issue 65, aim 2): the README's test command's
``python -m pytest``, run in a fresh clone of a revision with every cache empty (numba's kernels, the
integrations' own environments, guessgym's cache), timed, with its slowest tests and what numba
compiled in each worker (``GUESSGYM_COMPILE_LOG``, written by ``tests/conftest.py``).

The clone's code is what its tests import (``PYTHONPATH``), so the installed guessgym is not changed;
the install itself (``pip install -e ".[test]"``) is not timed. pip's own download cache is left as it
is (a first install on a new machine also downloads the integrations' packages).

Usage (from the repository root; about as long as the suite)::

    python benchmarks/bench_suite.py [--rev HEAD] [--keep-venvs] [--durations 25]
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="HEAD", help="the revision to clone (default HEAD)")
    parser.add_argument("--keep-venvs", action="store_true",
                        help="reuse the integrations' environments already built (~/.cache/guessgym/venvs)")
    parser.add_argument("--durations", type=int, default=25, help="how many of the slowest tests to print")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="guessgym-suite-") as tmp:
        work = Path(tmp)
        clone = work / "clone"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=300)
        subprocess.run(["git", "-C", str(clone), "checkout", "-q", args.rev], check=True, timeout=60)
        env = {**os.environ, "PYTHONPATH": str(clone), "GUESSGYM_CACHE_DIR": str(work / "cache"),
               "GUESSGYM_COMPILE_LOG": str(work / "compiles")}
        env.pop("NUMBA_CACHE_DIR", None)  # the clone's own __pycache__: empty
        if not args.keep_venvs:
            env["GUESSGYM_VENV_CACHE"] = str(work / "venvs")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "pytest", f"--durations={args.durations}", "-p",
                               "no:cacheprovider"], cwd=clone, env=env, capture_output=True, text=True, timeout=5400)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        out = done.stdout
        commit = subprocess.run(["git", "-C", str(clone), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
        print(f"python -m pytest in a fresh clone of {commit} ({os.cpu_count()} CPUs; "
              f"{'integration environments reused' if args.keep_venvs else 'every cache empty'}):")
        print(f"  {wall:.0f} s wall, {cpu:.0f} CPU-s; exit {done.returncode}; "
              + (re.findall(r"=+ (.*(?:passed|failed).*) =+", out) or ["(no summary line)"])[-1])
        slowest = re.search(r"slowest \d+ durations =+\n(.*?)\n(?:=|\n)", out, re.S)
        if slowest:
            print(f"\nthe {args.durations} slowest:")
            for line in slowest.group(1).splitlines():
                print("  " + line[:150])
        per_process: dict[str, float] = {}
        by_function: collections.Counter[str] = collections.Counter()
        for log in sorted((work / "compiles").glob("*.tsv")):
            for row in log.read_text(encoding="utf-8").splitlines():
                seconds, name = row.split("\t", 1)
                per_process[log.stem] = per_process.get(log.stem, 0.0) + float(seconds)
                by_function[name] += float(seconds)
        if per_process:
            top = sorted(per_process.values(), reverse=True)
            print(f"\nnumba compiling: {sum(top):.0f} s in {len(top)} processes (the most in one: "
                  f"{', '.join(f'{s:.0f}' for s in top[:4])} s); the costliest functions, summed over processes:")
            for name, seconds in by_function.most_common(12):
                print(f"  {seconds:7.1f} s  {name}")
        if done.returncode != 0:
            print("\n" + out[-3000:] + done.stderr[-2000:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
