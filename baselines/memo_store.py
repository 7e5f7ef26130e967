"""Solved subproblems on disk: the exact search's memo, kept across runs and shared by workers.

The exact search (:mod:`guessgym.baselines.search_kernels`) remembers, for every candidate set it
has finished, its optimal cost and guess (``exact``) or a proven lower bound (``floor``). Both are
true facts about the game whatever the run that found them: an entry is written only once its
subtree is searched to the end, so an aborted or interrupted search never records a wrong one.
:class:`MemoStore` saves them in the cache folder and loads them into the next search of the same
game, so a long search that is stopped (a time budget, Ctrl-C, the end of a session) continues
where it stopped instead of starting again, and the worker processes of a proof over every opener
pick up each other's solved sets.

One file per game, rules and width: ``memo-<fingerprint>-<h|e>-w<width>.npz`` (the fingerprint
covers the lists, ``h``/``e`` hard or easy mode, and a width-limited memo holds width-limited
costs). A save merges with what is on disk under a lock and replaces the file atomically, so
concurrent writers lose nothing and a reader never sees half a file. A file that cannot be read
(or was written by another format) is ignored with a warning and replaced at the next save: it is
a cache, never the only copy of a result.

Examples:
    >>> import tempfile
    >>> from guessgym.envs.game import wordle
    >>> from guessgym.baselines.optimal import solve
    >>> game = wordle(answers=["crane", "crate", "grate", "slate", "skate"])
    >>> folder = tempfile.mkdtemp()
    >>> solve(game, cache_dir=folder).total == solve(game, cache_dir=folder).total
    True
"""

from __future__ import annotations

import json
import os
import time
import warnings
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..envs.game import Game
from ..infra.atomic import atomic_path, file_lock
from ..infra.inputs import read_npz
from . import search_kernels as K


class SearchKernel(Protocol):
    """What the store reads and fills: the two memo tables of a search
    (:class:`guessgym.baselines.optimal.SearchKernel`)."""

    exact: Any
    floor: Any

#: Format of the saved memo; bump when the keys or the packing of values change.
MEMO_FORMAT = 1
#: The most a memo file may hold once decompressed (its four arrays: 16 bytes a solved set, so 67
#: million of them; the proofs' largest memos hold a few million).
MAX_MEMO_BYTES = 1 << 30
#: A memo is written uncompressed: its arrays take no more than its file, so one whose arrays would take
#: more than twice its file (a 1 MB file holding 992 MiB) is not one a search wrote, and is not read.
MEMO_RATIO = 2.0


