"""Every opener's value: the greedy intervals hold the exact totals, the exact totals are the move
analysis's values of the first move (brute force over every opener of small games, where trees fit
the attempts and where they do not), the table resumes and refuses contradictions, and the shipped
form reads back (and a damaged one is refused)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from guessgym.agents.opener_values import certain_count, parse_table
from guessgym.baselines.move_values import StateValues
from guessgym.baselines.opener_table import (
    OpenerSolver,
    OpenerTable,
    OpenerValue,
    certain_ranks,
    fill_exact,
    fill_greedy,
    shipped_blob,
)
from guessgym.baselines.optimal import solve
from guessgym.envs.game import Game, nerdle

GAMES = {"micro": lambda: nerdle(5), "micro-hard": lambda: nerdle(5, hard_mode=True),
         "micro-4-attempts": lambda: nerdle(5, max_attempts=4)}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_opener_s_exact_value_is_the_analysis_s_and_inside_its_greedy_interval(name: str,
                                                                                   tmp_path: Path) -> None:
    game: Game = GAMES[name]()
    solver = OpenerSolver(game)
    with OpenerTable(game, tmp_path / "table.jsonl") as table:
        assert fill_greedy(table, solver) == len(solver.openers())
        greedy = dict(table.values)
        assert fill_exact(table, solver) == len(greedy)
        exact = dict(table.values)
    values = StateValues(game)
    for word, interval in greedy.items():
        value = exact[word]
        assert value.exact and interval.lower <= value.upper <= interval.upper and value.fits == interval.fits
        truth, _ = values.after(values.everyone, game.guess_index[word], game.max_attempts, values.all_guesses)
        assert value.upper == truth, word
        if value.fits:
            assert value.upper == solve(game, opener=word).total
    assert min(v.upper for v in exact.values()) == solve(game).total
    assert certain_ranks(exact.values()) == sum(v.fits for v in exact.values())  # the rest ranked apart
    if name == "micro-4-attempts":  # 28 openers fit four attempts, the others are valued as the analysis does
        assert sum(v.fits for v in exact.values()) == 28


def test_the_table_resumes_and_refuses_what_contradicts_it(tmp_path: Path) -> None:
    game = nerdle(5)
    path = tmp_path / "table.jsonl"
    solver = OpenerSolver(game)
    with OpenerTable(game, path) as table:
        fill_greedy(table, solver, deadline=0.0)  # past its deadline: starts nothing
        assert not table.values
        fill_greedy(table, solver)
        fill_exact(table, solver, count=5)
        best = sorted(table.values.values(), key=lambda v: (v.upper, v.lower))[:5]
        assert all(v.exact for v in best)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines) + "\n" + lines[-1][:20])  # killed while writing a line
    with OpenerTable(game, path) as again:
        assert {w: (v.lower, v.upper) for w, v in again.values.items()} == \
               {w: (v.lower, v.upper) for w, v in table.values.items()}
        assert fill_greedy(again, solver) == 0
    word = best[0].opener
    with path.open("a") as f:
        f.write(json.dumps({"opener": word, "lower": best[0].upper + 1, "upper": best[0].upper + 5,
                            "seconds": 0.0}) + "\n")
    with pytest.raises(ValueError, match=f"opener '{word}' has the interval .* contradict each other"):
        OpenerTable(game, path)
    with pytest.raises(ValueError, match="opener table of another run|another run"):
        OpenerTable(nerdle(5, hard_mode=True), tmp_path / "table.jsonl")


@pytest.mark.parametrize("row", [
    {"opener": "zzzzz", "lower": 300, "upper": 400, "seconds": 0.1},
    {"opener": "1+2=3", "lower": 400, "upper": 300, "seconds": 0.1},
    {"opener": "1+2=3", "lower": 3, "upper": 400, "seconds": 0.1},
    {"opener": "1+2=3", "lower": 300, "upper": 400.5, "seconds": 0.1},
    {"opener": "1+2=3", "lower": 300, "upper": 400, "seconds": -1},
    {"opener": "1+2=3", "lower": 300, "upper": 400, "seconds": 0.1, "fits": "yes"},
    {"opener": "1+2=3", "lower": 300, "upper": 400, "seconds": 0.1, "extra": 1},
])
def test_a_malformed_line_is_refused_naming_it(tmp_path: Path, row: dict[str, object]) -> None:
    game = nerdle(5)
    path = tmp_path / "table.jsonl"
    OpenerTable(game, path).close()
    with path.open("a") as f:
        f.write(json.dumps(row) + "\n")
    with pytest.raises(ValueError, match="line 2"):
        OpenerTable(game, path)


def test_certain_ranks_stop_at_the_first_opener_an_unsolved_one_could_beat() -> None:
    rows = [OpenerValue("a", 10, 10), OpenerValue("b", 12, 12), OpenerValue("c", 11, 20), OpenerValue("d", 13, 13)]
    assert certain_ranks(rows) == 1  # c may be 11, below b's 12
    assert certain_count([(10, 10), (11, 11)]) == 2 and certain_count([(10, 9)]) == 0
    unfit = OpenerValue("e", 5, 30, fits=False)  # ranked apart: its low bound doubts no rank
    assert certain_ranks([*rows, unfit]) == 1 and certain_ranks([rows[0], rows[1], unfit]) == 2


def test_the_shipped_form_reads_back(tmp_path: Path) -> None:
    game = nerdle(5, max_attempts=4)
    solver = OpenerSolver(game)
    with OpenerTable(game, tmp_path / "t.jsonl") as table:
        fill_greedy(table, solver)
        fill_exact(table, solver, count=10)
        values = dict(table.values)
    shipped = parse_table(shipped_blob(game, values, "cmd"), "t.json.gz")
    assert shipped.matches(game) and not shipped.matches(nerdle(5)) and shipped.command == "cmd"
    assert shipped.computed == len(values) and shipped.exact == sum(v.exact for v in values.values())
    for word, value in values.items():
        interval = shipped.interval(game, game.guess_index[word])
        assert interval is not None and (interval.lower, interval.upper, interval.fits) == \
            (value.lower, value.upper, value.fits)
    floored = parse_table(shipped_blob(game, values, "cmd", floor=10**6), "t.json.gz")
    for word, value in values.items():  # a proven floor of every fitting tree raises their bounds, never above a tree
        got = floored.interval(game, game.guess_index[word])
        assert got is not None and got.lower == (value.upper if value.fits else value.lower)
    missing = next(g for g in range(len(game.guesses)) if game.guesses[g] not in values) \
        if len(values) < len(game.guesses) else None
    if missing is not None:
        assert shipped.interval(game, missing) is None
    # the optimum's tree is a tree of its opener: it lowers that opener's upper total to the optimum
    optimum = solve(game)
    word = optimum.tree.root.guess
    wide = {**values, word: OpenerValue(word, optimum.total - 5, optimum.total + 3, True)}
    best = parse_table(shipped_blob(game, wide, "cmd", floor=optimum.total, best=(word, optimum.total)), "t.json.gz")
    got = best.interval(game, game.guess_index[word])
    assert got is not None and got.exact and got.upper == optimum.total


def test_the_shipped_tables_give_the_optimums_opener_its_proven_total() -> None:
    """Issue 52: hard mode's SALET was 8,099 to 8,106 in the table though the proof gives 8,099."""
    from guessgym.agents.opener_values import opener_interval
    from guessgym.agents.optima import known_optimum
    from guessgym.envs.game import make_game

    for env_id in ("guessgym/Wordle-v1", "guessgym/WordleHard-v1"):
        game = make_game(env_id)
        optimum = known_optimum(game)
        assert optimum is not None and optimum.proven
        got = opener_interval(game, game.guess_index[optimum.opener])
        assert got is not None and (got.lower, got.upper) == (optimum.total, optimum.total)


