"""Optimal decision trees: the published Wordle table reproduced, the Nerdle optima, the shipped trees.

Every run writes a JSON record per game under ``results/optimal/records/`` and its tree (each tree
replayed through the environment first); ``report`` rebuilds ``results/optimal/README.md`` from the
records, and ``ship`` moves the trees of the registered environments into the package
(``envs/data/optimal/``) with their index. Each tree is committed once: a tree that is already
stored (in the package, or under ``results/optimal/trees/`` from another run) is not written again,
and the record names the file that holds it; ``dedupe`` applies that rule to the files already there.

Usage (from the repository root)::

    python scripts/optimal_results.py table           # the six published rows, fixed openers
                                                      # (table, top20, nerdle-small skip recorded rows;
                                                      # --redo)
    python scripts/optimal_results.py nerdle-small [--jobs 2]
                                                      # Micro, Mini, Midi: proofs over every opener
    python scripts/optimal_results.py top20 [ENV_ID]  # Wordle (easy, hard), classic and Midi Nerdle:
                                                      # the best of the 20 most promising openers
    python scripts/optimal_results.py prove ENV_ID [--guesses all] [--jobs 2]
                                                      # the proof over every opener (long; resumes
                                                      # from results/optimal/proofs/ when rerun)
    python scripts/optimal_results.py ship            # trees of the registered ids -> package data
    python scripts/optimal_results.py report          # results/optimal/README.md
    python scripts/optimal_results.py dedupe          # one file per tree; records point to it
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium as gym

import guessgym  # noqa: F401
from guessgym.baselines.opener_search import proof_progress, prove
from guessgym.baselines.optimal import SolveResult, solve, static_lower_bound
from guessgym.envs.game import Game
from guessgym.evaluation.tree_checks import verify_tree
from guessgym.infra.atomic import atomic_write_text
from guessgym.infra.cache import cache_dir
from guessgym.infra.inputs import read_json, script_main

OUT = Path("results/optimal")
RECORDS = OUT / "records"
TREES = OUT / "trees"
PROOFS = OUT / "proofs"
PACKAGE = Path("envs/data/optimal")

#: The published table: (record name, env id, env kwargs, opener, published total).
TABLE = [
    ("wordle-nyt-salet", "guessgym/Wordle-v1", {}, "salet", 7897),
    ("wordle-nyt-hard-salet", "guessgym/WordleHard-v1", {}, "salet", 8099),
    ("wordle-original-salet", "guessgym/Wordle-v1", {"word_list": "original"}, "salet", 7920),
    ("wordle-nyt2022-tarse", "guessgym/Wordle-v1", {"word_list": "nyt2022"}, "tarse", 7883),
    ("wordle-nyt2023-tarse", "guessgym/Wordle-v1", {"word_list": "nyt2023"}, "tarse", 11219),
    ("wordle-nyt2023-hard-tarse", "guessgym/WordleHard-v1", {"word_list": "nyt2023"}, "tarse", 11627),
]
SMALL_NERDLE = [(f"{name}{suffix}", env_id, kwargs)
                for name, env_id in (("micro-nerdle", "guessgym/MicroNerdle-v1"),
                                     ("mini-nerdle", "guessgym/MiniNerdle-v1"),
                                     ("midi-nerdle", "guessgym/MidiNerdle-v1"))
                for suffix, kwargs in (("", {}), ("-all", {"guesses": "all"}), ("-commutative", {"commutative": True}))]
TOP20 = [("wordle-nyt-top20", "guessgym/Wordle-v1", {}), ("wordle-nyt-hard-top20", "guessgym/WordleHard-v1", {}),
         ("nerdle-top20", "guessgym/Nerdle-v1", {}), ("midi-nerdle-top20", "guessgym/MidiNerdle-v1", {}),
         ("nerdle-all-top20", "guessgym/Nerdle-v1", {"guesses": "all"})]
#: Which record ships for each registered id (a proof's record replaces the top-20 one when it exists).
SHIPPED = [("guessgym/Wordle-v1", {}, ["wordle-nyt-proof", "wordle-nyt-top20", "wordle-nyt-salet"]),
           ("guessgym/WordleHard-v1", {}, ["wordle-nyt-hard-proof", "wordle-nyt-hard-top20", "wordle-nyt-hard-salet"]),
           ("guessgym/Nerdle-v1", {}, ["nerdle-proof", "nerdle-top20"]),
           ("guessgym/Nerdle-v1", {"guesses": "all"}, ["nerdle-all-proof", "nerdle-all-top20"]),
           ("guessgym/MidiNerdle-v1", {}, ["midi-nerdle", "midi-nerdle-top20"]),
           ("guessgym/MiniNerdle-v1", {}, ["mini-nerdle"]), ("guessgym/MicroNerdle-v1", {}, ["micro-nerdle"]),
           # every other list and mode with a record, proven or best known (issue 42: the move analysis reads the
           # start's value from here instead of solving the whole game again)
           ("guessgym/Wordle-v1", {"word_list": "original"}, ["wordle-original-proof", "wordle-original-salet"]),
           ("guessgym/WordleHard-v1", {"word_list": "original"}, ["wordle-original-hard-proof"]),
           ("guessgym/Wordle-v1", {"word_list": "nyt2023"}, ["wordle-nyt2023-proof", "wordle-nyt2023-tarse"]),
           ("guessgym/WordleHard-v1", {"word_list": "nyt2023"}, ["wordle-nyt2023-hard-tarse"]),
           ("guessgym/Wordle-v1", {"word_list": "nyt2022"}, ["wordle-nyt2022-tarse"]),
           *[(env_id, kwargs, [f"{name}{suffix}"]) for name, env_id in (("micro-nerdle", "guessgym/MicroNerdle-v1"),
                                                                         ("mini-nerdle", "guessgym/MiniNerdle-v1"),
                                                                         ("midi-nerdle", "guessgym/MidiNerdle-v1"))
             for suffix, kwargs in (("-all", {"guesses": "all"}), ("-commutative", {"commutative": True}))]]


def _env(env_id: str, kwargs: dict[str, Any]) -> Any:
    return gym.make(env_id, disable_env_checker=True, **kwargs)


def _tree_files() -> list[Path]:
    """Every stored tree: the package's first (the shipped copy is the one that stays), then the results'."""
    return sorted(PACKAGE.glob("*.gz")) + sorted(TREES.glob("*.gz"))


def stored_once(path: Path) -> Path:
    """``path``, or the file that already holds the same tree (``path`` is then removed)."""
    data = path.read_bytes()
    for other in _tree_files():
        if other != path and other.read_bytes() == data:
            path.unlink()
            return other
    return path


def dedupe() -> None:
    """One file per tree: every record points to the first file holding its tree (the package's
    copy for a shipped tree), and the other copies are removed."""
    moved: dict[Path, Path] = {}  # a copy removed for one record is the same tree for every other
    for record_path in sorted(RECORDS.glob("*.json")):
        record = read_json(record_path, "record")
        tree = Path(record["tree"])
        if not tree.is_file() and tree not in moved:
            continue
        kept = moved[tree] if tree in moved else stored_once(tree)
        moved[tree] = kept
        if kept != tree:
            record["tree"] = str(kept)
            atomic_write_text(record_path, json.dumps(record, indent=1) + "\n")
            print(f"{record_path.name}: tree {tree} -> {kept}")


def _record(name: str, env_id: str, kwargs: dict[str, Any], result: SolveResult, scope: str, command: str,
            extra: dict[str, Any] | None = None) -> None:
    env = _env(env_id, kwargs)
    game: Game = env.unwrapped.game
    check = verify_tree(result.tree, env)
    if not check.ok or check.total != result.total:
        sys.exit(f"{name}: the tree fails the environment:\n{check.report()}")
    # JSON when a rearranged answer may win (the text format names each answer by its last guess)
    tree = stored_once(result.tree.save(TREES / f"{name}.{'json' if game.commutative else 'txt'}.gz", game))
    record = {
        "name": name, "env_id": env_id, "env_kwargs": kwargs, "game": game.name, "answers": len(game.answers),
        "guesses": len(game.guesses), "hard_mode": game.hard_mode, "max_attempts": game.max_attempts,
        "fingerprint": game.fingerprint, "opener": result.tree.root.guess, "total": result.total,
        "mean": round(result.mean, 4), "max": result.tree.max_depth, "lower_bound": result.lower_bound,
        "proven": result.proven, "scope": scope, "seconds": round(result.seconds, 1), "nodes": result.nodes,
        "tree": str(tree), "command": command, "python": platform.python_version(), **(extra or {}),
    }
    RECORDS.mkdir(parents=True, exist_ok=True)
    atomic_write_text(RECORDS / f"{name}.json", json.dumps(record, indent=1) + "\n")
    print(f"{name}: {result.tree.root.guess} total {result.total} (mean {result.mean:.4f}, max "
          f"{result.tree.max_depth}) lower bound {result.lower_bound} proven={result.proven} "
          f"{result.seconds:.1f} s", flush=True)


def _done(name: str, redo: bool) -> bool:
    """Whether ``name`` already has a record (kept unless ``--redo``), so an interrupted part resumes."""
    if not redo and (RECORDS / f"{name}.json").is_file():
        print(f"{name}: recorded already (--redo to recompute)", flush=True)
        return True
    return False


def run_table(redo: bool) -> None:
    for name, env_id, kwargs, opener, published in TABLE:
        if _done(name, redo):
            continue
        game = _env(env_id, kwargs).unwrapped.game
        result = solve(game, opener=opener)
        _record(name, env_id, kwargs, result, f"trees opening with {opener.upper()}",
                "python scripts/optimal_results.py table", {"published": published})


def run_small_nerdle(jobs: int, redo: bool) -> None:
    for name, env_id, kwargs in SMALL_NERDLE:
        if _done(name, redo):
            continue
        game = _env(env_id, kwargs).unwrapped.game
        result = prove(game, checkpoint=PROOFS / f"{name}.jsonl", backend="process", n_jobs=jobs)
        _record(name, env_id, kwargs, result, "every opener",
                f"python scripts/optimal_results.py nerdle-small --jobs {jobs}")


def run_top20(only: str | None, redo: bool) -> None:
    for name, env_id, kwargs in TOP20:
        if (only and only != env_id) or _done(name, redo):
            continue
        game = _env(env_id, kwargs).unwrapped.game
        result = solve(game, openers=20, cache_dir=cache_dir())  # the memo a proof's first phase left
        _record(name, env_id, kwargs, result, "the 20 most promising openers",
                "python scripts/optimal_results.py top20")


def _proof_name(env_id: str, kwargs: dict[str, Any]) -> str:
    """``wordle-nyt-proof``, ``wordle-original-hard-proof``, ``nerdle-all-proof``...: the game, its
    list (Wordle), its mode and its guess vocabulary (Nerdle, ``-all``: every valid equation)."""
    if env_id in ("guessgym/Wordle-v1", "guessgym/WordleHard-v1"):
        base = f"wordle-{kwargs.get('word_list') or 'nyt'}{'-hard' if env_id.endswith('Hard-v1') else ''}"
    else:
        base = {"guessgym/Nerdle-v1": "nerdle"}.get(env_id, env_id.split("/")[-1].lower())
    return f"{base}{'-all' if kwargs.get('guesses') == 'all' else ''}-proof"


def _prove_command(env_id: str, kwargs: dict[str, Any], jobs: int) -> str:
    options = [f"--{key.replace('_', '-')} {value}" for key, value in sorted(kwargs.items())]
    return " ".join(["python scripts/optimal_results.py prove", env_id, *options, "--jobs", str(jobs)])


#: The proofs over every opener beyond the small Nerdles: (env id, env kwargs).
PROOFS_OVER_OPENERS = [
    ("guessgym/Wordle-v1", {}), ("guessgym/WordleHard-v1", {}), ("guessgym/Nerdle-v1", {}),
    ("guessgym/Wordle-v1", {"word_list": "original"}), ("guessgym/WordleHard-v1", {"word_list": "original"}),
    ("guessgym/Wordle-v1", {"word_list": "nyt2023"}), ("guessgym/Nerdle-v1", {"guesses": "all"}),
]


#: Every proof's checkpoint name -> (env id, env kwargs, the command that continues it).
PROOF_RUNS = {
    **{name: (env_id, kwargs, "python scripts/optimal_results.py nerdle-small")
       for name, env_id, kwargs in SMALL_NERDLE},
    **{_proof_name(env_id, kwargs): (env_id, kwargs, _prove_command(env_id, kwargs, 2))
       for env_id, kwargs in PROOFS_OVER_OPENERS},
}


def run_prove(env_id: str, kwargs: dict[str, Any], jobs: int) -> None:
    game = _env(env_id, kwargs).unwrapped.game
    name = _proof_name(env_id, kwargs)
    done = [0, 0]
    started = time.perf_counter()

    def progress(d: int, t: int) -> None:
        if d != done[0]:
            done[:] = [d, t]
            print(f"\r{d}/{t} openers, {time.perf_counter() - started:.0f} s", end="", file=sys.stderr, flush=True)

    # The solved subproblems go to the cache folder, so a resumed run does not solve the first openers again.
    result = prove(game, checkpoint=PROOFS / f"{name}.jsonl", backend="process", n_jobs=jobs, progress=progress,
                   cache_dir=cache_dir())
    print(file=sys.stderr)
    _record(name, env_id, kwargs, result, "every opener", _prove_command(env_id, kwargs, jobs))


def ship() -> None:
    PACKAGE.mkdir(parents=True, exist_ok=True)
    optima = []
    for env_id, kwargs, names in SHIPPED:
        found = [RECORDS / f"{n}.json" for n in names if (RECORDS / f"{n}.json").is_file()]
        if not found:
            print(f"{env_id}: no record yet ({', '.join(names)})")
            continue
        record = read_json(found[0], "record")
        lower = record["lower_bound"]
        if record["scope"] != "every opener":  # its bound holds within its scope only: take the game's
            game = _env(env_id, kwargs).unwrapped.game
            lower = static_lower_bound(game)
            checkpoint = PROOFS / f"{_proof_name(env_id, kwargs)}.jsonl"
            if checkpoint.is_file():  # a proof under way: the bound it has reached
                lower = max(lower, proof_progress(game, checkpoint).lower_bound)
        # nerdle-v1-all: every equation; wordle-v1-original; mininerdle-v1-commutative
        variant = "".join(f"-{key if value is True else value}" for key, value in sorted(kwargs.items()))
        suffix = ".json.gz" if str(record["tree"]).endswith(".json.gz") else ".txt.gz"  # rearrangements: JSON
        tree = f"{env_id.split('/')[-1].lower()}{variant}{suffix}"
        data = Path(record["tree"]).read_bytes()
        same = next((entry["tree"] for entry in optima if (PACKAGE / entry["tree"]).read_bytes() == data), None)
        if same is not None:  # one file for one tree (Micro Nerdle's with every equation is its plain one)
            tree = same
        elif Path(record["tree"]) != PACKAGE / tree:
            shutil.copyfile(record["tree"], PACKAGE / tree)
        optima.append({"env_id": env_id, "total": record["total"], "answers": record["answers"],
                       "max_guesses": record["max"], "lower_bound": lower,
                       "opener": record["opener"], "scope": record["scope"], "tree": tree,
                       "fingerprint": record["fingerprint"], "hard_mode": record["hard_mode"],
                       "max_attempts": record["max_attempts"], "command": record["command"],
                       **({"env_kwargs": kwargs} if kwargs else {})})
        print(f"{env_id}{' ' + str(kwargs) if kwargs else ''}: {record['name']} total {record['total']}, "
              f"optimum at least {lower}")
    atomic_write_text(PACKAGE / "optima.json", json.dumps({"optima": optima}, indent=1) + "\n")
    dedupe()  # the shipped copy stays; the results' copies of it go


def progress_table(records: dict[str, dict[str, Any]]) -> list[str]:
    """The proofs still under way: openers settled, the bound reached so far, an estimate of the rest."""
    rows = []
    for name, (env_id, kwargs, command) in PROOF_RUNS.items():
        checkpoint = PROOFS / f"{name}.jsonl"
        if name in records or not checkpoint.is_file() or len(checkpoint.read_text().splitlines()) < 2:
            continue
        game = _env(env_id, kwargs).unwrapped.game
        p = proof_progress(game, checkpoint)
        rows.append(f"| {name} | {p.done:,} / {p.openers:,} | {p.best:,} | {p.lower_bound:,} "
                    f"({100 * (p.best - p.lower_bound) / p.best:.2f}% below) | {p.seconds / 3600:.2f} h | "
                    f"{p.remaining_seconds / 3600:.1f} h | `{command}` |")
    if not rows:
        return []
    return ["Under way (from the checkpoints; *lower bound* is proven: the least of the best total, every settled "
            "opener's bound and the static bound of the next unsettled opener; *remaining* is the mean time of the "
            "last 200 openers times the openers left, an overestimate since later openers are refuted faster; "
            "times are CPU time per worker summed):",
            "",
            "| proof | openers settled | best total | lower bound | searched | remaining (estimate) | continue with |",
            "|---|---:|---:|---:|---:|---:|---|", *rows, ""]


def report() -> None:
    records = {p.stem: read_json(p, "record") for p in sorted(RECORDS.glob("*.json"))}

    def row(r: dict[str, Any], published: bool = False) -> str:
        if r["lower_bound"] == r["total"]:
            status = "proven optimum" if r["scope"] == "every opener" else f"optimal over {r['scope']}"
        else:
            status = f"lower bound {r['lower_bound']:,} over {r['scope']}"
        cells = [r["game"], f"{r['answers']:,} / {r['guesses']:,}", r["opener"].upper() if r["game"].startswith(
            "wordle") else r["opener"], f"{r['total']:,}"]
        if published:
            cells.append(f"{r['published']:,}" + (" ✓" if r["published"] == r["total"] else " ✗"))
        cells += [f"{r['mean']:.4f}", str(r["max"]), status, f"{r['seconds']:,.1f} s",
                  f"[tree]({os.path.relpath(r['tree'], OUT)})"]
        return "| " + " | ".join(cells) + " |"

    table = [records[n] for n, *_ in TABLE if n in records]
    nerdle = [records[n] for n, *_ in SMALL_NERDLE if n in records]
    top = [records[n] for n, *_ in TOP20 if n in records]
    proofs = [r for n, r in records.items() if n.endswith("-proof")]
    header = "| game | answers / guesses | opener | total | mean | max | status | time | tree |\n" \
             "|---|---:|---|---:|---:|---:|---|---:|---|"
    text = [
        "# Optimal decision trees",
        "",
        "Every number here was computed by `guessgym.baselines.optimal` on this repository's machine "
        f"(2 cores; Python {platform.python_version()}) and every tree was replayed through the environment "
        "(`verify_tree`) before it was written. The total is the number of guesses summed over every answer; "
        "*proven* means the search considered every guess at every node (and, for \"every opener\", every "
        "first guess), so no tree does better. Records: `records/`; trees in the published text format: "
        "`trees/`, and the package's `envs/data/optimal/` for the shipped ones, each tree stored once "
        "(`guessgym tree show FILE --env ID`).",
        "",
        "## The published Wordle optima, reproduced (fixed opener)",
        "",
        "Command: `python scripts/optimal_results.py table` (one core).",
        "",
        "| game | answers / guesses | opener | total | published | mean | max | status | time | tree |",
        "|---|---:|---|---:|---:|---:|---:|---|---:|---|",
        *[row(r, published=True) for r in table],
        "",
        "## Micro, Mini and Midi Nerdle: the optimum over every opener",
        "",
        "Command: `python scripts/optimal_results.py nerdle-small` (`--jobs N` worker processes; each record "
        "names the command it ran with: Midi with answers as guesses ran on two, with every equation on one). "
        "`-all`: every valid equation may be guessed; otherwise only the answers.",
        "",
        header, *[row(r) for r in nerdle],
        "",
        "## Wordle and classic Nerdle: the best of the 20 most promising openers",
        "",
        "Command: `python scripts/optimal_results.py top20`. Each opener's tree is exact; the openers are the 20 "
        "with the most buckets (then the smallest sum of squared bucket sizes). The proof over every opener "
        "is the long run below.",
        "",
        header, *[row(r) for r in top],
        "",
        "## Proofs over every opener (long runs)",
        "",
        "`python scripts/optimal_results.py prove ENV_ID --jobs 2` solves the 20 most promising openers exactly, "
        "then refutes every other opener against the best total (or finds a better one); it appends each "
        "opener's outcome to `proofs/<name>.jsonl` as soon as it is known and resumes from there when the same "
        "command is run again (with two processes, or any `--jobs`). *time* is the last run's wall clock: a proof "
        "resumed across sessions counts only its last run (the checkpoint keeps every opener's seconds).",
        "",
        *([header, *[row(r) for r in proofs], ""] if proofs else []),
        *progress_table(records),
    ]
    atomic_write_text(OUT / "README.md", "\n".join(text))
    print(f"wrote {OUT / 'README.md'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("part", choices=["table", "nerdle-small", "top20", "prove", "ship", "report", "dedupe"])
    parser.add_argument("env", nargs="?", help="prove, top20: the environment id")
    parser.add_argument("--guesses", choices=["answers", "all"], help="prove (Nerdle): the guess vocabulary")
    parser.add_argument("--word-list", help="prove (Wordle): the lists (nyt, original, nyt2023...; default nyt)")
    parser.add_argument("--jobs", type=int, default=2, help="prove, nerdle-small: worker processes (default 2)")
    parser.add_argument("--redo", action="store_true", help="table, top20, nerdle-small: recompute recorded rows")
    args = parser.parse_args()
    if args.part == "prove":
        if not args.env:
            parser.error("prove needs an environment id")
        kwargs = {key: value for key, value in (("guesses", args.guesses), ("word_list", args.word_list))
                  if value is not None and (key, value) not in (("guesses", "answers"), ("word_list", "nyt"))}
        run_prove(args.env, kwargs, args.jobs)
    else:
        {"table": lambda: run_table(args.redo), "nerdle-small": lambda: run_small_nerdle(args.jobs, args.redo),
         "top20": lambda: run_top20(args.env, args.redo), "ship": ship,
         "report": report, "dedupe": dedupe}[args.part]()


if __name__ == "__main__":
    script_main(main)
