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

Then the yardstick the issue sets: the server beside the simplest OpenEnv environment
(``benchmarks/echo_openenv.py``: a constant observation, openenv-core's own ``create_app``, served
by ``uvicorn.run`` as its users would), the same load client, ``--echo-sessions`` sessions, one
worker and two, for ``--echo-rounds`` rounds in alternating order. It prints each round and the
medians: guessgym's steps/s over the echo environment's with one worker, and what a second worker
gains for each (the client shares the CPUs, so a second worker gains less than 2x for both).

Usage (from the repository root; about 2 minutes, and 1 more per round beside the echo environment)::

    python benchmarks/bench_server.py [--seconds 5] [--echo-rounds 3] [--echo-only] [--out FILE]
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
from typing import Any

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


def server_command(server: str, port: int, workers: int, max_sessions: int) -> list[str]:
    """How to start ``server`` (``guessgym`` or ``echo``) on ``port`` with ``workers`` workers."""
    if server == "echo":
        return [sys.executable, str(ROOT / "benchmarks" / "echo_openenv.py"), "--port", str(port), "--workers",
                str(workers)]
    return [sys.executable, "-m", "guessgym", "serve", "--port", str(port), "--workers", str(workers),
            "--max-sessions", str(max_sessions)]


def start_server(port: int, workers: int, max_sessions: int, server: str = "guessgym") -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(server_command(server, port, workers, max_sessions),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                pass
            settled(proc, deadline)  # every worker has loaded its game, not only the first to listen
            return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start within 120 s")


def settled(proc: subprocess.Popen[bytes], deadline: float) -> None:
    """Wait until the server's memory stops growing (its workers have started) or ``deadline``."""
    last = -1
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = server_rss(proc)
        if abs(now - last) < 1 << 20:
            return
        last = now


def server_rss(proc: subprocess.Popen[bytes]) -> int:
    """Resident memory of the server and its worker processes (bytes)."""
    main = psutil.Process(proc.pid)
    return sum(p.memory_info().rss for p in [main, *main.children(recursive=True)])


def sessions_per_worker(proc: subprocess.Popen[bytes], port: int) -> list[int]:
    """How many connections to ``port`` each of the server's processes holds (those holding any)."""
    counts = []
    for p in [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(recursive=True)]:
        held = sum(1 for c in p.net_connections("tcp") if c.status == psutil.CONN_ESTABLISHED and c.laddr
                   and c.laddr.port == port)
        if held:
            counts.append(held)
    return sorted(counts)


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


async def load(url: str, sessions: int, seconds: float, proc: subprocess.Popen[bytes]) -> dict[str, Any]:
    latencies: list[float] = []
    games = [0]
    counter = [0]
    start, opened = asyncio.Event(), asyncio.Event()
    before = server_rss(proc)
    tasks = [asyncio.create_task(session(url, seconds, latencies, games, start, opened, counter, sessions))
             for _ in range(sessions)]
    await asyncio.wait_for(opened.wait(), 120)
    held = server_rss(proc)
    spread = sessions_per_worker(proc, int(url.rsplit(":", 1)[1].split("/")[0]))
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
            "client_cpu": client_cpu / wall, "spread": spread}


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


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(30)


