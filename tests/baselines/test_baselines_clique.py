"""The clique strategy (generalised_wordle_greedy_clique.txt 6.2-6.6)."""

from __future__ import annotations

import numpy as np
import pytest

from guessgym.agents.base import UnsupportedGameError
from guessgym.baselines import make_baseline
from guessgym.baselines.clique import CliqueAgent, Tracker, _best_clique, letter_masks
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


def test_toy_clique_then_candidates() -> None:
    # vocabulary (index): abc 0, abd 1, cde 2, fgh 3, ijk 4, aei 5; 26 // 3 = 8, no clique of 8..4.
    # 3-cliques of letter-disjoint words: (0,3,4), (1,3,4), (2,3,4), all covering 9 letters; the
    # first in enumeration order wins: abc, fgh, ijk. Against cde: abc gives __Y (c found), fgh
    # and ijk all grey. No remaining word (no grey letter, contains c, not guessed) but cde ->
    # no edge -> the clique phase ends and the only candidate, cde, is played.
    vocab = ["abc", "abd", "cde", "fgh", "ijk", "aei"]
    game = wordle(3, answers=["abd", "cde", "aei"], guesses=vocab)
    assert _play(make_baseline("clique"), game, "cde") == (["abc", "fgh", "ijk", "cde"], True)


def test_soft_graph_fallback() -> None:
    # every pair shares the unseen letter a: the hard graph has no edge, the soft graph (exactly
    # one common unseen letter) joins them all, and the 4-clique covering 9 letters is played
    vocab = ["abc", "ade", "afg", "ahi"]
    game = wordle(3, answers=vocab)
    agent = CliqueAgent()
    agent.begin(game)
    assert agent.plan_round(game, ()) == (0, 1, 2, 3)
    assert _play(agent, game, "afg") == (["abc", "ade", "afg"], True)


def test_best_clique_is_the_first_maximum_in_enumeration_order() -> None:
    # masks over letters 0..5: w0={0,1}, w1={2}, w2={3,4,5}, w3={2,3}, w4={0}, w5={1,4}
    letters = [[0, 1], [2], [3, 4, 5], [2, 3], [0], [1, 4]]
    r = np.array([sum(1 << b for b in s) for s in letters], dtype=np.int64)
    # 3-cliques (pairwise disjoint): (0,1,2) covers 6, (1,4,5) covers 4, (0,1,... ) ...
    clique, cov, _, complete = _best_clique(r, 3, 0, 6, 10**6)
    assert complete and cov == 6 and list(clique) == [0, 1, 2]
    # with an unreachable target the search is exhaustive and keeps the first best
    clique, cov, nodes, complete = _best_clique(r, 3, 0, 99, 10**6)
    assert complete and cov == 6 and list(clique) == [0, 1, 2]
    # no 4-clique exists
    assert _best_clique(r, 4, 0, 99, 10**6)[1] == -1
    # soft adjacency (exactly one common letter): w0-w5 share 1, w0-w4 share 0 ...
    clique, cov, _, _ = _best_clique(r, 3, 1, 99, 10**6)
    assert cov == -1 or all(bin(int(r[a] & r[b])).count("1") == 1 for a in clique for b in clique if a < b)


def _brute_force_best(r: np.ndarray, k: int, allowed: int) -> tuple[tuple[int, ...] | None, int]:
    from itertools import combinations

    best, best_cov = None, -1
    for combo in combinations(range(len(r)), k):
        if all(bin(int(r[a] & r[b])).count("1") == allowed for a, b in combinations(combo, 2)):
            cov = bin(int(np.bitwise_or.reduce(r[list(combo)]))).count("1")
            if cov > best_cov:
                best, best_cov = combo, cov
    return best, best_cov


@pytest.mark.parametrize("seed", range(20))
def test_best_clique_matches_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 14))
    r = np.array([int(sum(1 << int(b) for b in rng.choice(10, rng.integers(1, 4), replace=False))) for _ in range(n)])
    for k in (3, 4):
        for allowed in (0, 1):
            want, want_cov = _brute_force_best(r, k, allowed)
            got, got_cov, _, complete = _best_clique(r, k, allowed, 10**6, 10**8)
            assert complete and got_cov == want_cov
            if want is not None:
                assert tuple(int(x) for x in got) == want


def test_tracker_uses_exact_feedback_with_repeated_letters() -> None:
    game = wordle(answers=["cloak", "speed"], guesses=["cloak", "speed", "eerie"])
    history = [(game.guess_index["eerie"], score("eerie", "speed"))]
    t = Tracker(game, history)
    bit = {ch: 1 << (ord(ch) - 97) for ch in "abcdefghijklmnopqrstuvwxyz"}
    # eerie vs speed: e and e are yellow/green, the third e grey: e is found, not grey
    assert t.found == bit["e"]
    assert t.grey == bit["r"] | bit["i"]
    assert t.unseen & bit["e"] == 0 and t.unseen & bit["s"]
    masks = letter_masks(game.guess_codes)
    assert list(t.discarded(game, masks)) == [True, False, True]  # cloak lacks e; eerie has r


def test_first_round_on_nyt_wordle() -> None:
    game = wordle()
    agent = CliqueAgent()
    agent.begin(game)
    plan = agent.plan_round(game, ())
    assert [game.guesses[i] for i in plan] == ["bemix", "clunk", "grypt", "vozhd", "waqfs"]


@pytest.mark.parametrize(
    ("game", "fragment"),
    [(nerdle(6), "26-letter alphabet"), (nerdle(8), "'='"), (wordle(hard_mode=True), "easy mode only")],
)
def test_unsupported_games(game, fragment: str) -> None:
    with pytest.raises(UnsupportedGameError) as err:
        make_baseline("clique").begin(game)
    assert fragment in str(err.value)


def test_length_nine_has_no_clique_phase() -> None:
    # 26 // 9 = 2 < 3: the paper never searches a clique, the candidates are guessed in order
    game = wordle(9, answers=["abcdefghi", "jklmnopqr"], guesses=["abcdefghi", "jklmnopqr", "stuvwxyza"])
    assert _play(make_baseline("clique"), game, "jklmnopqr") == (["abcdefghi", "jklmnopqr"], True)
