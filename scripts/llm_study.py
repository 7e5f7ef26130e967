"""A language-model study's evaluation, with scripted models: the play metrics under three suites' rules.

Starts the scripted chat-completions server on 127.0.0.1 (``guessgym.agents.llm.scripted_server``:
no network, no model) and evaluates its models through the shared loop (``llm:MODEL``, the agent a
real model is evaluated with) on every Wordle answer, under guessgym's default rules (an invalid
reply is retried twice, then loses the turn), TextArena's (``preset="textarena"``: a repeated guess
is invalid, a second invalid reply in a row ends the game) and NeMo Gym's (``preset="nemo"``: every
invalid reply loses the turn). Each run keeps its transcripts; every move is judged against the
optimum from them; ``results/llm/leaderboard.md`` is the leaderboard with the play tables, and
``results/llm/<model>-<rules>.json`` each result (its guesses, play metrics and move analysis).
The transcripts (``results/llm/runs/``, about 100 MB) are not committed.

The models: ``solver`` plays the least-worst baseline from the tiles it reads; ``sloppy`` the same
but replays its first guess as its second; ``faulty`` opens every game with three invalid replies
(no guess, an unknown word, an over-long reply); ``rambler`` never gives a guess.

Usage (from the repository root; 12 minutes here on 2 cores, the optimum's states in the cache)::

    python scripts/llm_study.py
    python scripts/llm_study.py --report   # the leaderboard again from the saved results (seconds)

``--report`` renders the saved results as they are (after a proof, the "vs optimum" column loses
its ``*``); the run's wall time is kept in ``results/llm/run.json``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from guessgym.agents import make_agent  # noqa: E402
from guessgym.agents.base import UnsupportedGameError  # noqa: E402
from guessgym.agents.llm.scripted_server import ScriptedServer  # noqa: E402
from guessgym.envs import make_game  # noqa: E402
from guessgym.evaluation import evaluate  # noqa: E402
from guessgym.evaluation.analysis import analyze  # noqa: E402
from guessgym.evaluation.conduct import conduct_summary  # noqa: E402
from guessgym.evaluation.report import leaderboard_report  # noqa: E402
from guessgym.evaluation.results import EvaluationResult  # noqa: E402
from guessgym.evaluation.transcripts import read_transcripts  # noqa: E402
from guessgym.infra.atomic import atomic_write_text  # noqa: E402
from guessgym.infra.cache import cache_dir  # noqa: E402
from guessgym.infra.inputs import InputFileError, read_json  # noqa: E402

ENV = "guessgym/WordleChat-v0"
MODELS = ("solver", "sloppy", "faulty", "rambler")
#: rules name -> chat options
RULES = {"guessgym": {}, "textarena": {"preset": "textarena"}, "nemo": {"preset": "nemo"}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", type=int, help="a seeded sample of this many answers (a quick check; the "
                        "committed results play every answer)")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "llm")
    parser.add_argument("--report", action="store_true", help="only render the leaderboard from the saved results")
    args = parser.parse_args()
    out = args.out
    if args.report:
        names = [f"{model}-{rules}" for rules in RULES for model in MODELS]
        missing = [n for n in names if not (out / f"{n}.json").is_file()]
        if missing:
            parser.error(f"no saved result for {', '.join(missing)} in {out}; run the study first")
        try:
            run = read_json(out / "run.json", "run record") if (out / "run.json").is_file() else {}
        except InputFileError as exc:
            parser.error(str(exc))
        wall = run.get("wall_seconds") if isinstance(run, dict) else None
        write_report(out, [EvaluationResult.from_json(out / f"{n}.json") for n in names],
                     wall if isinstance(wall, (int, float)) else None)
        return 0
    runs = out / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    results = []
    start = time.perf_counter()
    with ScriptedServer(make_game("guessgym/Wordle-v1")) as server:
        for rules, options in RULES.items():
            for model in MODELS:
                name = f"{model}-{rules}"
                transcripts = runs / f"{name}.jsonl"
                transcripts.unlink(missing_ok=True)  # a fresh run, not a resumed one
                began = time.perf_counter()
                agent = make_agent(f"llm:{model}", base_url=server.base_url, concurrency=4)
                evaluate(agent, ENV, env_kwargs=options, sample=args.sample, transcripts=transcripts)
                played = read_transcripts(transcripts)
                result = played.result
                result.meta["label"] = name
                result.meta["note"] = f"the scripted `{model}` model under {rules}'s rules ({options or 'defaults'})"
                conduct = conduct_summary(make_game("guessgym/Wordle-v1"), result.records)
                if conduct is not None:
                    result.meta["conduct"] = conduct
                try:
                    result.meta["analysis"] = analyze(played, cache_dir=cache_dir()).brief()
                except (UnsupportedGameError, ValueError) as exc:  # e.g. turns lost before the first guess
                    result.meta["analysis_note"] = f"moves not analysed: {exc}"
                result.to_json(out / f"{name}.json")
                results.append(result)
                print(f"{name}: {result.win_rate:.4f} won, {time.perf_counter() - began:.1f} s", flush=True)
    wall = round(time.perf_counter() - start)
    atomic_write_text(out / "run.json", f'{{"wall_seconds": {wall}}}\n')
    write_report(out, results, wall)
    return 0


def write_report(out: Path, results: list[EvaluationResult], wall_seconds: float | None) -> None:
    intro = ["Made by `python scripts/llm_study.py` (the scripted chat-completions server, every Wordle answer, "
             "through `llm:MODEL`, the agent a served model is evaluated with); each row's rules are in its note. "
             "The moves are judged against the optimum from the transcripts, where a forfeited turn is a move that "
             "learns nothing; games ended by invalid replies (TextArena's rule) are not priced, and an evaluation "
             "with them has no loss column (the notes say why for each such row)."]
    if wall_seconds is not None:
        intro.append(f"Wall time of the whole run here: {wall_seconds:.0f} s.")
    text = leaderboard_report(results, title="Scripted language models under three suites' rules", intro=intro)
    atomic_write_text(out / "leaderboard.md", text)
    print(f"wrote {out / 'leaderboard.md'}")


if __name__ == "__main__":
    sys.exit(main())