def against_echo(sessions: int, seconds: float, rounds: int) -> str:
    """guessgym's server beside the echo environment, one worker and two, ``rounds`` times, each
    worker count run for both servers in turn, which server goes first alternating from round to
    round (so the machine's drift falls on both); the ratios of each round, then their medians."""
    measured: dict[tuple[str, int], list[float]] = {}
    cpu_per_step: dict[tuple[str, int], list[float]] = {}
    spread: dict[tuple[str, int], list[list[int]]] = {}
    for r in range(rounds):
        for workers in (1, 2):
            for server in (("echo", "guessgym") if r % 2 == 0 else ("guessgym", "echo")):
                port = free_port()
                proc = start_server(port, workers, sessions, server)
                try:
                    result = asyncio.run(load(f"ws://127.0.0.1:{port}/ws", sessions, seconds, proc))
                finally:
                    stop_server(proc)
                measured.setdefault((server, workers), []).append(result["steps_per_s"])
                cpu_per_step.setdefault((server, workers), []).append(1e6 * result["server_cpu"] /
                                                                      result["steps_per_s"])
                spread.setdefault((server, workers), []).append(result["spread"])
                print(f"round {r + 1}: {server}, {workers} worker(s): {result['steps_per_s']:,.0f} steps/s "
                      f"(CPUs busy: server {result['server_cpu']:.2f}, clients {result['client_cpu']:.2f}; sessions "
                      f"per worker {result['spread']})", file=sys.stderr, flush=True)
    lines = [f"## beside the echo environment (benchmarks/echo_openenv.py): {sessions} sessions, {seconds:g} s "
             f"per run, {rounds} rounds alternating", "",
             "| round | echo 1 worker | guessgym 1 worker | guessgym / echo | echo 2 workers | guessgym 2 workers "
             "| echo 2nd worker gain | guessgym 2nd worker gain | guessgym gain / echo gain |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    ratios = []
    for r in range(rounds):
        e1, g1 = measured["echo", 1][r], measured["guessgym", 1][r]
        e2, g2 = measured["echo", 2][r], measured["guessgym", 2][r]
        share = (g2 / g1 - 1) / (e2 / e1 - 1) if e2 != e1 else float("nan")
        ratios.append(g1 / e1)
        lines.append(f"| {r + 1} | {e1:,.0f} | {g1:,.0f} | {g1 / e1:.2f}x | {e2:,.0f} | {g2:,.0f} | "
                     f"{e2 / e1:.2f}x | {g2 / g1:.2f}x | {share:.0%} |")
    ratio = statistics.median(ratios)
    gain_g = statistics.median(measured["guessgym", 2][r] / measured["guessgym", 1][r] for r in range(rounds))
    gain_e = statistics.median(measured["echo", 2][r] / measured["echo", 1][r] for r in range(rounds))
    share = (gain_g - 1) / (gain_e - 1) if gain_e != 1 else float("nan")
    lines += ["", f"medians over the rounds: one worker serves {ratio:.2f}x the echo environment's steps/s (aim >= "
              f"0.9x: {'met' if ratio >= 0.9 else 'not met'}); a second worker gains {gain_g:.2f}x for guessgym and "
              f"{gain_e:.2f}x for the echo environment, {share:.0%} of its gain (aim >= 85%: "
              f"{'met' if share >= 0.85 else 'not met'}; a single round's share swings where the echo gain is near 1x)",
              "", "server CPU per step (microseconds; the server's CPU seconds over its steps), medians: " +
              ", ".join(f"{server} {workers} worker{'s' if workers > 1 else ''} "
                        f"{statistics.median(cpu_per_step[server, workers]):.0f}"
                        for server in ("echo", "guessgym") for workers in (1, 2)),
              "", "sessions per worker with two workers, each round: " +
              "; ".join(f"{server} {', '.join('/'.join(map(str, c)) for c in spread[server, 2])}"
                        for server in ("echo", "guessgym"))]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="load per row (default: %(default)s)")
    parser.add_argument("--out", help="also write the table to this file")
    parser.add_argument("--echo-rounds", type=int, default=3,
                        help="rounds beside the echo environment at --echo-sessions (0: none; default: %(default)s)")
    parser.add_argument("--echo-sessions", type=int, default=64, help="sessions beside the echo environment "
                        "(default: %(default)s)")
    parser.add_argument("--echo-only", action="store_true", help="only the runs beside the echo environment")
    args = parser.parse_args()
    if args.echo_only:
        table = against_echo(args.echo_sessions, args.seconds, args.echo_rounds)
        print(table)
        if args.out:
            Path(args.out).write_text(f"# python benchmarks/bench_server.py --echo-only --seconds {args.seconds:g} "
                                      f"--echo-rounds {args.echo_rounds}  ({os.cpu_count()} CPUs)\n\n{table}\n",
                                      encoding="utf-8")
        return 0
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
            stop_server(proc)
    lines = [f"# python benchmarks/bench_server.py --seconds {args.seconds:g}  ({os.cpu_count()} CPUs; clients and "
             "server on this machine)", "",
             "| where | sessions | steps/s | games/s | step median (ms) | step p99 (ms) | server KB per session | "
             "CPUs busy: server, clients | sessions per worker |",
             "|---|---:|---:|---:|---:|---:|---:|---|---|"]
    for where, n, r in rows:
        kb = "-" if r["kb_per_session"] != r["kb_per_session"] else f"{r['kb_per_session']:,.0f}"
        cpus = "-" if r["server_cpu"] != r["server_cpu"] else f"{r['server_cpu']:.2f}, {r['client_cpu']:.2f}"
        lines.append(f"| {where} | {n} | {r['steps_per_s']:,.0f} | {r['games_per_s']:,.0f} | {r['median_ms']:.2f} | "
                     f"{r['p99_ms']:.2f} | {kb} | {cpus} | {'/'.join(map(str, r.get('spread', []))) or '-'} |")
    table = "\n".join(lines)
    if args.echo_rounds:
        table += "\n\n" + against_echo(args.echo_sessions, args.seconds, args.echo_rounds)
    print(table)
    if args.out:
        Path(args.out).write_text(table + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
