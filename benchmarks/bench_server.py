"""Load on guessgym's OpenEnv server: games per second, step latency and memory per session,
against the same games played in process.

The server runs as ``guessgym serve`` in its own process (one worker, then two), on 127.0.0.1; the
clients are one asyncio process speaking OpenEnv's session protocol on ``/ws`` (what its
``EnvClient`` sends), ``N`` sessions at once for 1, 16, 64 and 256 sessions, each playing Wordle
games with a fixed list of replies (valid guesses, so every step plays a guess) for ``--seconds``.
Latency is per step, from send to reply, over every step of the run; memory per session is the
growth of the server's resident memory with ``N`` sessions open, divided by ``N``; the last column is
the CPUs the server's processes and the clients kept busy (CPU seconds over wall seconds), which
says what limits each row. The in-process row plays the same replies through ``ChatGuessEnv`` in
one process, with no server.

Usage (from the repository root; about 2 minutes)::

    python benchmarks/bench_server.py [--seconds 5] [--out results/benchmarks/server.txt]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import psutil
from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from guessgym.envs.chat import ChatGuessEnv  # noqa: E402

#: The replies every game plays, in order, until it ends (six valid guesses: a game is 1 to 6 steps).
REPLIES = ["[salet]", "[corny]", "[dumpy]", "[whack]", "[fight]", "[vivid]"]
SESSIONS = (1, 16, 64, 256)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(port: int, workers: int, max_sessions: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, "-m", "guessgym", "serve", "--port", str(port), "--workers",
                             str(workers), "--max-sessions", str(max_sessions)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                time.sleep(1.0)  # the workers finish starting
                return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start within 120 s")


def server_rss(proc: subprocess.Popen[bytes]) -> int:
    """Resident memory of the server and its worker processes (bytes)."""
    main = psutil.Process(proc.pid)
    return sum(p.memory_info().rss for p in [main, *main.children(recursive=True)])


def cpu_seconds(pid: int, children: bool = True) -> float:
    """User and system CPU seconds of ``pid`` (and its children, the server's workers) so far."""
    main = psutil.Process(pid)
    return sum(sum(p.cpu_times()[:2]) for p in [main, *(main.children(recursive=True) if children else [])])


async def session(url: str, seconds: float, latencies: list[float], games: list[int], start: asyncio.Event,
                  opened: asyncio.Event, counter: list[int], total: int) -> None:
    async with connect(url, max_size=8 << 20, open_timeout=60) as ws:
        await ws.send(json.dumps({"type": "reset", "data": {"seed": len(latencies)}}))
        json.loads(await ws.recv())
        counter[0] += 1
        if counter[0] == total:
            opened.set()
        await start.wait()
        end = time.perf_counter() + seconds
        seed = 0
        while time.perf_counter() < end:
            for reply in REPLIES:
                sent = time.perf_counter()
                await ws.send(json.dumps({"type": "step", "data": {"message": reply}}))
                answer = json.loads(await ws.recv())
                latencies.append(time.perf_counter() - sent)
                if answer["data"]["done"]:
                    break
            games[0] += 1
            seed += 1
            await ws.send(json.dumps({"type": "reset", "data": {"seed": seed}}))
            json.loads(await ws.recv())


async def load(url: str, sessions: int, seconds: float, proc: subprocess.Popen[bytes]) -> dict[str, float]:
    latencies: list[float] = []
    games = [0]
    counter = [0]
    start, opened = asyncio.Event(), asyncio.Event()
    before = server_rss(proc)
    tasks = [asyncio.create_task(session(url, seconds, latencies, games, start, opened, counter, sessions))
             for _ in range(sessions)]
    await asyncio.wait_for(opened.wait(), 120)
    held = server_rss(proc)
    server_cpu, client_cpu = cpu_seconds(proc.pid), cpu_seconds(os.getpid(), children=False)
    began = time.perf_counter()
    start.set()
    await asyncio.gather(*tasks)
    wall = time.perf_counter() - began
    server_cpu = cpu_seconds(proc.pid) - server_cpu
    client_cpu = cpu_seconds(os.getpid(), children=False) - client_cpu
    ordered = sorted(latencies)
    return {"steps_per_s": len(latencies) / wall, "games_per_s": games[0] / wall,
            "median_ms": 1000 * statistics.median(ordered), "p99_ms": 1000 * ordered[int(0.99 * (len(ordered) - 1))],
            "kb_per_session": (held - before) / sessions / 1024, "server_cpu": server_cpu / wall,
            "client_cpu": client_cpu / wall}


def in_process(seconds: float) -> dict[str, float]:
    env = ChatGuessEnv()
    steps = games = 0
    latencies = []
    end = time.perf_counter() + seconds
    began = time.perf_counter()
    while time.perf_counter() < end:
        env.reset(seed=games)
        for reply in REPLIES:
            sent = time.perf_counter()
            done = env.step(reply)[2]
            latencies.append(time.perf_counter() - sent)
            steps += 1
            if done:
                break
        games += 1
    wall = time.perf_counter() - began
    ordered = sorted(latencies)
    return {"steps_per_s": steps / wall, "games_per_s": games / wall, "median_ms": 1000 * statistics.median(ordered),
            "p99_ms": 1000 * ordered[int(0.99 * (len(ordered) - 1))], "kb_per_session": float("nan"),
            "server_cpu": float("nan"), "client_cpu": float("nan")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="load per row (default: %(default)s)")
    parser.add_argument("--out", help="also write the table to this file")
    args = parser.parse_args()
    rows = [("in process (no server)", 1, in_process(args.seconds))]
    for workers in (1, 2):
        port = free_port()
        proc = start_server(port, workers, max(SESSIONS))
        try:
            for n in SESSIONS:
                rows.append((f"server, {workers} worker{'s' if workers > 1 else ''}", n,
                             asyncio.run(load(f"ws://127.0.0.1:{port}/ws", n, args.seconds, proc))))
                print(rows[-1], file=sys.stderr, flush=True)
        finally:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
    lines = [f"# python benchmarks/bench_server.py --seconds {args.seconds:g}  ({os.cpu_count()} CPUs; clients and "
             "server on this machine)", "",
             "| where | sessions | steps/s | games/s | step median (ms) | step p99 (ms) | server KB per session | "
             "CPUs busy: server, clients |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    for where, n, r in rows:
        kb = "-" if r["kb_per_session"] != r["kb_per_session"] else f"{r['kb_per_session']:,.0f}"
        cpus = "-" if r["server_cpu"] != r["server_cpu"] else f"{r['server_cpu']:.2f}, {r['client_cpu']:.2f}"
        lines.append(f"| {where} | {n} | {r['steps_per_s']:,.0f} | {r['games_per_s']:,.0f} | {r['median_ms']:.2f} | "
                     f"{r['p99_ms']:.2f} | {kb} | {cpus} |")
    table = "\n".join(lines)
    print(table)
    if args.out:
        Path(args.out).write_text(table + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
