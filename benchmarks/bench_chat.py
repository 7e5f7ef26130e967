"""The chat environment's own overhead per turn, beside the plain environment, in one run.

For each game a scripted policy draws the same random allowed guesses for both environments.
The plain :class:`~guessgym.envs.env.GuessEnv` plays them as action indices; the
:class:`~guessgym.envs.chat.env.ChatGuessEnv` receives them as replies with some reasoning text
around the bracketed guess, and one reply in ten is invalid (no brackets, a wrong length or an
unknown word, in turn), so parsing, retries, feedback and prompt building are all exercised.
Both loops count everything (stepping, and resetting at the end of each game).

The chat turn includes a plain step, so its own overhead per turn is
``1 / chat turns per s - 1 / plain steps per s``; the issue's target is an overhead of at
least 20,000 turns per second (at most 50 microseconds per turn).

Usage (from the repository root)::

    python benchmarks/bench_chat.py [--turns 50000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import sys
import time
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parents[1]
if str(_ROOT) not in sys.path:  # run as a file from a checkout without installing
    sys.path.insert(0, str(_ROOT))

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402

from guessgym.envs.chat.env import ChatGuessEnv  # noqa: E402
from guessgym.envs.env import GuessEnv  # noqa: E402

GAMES = {"Wordle": {"kind": "wordle"}, "Nerdle": {"kind": "nerdle", "length": 8}}
TARGET = 20_000


def scripted_turns(env: GuessEnv, turns: int, seed: int) -> tuple[list[int], list[str]]:
    """The plain actions and the chat replies of the scripted policy (1 in 10 replies invalid)."""
    game = env.game
    rng = np.random.default_rng(seed)
    actions = rng.integers(len(game.guesses), size=turns).tolist()
    wrong = ["I am not sure yet.", f"[{game.guesses[0]}{game.guesses[0][0]}]",
             "[" + ("q" * game.length if game.kind == "wordle" else "1" * (game.length - 2) + "=1") + "]"]
    replies = []
    for i, a in enumerate(actions):
        if i % 10 == 9:
            replies.append(wrong[(i // 10) % len(wrong)])
        else:
            replies.append(f"Thinking about the tiles so far, the best split is [{game.guesses[a]}].")
    return actions, replies


def time_plain(env: GuessEnv, actions: list[int]) -> float:
    start = time.perf_counter()
    env.reset(seed=0)
    for a in actions:
        _, _, terminated, _, _ = env.step(a)
        if terminated:
            env.reset()
    return time.perf_counter() - start


def time_chat(env: ChatGuessEnv, replies: list[str]) -> float:
    start = time.perf_counter()
    env.reset(seed=0)
    for reply in replies:
        _, _, terminated, _, _ = env.step(reply)
        if terminated:
            env.reset()
    return time.perf_counter() - start


def measure(name: str, options: dict[str, Any], turns: int, repeat: int) -> dict[str, float]:
    plain = GuessEnv(**options)
    chat = ChatGuessEnv(**options)
    actions, replies = scripted_turns(plain, turns, seed=7)
    time_plain(plain, actions[:2000])  # warm-up: the pattern matrix is loaded once
    time_chat(chat, replies[:2000])
    plain_s = min(time_plain(plain, actions) for _ in range(repeat))
    chat_s = min(time_chat(chat, replies) for _ in range(repeat))
    overhead = (chat_s - plain_s) / turns
    return {"plain_steps_per_s": turns / plain_s, "chat_turns_per_s": turns / chat_s,
            "overhead_us": overhead * 1e6, "overhead_turns_per_s": 1 / overhead if overhead > 0 else float("inf")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=50_000, help="turns per timed loop (default 50,000)")
    parser.add_argument("--repeat", type=int, default=3, help="timed loops per environment; the best counts")
    args = parser.parse_args(argv)
    command = "python " + " ".join(shlex.quote(a) for a in [os.path.relpath(__file__), *(argv or sys.argv[1:])])
    print(f"command: {command}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"python {platform.python_version()}, gymnasium {gym.__version__}; {os.cpu_count()} CPUs; "
          f"load average (1 min) before the run: {load:.2f}")
    header = ("game", "plain steps/s", "chat turns/s", "chat overhead/turn", "overhead turns/s",
              f"vs target {TARGET:,}", "met")
    rows = []
    for name, options in GAMES.items():
        r = measure(name, options, args.turns, args.repeat)
        rows.append((name, f"{r['plain_steps_per_s']:,.0f}", f"{r['chat_turns_per_s']:,.0f}",
                     f"{r['overhead_us']:.1f} us", f"{r['overhead_turns_per_s']:,.0f}",
                     f"{r['overhead_turns_per_s'] / TARGET:.2f}x",
                     "yes" if r["overhead_turns_per_s"] >= TARGET else "NO"))
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
