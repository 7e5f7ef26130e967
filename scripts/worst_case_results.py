"""Worst-case optima: the fewest guesses that win whatever the answer, and Absurdle's minimum.

For every game below and both adversaries (``any``: every host, the minimax objective;
``absurdle``: the host of guessgym/Absurdle-v0), runs :func:`guessgym.baselines.worst_case.solve_worst_case`,
replays the strategy through the environment (every answer in ``GuessEnv``; the Absurdle line in
``AbsurdleEnv``), and writes a record to ``results/worst_case/records/<name>.json``, the
strategy to ``results/worst_case/strategies/<name>.json.gz`` and the table to
``results/worst_case/README.md``.

Usage (from the repository root)::

    python scripts/worst_case_results.py                 # every row (records already proven are kept)
    python scripts/worst_case_results.py wordle-any      # one row; --time-budget S bounds a long proof,
                                                         # --jobs N runs it on N processes
    python scripts/worst_case_results.py --report        # rebuild the README from the records

Long proofs append each opener's outcome to ``results/worst_case/proofs/<name>.jsonl`` and resume
from it when rerun with the same command; a record that is not proven yet is searched again.
"""

from __future__ import annotations

import argparse
import gzip
import json
import platform
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym

import guessgym  # noqa: F401
from guessgym.baselines.worst_case import WorstCaseResult, WorstCaseTimeout, solve_worst_case
from guessgym.envs.absurdle import AbsurdleEnv
from guessgym.envs.game import Game
from guessgym.infra.atomic import atomic_write_bytes, atomic_write_text
from guessgym.infra.inputs import read_json, script_main

OUT = Path("results/worst_case")
RECORDS, STRATEGIES, PROOFS = OUT / "records", OUT / "strategies", OUT / "proofs"

#: (row name, env id, env kwargs)
GAMES = [
    ("micro-nerdle", "guessgym/MicroNerdle-v1", {}),
    ("mini-nerdle", "guessgym/MiniNerdle-v1", {}),
    ("mini-nerdle-commutative", "guessgym/MiniNerdle-v1", {"commutative": True}),
    ("midi-nerdle", "guessgym/MidiNerdle-v1", {}),
    ("nerdle", "guessgym/Nerdle-v1", {}),
    ("nerdle-commutative", "guessgym/Nerdle-v1", {"commutative": True}),
    ("wordle", "guessgym/Wordle-v1", {}),
    ("wordle-original", "guessgym/Wordle-v1", {"word_list": "original"}),
    ("wordle-nyt2023", "guessgym/Wordle-v1", {"word_list": "nyt2023"}),
]
ADVERSARIES = ("absurdle", "any")


def rows() -> list[tuple[str, str, dict[str, Any], str]]:
    return [(f"{name}-{adversary}", env_id, kwargs, adversary) for name, env_id, kwargs in GAMES
            for adversary in ADVERSARIES]


def check(game: Game, result: WorstCaseResult) -> None:
    """Replay the strategy: every answer won within ``result.guesses`` by consistent guesses, or
    the Absurdle host beaten by the line in exactly ``result.guesses``."""
    if result.adversary == "absurdle":
        env = AbsurdleEnv(game=game)
        env.reset(seed=0)
        for k, guess in enumerate(result.line, start=1):
            *_, terminated, _, _ = env.step(game.guess_index[guess])
            if terminated != (k == len(result.line)) or (terminated and env.history[-1][1] != game.solved_pattern):
                raise AssertionError(f"the line {result.line} does not beat the host at guess {k}")
        return
    env = gym.make("guessgym/Wordle-v1" if game.kind == "wordle" else "guessgym/Nerdle-v1", game=game,
                   disable_env_checker=True)
    assert set(result.paths) == set(game.answers)
    for answer, path in result.paths.items():
        env.reset(options={"answer": answer})
        for k, guess in enumerate(path, start=1):
            _, reward, terminated, _, _ = env.step(game.guess_index[guess])
            if terminated != (k == len(path)) or (terminated and reward <= 0):
                raise AssertionError(f"{answer}: {path} is not won at its last guess")
    if max(len(p) for p in result.paths.values()) != result.guesses:
        raise AssertionError("the longest path is not the worst case")


