"""One opener's value on demand (issue 52): what the table says where it knows, the same totals
solved where it does not, ranks that agree with sorting every opener, proven intervals past a time
budget, and the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from guessgym.agents.opener_values import parse_table
from guessgym.baselines.opener_lookup import opener_report
from guessgym.baselines.opener_table import OpenerSolver, OpenerTable, fill_exact, fill_greedy, shipped_blob
from guessgym.cli import main
from guessgym.envs.game import Game, nerdle


def full_table(game: Game, tmp_path: Path, exact: int | None) -> dict:  # type: ignore[type-arg]
    solver = OpenerSolver(game)
    with OpenerTable(game, tmp_path / "t.jsonl") as table:
        fill_greedy(table, solver)
        fill_exact(table, solver, count=exact)
        return dict(table.values)


@pytest.mark.parametrize("max_attempts", [6, 4])  # 4: some openers cannot always win in time
def test_every_openers_report_is_the_tables_value_and_its_rank_among_all(max_attempts: int, tmp_path: Path) -> None:
    game = nerdle(5, max_attempts=max_attempts)
    values = full_table(game, tmp_path, exact=None)
    assert all(v.exact for v in values.values())
    table = parse_table(shipped_blob(game, values, "cmd"), "t.json.gz")
    fitting = {w: v.upper for w, v in values.items() if v.fits}
    for word, value in values.items():
        read = opener_report(game, word, table=table)
        solved = opener_report(game, word)  # no table for this game: solved
        assert read.source == "table" and solved.source == "solved"
        assert (read.lower, read.upper, read.fits) == (solved.lower, solved.upper, solved.fits) == \
            (value.lower, value.upper, value.fits)
        if value.fits:
            better = sum(1 for w, t in fitting.items() if w != word and t < value.upper)
            assert read.rank == (better + 1, better + 1) and read.ranked == len(fitting)
        else:
            assert read.rank is None and "neither ranked" in " ".join(read.lines())
        assert solved.rank is None
        assert ("no shipped table" if value.fits else "neither ranked") in " ".join(solved.lines())
    assert max_attempts == 6 or any(not v.fits for v in values.values())


def test_an_opener_the_table_has_not_solved_is_solved_and_ranked_by_the_intervals(tmp_path: Path) -> None:
    game = nerdle(5)
    exact = full_table(game, tmp_path / "a", exact=None)
    partial = full_table(game, tmp_path / "b", exact=5)
    table = parse_table(shipped_blob(game, partial, "cmd"), "t.json.gz")
    word = next(w for w, v in partial.items() if not v.exact)
    told: list[tuple[int, int]] = []
    report = opener_report(game, word, table=table, progress=lambda done, total: told.append((done, total)))
    assert report.source == "solved" and report.lower == report.upper == exact[word].upper
    assert told and told[-1] == (len(game.answers), len(game.answers))  # a bucket at a time, to every answer
    assert all(a[0] < b[0] for a, b in zip(told, told[1:]))
    low, high = report.rank or (0, 0)
    others = [v for w, v in partial.items() if w != word]
    assert low == 1 + sum(v.upper < report.upper for v in others)
    assert high == 1 + sum(v.lower < report.upper for v in others)
    assert high > low  # the unsolved openers' intervals leave the rank open
    assert "could be better or worse" in " ".join(report.lines())


def test_past_its_time_budget_the_report_is_a_proven_interval() -> None:
    game = nerdle(6)  # Mini Nerdle: a weak opener takes longer than a microsecond
    exact = opener_report(game, "10-9=1")
    bounded = opener_report(game, "10-9=1", time_budget=1e-6)
    assert exact.source == "solved"
    assert bounded.lower <= exact.lower and (bounded.upper == 0 or bounded.upper >= exact.upper)
    if bounded.source == "bounded":
        assert "time budget ran out" in " ".join(bounded.lines())


def test_the_opener_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["opener", "salet"]) == 0
    out = capsys.readouterr().out
    assert "total 7,897 over 2,309 answers" in out and "rank 1 of the 12,947" in out and "shipped opener table" in out
    assert main(["opener", "SALET", "--hard", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["lower"], data["upper"], data["exact"], data["source"]) == (8099, 8099, True, "table")
    for argv, message in [(["opener", "zzzzz"], "'zzzzz' is not a guess of wordle-5-nyt"),
                          (["opener", "crane", "--time-budget", "0"], "--time-budget"),
                          (["opener", "crane", "--list", "klingon"], "--list")]:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1


def test_the_report_says_where_the_solved_sets_are_kept(tmp_path: Path) -> None:
    """Issue 63 item 13: ``--no-memo`` ended "the solved sets are kept"."""
    game = nerdle(5)
    in_memory = opener_report(game, "5-1=4")
    assert in_memory.memo == "" and "kept in memory only" in in_memory.lines()[-1]
    assert "are kept" not in in_memory.lines()[-1]
    on_disk = opener_report(game, "5-1=4", cache_dir=tmp_path)
    assert Path(on_disk.memo).parent == tmp_path and Path(on_disk.memo).is_file()
    assert f"kept in {on_disk.memo}" in on_disk.lines()[-1]


def test_a_memo_valued_below_the_proven_optimum_is_refused_as_damaged(tmp_path: Path) -> None:
    """Issue 63 item 14: a memo whose exact values were all lowered by one was reported as exact, with a
    negative loss against the best; it is refused, the file named, and left as it was."""
    import numpy as np

    from guessgym.baselines.opener_lookup import DamagedMemo
    from guessgym.baselines.search_kernels import GUESS_BITS

    game = nerdle(5)
    honest = opener_report(game, "5-1=4", cache_dir=tmp_path)
    assert honest.lower == honest.upper == honest.best_total == 374
    memo = Path(honest.memo)
    with np.load(memo) as saved:
        arrays = {name: saved[name] for name in saved.files}
    costs = arrays["exact_values"] >> GUESS_BITS
    arrays["exact_values"] = np.where(costs > 0, arrays["exact_values"] - (1 << GUESS_BITS), arrays["exact_values"])
    np.savez(memo, **arrays)
    before = memo.read_bytes()
    with pytest.raises(DamagedMemo, match=r"^the solved sets of .*memo-.*value 5-1=4 at a total of [\d,]+, below the "
                                          r"game's proven optimum \(5-1=4\), 374: the file is damaged"):
        opener_report(game, "5-1=4", cache_dir=tmp_path)
    assert memo.read_bytes() == before
