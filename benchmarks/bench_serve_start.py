"""How long ``guessgym serve`` takes to be ready to play from an empty cache, and what it leaves in
the cache, this checkout against another revision, side by side in one run.

Issue 51, aim 3: ``guessgym serve --env guessgym/NerdleChat-v0`` answered ``/health`` after 14 s
on an idle 2-core machine (over 35 s on a busy one) and wrote a 628 MB pattern cache. Each
measurement starts the command in a fresh process with an empty ``GUESSGYM_CACHE_DIR`` (the base
revision's code from a temporary ``git worktree``) and times it until a game is played: a session
socket opened, a reset and a first guess answered. Base and current alternate; best of ``--rounds``.
First, once per side, a fresh clone's first start: numba's kernel cache empty too, so the kernels a
first game needs are compiled (seconds, once per machine and checkout).

Usage (from the repository root)::

    python benchmarks/bench_serve_start.py [--base REV] [--envs guessgym/WordleChat-v0 guessgym/NerdleChat-v0]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_revisions import base_worktree, import_root  # noqa: E402

#: The first guess of each game kind (valid in every revision's lists).
FIRST = {"guessgym/WordleChat-v0": "[crane]", "guessgym/NerdleChat-v0": "[54-36=18]"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def ready_to_play(port: int, first: str, deadline: float) -> None:
    """Poll until a game is played over the session socket (reset, then one guess)."""
    from websockets.sync.client import connect

    while True:
        try:
            with connect(f"ws://127.0.0.1:{port}/ws", open_timeout=2) as ws:
                ws.send(json.dumps({"type": "reset", "data": {"seed": 0}}))
                assert json.loads(ws.recv(timeout=60))["type"] == "observation"
                ws.send(json.dumps({"type": "step", "data": {"message": first}}))
                answer = json.loads(ws.recv(timeout=60))
                assert answer["type"] == "observation", answer
                return
        except (OSError, TimeoutError):
            if time.monotonic() > deadline:
                raise TimeoutError("the server was not ready in time") from None
            time.sleep(0.05)


def measure(tree: Path | None, env_id: str, *, compile_kernels: bool = False) -> dict[str, float]:
    """Seconds until ``env_id`` is played on a fresh server with an empty guessgym cache, and the bytes
    it left there; with ``compile_kernels``, numba's cache empty too (a fresh clone's first start)."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="guessgym-cache-") as cache:
        env = {**os.environ, "GUESSGYM_CACHE_DIR": cache}
        if compile_kernels:
            env["NUMBA_CACHE_DIR"] = str(Path(cache) / "numba")
        if tree is not None:
            env["PYTHONPATH"] = str(import_root(tree))
        started = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "guessgym", "serve", "--env", env_id, "--port", str(port)],
                                env=env, cwd=tempfile.gettempdir(), stderr=subprocess.DEVNULL)
        try:
            ready_to_play(port, FIRST[env_id], started + 300)
            seconds = time.monotonic() - started
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        cached = sum(p.stat().st_size for p in Path(cache).rglob("*") if p.is_file() and "numba" not in p.parts)
    return {"seconds": seconds, "cache": cached}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="a git revision to compare with (a temporary worktree)")
    parser.add_argument("--envs", nargs="+", default=list(FIRST), choices=list(FIRST))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with base_worktree(args.base) as base:
        sides = (("base", base), ("current", None)) if base is not None else (("current", None),)
        print("first start of a fresh clone (numba's kernels compiled: its cache empty too), once per side:")
        for env_id in args.envs:
            first = {side: measure(tree, env_id, compile_kernels=True)["seconds"] for side, tree in sides}
            print(f"  {env_id:26s} " + "  ".join(f"{side} {sec:.2f} s" for side, sec in first.items()), flush=True)
        for _, tree in sides:  # numba's own caches, once per side
            measure(tree, args.envs[0])
        print(f"{'env':26s} {'base s':>8s} {'base cache MB':>14s} {'current s':>10s} {'current cache MB':>17s} "
              f"{'base/current':>13s}")
        for env_id in args.envs:
            best: dict[str, dict[str, float]] = {}
            for _ in range(args.rounds):
                for side, tree in sides:
                    row = measure(tree, env_id)
                    if side not in best or row["seconds"] < best[side]["seconds"]:
                        best[side] = row
            b, c = best.get("base"), best["current"]
            print(f"{env_id:26s} {b['seconds'] if b else float('nan'):8.2f} "
                  f"{(b['cache'] / 1e6) if b else float('nan'):14.1f} {c['seconds']:10.2f} {c['cache'] / 1e6:17.1f} "
                  f"{(b['seconds'] / c['seconds']) if b else float('nan'):12.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
