"""The transfer protocol's split: seeded, disjoint, every unseen word kept out of training games;
the evaluation lists hold unseen words only, and their committed optima are what the solver proves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from guessgym.baselines.optimal import solve
from guessgym.envs.game import wordle
from guessgym.training.transfer import transfer_split, unseen_games

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