def run(name: str, env_id: str, kwargs: dict[str, Any], adversary: str, time_budget: float | None,
        jobs: int = 1) -> None:
    game = gym.make(env_id, disable_env_checker=True, **kwargs).unwrapped.game  # type: ignore[attr-defined]
    game = game.replace(max_attempts=6)
    PROOFS.mkdir(parents=True, exist_ok=True)

    def progress(depth: int, done: int, total: int) -> None:
        if done % 2000 == 0 or done == total:
            print(f"  {name}: {done:,}/{total:,} openers refuted at depth {depth}", file=sys.stderr, flush=True)

    try:
        result = solve_worst_case(game, adversary, checkpoint=PROOFS / f"{name}.jsonl", time_budget=time_budget,
                                  progress=progress, n_jobs=jobs)
    except WorstCaseTimeout as exc:  # nothing to record yet; the checkpoint keeps the settled openers
        print(f"{name}: {exc}", flush=True)
        return
    check(game, result)
    record = {k: v for k, v in result.to_dict().items() if k != "paths"}
    record.update(name=name, env_id=env_id, env_kwargs=kwargs, answers=len(game.answers),
                  guesses_allowed=len(game.guesses), command=f"python scripts/worst_case_results.py {name}",
                  machine=platform.machine(), python=platform.python_version())
    RECORDS.mkdir(parents=True, exist_ok=True)
    STRATEGIES.mkdir(parents=True, exist_ok=True)
    atomic_write_text(RECORDS / f"{name}.json", json.dumps(record, indent=1) + "\n")
    strategy = {"game": game.name, "adversary": adversary, "paths": {a: list(p) for a, p in result.paths.items()}}
    atomic_write_bytes(STRATEGIES / f"{name}.json.gz", gzip.compress(json.dumps(strategy).encode(), mtime=0))
    state = "proven" if result.proven else f"at least {result.lower_bound} (proof under way)"
    print(f"{name}: {result.guesses} guesses, {state}; {' '.join(result.line)}; {result.seconds:.1f} s", flush=True)


def report() -> None:
    records = {p.stem: read_json(p, "record") for p in sorted(RECORDS.glob("*.json"))}
    lines = [
        "# Worst-case optima",
        "",
        "The fewest guesses that win **whatever the answer**: against every host (`any`, the minimax objective: "
        "the host may answer any bucket) and against the Absurdle host of `guessgym/Absurdle-v0` (`absurdle`: it "
        "keeps the largest bucket, ties to the fewest greens, then yellows, then the smallest pattern code). "
        "A proven row means a strategy of that many guesses was found, replayed through the environment, and "
        "every opener was refuted one guess lower (`guessgym.baselines.worst_case`). Plain rules; `commutative` "
        "rows accept a rearranged answer (Nerdle's option).",
        "",
        "Reproduce: `python scripts/worst_case_results.py` (or one row: `python scripts/worst_case_results.py "
        "NAME`; unproven rows resume from `proofs/NAME.jsonl`). Strategies: `strategies/NAME.json.gz` (every "
        "answer's guesses).",
        "",
        "| row | answers | guesses allowed | adversary | fewest guesses | proven | line (Absurdle) / longest path | "
        "openers refuted | seconds |",
        "|---|---:|---:|---|---:|---|---|---:|---:|",
    ]
    for name, r in records.items():
        proven = "yes" if r["proven"] else f"no (≥ {r['lower_bound']})"
        lines.append(f"| {name} | {r['answers']:,} | {r['guesses_allowed']:,} | {r['adversary']} | {r['guesses']} | "
                     f"{proven} | {' '.join(r['line'])} | {r['openers_refuted']:,} | {r['seconds']:,.1f} |")
    lines += ["", "Seconds are one run's wall clock (a resumed proof counts only its last run).", "",
              "By game (the README's table):", "",
              "| game | answers / guesses | every host (minimax) | the Absurdle host |", "|---|---|---|---|"]
    for name, _, _ in GAMES:
        pair = [records.get(f"{name}-{adversary}") for adversary in ("any", "absurdle")]
        known = next((r for r in pair if r is not None), None)
        if known is None:
            continue

        def cell(r: dict[str, Any] | None) -> str:
            if r is None:
                return "not run"
            if r["proven"]:
                return f"**{r['guesses']}**" + (f" ({' '.join(r['line'])})" if r["adversary"] == "absurdle" else "")
            return f"{r['lower_bound']} to {r['guesses']} (proof under way: {r['openers_refuted']:,} openers refuted)"

        lines.append(f"| {name} | {known['answers']:,} / {known['guesses_allowed']:,} | {cell(pair[0])} | "
                     f"{cell(pair[1])} |")
    lines.append("")
    atomic_write_text(OUT / "README.md", "\n".join(lines))
    print(f"wrote {OUT / 'README.md'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    names = [r[0] for r in rows()]
    parser.add_argument("names", nargs="*", help=f"rows to run (default: all): {', '.join(names)}")
    parser.add_argument("--time-budget", type=float,
                        help="seconds per row (a row with no strategy yet is left for the next run)")
    parser.add_argument("--jobs", type=int, default=1, help="processes for the proof over every opener")
    parser.add_argument("--redo", action="store_true", help="search proven rows again")
    parser.add_argument("--report", action="store_true", help="only rebuild the README")
    args = parser.parse_args()
    unknown = sorted(set(args.names) - set(names))
    if unknown:
        parser.error(f"unknown row(s) {unknown}; known: {', '.join(names)}")
    if not args.report:
        for name, env_id, kwargs, adversary in rows():
            if args.names and name not in args.names:
                continue
            done = RECORDS / f"{name}.json"
            if done.exists() and read_json(done, "record")["proven"] and not args.redo:
                print(f"{name}: proven, kept (--redo to search again)")
                continue
            run(name, env_id, kwargs, adversary, args.time_budget, args.jobs)
    report()


if __name__ == "__main__":
    script_main(main)
