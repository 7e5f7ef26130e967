"""The disk cache stays small and clean: ``guessgym cache`` lists, prunes and clears it, and
temporaries of killed writers go away without ever touching a live writer's."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from guessgym.cli import main
from guessgym.envs.game import Game, wordle
from guessgym.envs.matrix import PatternMatrix, cached_files
from guessgym.infra.atomic import FOREIGN_STALE_SECONDS, _host, atomic_directory, atomic_path, remove_stale_temporaries
from guessgym.infra.cache import cache_files, clear_cache, parse_size, prune_cache


def dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def small(n: int) -> Game:  # a game of its own per n: a matrix file of its own
    words = ["crane", "slate", "crate", "plate", "grate", "trace", "react", "caret"][: 3 + n]
    return wordle(answers=words)


def test_temporaries_of_dead_writers_are_removed_and_live_ones_kept(tmp_path: Path) -> None:
    host = _host()
    dead, live = dead_pid(), os.getppid()
    entries = {
        f"a.npy.{host}~{dead}.xyz.tmp": True,  # a killed build
        f".tmp-step-000000001024-{host}~{dead}-abcd": True,  # a killed checkpoint save
        f"b.npy.{host}~{live}.xyz.tmp": False,  # a build still running
        f"c.npy.otherhost~{dead}.xyz.tmp": False,  # another machine's, recent
        "d.npy.k3j4.tmp": False,  # written by guessgym < 0.3, recent
        "e.npy": False,  # not a temporary
    }
    for name in entries:
        path = tmp_path / name
        path.mkdir() if name.startswith(".tmp-") else path.write_bytes(b"x")
    old = time.time() - FOREIGN_STALE_SECONDS - 60
    os.utime(tmp_path / f"c.npy.otherhost~{dead}.xyz.tmp", (old, old))
    entries[f"c.npy.otherhost~{dead}.xyz.tmp"] = True  # ... once older than a day
    removed = {p.name for p in remove_stale_temporaries(tmp_path)}
    assert removed == {name for name, stale in entries.items() if stale}
    assert all((tmp_path / name).exists() for name, stale in entries.items() if not stale)


def test_atomic_writers_name_their_owner(tmp_path: Path) -> None:
    with atomic_path(tmp_path / "f.npy") as tmp:
        assert f"{_host()}~{os.getpid()}" in tmp.name
        assert not remove_stale_temporaries(tmp_path)  # this process is alive: kept
    with atomic_directory(tmp_path / "step-1") as folder:
        assert folder.name.startswith(f".tmp-step-1-{_host()}~{os.getpid()}-")


def test_prune_removes_leftovers_then_the_least_recently_used(isolated_cache: Path) -> None:
    for n in range(3):
        PatternMatrix.for_game(small(n))
    files = cached_files()
    assert len(files) == 3
    for age, path in enumerate(reversed(files)):  # oldest first: small(0) was built first
        t = time.time() - 1000 * (3 - age)
        os.utime(path, (t, t))
    legacy = isolated_cache / "patterns-0123456789abcdef01234567.npy"
    np.save(legacy, np.zeros(5, dtype=np.uint8))
    sizes = {p: p.stat().st_size for p in cached_files()}
    oldest, *rest = sorted(sizes, key=lambda p: p.stat().st_mtime)
    removed = prune_cache(sum(sizes.values()) - 1)
    assert {e.path for e in removed} == {legacy, oldest}
    assert set(cached_files()) == set(rest)
    PatternMatrix.clear_memory()
    PatternMatrix.for_game(small(1))  # loading refreshes its time: it is now the most recent
    assert cached_files()[0].name.startswith(f"patterns-{small(1).fingerprint}.")
    assert len(clear_cache()) == 2 and cache_files() == []


def test_cache_command(isolated_cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    PatternMatrix.for_game(small(0))
    assert main(["cache"]) == 0
    out = capsys.readouterr().out
    assert f"cache folder: {isolated_cache}" in out and "matrix" in out and "total in 1 entries" in out
    assert main(["cache", "--prune", "0"]) == 0
    assert "removed 1 entry" in capsys.readouterr().out and not cached_files()
    assert main(["cache", "--prune", "lots"]) == 2
    assert "size 'lots' is not a number" in capsys.readouterr().err
    assert main(["list"]) == 0
    listed = capsys.readouterr().out
    assert f"Cache: {isolated_cache}" in listed
    assert "guesses=all" in listed and not any(line.count("guesses=all") > 1 for line in listed.splitlines())


@pytest.mark.parametrize(
    ("text", "size"), [("0", 0), ("500M", 500_000_000), ("2g", 2 * 10**9), ("1.5GB", 1_500_000_000)]
)
def test_parse_size(text: str, size: int) -> None:
    assert parse_size(text) == size
