"""What the disk cache holds, and keeping it small (behind ``guessgym cache``).

The cache folder (:func:`cache_dir`) holds one pattern matrix per game
(30 MB for Wordle, 628 MB for classic Nerdle) and grows with every custom word list played. This
module lists it, clears it and prunes it to a size, least recently used first (a matrix's file
time is refreshed whenever a process loads it). Files of guessgym < 0.3 (no checksum in their
name, never loaded any more) and temporaries left by killed builds go first; a temporary that a
live process is still writing is never touched.

Examples:
    >>> parse_size("1.5G"), parse_size("300M"), parse_size("0")
    (1500000000, 300000000, 0)
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

from .atomic import is_stale, is_temporary, remove_path

#: The name of a pattern-matrix cache file: ``patterns-<fingerprint>.<scheme>-<checksum>.npy``
#: (written and verified by :mod:`guessgym.envs.matrix`).
CACHE_NAME = re.compile(
    r"^patterns-(?P<fingerprint>[0-9a-f]+)\.(?P<scheme>[a-z0-9]+)-(?P<checksum>[0-9a-f]{16})\.npy$"
)

#: The name of a solved decision tree (written by :mod:`guessgym.baselines.optimal_agent`):
#: ``tree-<fingerprint>-<options key>.txt.gz``.
TREE_NAME = re.compile(r"^tree-(?P<fingerprint>[0-9a-f]+)-(?P<options>[0-9a-f]{16})\.txt\.gz$")

#: The solved subproblems of an exact search (written by :mod:`guessgym.baselines.memo_store`):
#: ``memo-<fingerprint>-<e|h>-w<width>.npz`` and the lock file its writers share.
MEMO_NAME = re.compile(r"^memo-(?P<fingerprint>[0-9a-f]+)-(?P<mode>[eh])-w(?P<width>\d+)\.npz(?P<lock>\.lock)?$")

_UNITS = {"": 1, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}


@dataclass(frozen=True)
class CacheFile:
    """One entry of the cache folder.

    Attributes:
        path: the file (or a temporary folder).
        size: bytes.
        mtime: last write or load (seconds since the epoch).
        kind: ``"matrix"`` (verified on load), ``"tree"`` (a solved optimal tree), ``"memo"`` (an
            exact search's solved subproblems),
            ``"legacy"`` (guessgym < 0.3, unused),
            ``"temporary"`` (a build in progress) or ``"stale"`` (a killed build's leftover).
    """

    path: Path
    size: int
    mtime: float
    kind: str

    @property
    def removable_first(self) -> bool:
        return self.kind in ("legacy", "stale")


def cache_dir() -> Path:
    """Where pattern matrices are cached (``$GUESSGYM_CACHE_DIR`` or ``~/.cache/guessgym``)."""
    env = os.environ.get("GUESSGYM_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "guessgym"


def parse_size(text: str) -> int:
    """``"500M"``, ``"2G"``, ``"1.5G"``, ``"0"`` (decimal units; a trailing ``B`` is allowed) -> bytes.

    Raises:
        ValueError: naming the text and the accepted forms.
    """
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)B?\s*", text.upper())
    if match is None:
        raise ValueError(f"size {text!r} is not a number with an optional K, M, G or T (e.g. 500M, 2G, 0)")
    return int(float(match.group(1)) * _UNITS[match.group(2)])


def format_size(n: int) -> str:
    for unit in ("T", "G", "M", "K"):
        if n >= _UNITS[unit]:
            return f"{n / _UNITS[unit]:.1f} {unit}B"
    return f"{n} B"


def cache_files(folder: Path | None = None) -> list[CacheFile]:
    """Every entry of the cache folder, oldest first."""
    folder = cache_dir() if folder is None else folder
    if not folder.is_dir():
        return []
    entries = []
    for path in folder.iterdir():
        try:
            stat = path.stat()
            size = sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else stat.st_size
        except OSError:
            continue  # removed meanwhile
        if is_temporary(path):
            kind = "stale" if is_stale(path) else "temporary"
        elif CACHE_NAME.match(path.name):
            kind = "matrix"
        elif TREE_NAME.match(path.name):
            kind = "tree"
        elif MEMO_NAME.match(path.name):
            kind = "memo"
        elif re.fullmatch(r"patterns-[0-9a-f]+\.npy", path.name):
            kind = "legacy"
        else:
            continue  # not ours: leave it alone
        entries.append(CacheFile(path, size, stat.st_mtime, kind))
    return sorted(entries, key=lambda e: e.mtime)


def clear_cache(folder: Path | None = None) -> list[CacheFile]:
    """Remove every entry except temporaries being written now; return what was removed."""
    return [e for e in cache_files(folder) if e.kind != "temporary" and remove_path(e.path, missing_ok=True)]


def prune_cache(max_bytes: int, folder: Path | None = None) -> list[CacheFile]:
    """Remove leftovers, then the least recently used matrices, trees and memos, until the cache holds ``max_bytes``
    or less (temporaries being written count, but are kept); return what was removed."""
    entries = cache_files(folder)
    total = sum(e.size for e in entries)
    removed = []
    order = [e for e in entries if e.removable_first] + [e for e in entries if e.kind in ("matrix", "tree", "memo")]
    for entry in order:
        if total <= max_bytes and not entry.removable_first:
            break
        if remove_path(entry.path, missing_ok=True):
            total -= entry.size
            removed.append(entry)
    return removed


def describe_cache(folder: Path | None = None) -> str:
    """A table of the cache: location, entries (newest first) and total."""
    folder = cache_dir() if folder is None else folder
    entries = cache_files(folder)
    lines = [f"cache folder: {folder} (set GUESSGYM_CACHE_DIR to move it)"]
    if not entries:
        return "\n".join([*lines, "empty"])
    now = time.time()
    for e in reversed(entries):
        age = (now - e.mtime) / 86400
        lines.append(f"  {format_size(e.size):>9s}  {e.kind:9s}  used {age:5.1f} days ago  {e.path.name}")
    lines.append(f"  {format_size(sum(e.size for e in entries)):>9s}  total in {len(entries)} entries")
    return "\n".join(lines)


__all__ = [
    "CACHE_NAME", "MEMO_NAME", "TREE_NAME", "CacheFile", "cache_dir", "cache_files", "clear_cache", "describe_cache",
    "format_size", "parse_size", "prune_cache",
]
