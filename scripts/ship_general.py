"""Ship a finished general run as ``pretrained:wordle-general`` (docs: "Transfer protocol").

Evaluates the run's model on every answer of its reference list (the 3,158-answer list, by the
batched rollout: the rules of every loop), and writes ``agents/pretrained/<name>.zip`` and
``.json`` (the card: the evaluation, the training, the reproduce command) and
``results/learned/cards/<name>.md``. The references on the card are the exact optimum and the best
greedy rule on that list, and the shipped cloned policy moved to it.

Usage (from the repository root)::

    python scripts/ship_general.py [--run runs/wordle-general] [--name wordle-general]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from guessgym.agents.learned import load_agent
from guessgym.agents.optima import known_optimum
from guessgym.agents.pretrained import PRETRAINED_DIR, card_markdown, load_pretrained
from guessgym.agents.registry import make_agent
from guessgym.envs.game import Game
from guessgym.evaluation.evaluate import evaluate, evaluate_policy
from guessgym.evaluation.results import EvaluationResult
from guessgym.infra.atomic import atomic_write_text
from guessgym.infra.inputs import script_main
from guessgym.training.model_card import ship_general

CARDS = Path("results/learned/cards")
SUMMARY = ("One guess policy for every 5-letter word list: the guess policy of the other shipped models (no parameter "
           "belongs to a word; size features on one fixed scale), trained by DAgger on games drawn from the training "
           "words of the transfer split (docs/transfer.md), every state it reached labelled with the exact solver's "
           "best move. It never saw the split's unseen words; it plays any list (normal or hard mode) without "
           "retraining.")
LIMITS = ("The same config and seed give the same model, bit for bit, with the library versions above, torch_threads = "
          "1 and numerics = 'portable' (the run's data and every generator come from the seed). Its reference list "
          "(nyt2023) holds the unseen words too: the evaluation above is of a list, not of unseen words; the transfer "
          "protocol's table reports the unseen-word lists apart. Play is pure policy, no search.")


def policy_result(agent: object, name: str, game: Game) -> EvaluationResult:
    policy = agent.policy  # type: ignore[attr-defined]
    policy.set_game(game)
    return evaluate_policy(policy, game, name=name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, default=Path("runs/wordle-general"), help="the finished run folder")
    parser.add_argument("--name", default="wordle-general", help="the shipped name")
    args = parser.parse_args()
    agent = load_agent(args.run / "model.zip")
    game = agent.trained_game
    result = policy_result(agent, args.name, game)
    optimum = known_optimum(game)
    references = []
    if optimum is not None:
        references.append({"agent": "the exact optimum", "mean_guesses": optimum.total / len(game.answers)})
    greedy = evaluate(make_agent("most-buckets"), game)
    references.append({"agent": "most-buckets (the best greedy rule here)", "mean_guesses": greedy.mean_guesses})
    cloned = policy_result(load_pretrained("wordle-cloned"), "wordle-cloned", game)
    references.append({"agent": "pretrained:wordle-cloned, moved to this list", "mean_guesses": cloned.mean_guesses})
    card = ship_general(args.run, args.name, result, PRETRAINED_DIR, summary=SUMMARY, limits=LIMITS,
                        references=references,
                        reproduce="guessgym train-general --config configs/wordle-general.toml\n"
                                  "python scripts/ship_general.py --run runs/wordle-general")
    CARDS.mkdir(parents=True, exist_ok=True)
    atomic_write_text(CARDS / f"{args.name}.md", card_markdown(card))
    print(f"shipped pretrained:{args.name}: {result.total_guesses:,} guesses on {game.name} "
          f"({100 * result.win_rate:.2f}% won); card {CARDS / f'{args.name}.md'}")


if __name__ == "__main__":
    script_main(main)