class MemoStore:
    """The saved memo of one game (lists and rules) and search width.

    Args:
        folder: where the file lives (the package cache folder in the CLI).
        game: the game searched.
        width: the search width (0: exact).
        save_every: seconds between the saves :meth:`maybe_save` makes during a search.
    """

    def __init__(self, folder: str | os.PathLike[str], game: Game, width: int, save_every: float = 60.0) -> None:
        self.game = game
        self.width = int(width)
        mode = "h" if game.hard_mode else "e"
        self.path = Path(folder) / f"memo-{game.fingerprint}-{mode}-w{self.width}.npz"
        self.save_every = save_every
        self._last_save = time.monotonic()
        self._saved_size = 0

    @property
    def meta(self) -> dict[str, object]:
        return {"format": MEMO_FORMAT, "game": self.game.name, "fingerprint": self.game.fingerprint,
                "hard_mode": self.game.hard_mode, "width": self.width, "key_seed": K.KEY_SEED}

    def _read(self) -> dict[str, np.ndarray] | None:
        if not self.path.is_file():
            return None
        try:  # decompressed only up to the bound (a 4.2 MB file whose arrays deflate to 2 GiB each took 8.6 GB)
            data = read_npz(self.path, "solved-subproblem cache", max_bytes=MAX_MEMO_BYTES, max_ratio=MEMO_RATIO)
            meta = json.loads(str(data["meta"]))
            if meta != self.meta:
                differs = [k for k in self.meta if meta.get(k) != self.meta[k]]
                raise ValueError(f"written for another search ({', '.join(differs)} differ)")
            arrays = {name: data[name] for name in ("exact_keys", "exact_values", "floor_keys", "floor_values")}
        except (OSError, ValueError, KeyError, json.JSONDecodeError) as exc:
            warnings.warn(f"ignoring the solved-subproblem cache {self.path}: {exc}; it is rebuilt at the next save",
                          RuntimeWarning, stacklevel=3)
            return None
        if any(arrays[f"{m}_keys"].shape != arrays[f"{m}_values"].shape for m in ("exact", "floor")):
            warnings.warn(f"ignoring the solved-subproblem cache {self.path}: keys and values differ in length",
                          RuntimeWarning, stacklevel=3)
            return None
        return arrays

    def _merge(self, kernel: SearchKernel, arrays: dict[str, np.ndarray]) -> int:
        added = K.memo_merge(kernel.exact, arrays["exact_keys"].astype(np.uint64),
                             arrays["exact_values"].astype(np.int64), False)
        K.memo_merge(kernel.floor, arrays["floor_keys"].astype(np.uint64), arrays["floor_values"].astype(np.int64),
                     True)
        return int(added)

    def load(self, kernel: SearchKernel, touch: bool = True) -> int:
        """Add the saved subproblems to ``kernel``'s memo; return how many solved sets were new
        (``touch``: mark the file recently used, for the cache's pruning)."""
        arrays = self._read()
        if arrays is None:
            return 0
        added = self._merge(kernel, arrays)
        if touch:  # recently used: the cache's pruning removes the least recently used first
            os.utime(self.path)
        self._saved_size = len(kernel.exact) + len(kernel.floor)
        return added

    def save(self, kernel: SearchKernel) -> int:
        """Merge ``kernel``'s memo with the file (another worker may have saved meanwhile) and
        replace the file atomically; return the solved sets it holds."""
        with file_lock(self.path.with_name(self.path.name + ".lock")):
            arrays = self._read()
            if arrays is not None:
                self._merge(kernel, arrays)
            exact_keys, exact_values = K.memo_items(kernel.exact)
            floor_keys, floor_values = K.memo_items(kernel.floor)
            with atomic_path(self.path, suffix=".npz") as tmp:
                np.savez(tmp, meta=np.array(json.dumps(self.meta)), exact_keys=exact_keys,
                         exact_values=exact_values, floor_keys=floor_keys, floor_values=floor_values)
        self._last_save = time.monotonic()
        self._saved_size = len(kernel.exact) + len(kernel.floor)
        return int(exact_keys.size)

    def grew(self, kernel: SearchKernel) -> bool:
        """Whether ``kernel``'s memo holds more entries than when it was last loaded or saved."""
        return len(kernel.exact) + len(kernel.floor) > self._saved_size

    def maybe_save(self, kernel: SearchKernel) -> None:
        """Save when ``save_every`` seconds have passed since the last save and the memo grew."""
        if time.monotonic() - self._last_save >= self.save_every and self.grew(kernel):
            self.save(kernel)


def shipped_folder() -> Path:
    """Where the package keeps the solved states it ships (``guessgym/envs/data/state_values``)."""
    return Path(str(resources.files("guessgym.envs") / "data" / "state_values"))


def load_shipped(kernel: SearchKernel, game: Game, width: int = 0) -> int:
    """Add the solved states shipped with the package for ``game`` and ``width`` to ``kernel``'s
    memo (the exact values of every state the main job's move analysis reaches, rebuilt from
    nothing by ``python scripts/state_values.py``); return how many were new. Nothing for another
    game: the file is named by the game's fingerprint, so a changed list never reads a stale one."""
    store = MemoStore(shipped_folder(), game, width)
    return store.load(kernel, touch=False) if store.path.is_file() else 0


__all__ = ["MEMO_FORMAT", "MemoStore", "load_shipped", "shipped_folder"]
