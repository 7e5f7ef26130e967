"""Steps per second of guessgym's single Wordle environment against other Wordle environments.

Every contender plays whole games of random valid-word guesses (indices or words drawn in advance
from a seeded generator, uniform over each environment's own guess list; a finished game is
reset), for ``--steps`` steps; a measurement is the best of three passes. Each contender runs in
its own subprocess, and the rounds interleave them (guessgym, peer, peer, ..., guessgym, ...) so
that all of them see the same machine load; the best round of each is kept. The figure that
matters is the ratio of guessgym to the fastest peer.

Contenders (a peer that is not installed is reported as such, not measured):

* ``guessgym``: ``gymnasium.make("guessgym/Wordle-v1")`` (the env checker and order wrappers
  included), observation, reward, flags and the full info dict every step;
* ``textarena``: TextArena's ``WordleEnv`` stepped directly (its raw env, the faster of its two
  forms; no ``get_observation`` call). Its constructor downloads NLTK corpora to build its word
  list and dictionary, which this machine cannot do, so the benchmark builds it without them and
  gives it guessgym's answer and guess lists (a set lookup, as its dictionary check is);
* ``gym-wordle``: ``gym_wordle.wordle.WordleEnv`` (old gym API: ``reset`` returns the
  observation, ``step`` a 4-tuple);
* ``alt-gym-wordle``: ``gym_wordle.envs.WordleEnv`` of the alt-gym-wordle distribution.

gym-wordle and alt-gym-wordle both install a top-level module named ``gym_wordle``, and
gym-wordle pins ``gym==0.19``, which no longer builds, so they cannot share an environment:
``--setup DIR`` creates one virtual environment per peer under ``DIR`` (from the package index;
gym-wordle with ``--no-deps`` over gym 0.26) and the benchmark runs each peer with its own
interpreter. Without ``--setup``, peers are looked for in the current environment (the ``bench``
extra installs textarena and alt-gym-wordle) or in ``--peer-python NAME=PATH``.

Usage (from the repository root)::

    python benchmarks/bench_peers.py --setup /tmp/guessgym-peers [--rounds 5] [--steps 60000]

A script, not a test: it prints steps per second and the ratios.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "envs" / "data" / "wordle"

#: How each peer is installed in its own virtual environment by --setup (pip argument lists).
PEER_INSTALL = {
    "textarena": [["textarena", "numpy"]],
    "gym-wordle": [["gym==0.26.2", "numpy", "sty"], ["--no-deps", "gym-wordle"]],
    "alt-gym-wordle": [["alt-gym-wordle"]],
}

# Each runner prints {"rate": steps per second} or {"missing": reason}.
COMMON = r"""
import json, random, sys, time
steps = int(sys.argv[1])
def measure(run):
    run(min(steps, 2000))  # warm-up
    best = 0.0
    for _ in range(3):
        t = time.perf_counter()
        run(steps)
        best = max(best, steps / (time.perf_counter() - t))
    print(json.dumps({"rate": best}))
"""

# The old gym API (reset returns the observation, step a 4-tuple) of gym-wordle and alt-gym-wordle.
OLD_GYM_LOOP = r"""
env = WordleEnv()
acts = np.random.default_rng(0).integers(env.action_space.n, size=steps).tolist()
def run(n):
    env.reset()
    for a in acts[:n]:
        if env.step(a)[2]:
            env.reset()
measure(run)
"""

RUNNERS: dict[str, str] = {
    "guessgym": COMMON + r"""
import numpy as np, gymnasium as gym, guessgym
env = gym.make("guessgym/Wordle-v1")
acts = np.random.default_rng(0).integers(env.action_space.n, size=steps).tolist()
def run(n):
    env.reset(seed=0)
    step = env.step
    for a in acts[:n]:
        if step(a)[2]:
            env.reset()
measure(run)
""",
    "textarena": COMMON + r"""
STEP_ONLY = False
try:
    import textarena as ta
    from textarena.envs.Wordle.env import WordleEnv
except Exception as exc:
    print(json.dumps({"missing": f"{type(exc).__name__}: {exc}"})); sys.exit(0)
answers = open(sys.argv[2]).read().split()
allowed = open(sys.argv[3]).read().split()
env = object.__new__(WordleEnv)          # its __init__ downloads NLTK corpora
ta.Env.__init__(env)
env.word_length, env.num_guesses, env.word_list = 5, 6, answers
class Dictionary:
    words = set(allowed)
    def is_english_word(self, word): return word in self.words
env.dictionary = Dictionary()
rng = random.Random(0)
acts = [f"[{rng.choice(allowed)}]" for _ in range(steps)]
def run(n):
    env.reset(num_players=1, seed=0)
    for a in acts[:n]:
        if not STEP_ONLY:
            player_id, observation = env.get_observation()  # what the agent acts on
        done, info = env.step(a)
        if done:
            env.reset(num_players=1)
