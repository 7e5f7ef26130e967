"""The fixed encoding of a game's guesses, and the score of every guess as a sum over its features.

Each guess ``g`` is encoded by ``D = L*S + S + 1`` binary features: its symbol in each position, the
symbols it contains, and whether it is a possible answer. A network's output ``z`` (one weight per
feature) scores a guess as ``z . E[g]``. ``E`` is fixed and sparse: a guess has at most ``2L + 1``
features of ``D`` (11 of 157 in Wordle), so the score is a gather and a sum of those weights, an
``EmbeddingBag`` over each guess's features, and its gradient a scatter-add of each guess's gradient
into its features (again an embedding bag, over each feature's guesses). The dense product
``z @ E`` computes the same function (the forward pass to the bit: the sum adds the same weights in
the same order, the dense one adds zeros besides) at ``D / (2L + 1)`` times the arithmetic.

Used by the actor-critic guess head and the Q-networks' guess head alike
(:class:`~guessgym.agents.policies.GuessScoringHead`), and in hard mode by the features extractor
for the guesses the rules allow (:func:`hard_mode_index`: the same sums over other features).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch as th
from torch.nn import functional as F

from ..envs.game import Game


def guess_feature_index(game: Game) -> np.ndarray:
    """``(guesses, 2L + 1)`` int64: each guess's feature columns in increasing order, padded with ``D``
    (a column that is always zero): its symbol per position ``l*S + s``, each distinct symbol
    ``L*S + s``, and ``D - 1`` if it is an answer."""
    codes = np.asarray(game.guess_codes, dtype=np.int64)
    n, length = codes.shape
    symbols = game.n_symbols
    width = encoding_width(game)
    index = np.full((n, 2 * length + 1), width, dtype=np.int64)
    index[:, :length] = np.arange(length) * symbols + codes
    present = np.zeros((n, symbols), dtype=bool)
    present[np.arange(n)[:, None], codes] = True
    # the distinct symbols of each guess, packed to the left of their block (ascending)
    rank = np.cumsum(present, axis=1) - 1
    rows, cols = np.nonzero(present)
    index[rows, length + rank[rows, cols]] = length * symbols + cols
    index[np.asarray(game.guess_is_answer, dtype=bool), 2 * length] = width - 1
    index.sort(axis=1)
    return index


def dense_guess_encoding(game: Game) -> np.ndarray:
    """``(guesses, D)`` float32: the same encoding as a dense 0/1 matrix (the reference the sums are
    checked against; :func:`guess_feature_index` is what the heads use)."""
    index = guess_feature_index(game)
    width = encoding_width(game)
    dense = np.zeros((len(index), width + 1), dtype=np.float32)
    dense[np.arange(len(index))[:, None], index] = 1.0
    return dense[:, :width]


class _GuessSums(th.autograd.Function):
    """``sums[b, g] = sum_k z[b, index[g, k]]`` (``z`` padded with a zero column); the backward is
    ``grad_z[b, d] = sum over the guesses g having feature d of grad[b, g]``.

    The sums come out guess-major and are copied to ``(B, G)``: the categorical that follows reduces
    along the guesses, which torch does fastest along the last dimension (measured: keeping the
    guess-major array and reducing along its first dimension was slower overall)."""

    @staticmethod
    def forward(ctx: Any, z: th.Tensor, index: th.Tensor, rows: th.Tensor, offsets: th.Tensor) -> th.Tensor:
        ctx.save_for_backward(rows, offsets)
        ctx.width = z.shape[1]
        table = F.pad(z, (0, 1)).T.contiguous()  # (D + 1, B): one row of weights per feature
        return F.embedding_bag(index, table, mode="sum").T.contiguous()  # (B, G)

    @staticmethod
    def backward(ctx: Any, grad: th.Tensor) -> tuple[th.Tensor | None, None, None, None]:
        rows, offsets = ctx.saved_tensors
        if not ctx.needs_input_grad[0]:
            return None, None, None, None
        per_guess = grad.T.contiguous()  # (G, B)
        return F.embedding_bag(rows, per_guess, offsets, mode="sum").T.contiguous(), None, None, None


class SparseSums(th.nn.Module):
    """A fixed 0/1 matrix with a few ones a row, applied as sums: ``out[b, r] = sum of z[b, c]``
    over the columns ``c`` of row ``r`` (nothing trainable, nothing saved).

    Args:
        index: ``(rows, k)`` int: each row's columns, padded with ``width`` (a column always zero).
        width: the number of columns (the length of ``z``).
    """

    index: th.Tensor
    column_rows: th.Tensor
    column_offsets: th.Tensor

    def __init__(self, index: np.ndarray, width: int) -> None:
        super().__init__()
        self.width = int(width)
        self.set_index(index, device=th.device("cpu"))

    def set_index(self, index: np.ndarray, device: th.device | None = None) -> None:
        """Use ``index``'s rows (the same width as before)."""
        index = np.asarray(index, dtype=np.int64)
        if index.ndim != 2 or index.size and (index.min() < 0 or index.max() > self.width):
            raise ValueError(f"expected a (rows, k) index of columns 0..{self.width}, got shape {index.shape}")
        if device is None:
            device = self.index.device
        row_of, column = np.nonzero(index < self.width)[0], index[index < self.width]
        order = np.argsort(column, kind="stable")
        counts = np.bincount(column, minlength=self.width)
        offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
        self.register_buffer("index", th.as_tensor(index, device=device), persistent=False)
        self.register_buffer("column_rows", th.as_tensor(row_of[order], device=device), persistent=False)
        self.register_buffer("column_offsets", th.as_tensor(offsets, device=device), persistent=False)
        self.n_rows = len(index)

    def forward(self, z: th.Tensor) -> th.Tensor:
        """``(B, rows)`` for ``z`` of shape ``(B, width)``."""
        if z.dim() != 2 or z.shape[1] != self.width:
            raise ValueError(f"expected weights of shape (batch, {self.width}), got {tuple(z.shape)}")
        sums: th.Tensor = _GuessSums.apply(z, self.index, self.column_rows, self.column_offsets)
        return sums


