"""Run the RL benchmark's reference scores: every algorithm on the smallest tiers over the seeds.

    python scripts/benchmark_references.py --jobs 2          # what results/benchmark/ holds (protocol 1)
    python scripts/benchmark_references.py --protocol 2 --tier wordle-500     # results/benchmark-v2/runs
    python scripts/benchmark_references.py --tier wordle --backend ray --address HOST:6379   # a Ray cluster

Each run is ``guessgym benchmark run --protocol P --algo A --tier T --seed S --log-dir
results/benchmark/runs`` (protocol 2: ``results/benchmark-v2/runs``) in a process of its own (one
torch thread each); a complete run is skipped and a stopped one
continues from its checkpoint, so the same command resumes the whole set after an interruption.
Ctrl-C or SIGTERM stops the set: no queued run starts, and each run under way saves a checkpoint
and stops (Ctrl-C reaches them from the terminal; SIGTERM is passed on to them).
With ``--backend ray`` each run is a Ray task instead (:mod:`guessgym.training.benchmark.references`:
the same record as a local run's, brought back into ``--log-dir``; give a ``--log-dir`` every node
sees for a stopped run to resume on any node). Ctrl-C cancels the tasks not started.
Then ``guessgym benchmark report results/benchmark/runs --out results/benchmark`` draws the page.
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from guessgym.training.benchmark.hyperparams import ALGORITHMS
from guessgym.training.benchmark.protocol import PROTOCOLS, Protocol, protocol
from guessgym.training.benchmark.references import takes_part

ROOT = Path(__file__).resolve().parents[1]


def on_ray(spec: Protocol, runs: list[tuple[str, int, str]], log_dir: Path, address: str | None, jobs: int) -> int:
    """The runs as Ray tasks; 0 when every run is complete, 1 otherwise, 130 when stopped."""
    from guessgym.training.benchmark.references import ReferenceRun, outcome_line, run_on_ray

    items = [ReferenceRun(spec.tier(t), a, s) for t, s, a in runs]
    started = time.perf_counter()
    complete = 0
    try:
        for outcome in run_on_ray(items, log_dir, address=address, n_jobs=jobs):
            complete += outcome.complete
            print(f"[{time.perf_counter() - started:6.0f} s] {outcome_line(outcome)}", flush=True)
    except KeyboardInterrupt:
        print(f"stopped: {complete} of {len(items)} runs complete (the same command continues)", flush=True)
        return 130
    except ConnectionError as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"{complete} of {len(items)} runs complete", flush=True)
    return 0 if complete == len(items) else 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--protocol", choices=list(PROTOCOLS), default="1", help="the protocol version (default 1)")
    parser.add_argument("--tier", action="append", help="a tier (repeatable; default: the protocol's reference tiers)")
    parser.add_argument("--algo", action="append", choices=list(ALGORITHMS), help="an algorithm (default: all)")
    parser.add_argument("--seeds", type=int, nargs="+", help="seeds (default: each tier's reference seeds)")
    parser.add_argument("--jobs", type=int, default=1, help="runs at once (each uses one core)")
    parser.add_argument("--log-dir", type=Path, help="where the runs go (default results/benchmark/runs, protocol 2: "
                        "results/benchmark-v2/runs)")
    parser.add_argument("--backend", choices=("process", "ray"), default="process",
                        help="process: runs of their own on this machine (default); ray: Ray tasks")
    parser.add_argument("--address",
                        help="the Ray cluster (HOST:PORT or auto; default: a local instance of --jobs CPUs)")
    args = parser.parse_args()
    if args.address and args.backend != "ray":
        parser.error("--address: only with --backend ray")
    spec = protocol(args.protocol)
    try:
        tiers = [spec.tier(t) for t in (args.tier or spec.reference_tiers)]
    except ValueError as exc:
        parser.error(str(exc))
    args.log_dir = args.log_dir or ROOT / "results" / ("benchmark" if spec.version == "1" else
                                                        f"benchmark-v{spec.version}") / "runs"
    runs = [(t.name, s, a) for t in tiers for s in (args.seeds or t.seeds) for a in (args.algo or ALGORITHMS)
            if takes_part(spec, t, a)]
    if args.backend == "ray":
        raise SystemExit(on_ray(spec, runs, args.log_dir, args.address, args.jobs))

    stopping = threading.Event()
    running: set[subprocess.Popen[str]] = set()
    lock = threading.Lock()

    def one(item: tuple[str, int, str]) -> int:
        tier, seed, algo = item
        with lock:
            if stopping.is_set():
                return 130  # stopped before it started: the same command starts it
            proc = subprocess.Popen([sys.executable, "-m", "guessgym", "benchmark", "run", "--protocol", spec.version,
                                     "--algo", algo, "--tier", tier, "--seed", str(seed), "--log-dir",
                                     str(args.log_dir), "--no-progress"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            running.add(proc)
        started = time.perf_counter()
        out, err = proc.communicate()
        with lock:
            running.discard(proc)
        last = (out.strip().splitlines() or [""])[-1]
        print(f"[{time.perf_counter() - started:6.0f} s] {tier} {algo} seed {seed}: rc={proc.returncode} {last}"
              + (f"\n{err[-2000:]}" if proc.returncode not in (0, 130) else ""), flush=True)
        return proc.returncode

    def stop(signum: int, frame: object) -> None:
        stopping.set()
        print("stopping: no queued run starts; the runs under way save a checkpoint and stop", file=sys.stderr,
              flush=True)
        if signum == signal.SIGTERM:
            with lock:
                for proc in running:
                    proc.send_signal(signal.SIGTERM)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    with ThreadPoolExecutor(args.jobs) as pool:
        codes = list(pool.map(one, runs))
    complete = sum(1 for c in codes if c == 0)
    print(f"{complete} of {len(runs)} runs complete" + (" (stopped: the same command continues)"
                                                         if stopping.is_set() else ""), flush=True)
    raise SystemExit(130 if stopping.is_set() else 1 if complete < len(runs) else 0)


if __name__ == "__main__":
    main()
