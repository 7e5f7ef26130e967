"""Feedback-pattern and per-position entropy (nerdle_entropy_blog.txt)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from guessgym.baselines import make_baseline
from guessgym.baselines.entropy import position_entropy_bits
from guessgym.envs.buckets import entropy_bits, entropy_key
from guessgym.envs.game import nerdle, wordle
from guessgym.envs.matrix import PatternMatrix

ANSWERS = ["abc", "abd", "aec", "fgh"]


def _h(p: float) -> float:
    return 0.0 if p in (0.0, 1.0) else -p * math.log2(p) - (1 - p) * math.log2(1 - p)


def test_position_entropy_by_hand() -> None:
    game = wordle(3, answers=ANSWERS)
    # column 0: a a a f; column 1: b b e g; column 2: c d c h  (n = 4)
    # abc: a 3/4, b 2/4, c 2/4 -> h(.75) + 1 + 1 = 2.811
    # abd: a 3/4, b 2/4, d 1/4 -> h(.75) + 1 + h(.25) = 2.623; aec likewise; fgh: 3 x h(.25)
    want = [_h(0.75) + 2, _h(0.75) + 1 + _h(0.25), _h(0.75) + _h(0.25) + 1, 3 * _h(0.25)]
    got = position_entropy_bits(game.answer_codes, game.n_symbols)
    assert got == pytest.approx(want, abs=1e-9)
    agent = make_baseline("position-entropy")
    agent.begin(game)
    assert game.guesses[agent.propose()] == "abc"


def test_position_entropy_ties_go_to_the_first_candidate() -> None:
    # abc abd abe xyz: every word scores 3 x h(1/4) (h(p) = h(1 - p)): the first one wins
    game = wordle(3, answers=["abc", "abd", "abe", "xyz"])
    got = position_entropy_bits(game.answer_codes, game.n_symbols)
    assert np.all(got == got[0])
    agent = make_baseline("position-entropy")
    agent.begin(game)
    assert game.guesses[agent.propose()] == "abc"


def test_pattern_entropy_by_hand_and_pools() -> None:
    # guesses: bcd (not an answer) first, then the answers
    game = wordle(3, answers=ANSWERS, guesses=["bcd"] + ANSWERS)
    m = PatternMatrix.for_game(game, cache=False)
    cands = np.arange(4)
    # bcd -> YY_ (abc), Y_G (abd), _Y_ (aec), ___ (fgh): four buckets of 1 -> 2 bits
    # abc -> GGG, GG_, G_G, ___: 2 bits; abd, aec also 2 bits; fgh -> {3, 1}: 0.811 bits
    bits = entropy_bits(entropy_key(m, np.arange(5), cands), 4)
    assert bits == pytest.approx([2, 2, 2, 2, -(0.75 * math.log2(0.75) + 0.25 * math.log2(0.25))], abs=1e-9)
    every = make_baseline("pattern-entropy")
    every.begin(game)
    assert game.guesses[every.propose()] == "bcd"  # first maximum over all guesses
    only = make_baseline("pattern-entropy", pool="candidates")
    only.begin(game)
    assert game.guesses[only.propose()] == "abc"  # first maximum over the candidates


def test_entropy_key_is_exact_for_equal_bucket_multisets() -> None:
    # the same bucket sizes in a different order must give bit-identical keys
    game = nerdle(6)
    m = PatternMatrix.for_game(game)
    key = entropy_key(m, game.answer_to_guess, np.arange(len(game.answers)))
    rows = m.dense[game.answer_to_guess]
    signatures = [tuple(sorted(np.unique(r, return_counts=True)[1])) for r in rows]
    by_signature: dict[tuple[int, ...], set[int]] = {}
    for sig, k in zip(signatures, key):
        by_signature.setdefault(sig, set()).add(int(k))
    assert all(len(v) == 1 for v in by_signature.values())


def test_single_candidate_is_played() -> None:
    game = wordle(3, answers=ANSWERS, guesses=["bcd"] + ANSWERS)
    agent = make_baseline("pattern-entropy")
    agent.begin(game)
    agent.observe(game.guess_index["abc"], 0)  # all grey: only fgh remains
    assert game.guesses[agent.propose()] == "fgh"


def test_classic_nerdle_openers_of_the_blog() -> None:
    game = nerdle(8)
    pattern = make_baseline("pattern-entropy")
    pattern.begin(game)
    assert game.guesses[pattern.propose()] == "48-32=16"  # the blog's second-attempt opener
    pool, bits = pattern.entropies(pattern.state)
    assert bits.max() == pytest.approx(9.775177604, abs=1e-8)
    position = make_baseline("position-entropy")
    position.begin(game)
    assert game.guesses[position.propose()] == "30-11=19"  # the blog's first-attempt opener
    assert position.scores(position.state).max() == pytest.approx(4.737430568, abs=1e-8)
