"""Memo tables and set hashes, shared by the exact searches' kernels.

A candidate set is hashed order-independently as the wrapping sum of its members' random 64-bit
keys (:func:`set_hash`); a memo is a numba typed dict from such hashes to the search's values
(:func:`new_memo`). :mod:`guessgym.baselines.search_kernels` (fewest total guesses) and
:mod:`guessgym.baselines.worst_case_kernels` (fewest guesses in the worst case) both use them.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict


def new_memo(value: str = "int64") -> Dict:
    """An empty memo table: 64-bit set hash -> ``value`` (``"int64"``: a packed cost and guess;
    ``"bool"``: a yes/no answer)."""
    value_type = {"int64": types.int64, "bool": types.boolean}[value]
    return Dict.empty(key_type=types.uint64, value_type=value_type)


@njit(cache=True)
def set_hash(cands: np.ndarray, keys: np.ndarray) -> np.uint64:  # pragma: no cover - compiled
    """Order-independent hash of a candidate set: the wrapping sum of its members' random keys."""
    h = np.uint64(0)
    for i in range(cands.size):
        h += keys[cands[i]]
    return h


__all__ = ["new_memo", "set_hash"]
