"""Most-unique-characters greedy (nerdle_unique_chars_greedy.txt)."""

from __future__ import annotations

import numpy as np
import pytest

from guessgym.agents.base import UnsupportedGameError
from guessgym.baselines import make_baseline
from guessgym.baselines.unique_chars import distinct_symbols
from guessgym.envs.env import GuessEnv
from guessgym.envs.game import nerdle, wordle
from guessgym.envs.scoring import score
from guessgym.evaluation.episodes import play_game


def _play(agent, game, answer: str) -> tuple[list[str], bool]:
    """One game through the shared evaluation loop: the guesses played and whether it was won
    (no guess rejected)."""
    record = play_game(GuessEnv(game=game), agent, game.answer_index[answer], record_guesses=True)
    assert not any(record.invalid.values()), record
    return list(record.played or ()), record.solved


def test_distinct_symbols() -> None:
    codes = nerdle(8, guesses="all").guess_codes
    game = nerdle(8, guesses="all")
    i = game.guess_index
    assert distinct_symbols(codes[[i["9*8-7=65"], i["0+12/3=4"], i["11+11=22"]]]).tolist() == [8, 8, 4]


def test_plays_both_paper_openers_then_the_most_distinct_candidate() -> None:
    game = nerdle(8, guesses="all")
    answer = "48-32=16"
    guesses, won = _play(make_baseline("unique-chars"), game, answer)
    assert won
    assert guesses[:2] == ["9*8-7=65", "0+12/3=4"]
    # third guess: among the answers consistent with both openers' tiles, the first one (answer
    # order) with the most distinct characters
    left = [a for a in game.answers if all(score(o, a) == score(o, answer) for o in guesses[:2])]
    most = max(len(set(a)) for a in left)
    assert guesses[2] == next(a for a in left if len(set(a)) == most)
    # 1*10-5=5 is alone in its bucket after 9*8-7=65 (a single candidate left), yet the paper's
    # engine still plays its second hard-coded opener before the answer
    pattern = score("9*8-7=65", "1*10-5=5")
    assert sum(score("9*8-7=65", a) == pattern for a in game.answers) == 1
    assert _play(make_baseline("unique-chars"), game, "1*10-5=5") == (["9*8-7=65", "0+12/3=4", "1*10-5=5"], True)


def test_greedy_rule_by_hand() -> None:
    # opener zzzzz is all grey for every answer, so the candidates stay aabbc (3 distinct),
    # abcde (5) and abcdd (4): the greedy rule plays abcde, the most distinct characters
    answers = ["aabbc", "abcdd", "abcde", "vwxyv"]
    game = wordle(answers=answers, guesses=answers + ["zzzzz"])
    agent = make_baseline("unique-chars", openers=("zzzzz",))
    guesses, won = _play(agent, game, "aabbc")
    assert guesses[0] == "zzzzz" and guesses[1] == "abcde" and won
    # ties go to the first candidate in answer order
    game2 = wordle(answers=["abcdz", "vwxyz"], guesses=["abcdz", "vwxyz", "qqqqq"])
    agent2 = make_baseline("unique-chars", openers=("qqqqq",))
    assert _play(agent2, game2, "vwxyz")[0] == ["qqqqq", "abcdz", "vwxyz"]


def test_memo_key_includes_the_attempt_number() -> None:
    game = wordle(answers=["abcde", "fghij"], guesses=["abcde", "fghij", "zzzzz", "yyyyy"])
    agent = make_baseline("unique-chars", openers=("zzzzz", "yyyyy"))
    agent.begin(game)
    assert game.guesses[agent.propose()] == "zzzzz"
    agent.observe(game.guess_index["zzzzz"], 0)  # same candidate set as at the start
    assert game.guesses[agent.propose()] == "yyyyy"
    agent.observe(game.guess_index["yyyyy"], 0)
    assert game.guesses[agent.propose()] == "abcde"


def test_hard_mode_skips_an_illegal_opener() -> None:
    game = wordle(answers=["abcde", "abcdf"], guesses=["abcde", "abcdf", "zzzzz", "abzzz"], hard_mode=True)
    agent = make_baseline("unique-chars", openers=("abzzz", "zzzzz"))
    guesses, won = _play(agent, game, "abcdf")
    # abzzz reveals a and b green; zzzzz no longer keeps them, so the greedy rule takes over
    assert guesses[0] == "abzzz" and guesses[1] == "abcde" and won


@pytest.mark.parametrize(
    ("game", "fragment"),
    [
        (nerdle(8), "guesses='all'"),
        (nerdle(6), "openers=("),
        (wordle(), "openers=("),
    ],
)
def test_unsupported_games(game, fragment: str) -> None:
    agent = make_baseline("unique-chars")
    with pytest.raises(UnsupportedGameError) as err:
        agent.begin(game)
    assert fragment in str(err.value)
    assert "9*8-7=65" in str(err.value)


def test_openers_must_be_a_sequence() -> None:
    with pytest.raises(TypeError):
        make_baseline("unique-chars", openers="9*8-7=65")
    assert np.array_equal(make_baseline("unique-chars").openers, ("9*8-7=65", "0+12/3=4"))