@pytest.mark.parametrize(("blob", "message"), [
    (b"not gzip", "not a gzip'd JSON opener table"),
    (gzip.compress(b"[1, 2]", mtime=0), "not an opener table of format 1"),
    (gzip.compress(json.dumps({"format": 1, "guesses": 2, "lower": [1], "upper": [1, 2]}).encode(), mtime=0),
     "lists of one number per guess"),
    (gzip.compress(json.dumps({"format": 1, "guesses": 2, "lower": [3, 0], "upper": [2, 0]}).encode(), mtime=0),
     "0 <= lower <= upper"),
    (gzip.compress(json.dumps({"format": 1, "guesses": 1, "lower": ["x"], "upper": [2]}).encode(), mtime=0),
     "lists of whole numbers"),
    (gzip.compress(json.dumps({"format": 1, "guesses": 1, "lower": [1], "upper": [2], "unfit": [5]}).encode(), mtime=0),
     "unfit must be a list of guess indices"),
    (gzip.compress(json.dumps({"format": 1, "guesses": 1, "lower": [1], "upper": [2]}).encode(), mtime=0),
     "a field of the table is missing"),
], ids=["not-gzip", "not-a-table", "ragged", "lower-above-upper", "not-numbers", "bad-unfit", "no-game"])
def test_a_damaged_shipped_table_is_refused(blob: bytes, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_table(blob, "x.json.gz")
    assert np.asarray([0]).size == 1


def test_trace_cannot_always_win_hard_mode_wordle_in_six() -> None:
    """The fact behind many hard-mode openers marked as not fitting: after TRACE shows YBYGB, the
    seven ?ATCH answers are left, and hard mode lets each of the five guesses try only one of them."""
    from guessgym.baselines.search_kernels import INF
    from guessgym.envs.game import make_game
    from guessgym.envs.scoring import tiles_to_pattern

    game = make_game("guessgym/WordleHard-v1")
    solver = OpenerSolver(game)
    kernel = solver.kernel(0)
    guess = game.guess_index["trace"]
    children = {p: (b, a) for p, b, a in kernel.children(solver.everyone, guess, kernel.all_guesses)}
    bucket, allowed = children[tiles_to_pattern("YBYGB", 5)]
    assert sorted(game.answers[i] for i in bucket) == ["batch", "catch", "hatch", "latch", "match", "patch", "watch"]
    assert kernel.cost(bucket, 5, allowed, INF) >= INF and kernel.cost(bucket, 7, allowed, INF) < INF


def test_the_published_page_is_the_shipped_tables_page() -> None:
    """docs/openers.md is what `scripts/opener_table.py page` writes from the tables the package
    ships (rerun it after `ship`); every shipped table is on it with its coverage."""
    from guessgym.agents.opener_values import page_markdown, shipped_tables
    from guessgym.envs.game import make_game

    games = [make_game("guessgym/Wordle-v1"), make_game("guessgym/WordleHard-v1")]
    page = page_markdown(games)
    assert (Path(__file__).resolve().parents[2] / "docs/openers.md").read_text(encoding="utf-8") == page
    for table in shipped_tables():
        assert f"## {table.game}, " in page and f"Coverage: {table.computed:,} openers with an interval" in page


def test_refuting_at_the_kth_total_ranks_the_best_k_for_certain(tmp_path: Path) -> None:
    from guessgym.baselines.opener_table import fill_refute

    game = nerdle(5)
    solver = OpenerSolver(game)
    with OpenerTable(game, tmp_path / "t.jsonl") as table:
        fill_greedy(table, solver)
        fill_exact(table, solver, count=10)
        totals = sorted(v.upper for v in table.values.values() if v.exact)
        bound = totals[9]
        assert fill_refute(table, solver, bound) > 0
        values = dict(table.values)
    truth = {w: solve(game, opener=w).total for w in values}
    for word, value in values.items():
        assert value.lower <= truth[word] <= value.upper
        assert value.exact or value.lower >= bound
    assert certain_ranks(values.values()) >= 10
    ranked = sorted(values.values(), key=lambda v: (v.upper, v.lower))[:10]
    assert [v.upper for v in ranked] == sorted(truth.values())[:10]


def test_a_table_that_decompresses_without_bound_is_refused_within_its_bound() -> None:
    """Issue 50, item 9: 2 MB of gzip was decompressed whole (4.3 GB resident) before the size check."""
    import gzip
    import tracemalloc

    from guessgym.agents.opener_values import MAX_TABLE_BYTES, parse_table

    bomb = gzip.compress(b" " * (256 << 20), compresslevel=9)  # 256 MB of spaces in some 250 KB
    assert len(bomb) < 2 << 20
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=f"over {MAX_TABLE_BYTES:,} bytes once decompressed"):
            parse_table(bomb, "bomb.json.gz")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * MAX_TABLE_BYTES