measure(run)
""",
    "gym-wordle": COMMON + r"""
try:
    import numpy as np
    from gym_wordle.wordle import WordleEnv
except Exception as exc:
    print(json.dumps({"missing": f"{type(exc).__name__}: {exc}"})); sys.exit(0)
if not hasattr(WordleEnv, "seed"):  # gym 0.19's no-op Env.seed, removed in the gym that installs today
    WordleEnv.seed = lambda self, seed=None: [seed]
"""
    + OLD_GYM_LOOP,
    "alt-gym-wordle": COMMON + r"""
try:
    import numpy as np
    from gym_wordle.envs.wordle_env import WordleEnv
except Exception as exc:
    print(json.dumps({"missing": f"{type(exc).__name__}: {exc}"})); sys.exit(0)
"""
    + OLD_GYM_LOOP,
}


def setup(folder: Path) -> dict[str, str]:
    """One virtual environment per peer under ``folder`` (reused when present); their pythons."""
    import venv

    pythons = {}
    for name, installs in PEER_INSTALL.items():
        env_dir = folder / name
        python = env_dir / "bin" / "python"
        marker = env_dir / ".installed"
        if not marker.exists():
            venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
            for args in installs:
                subprocess.run([str(python), "-m", "pip", "install", "--quiet", *args], check=True)
            marker.write_text("ok\n")
        pythons[name] = str(python)
    return pythons


def run_once(name: str, python: str, steps: int) -> dict[str, float | str]:
    argv = [python, "-c", RUNNERS[name], str(steps), str(DATA / "answers_2309.txt"), str(DATA / "allowed_12947.txt")]
    done = subprocess.run(argv, capture_output=True, text=True, cwd="/", timeout=1800)
    if done.returncode != 0:
        return {"missing": f"exited {done.returncode}: {done.stderr.strip().splitlines()[-1:]}"}
    result: dict[str, float | str] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


# TextArena's step returns only (done, info); an agent reads the board with get_observation() each
# turn, as a Gymnasium step returns the observation. "textarena" times that loop (like for like);
# "textarena-step" times its step alone, the fastest figure any peer reaches here.
RUNNERS["textarena-step"] = RUNNERS["textarena"].replace("STEP_ONLY = False", "STEP_ONLY = True")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds; each contender's best is kept")
    parser.add_argument("--steps", type=int, default=60_000, help="steps per pass (three passes per round)")
    parser.add_argument("--setup", type=Path, help="create (or reuse) one virtual environment per peer here")
    parser.add_argument("--peer-python", action="append", default=[], metavar="NAME=PATH",
                        help="run a peer with this interpreter")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    pythons = {name: sys.executable for name in RUNNERS}
    if args.setup:
        pythons.update(setup(args.setup))
        pythons["textarena-step"] = pythons["textarena"]
    for item in args.peer_python:
        name, _, path = item.partition("=")
        if name not in PEER_INSTALL:
            parser.error(f"--peer-python: unknown peer {name!r}; peers: {', '.join(PEER_INSTALL)}")
        pythons[name] = path
    pythons["textarena-step"] = pythons["textarena"]
    pythons["guessgym"] = sys.executable
    best: dict[str, float] = {}
    missing: dict[str, str] = {}
    for _ in range(args.rounds):
        for name in RUNNERS:
            if name in missing:
                continue
            result = run_once(name, pythons[name], args.steps)
            if "missing" in result:
                missing[name] = str(result["missing"])
            else:
                best[name] = max(best.get(name, 0.0), float(result["rate"]))
    if "guessgym" not in best:
        print(f"guessgym did not run: {missing.get('guessgym')}")
        return 1
    print(f"{'contender':16s} {'steps/s':>12s}  guessgym / this")
    for name in RUNNERS:
        if name in best:
            print(f"{name:16s} {best[name]:>12,.0f}  {best['guessgym'] / best[name]:6.2f}x")
        else:
            print(f"{name:16s} {'not run':>12s}  ({missing.get(name)})")
    like = {n: r for n, r in best.items() if n not in ("guessgym", "textarena-step")}
    if like:
        name, rate = max(like.items(), key=lambda kv: kv[1])
        ratio = best["guessgym"] / rate
        print(f"\nguessgym is {ratio:.2f}x the fastest peer measured like for like ({name}); "
              f"target >= 3x: {'met' if ratio >= 3 else 'NOT met'}")
    if "textarena-step" in best:
        print(f"against TextArena's step alone (no observation): {best['guessgym'] / best['textarena-step']:.2f}x")
    if args.json:
        args.json.write_text(json.dumps({"rounds": args.rounds, "steps": args.steps, "best": best,
                                         "missing": missing}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
