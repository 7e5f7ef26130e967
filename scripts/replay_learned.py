"""Add the guesses to saved learned-agent results by replaying the shipped models, checked game by game.

The learned agents' results in ``results/learned/`` were evaluated before evaluations kept each
game's guesses, and the move analysis (``guessgym analyze``, the main job's *loss/game* column)
needs them. Retraining would take hours; the evaluation is deterministic, so this script plays the
shipped model (``pretrained:<game>``, wrapped in the same :class:`~guessgym.agents.lookahead.LookaheadAgent`
for a ``-lookahead`` result) on every answer again with ``record_guesses`` and compares every game
with the saved one (answer, guesses used, solved). Only when all of them agree does it write the
guesses into the saved file (atomically; its summary, meta and every other field unchanged, plus
``meta["guesses_replayed"]`` saying how). A single disagreement writes nothing and names the game:
the shipped model would then not be the one that was evaluated.

Files that already hold every game's guesses are skipped, so an interrupted run continues where it
stopped. Usage (from the repository root; Wordle about 2 min, its lookahead about 10, classic Nerdle
about 22, its lookahead about 40 on one core)::

    python scripts/replay_learned.py                       # the four results the main job includes
    python scripts/replay_learned.py results/learned/learned-wordle.json --jobs 2
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
if str(_ROOT) not in sys.path:  # run as a file from a checkout without installing
    sys.path.insert(0, str(_ROOT))

from guessgym.agents.base import Agent  # noqa: E402
from guessgym.evaluation.evaluate import evaluate  # noqa: E402
from guessgym.evaluation.results import EvaluationResult  # noqa: E402
from guessgym.infra.inputs import script_main  # noqa: E402

#: The learned results the main job includes (``guessgym compare --include ...``).
MAIN_JOB_RESULTS = tuple(f"results/learned/learned-{game}.json" for game in (
    "wordle", "wordle-lookahead", "nerdle", "nerdle-lookahead"))


def shipped_agent(path: Path, result: EvaluationResult) -> tuple[Agent, str]:
    """The agent that produced the saved result at ``path`` rebuilt from the shipped model, and its spec."""
    from guessgym.agents.lookahead import LookaheadAgent
    from guessgym.agents.registry import make_agent

    stem = path.stem.removeprefix("learned-")
    game, lookahead = (stem.removesuffix("-lookahead"), True) if stem.endswith("-lookahead") else (stem, False)
    spec = f"pretrained:{game}"
    if not lookahead:
        return make_agent(spec), spec
    top_k = result.meta.get("top_k")
    if not isinstance(top_k, int):
        raise ValueError(f"{path}: a lookahead result without meta.top_k; cannot rebuild its agent")
    return LookaheadAgent(spec, top_k=top_k), f"lookahead over {spec} with top_k={top_k}"


def first_difference(saved: EvaluationResult, replay: EvaluationResult) -> str | None:
    """The first game the replay played differently, described, or ``None`` when all agree."""
    if len(saved.records) != len(replay.records):
        return f"{len(saved.records)} saved games, {len(replay.records)} replayed"
    for old, new in zip(saved.records, replay.records, strict=True):
        if (old.answer, old.guesses, old.solved) != (new.answer, new.guesses, new.solved):
            return (f"answer {old.answer!r}: saved {old.guesses} guesses (solved={old.solved}), "
                    f"replayed {new.guesses} (solved={new.solved})")
    return None


def replay(path: Path, *, jobs: int, progress: bool) -> str:
    """Replay the saved result at ``path`` and write its guesses in; return what happened, one line."""
    saved = EvaluationResult.from_json(path)
    if saved.records and all(r.played is not None for r in saved.records):
        return f"{path}: every game's guesses are already there"
    if saved.meta.get("sample") is not None:
        raise ValueError(f"{path}: a sampled evaluation; only evaluations of every answer are replayed")
    agent, spec = shipped_agent(path, saved)
    started = time.perf_counter()
    fresh = evaluate(agent, saved.env_id or saved.game, answers=[r.answer for r in saved.records],
                     env_kwargs=saved.meta.get("env_kwargs") or None, max_attempts=saved.max_attempts,
                     seed=int(saved.meta.get("seed", 0)), record_guesses=True, n_jobs=jobs, progress=progress)
    seconds = time.perf_counter() - started
    differs = first_difference(saved, fresh)
    if differs is not None:
        raise ValueError(f"{path}: the replay of {spec} differs from the saved result, nothing written ({differs})")
    saved.records = [replace(old, played=new.played) for old, new in zip(saved.records, fresh.records, strict=True)]
    saved.meta["guesses_replayed"] = (f"guesses added by scripts/replay_learned.py: {spec} replayed on every answer "
                                      f"in {seconds:.0f} s, every game equal to the saved one")
    saved.to_json(path)
    return f"{path}: {len(saved.records)} games replayed with {spec}, all equal; guesses written ({seconds:.0f} s)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="*", default=list(MAIN_JOB_RESULTS),
                        help="saved learned results (default: the four the main job includes)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes for each replay")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        raise ValueError(f"--jobs must be at least 1, got {args.jobs}")
    for name in args.results:
        print(replay(Path(name), jobs=args.jobs, progress=not args.no_progress), flush=True)
    return 0


if __name__ == "__main__":
    script_main(main)
