"""Observation masks whose memory is reused once nobody holds them any more.

A Wordle mask has one int8 per guess (12,947 bytes; 0.8 MB per step for 64 batched games).
Copying or filling one per step is a large share of a cheap step, yet an observation must not
share memory with one the caller still holds (Gymnasium's checker warns, and rollout or replay
buffers that keep observations would be corrupted). So masks are handed out *read-only* and kept
in a pool: an array referenced by nothing but the pool is provably unused by the caller (a view
or a ``torch.from_numpy`` tensor holds a reference through ``.base``), and, being read-only, still
holds what was written into it. Such an array is handed out again, rewritten only where its
content must change; when every pooled array is held, a new one is made.

* :class:`ConstantMasks` (the single env): masks that are all ones (a game in progress, easy mode)
  or all zeros (an ended game); a free one is returned as is, without a write.
* :class:`MaskPool` (the batched env): ``(num_envs, n_guesses)`` masks, of which only the rows of
  games that ended or started since the array was last written are rewritten.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np


def _first_free(arrays: list[np.ndarray], free_count: int) -> int:
    """The slot of the first array referenced only by ``arrays`` (-1 if every one is held)."""
    for slot in range(len(arrays)):
        arr = arrays[slot]
        if sys.getrefcount(arr) == free_count:
            return slot
    return -1


def _calibrate() -> int:
    """The reference count :func:`_first_free` sees for an array held by nothing but its list.

    Measured with :func:`_first_free` itself, not assumed: interpreters differ in how local
    variables and temporaries count.
    """
    for count in range(1, 16):
        if _first_free([np.empty(0, dtype=np.int8)], count) == 0:
            return count
    raise RuntimeError("cannot measure the reference count of an unheld array")


_FREE_COUNT = _calibrate()


class ConstantMasks:
    """Read-only all-ones and all-zeros masks of one game, reused while unheld.

    A few arrays per content: a typical loop (``obs, ... = env.step(a)``) still holds the previous
    observation while the next step runs, so two arrays alternate; one that is free is returned
    as is, without a write (a step then costs a few reference counts instead of a 13 kB copy).
    When every pooled array is held, a copy is handed out.
    """

    def __init__(self, size: int, capacity: int = 4) -> None:
        self.size = size
        self.capacity = capacity
        self._templates = (np.ones(size, dtype=np.int8), np.zeros(size, dtype=np.int8))
        self._pools: tuple[list[np.ndarray], list[np.ndarray]] = ([], [])

    def get(self, ended: bool) -> np.ndarray:
        """A read-only mask: all ones if not ``ended``, else all zeros."""
        pool = self._pools[ended]
        slot = _first_free(pool, _FREE_COUNT)
        if slot >= 0:
            return pool[slot]
        arr = self._templates[ended].copy()
        arr.flags.writeable = False
        if len(pool) < self.capacity:
            pool.append(arr)
        return arr

    def __reduce__(self) -> tuple[type[ConstantMasks], tuple[int, int]]:
        return (ConstantMasks, (self.size, self.capacity))  # pooled arrays are not pickled


class MaskPool:
    """Recycles ``shape`` int8 mask arrays, remembering which rows each holds as zeros.

    Usage: :meth:`get` a free array (writeable until published), look at :meth:`previous` to see
    which rows it holds as all-zero (done) rows, rewrite what changed, then :meth:`publish` it.
    Up to ``capacity`` arrays are kept; beyond that plain allocations are made.
    """

    def __init__(self, shape: tuple[int, int], capacity: int = 8) -> None:
        self.shape = shape
        self.capacity = capacity
        self._arrays: list[np.ndarray] = []
        self._done: list[np.ndarray | None] = []  # which rows are zero (easy mode), None: unknown

    def get(self) -> tuple[int, np.ndarray]:
        """A free array (writeable until :meth:`publish`) and its slot (-1 if not pooled)."""
        slot = _first_free(self._arrays, _FREE_COUNT)
        if slot >= 0:
            arr = self._arrays[slot]
            arr.flags.writeable = True
            return slot, arr
        arr = np.empty(self.shape, dtype=np.int8)
        if len(self._arrays) < self.capacity:
            self._arrays.append(arr)
            self._done.append(None)
            return len(self._arrays) - 1, arr
        return -1, arr

    def previous(self, slot: int) -> np.ndarray | None:
        """Which rows the array of ``slot`` holds as zeros (``None``: unknown, rewrite all)."""
        return None if slot < 0 else self._done[slot]

    def publish(self, slot: int, arr: np.ndarray, done: np.ndarray | None) -> np.ndarray:
        """Record what ``arr`` holds (the zero rows, or None if not a pure done-mask) and freeze it."""
        if slot >= 0:
            self._done[slot] = None if done is None else done.copy()
        arr.flags.writeable = False
        return arr

    def for_done(self, done: np.ndarray) -> np.ndarray:
        """A read-only mask array with all-ones rows for running games and all-zero rows where
        ``done`` (every guess allowed, as in easy mode), rewriting only the rows that changed
        since the array was last handed out."""
        slot, masks = self.get()
        previous = self.previous(slot)
        if previous is None:
            masks[...] = (~done)[:, None]
        else:
            changed = previous != done
            if changed.any():
                masks[changed & done] = 0
                masks[changed & ~done] = 1
        return self.publish(slot, masks, done)

    def __getstate__(self) -> dict[str, Any]:
        return {"shape": self.shape, "capacity": self.capacity, "_arrays": [], "_done": []}