def test_refuting_in_worker_processes_settles_every_opener_as_this_process_does(tmp_path: Path) -> None:
    from guessgym.baselines.opener_table import Workers, fill_refute

    game = nerdle(5)
    solver = OpenerSolver(game)

    def certified(name: str, workers: Workers) -> dict[str, tuple[int, int]]:
        with OpenerTable(game, tmp_path / f"{name}.jsonl") as table:
            fill_greedy(table, solver)
            fill_exact(table, solver, count=6)
            bound = sorted(v.upper for v in table.values.values() if v.exact)[5]
            todo = sum(not v.exact and v.fits and v.lower < bound for v in table.values.values())
            assert fill_refute(table, solver, bound, workers=workers) == todo > 0
            return {w: (v.lower, v.upper) for w, v in table.values.items()}

    alone, pool = certified("serial", Workers()), certified("process", Workers("process", 2))
    assert pool == alone and certain_ranks(OpenerValue(w, lo, up) for w, (lo, up) in pool.items()) >= 6


def test_the_best_n_are_counted_among_the_openers_that_always_win(tmp_path: Path) -> None:
    from guessgym.baselines.opener_table import fill_refute

    game = nerdle(5, max_attempts=4)  # Micro Nerdle in four guesses: some openers cannot always win
    solver = OpenerSolver(game)
    with OpenerTable(game, tmp_path / "t.jsonl") as table:
        fill_greedy(table, solver)
        before = sorted(table.values.values(), key=lambda v: (v.upper, v.lower, v.opener))
        n = 8
        fits_before = [v for v in before if v.fits]
        unfit_ahead = [v for v in before if not v.fits and (v.upper, v.lower) < (fits_before[n].upper,
                                                                                   fits_before[n].lower)]
        assert unfit_ahead  # openers that cannot always win stand among the best n by their upper totals
        fill_exact(table, solver, count=n)
        values = dict(table.values)
        fits = sorted((v for v in values.values() if v.fits), key=lambda v: (v.upper, v.lower))
        assert all(v.exact for v in fits[:n])
        assert all(values[v.opener].exact for v in unfit_ahead if v.upper < fits[n - 1].upper)
        bound = sorted(v.upper for v in values.values() if v.exact and v.fits)[n - 1]
        fill_refute(table, solver, bound)
        assert certain_ranks(table.values.values()) >= n
