"""The transfer protocol's split: seeded, disjoint, every unseen word kept out of training games;
the evaluation lists hold unseen words only, and their committed optima are what the solver proves."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from guessgym.agents.learned import policy_actions
from guessgym.agents.pretrained import load_pretrained, model_path
from guessgym.agents.rollout import play_batched
from guessgym.baselines.optimal import solve
from guessgym.envs.game import wordle
from guessgym.training.transfer import BEGIN, END, results_table, transfer_split, unseen_games

ROOT = Path(__file__).resolve().parents[2]


def test_the_split_is_seeded_disjoint_and_complete() -> None:
    split = transfer_split()
    assert split == transfer_split() and split != transfer_split(seed=1)
    source = wordle(word_list="nyt2023")
    assert set(split.training_words) | set(split.unseen_words) == set(source.guesses)
    assert not set(split.training_words) & set(split.unseen_words)
    assert set(split.unseen_answers) == set(source.answers) & set(split.unseen_words)
    assert set(split.training_answers) == set(source.answers) - set(split.unseen_words)
    assert 0.18 < len(split.unseen_words) / len(source.guesses) < 0.22
    with pytest.raises(ValueError, match="unseen_share must be a fraction in"):
        transfer_split(unseen_share=1.0)


def test_a_training_game_with_an_unseen_word_is_refused() -> None:
    split = transfer_split()
    split.check_training_game(wordle(answers=split.training_answers[:20], guesses=split.training_words[:500]))
    word = split.unseen_words[7]
    with pytest.raises(ValueError, match=f"unseen word '{word}' as a guess"):
        split.check_training_game(wordle(answers=split.training_answers[:20],
                                         guesses=[*split.training_answers[:20], word]))
    with pytest.raises(ValueError, match="as an answer"):
        split.check_training_game(wordle(answers=[split.unseen_answers[0]]))


def test_the_evaluation_lists_are_unseen_words_and_their_committed_optima_are_proven_here() -> None:
    split = transfer_split()
    unseen = set(split.unseen_words)
    games = unseen_games(split)
    record = json.loads((ROOT / "results/transfer/lists.json").read_text())
    assert record["unseen_words"] == list(split.unseen_words)
    assert set(record["lists"]) == set(games)
    for name, game in games.items():
        assert set(game.answers) <= unseen and set(game.guesses) <= unseen
        assert record["lists"][name]["fingerprint"] == game.fingerprint and record["lists"][name]["proven"]
    smallest = games["unseen-answers"]  # under a second: proven again here
    result = solve(smallest, proof=True)
    assert (result.total, result.proven) == (record["lists"]["unseen-answers"]["total"], True)


def test_the_transfer_page_shows_the_committed_results_of_the_shipped_model() -> None:
    data = json.loads((ROOT / "results/transfer/results.json").read_text())
    assert data["model_sha256"] == hashlib.sha256(model_path("wordle-general").read_bytes()).hexdigest()
    page = (ROOT / "docs/transfer.md").read_text()
    assert f"{BEGIN}\n\n{results_table(data, data['model_sha256'])}\n\n{END}" in page
    general = f"general:{data['model_sha256'][:16]}"
    games = unseen_games(transfer_split())
    assert set(games) <= set(data["lists"])
    assert all(general in entry["players"] for entry in data["lists"].values())


@pytest.mark.parametrize("name", ["unseen-half", "unseen-half-hard"])
def test_the_shipped_general_policy_plays_an_unseen_list_as_recorded(name: str) -> None:
    """An exact reproduction of two of the table's figures: the model never saw these words."""
    data = json.loads((ROOT / "results/transfer/results.json").read_text())
    game = unseen_games(transfer_split())[name]
    agent = load_pretrained("wordle-general")
    agent.begin(game)
    guesses = play_batched(policy_actions(agent.policy), game)
    recorded = data["lists"][name]["players"][f"general:{data['model_sha256'][:16]}"]
    assert int(np.where(guesses > 0, guesses, game.max_attempts + 1).sum()) == recorded["total"]
    assert float((guesses > 0).mean()) == recorded["win_rate"]
