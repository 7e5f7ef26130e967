"""Per-guess split features: against a plain recount of the tiles, memoised per candidate set."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from guessgym.agents.split_features import FEATURES, SplitFeatures
from guessgym.envs.game import Game, nerdle, wordle
from guessgym.envs.scoring import score

WORDLE = wordle(word_list="nyt")
SMALL = wordle(answers=list(WORDLE.answers[:60]),
               guesses=list(WORDLE.answers[:60]) + [g for g in WORDLE.guesses if g not in WORDLE.answers][:140])
MICRO = nerdle(5)


def reference(game: Game, cands: list[int]) -> np.ndarray:
    """The eight features of every guess, by scoring each (guess, candidate) pair in Python."""
    n = len(cands)
    rows = []
    for g, guess in enumerate(game.guesses):
        sizes = list(Counter(score(guess, game.answers[a]) for a in cands).values())
        entropy = (math.log2(n) - sum(c * math.log2(c) for c in sizes) / n) / math.log2(n) if n > 1 else 0.0
        is_candidate = any(game.answer_to_guess[a] == g for a in cands)
        log_a = math.log(len(game.answers))
        rows.append([len(sizes) / n, max(sizes) / n, sum(c * c for c in sizes) / n / n, entropy, float(is_candidate),
                     math.log1p(len(sizes)) / log_a, math.log1p(max(sizes)) / log_a,
                     math.log1p((sum(c * c for c in sizes) - is_candidate) / n) / log_a])
    return np.array(rows)


@given(st.data())
def test_features_match_a_recount_of_the_tiles(data: st.DataObject) -> None:
    game = data.draw(st.sampled_from([SMALL, MICRO]))
    cands = data.draw(st.lists(st.integers(0, len(game.answers) - 1), min_size=1, max_size=25, unique=True))
    got = SplitFeatures(game, cache_size=0)(np.array(cands))
    assert got.shape == (len(game.guesses), len(FEATURES)) and got.dtype == np.float32
    expected = reference(game, sorted(cands))
    np.testing.assert_allclose(got, expected, atol=1e-6)
    summary = SplitFeatures(game, cache_size=0).summary(np.array(cands))
    np.testing.assert_allclose(summary, [expected[:, 0].max(), expected[:, 1].min(), expected[:, 2].min(),
                                         expected[:, 3].max()], atol=1e-6)


def test_a_fixed_log_scale_gives_a_feature_the_same_meaning_on_every_list() -> None:
    """With ``log_scale`` the size features divide by one constant, not by the list's answer count:
    the same split of a candidate set scores the same on a list of 60 answers and on one of 2,309."""
    cands = np.arange(12)
    small = SplitFeatures(SMALL, log_scale=3158)(cands)
    np.testing.assert_allclose(small[:, 5:], reference(SMALL, list(cands))[:, 5:] * math.log(60) / math.log(3158),
                               atol=1e-6)
    np.testing.assert_array_equal(small[:, :5], SplitFeatures(SMALL)(cands)[:, :5])
    with pytest.raises(ValueError, match="log_scale must be None .* or an answer count of at least 2, got 1"):
        SplitFeatures(SMALL, log_scale=1)


def test_the_opening_set_of_wordle_ranks_guesses_as_the_baselines_do() -> None:
    features = SplitFeatures(WORDLE)(np.arange(len(WORDLE.answers)))
    salet, crane = WORDLE.guess_index["salet"], WORDLE.guess_index["crane"]
    assert features[salet, 0] > features[crane, 0]  # salet has more buckets than crane (published: 148 vs 142)
    assert round(float(features[salet, 0]) * len(WORDLE.answers)) == 148
    assert features[:, 4].sum() == len(WORDLE.answers)


def test_sets_are_memoised_least_recently_used_first() -> None:
    features = SplitFeatures(MICRO, cache_size=2)
    a = features(np.array([3, 1, 2]))
    assert features(np.array([1, 2, 3, 3])) is a and features.hits == 1  # order and repeats do not matter
    assert not a.flags.writeable
    features(np.array([5]))
    features(np.array([1, 2, 3]))  # most recently used again
    features(np.array([7, 8]))  # evicts [5]
    assert features(np.array([1, 2, 3])) is a and features.misses == 3
    features(np.array([5]))
    assert features.misses == 4


def test_a_batch_of_masks_is_its_distinct_sets_and_which_set_each_row_is() -> None:
    features = SplitFeatures(MICRO)
    masks = np.zeros((4, len(MICRO.answers)), dtype=np.float32)
    masks[0, [1, 5, 9]] = 1
    masks[1, :] = 1
    masks[2, 42] = 1
    masks[3, [1, 5, 9]] = 1
    sets, summaries, rows = features.unique_batch(masks)
    assert len(sets) == 3 and rows.shape == (4,) and rows[0] == rows[3] and summaries.shape == (4, 4)
    masks[2, 42] = 0  # no candidate (a game outside a curriculum's answer pool): zero features
    empty_sets, empty_summaries, empty_rows = features.unique_batch(masks)
    assert not empty_sets[empty_rows[2]].any() and not empty_summaries[2].any()
    masks[2, 42] = 1
    for row, mask, summary in zip(rows, masks, summaries):
        assert sets[row] is features(np.flatnonzero(mask))
        np.testing.assert_array_equal(summary, features.summary(np.flatnonzero(mask)))


@pytest.mark.parametrize(("call", "message"), [
    (lambda f: f(np.array([], dtype=np.int64)), "no candidates"),
    (lambda f: f(np.array([0, 127])), r"candidate indices must be in \[0, 127\)"),
    (lambda f: f.unique_batch(np.ones((2, 5))), r"masks must have shape \(batch, 127\)"),
    (lambda f: SplitFeatures(MICRO, cache_size=-1), "cache_size must be at least 0"),
])
def test_bad_input_is_named(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        call(SplitFeatures(MICRO))


def test_pickles_without_the_matrix_or_the_cache() -> None:
    import pickle

    features = SplitFeatures(WORDLE)
    first = features(np.arange(40))
    data = pickle.dumps(features)
    assert len(data) < 2_000_000  # the matrix alone is 30 MB, the cached set 259 kB
    again = pickle.loads(data)
    np.testing.assert_array_equal(again(np.arange(40)), first)
    assert again.misses == 1
