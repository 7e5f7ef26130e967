"""Searching every opener on its own: the same optimum as the one-process search, resumable from a
checkpoint (a torn last line is dropped, another game's file refused), over worker processes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from guessgym.baselines.opener_search import search_openers
from guessgym.baselines.optimal import solve
from guessgym.envs.game import nerdle


def test_every_opener_is_refuted_or_matches_the_optimum(tmp_path: Path) -> None:
    game = nerdle(5)
    optimum = solve(game).total  # 374
    outcomes = search_openers(game, list(game.guesses), optimum + 1, checkpoint=tmp_path / "run.jsonl")
    assert min(o.lower_bound for o in outcomes) == optimum
    best = [o for o in outcomes if o.total is not None]
    assert best and min(o.total for o in best) == optimum  # type: ignore[type-var]
    for o in outcomes:
        fixed = solve(game, opener=o.opener).total
        assert o.lower_bound <= fixed and (o.total is None or o.total == fixed)


def test_a_run_resumes_from_its_checkpoint(tmp_path: Path) -> None:
    game = nerdle(5)
    path = tmp_path / "run.jsonl"
    first = search_openers(game, list(game.guesses[:10]), 400, checkpoint=path)
    lines = path.read_text().splitlines()
    assert len(lines) == 11 and json.loads(lines[0])["fingerprint"] == game.fingerprint
    path.write_text("\n".join(lines[:6]) + "\n" + lines[6][:15])  # killed while writing line 7
    seen: list[tuple[int, int]] = []
    again = search_openers(game, list(game.guesses[:10]), 400, checkpoint=path,
                           progress=lambda done, total: seen.append((done, total)))
    assert [o.lower_bound for o in again] == [o.lower_bound for o in first]
    assert seen[0] == (5, 10) and seen[-1] == (10, 10)
    assert len(path.read_text().splitlines()) == 11
    assert all(json.loads(line) for line in path.read_text().splitlines())


def test_a_checkpoint_of_another_search_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    search_openers(nerdle(5), ["1+2=3"], 400, checkpoint=path)
    with pytest.raises(ValueError, match="checkpoint of another run.*width"):
        search_openers(nerdle(5), ["1+2=3"], 400, checkpoint=path, width=2)
    with pytest.raises(ValueError, match="not guesses of micro-nerdle"):
        search_openers(nerdle(5), ["salet"], 400)


def test_worker_processes_prove_what_the_serial_run_proves() -> None:
    game = nerdle(5)
    openers = list(game.guesses[:12])
    exact = {w: solve(game, opener=w).total for w in openers}
    serial = search_openers(game, openers, 10**6)
    parallel = search_openers(game, openers, 10**6, backend="process", n_jobs=2, chunk_size=3)
    for run in (serial, parallel):
        assert [o.opener for o in run] == openers
        for o in run:  # found trees are exact; refuted openers are bounded at or above their bound
            assert o.lower_bound <= exact[o.opener]
            assert o.total == exact[o.opener] if o.total is not None else o.lower_bound >= o.bound
        assert min(o.total for o in run if o.total is not None) == min(exact.values())


def test_the_progress_of_a_proof_gives_a_proven_bound_at_every_stage(tmp_path: Path) -> None:
    from guessgym.baselines.opener_search import proof_progress, prove

    game = nerdle(5)
    path = tmp_path / "proof.jsonl"
    with pytest.raises(FileNotFoundError, match="no such checkpoint"):
        proof_progress(game, path)
    result = prove(game, checkpoint=path, first=3)
    assert result.proven and result.total == 374
    lines = path.read_text().splitlines()
    final = proof_progress(game, path, first=3)
    assert final.finished and final.best == final.lower_bound == 374 and final.remaining_seconds == 0
    for keep in (2, len(lines) // 2):  # the run cut short: a weaker bound, still at most the optimum
        path.write_text("\n".join(lines[:keep]) + "\n")
        partial = proof_progress(game, path, first=3)
        assert not partial.finished and partial.done == 3 + keep - 1 < partial.openers == final.openers
        assert partial.best == 374 and partial.lower_bound <= 374 and partial.remaining_seconds >= 0


def test_reading_the_progress_leaves_a_live_run_s_last_line_alone(tmp_path: Path) -> None:
    from guessgym.baselines.opener_search import proof_progress, prove

    game = nerdle(5)
    path = tmp_path / "proof.jsonl"
    prove(game, checkpoint=path, first=3)
    lines = path.read_text().splitlines()
    being_written = "\n".join(lines[:5]) + "\n" + lines[5][:10]
    path.write_text(being_written)
    assert proof_progress(game, path, first=3).done == 3 + 4
    assert path.read_text() == being_written


def test_a_forged_proof_line_is_refused_naming_it(tmp_path: Path) -> None:
    """Issue 22, item 11: a forged line claiming a cheaper tree made ``prove`` return a worse tree
    marked "not proven". A claim the search cannot rebuild is refused naming the file and line;
    a claim no tree can meet (below 2n - 1 guesses) is refused when the file is read."""
    from guessgym.baselines.opener_search import prove

    game = nerdle(5)
    path = tmp_path / "proof.jsonl"
    prove(game, checkpoint=path, first=3)
    lines = path.read_text().splitlines()
    row = json.loads(lines[5])
    forged = {**row, "total": 373, "lower_bound": 373, "bound": 374}  # one below the optimum
    path.write_text("\n".join([*lines[:5], json.dumps(forged), *lines[6:]]) + "\n")
    with pytest.raises(ValueError, match=rf"proof\.jsonl: line 6 claims that opener {re.escape(repr(row['opener']))} "
                                         "has a tree of total 373, but its search gives"):
        prove(game, checkpoint=path, first=3)
    impossible = {**row, "total": 5, "lower_bound": 5, "bound": 374}
    path.write_text("\n".join([*lines[:5], json.dumps(impossible), *lines[6:]]) + "\n")
    before = path.read_bytes()
    with pytest.raises(ValueError, match=r"line 6 is refused: total 5 is not a whole number from 253"):
        prove(game, checkpoint=path, first=3)
    assert path.read_bytes() == before
