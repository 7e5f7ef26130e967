"""Solved subproblems on disk: an interrupted search continues, workers share, bad files are ignored."""

from __future__ import annotations

import shutil
from pathlib import Path

import gymnasium as gym
import pytest

import guessgym  # noqa: F401
from guessgym.baselines.memo_store import MemoStore
from guessgym.baselines.opener_search import prove
from guessgym.baselines.optimal import INF, ExactSearch, SearchKernel, solve
from guessgym.envs.game import nerdle, wordle
from guessgym.evaluation.tree_checks import verify_tree
from guessgym.infra.cache import cache_files

MIDI_OPENER = "5+26=31"


def test_an_interrupted_search_continues_from_the_solved_subproblems(tmp_path: Path) -> None:
    game = nerdle(7)
    full = solve(game, opener=MIDI_OPENER)
    calls = []

    def interrupt(done: int, total: int) -> None:
        calls.append(done)
        if len(calls) == 4:  # three buckets of the opener solved
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        solve(game, opener=MIDI_OPENER, cache_dir=tmp_path, progress=interrupt)
    resumed = solve(game, opener=MIDI_OPENER, cache_dir=tmp_path)
    assert resumed.total == full.total and resumed.proven
    assert 0 < resumed.nodes < full.nodes  # the three buckets were not searched again
    written = MemoStore(tmp_path, game, 0).path.stat().st_ino
    again = solve(game, opener=MIDI_OPENER, cache_dir=tmp_path)
    assert again.total == full.total and again.nodes == 0 and again.proven
    assert MemoStore(tmp_path, game, 0).path.stat().st_ino == written  # read, not rewritten
    assert verify_tree(again.tree, gym.make("guessgym/MidiNerdle-v1")).ok


def test_a_timed_out_search_keeps_what_it_solved(tmp_path: Path) -> None:
    game = nerdle(8)
    first = solve(game, openers=1, time_budget=0.05, cache_dir=tmp_path)
    assert first.timed_out
    store = MemoStore(tmp_path, game, 0)
    kernel = SearchKernel(game, ExactSearch(game).mt, 0, 0.0)
    assert store.path.is_file() and store.load(kernel) == len(kernel.exact) > 0


def test_files_are_kept_apart_by_lists_rules_and_width(tmp_path: Path) -> None:
    names = {MemoStore(tmp_path, game, width).path.name
             for game in (nerdle(5), nerdle(5, guesses="all"), wordle(word_list="nyt"),
                          wordle(word_list="nyt", hard_mode=True)) for width in (0, 3)}
    assert len(names) == 8
    solve(nerdle(5), openers=2, cache_dir=tmp_path)
    solve(nerdle(5), openers=2, width=2, cache_dir=tmp_path)
    assert MemoStore(tmp_path, nerdle(5), 0).path.is_file() and MemoStore(tmp_path, nerdle(5), 2).path.is_file()
    kinds = {e.kind for e in cache_files(tmp_path)}
    assert kinds == {"memo"}


def test_workers_saving_the_same_file_lose_nothing(tmp_path: Path) -> None:
    game = nerdle(6)
    mt = ExactSearch(game).mt
    search = ExactSearch(game)
    a = SearchKernel(game, mt, 0, 0.0, tmp_path)
    b = SearchKernel(game, mt, 0, 0.0, tmp_path)  # both loaded the (empty) file before either saved
    openers = search.opener_order(a)[0]
    search.opener_cost(a, openers[0], INF)
    search.opener_cost(b, openers[5], INF)
    solved_a, solved_b = set(a.exact.keys()), set(b.exact.keys())
    assert len(solved_a | solved_b) > max(len(solved_a), len(solved_b))  # each solved sets the other did not
    a.checkpoint(force=True)
    b.checkpoint(force=True)  # merges a's file before replacing it
    c = SearchKernel(game, mt, 0, 0.0, tmp_path)
    assert c.loaded == len(solved_a | solved_b)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "another game"])
def test_an_unreadable_file_is_ignored_with_a_warning_and_rebuilt(tmp_path: Path, damage: str) -> None:
    game = nerdle(5)
    expected = solve(game, openers=3).total
    path = MemoStore(tmp_path, game, 0).path
    if damage == "garbage":
        path.write_bytes(b"not a memo")
    else:
        other = tmp_path / "other"
        solve(nerdle(6), openers=1, cache_dir=other)
        source = next(other.glob("memo-*.npz"))
        if damage == "truncated":
            path.write_bytes(source.read_bytes()[:200])
        else:
            shutil.copyfile(source, path)
    with pytest.warns(RuntimeWarning, match="ignoring the solved-subproblem cache"):
        assert solve(game, openers=3, cache_dir=tmp_path).total == expected
    kernel = SearchKernel(game, ExactSearch(game).mt, 0, 0.0)
    assert MemoStore(tmp_path, game, 0).load(kernel) > 0  # replaced by a good file


def test_a_resumed_proof_reuses_the_first_openers_trees(tmp_path: Path) -> None:
    game = nerdle(5)
    first = prove(game, checkpoint=tmp_path / "p.jsonl", cache_dir=tmp_path)
    second = prove(game, checkpoint=tmp_path / "p.jsonl", cache_dir=tmp_path)
    assert first.proven and second.proven and first.total == second.total == 374
    assert second.nodes == 0  # the incumbent's tree came from the saved memo