def encoding_width(game: Game) -> int:
    """``D``: the number of features of :func:`guess_feature_index`."""
    return game.length * game.n_symbols + game.n_symbols + 1


def guess_encoding(game: Game) -> SparseSums:
    """Every guess's score ``z . E[g]`` for a batch of weights ``z`` of :func:`encoding_width`."""
    return SparseSums(guess_feature_index(game), encoding_width(game))


def position_and_copy_index(codes: np.ndarray, n_symbols: int) -> np.ndarray:
    """``(words, 2L)``: each word's columns of ``[position (L*S) | copies (S*L)]``: its symbol at each
    position ``l*S + s``, and ``L*S + s*L + k`` for each ``k`` below its count of ``s`` (it has a
    ``k+1``-th copy of ``s``)."""
    codes = np.asarray(codes, dtype=np.int64)
    n, length = codes.shape
    index = np.empty((n, 2 * length), dtype=np.int64)
    index[:, :length] = np.arange(length) * n_symbols + codes
    # the k-th copy (k = 0, 1, ...) of a symbol in a word: how many earlier positions hold it
    earlier = np.tri(length, k=-1, dtype=bool).T[None]
    copy = ((codes[:, :, None] == codes[:, None, :]) & earlier).sum(1)
    index[:, length:] = length * n_symbols + codes * length + copy
    index.sort(axis=1)
    return index


def hard_mode_index(game: Game) -> np.ndarray:
    """What each guess satisfies of hard mode's requirements ``[green (L*S: symbol s green at l) |
    need (S*L: at least k+1 copies of s revealed)]`` (:func:`position_and_copy_index`). A guess is
    allowed exactly when the sum over its columns equals the requirements' sum (every requirement
    met: the rule of :func:`guessgym.envs.candidates.hard_filter`)."""
    return position_and_copy_index(game.guess_codes, game.n_symbols)


__all__ = ["SparseSums", "dense_guess_encoding", "encoding_width", "guess_encoding", "guess_feature_index",
           "hard_mode_index", "position_and_copy_index"]
