"""The bucket-statistics engine: every code path against a plain numpy reference."""

from __future__ import annotations

import math

import numpy as np
import pytest

import guessgym.envs.buckets as buckets
from guessgym.envs.buckets import (
    ENTROPY_SCALE,
    STAT_CLOGC,
    STAT_COUNT,
    STAT_MAX,
    STAT_SUMSQ,
    bucket_stat,
    entropy_bits,
    first_min_float,
)
from guessgym.envs.game import wordle
from guessgym.envs.matrix import PatternMatrix


def _reference(dense: np.ndarray, guesses: np.ndarray, cands: np.ndarray, stat: int) -> np.ndarray:
    out = []
    for g in guesses:
        _, counts = np.unique(dense[g, cands], return_counts=True)
        if stat == STAT_MAX:
            out.append(counts.max())
        elif stat == STAT_SUMSQ:
            out.append(int((counts**2).sum()))
        elif stat == STAT_COUNT:
            out.append(counts.size)
        else:
            out.append(sum(round(c * math.log2(c) * ENTROPY_SCALE) for c in counts if c > 1))
    return np.array(out, dtype=np.int64)


@pytest.mark.parametrize("stat", [STAT_MAX, STAT_SUMSQ, STAT_CLOGC, STAT_COUNT])
@pytest.mark.parametrize("path", ["rows", "transposed", "on-demand", "parallel"])
def test_every_path_matches_the_reference(stat: int, path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    game = wordle()
    dense_matrix = PatternMatrix.for_game(game)
    dense = dense_matrix.dense
    rng = np.random.default_rng(stat)
    guesses = rng.choice(len(game.guesses), 1500, replace=False)
    cands = np.sort(rng.choice(len(game.answers), 40, replace=False))
    matrix = dense_matrix
    if path == "rows":
        monkeypatch.setattr(buckets, "TRANSPOSE_MAX_BYTES", 0)
    elif path == "on-demand":
        matrix = PatternMatrix(game, None)
    elif path == "parallel":
        monkeypatch.setattr(buckets, "TRANSPOSE_MAX_BYTES", 0)
        monkeypatch.setattr(buckets, "_PARALLEL_MIN_WORK", 0)
    got = bucket_stat(matrix, guesses, cands, stat)
    assert np.array_equal(got, _reference(dense, guesses, cands, stat))


def test_entropy_bits_and_edge_cases() -> None:
    game = wordle()
    m = PatternMatrix.for_game(game)
    assert bucket_stat(m, np.array([], dtype=np.int64), np.arange(5), STAT_MAX).size == 0
    assert bucket_stat(m, np.arange(3), np.array([], dtype=np.int64), STAT_MAX).tolist() == [0, 0, 0]
    # one candidate: a single bucket, entropy 0
    assert entropy_bits(bucket_stat(m, np.arange(3), np.array([7]), STAT_CLOGC), 1).tolist() == [0, 0, 0]


def test_first_min_float_treats_rounding_noise_as_a_tie() -> None:
    assert first_min_float(np.array([2.0, 1.0 + 1e-15, 1.0, 3.0])) == 1
    assert first_min_float(np.array([2.0, 1.0 + 1e-6, 1.0])) == 2


def test_on_demand_chunks_report_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    """What assist's progress bar shows while a first proposal weighs 67,346 Nerdle guesses."""
    game = wordle()
    matrix = PatternMatrix(game, None)
    guesses = np.arange(1000)
    cands = np.arange(200)
    monkeypatch.setattr(buckets, "_CHUNK_BYTES", 200 * 64)  # 64 rows per chunk
    calls: list[tuple[int, int]] = []
    with buckets.chunk_progress(lambda done, total: calls.append((done, total))):
        bucket_stat(matrix, guesses, cands, STAT_MAX)
    assert calls[0] == (64, 1000) and calls[-1] == (1000, 1000) and len(calls) == 16
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    bucket_stat(matrix, guesses, cands, STAT_MAX)  # outside the block nobody is called
    assert len(calls) == 16


@pytest.mark.parametrize("path", ["rows", "transposed", "on-demand"])
def test_the_profile_is_every_statistic_at_once(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    game = wordle()
    matrix = PatternMatrix.for_game(game)
    rng = np.random.default_rng(7)
    guesses = rng.choice(len(game.guesses), 1200, replace=False)
    cands = np.sort(rng.choice(len(game.answers), 30, replace=False))
    if path == "rows":
        monkeypatch.setattr(buckets, "TRANSPOSE_MAX_BYTES", 0)
    got = buckets.bucket_profile(PatternMatrix(game, None) if path == "on-demand" else matrix, guesses, cands)
    for column, stat in enumerate((STAT_COUNT, STAT_MAX, STAT_SUMSQ, STAT_CLOGC)):
        assert np.array_equal(got[:, column], _reference(matrix.dense, guesses, cands, stat))
    assert buckets.bucket_profile(matrix, guesses[:0], cands).shape == (0, 4)
