"""Move analysis: against brute force over every strategy on tiny games, the optimum's moves lose
nothing, losses add up to the gap to the optimum, and a record and the same game typed in agree."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import pytest

import guessgym  # noqa: F401
from guessgym.agents.registry import make_agent
from guessgym.baselines import move_values
from guessgym.baselines.move_values import StateValues
from guessgym.baselines.optimal import INF, solve
from guessgym.cli import main
from guessgym.envs import make_game
from guessgym.envs.candidates import HardModeRule
from guessgym.envs.game import Game, nerdle, wordle
from guessgym.envs.scoring import all_green, pattern_to_tiles
from guessgym.evaluation import evaluate
from guessgym.evaluation.analysis import analyze, analyze_moves, parse_typed_game, record_moves, values_scorer

WORDS = ["crane", "crate", "grate", "slate", "plate", "place", "space", "spade", "shade", "share", "stare",
         "scare", "score", "store", "stone", "shone", "phone", "prone", "drone", "crone"]


def brute_value(game: Game, cands: tuple[str, ...], left: int, rule: HardModeRule | None) -> int:
    """T*(C): the fewest total guesses over ``cands`` by recursion over every guess; no bound, no memo."""
    if len(cands) == 1:
        return 1 if left >= 1 else INF
    if left <= 1:
        return INF
    best = INF
    for index in range(len(game.guesses)):
        if rule is not None and rule.violation(index) is not None:
            continue
        best = min(best, brute_after(game, cands, index, left, rule)[0])
    return best


def brute_after(game: Game, cands: tuple[str, ...], guess: int, left: int,
                rule: HardModeRule | None) -> tuple[int, dict[int, tuple[tuple[str, ...], int]]]:
    """|C| + sum T*(bucket) for ``guess`` now, and each bucket with its value."""
    green = all_green(game.length)
    buckets: dict[int, list[str]] = {}
    for a in cands:
        buckets.setdefault(game.score(game.guesses[guess], a), []).append(a)
    if len(buckets) == 1 and green not in buckets:
        return INF, {}
    total = len(cands)
    values = {}
    for pattern, bucket in buckets.items():
        child = None
        if rule is not None:
            child = rule.copy()
            child.add(guess, pattern)
        value = 0 if pattern == green else brute_value(game, tuple(bucket), left - 1, child)
        values[pattern] = (tuple(bucket), value)
        total += value
    return total, values


@pytest.mark.parametrize("hard_mode", [False, True])
@pytest.mark.parametrize("seed", range(8))
def test_every_move_equals_brute_force_on_tiny_games(seed: int, hard_mode: bool) -> None:
    rng = np.random.default_rng(seed)
    answers = sorted(rng.choice(WORDS, size=int(rng.integers(3, 7)), replace=False).tolist())
    extra = sorted(set(rng.choice(WORDS, size=3, replace=False).tolist()) - set(answers))
    check_against_brute_force(wordle(answers=answers, guesses=answers + extra, hard_mode=hard_mode), rng)


@pytest.mark.parametrize("hard_mode", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_nerdle_with_every_valid_equation_as_a_guess_equals_brute_force(seed: int, hard_mode: bool) -> None:
    """Nerdle as the site plays it (any valid equation may be guessed, not only the answers),
    on three of Micro Nerdle's answers against all 184 of its equations."""
    rng = np.random.default_rng(100 + seed)
    pool = nerdle(5).answers
    answers = sorted(rng.choice(pool, size=3, replace=False).tolist())  # brute force over 184 guesses: 3 answers
    game = nerdle(5, guesses="all", answers=answers, hard_mode=hard_mode)
    assert len(game.guesses) == 184 and len(game.answers) == len(answers)
    check_against_brute_force(game, rng)


def check_against_brute_force(game: Game, rng: np.random.Generator) -> None:
    """Every move of a game per answer (random legal guesses, then the answer) judged as brute force does."""
    hard_mode = game.hard_mode
    values = StateValues(game)
    score = values_scorer(values)
    for answer in game.answers:
        rule = HardModeRule(game) if hard_mode else None
        cands, moves, checks = tuple(game.answers), [], []
        left = game.max_attempts
        while True:  # a random legal guess each turn, until the answer is guessed
            legal = [g for g in range(len(game.guesses)) if rule is None or rule.violation(g) is None]
            guess = int(rng.choice(legal)) if len(moves) < 3 else game.guess_index[answer]
            pattern = int(game.score(game.guesses[guess], answer))
            assert score(game.guesses[guess], answer) == pattern
            total, buckets = brute_after(game, cands, guess, left, rule)
            if total >= INF:  # a guess that tells nothing apart: never played by a sensible agent
                continue
            best = brute_value(game, cands, left, rule)
            bucket, value = buckets[pattern]
            won = pattern == all_green(game.length)
            luck = (total - len(cands)) / len(cands) - (0 if won else value / len(bucket))
            checks.append((len(cands), total / len(cands), best / len(cands), luck))
            moves.append((guess, pattern))
            if won:
                break
            if rule is not None:
                rule.add(guess, pattern)
            cands, left = bucket, left - 1
        analysis = analyze_moves(values, moves, answer)
        assert analysis.solved
        for move, (n, expected, best, luck) in zip(analysis.moves, checks):
            assert move.candidates == n
            assert move.expected == pytest.approx(expected) and move.best == pytest.approx(best)
            assert move.loss == pytest.approx(expected - best) and move.loss >= -1e-12
            assert move.luck == pytest.approx(luck)
        assert len(moves) == pytest.approx(analysis.moves[0].best + analysis.loss - analysis.luck)


@pytest.mark.parametrize("env_id", ["guessgym/MicroNerdle-v1", "guessgym/MiniNerdle-v1"])
def test_the_optimums_moves_lose_nothing_and_its_luck_averages_out(env_id: str) -> None:
    result = evaluate(make_agent("optimal"), env_id, record_guesses=True)
    analysis = analyze(result)
    assert all(m.loss == pytest.approx(0, abs=1e-12) for g in analysis.games for m in g.moves)
    assert sum(g.luck for g in analysis.games) == pytest.approx(0, abs=1e-9)
    assert analysis.summary()["best_move_share"] == 1.0


@pytest.mark.parametrize("agent", ["least-worst", "pattern-entropy", "random-consistent"])
def test_each_games_losses_minus_luck_are_its_guesses_beyond_the_optimum(agent: str) -> None:
    game = make_game("guessgym/MiniNerdle-v1")
    result = evaluate(make_agent(agent), "guessgym/MiniNerdle-v1", record_guesses=True)
    analysis = analyze(result)
    optimum = 544 / len(game.answers)
    for record, judged in zip(result.records, analysis.games):
        assert judged.answer == record.answer and len(judged.moves) == record.guesses
        assert record.guesses == pytest.approx(optimum + judged.loss - judged.luck)
    if agent != "random-consistent":  # one strategy for every answer: the luck of its games sums to 0
        gap = sum(r.guesses for r in result.records) - 544
        assert sum(g.loss for g in analysis.games) == pytest.approx(gap)
        assert analysis.summary()["mean_loss_per_game"] == pytest.approx(gap / len(game.answers))


def test_a_fixed_openers_expected_total_is_the_solvers_total_for_that_opener() -> None:
    game = make_game("guessgym/MicroNerdle-v1")
    values = StateValues(game)
    for opener in ("5-1=4", "1+2=3", "9/3=3", "8-7=1"):
        total, _ = values.after(values.everyone, game.guess_index[opener], game.max_attempts, values.all_guesses)
        assert total == solve(game, opener=opener).total
    assert values.best(values.everyone, game.max_attempts, values.all_guesses) == 374  # the proven optimum


def test_a_recorded_game_and_the_same_game_typed_in_are_judged_alike() -> None:
    game = make_game("guessgym/MiniNerdle-v1")
    result = evaluate(make_agent("expected-size"), "guessgym/MiniNerdle-v1", record_guesses=True, sample=12)
    values = StateValues(game)
    for record in result.records:
        assert record.played is not None
        moves = record_moves(game, record.answer, record.played)
        typed = " ".join(f"{game.guesses[g]} {pattern_to_tiles(p, game.length)}" for g, p in moves)
        assert parse_typed_game(game, typed) == moves
        assert analyze_moves(values, moves, record.answer).moves == analyze_moves(values, moves).moves


def test_the_analyze_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "one.json"
    assert main(["analyze", "--env", "guessgym/MiniNerdle-v1", "--game", "4*7=28 BBBGBB 5+6=11 GGGGGG",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| 1 | 4*7=28" in printed
    game = json.loads(out.read_text())["games"][0]
    assert [m["guess"] for m in game["moves"]] == ["4*7=28", "5+6=11"]
    for move in game["moves"]:
        assert {"guess", "candidates", "expected", "best", "loss", "luck"} <= set(move)
        assert move["loss"] == pytest.approx(move["expected"] - move["best"], abs=1e-6)
    assert game["moves"][0]["candidates"] == 206 and game["moves"][0]["loss"] == 0

    evaluated = tmp_path / "runs"
    assert main(["evaluate", "--env", "guessgym/MicroNerdle-v1", "--agent", "least-worst", "--guesses",
                 "--no-progress", "--out", str(evaluated)]) == 0
    capsys.readouterr()
    saved = next(evaluated.glob("*.json"))
    assert main(["analyze", str(saved), "--out", str(tmp_path / "all.json"), "--no-progress"]) == 0
    assert "Move analysis of least-worst on micro-nerdle: 127 games" in capsys.readouterr().out
    summary = json.loads((tmp_path / "all.json").read_text())["summary"]
    assert summary["games"] == 127 and summary["mean_loss_per_game"] == pytest.approx((392 - 374) / 127, abs=1e-6)


@pytest.mark.parametrize(("argv", "message"), [
    (["--env", "guessgym/Quordle-v0", "--game", "salet BBBBB"], "analyze plays the single-board"),
    (["--env", "guessgym/MiniNerdle-v1", "--game", "4*7=28"], "guesses each followed by its tiles"),
    (["--env", "guessgym/MiniNerdle-v1", "--game", "4*7=28 GGGGGQ"], "tiles 'GGGGGQ'"),
    (["--env", "guessgym/MiniNerdle-v1", "--game", "4*7=28 BBBBBB 4*7=28 GGGGGG"], "leaves no answer"),
    (["--env", "guessgym/MiniNerdle-v1", "--game", "nope BBBBBB"], "nope"),
    (["results/learned/learned-mini-nerdle.json"], "holds no guesses"),
    ([], "give a result file"),
])
def test_bad_input_is_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", *argv]) == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if ": error: " in line]  # a notice may come first
    assert len(errors) == 1 and message in errors[0] and "Traceback" not in err, err


def test_the_commutative_rule_is_judged_too() -> None:
    """With Nerdle's commutative rule (a rearranged answer wins) the optimum's moves still lose
    nothing, and expected-size's losses add up to its distance from the commutative optimum (525)."""
    kwargs = {"commutative": True}
    optimal = analyze(evaluate(make_agent("optimal"), "guessgym/MiniNerdle-v1", env_kwargs=kwargs, record_guesses=True))
    assert optimal.summary()["best_move_share"] == 1.0
    result = evaluate(make_agent("expected-size"), "guessgym/MiniNerdle-v1", env_kwargs=kwargs, record_guesses=True)
    gap = sum(r.guesses for r in result.records) - 525
    assert gap > 0 and sum(g.loss for g in analyze(result).games) == pytest.approx(gap)


@pytest.mark.usefixtures("nothing_shipped")
def test_past_its_time_budget_the_analysis_judges_by_bounds_that_hold_the_exact_figures() -> None:
    from guessgym.baselines.move_values import ValuesTimedOut

    result = evaluate(make_agent("least-worst"), "guessgym/Wordle-v1", record_guesses=True, sample=3)
    game = make_game("guessgym/Wordle-v1")
    values = StateValues(game)
    values.openers = None  # no shipped opener values: the first move needs its tree, not solved in a microsecond
    bounded = analyze(result, values=values, time_budget=1e-6)
    assert values.spent
    with pytest.raises(ValuesTimedOut):
        values.best(values.everyone[:50], 5, values.all_guesses)  # spent: never trusted again
    exact = analyze(result, values=StateValues(game))
    moves = [(b, e) for gb, ge in zip(bounded.games, exact.games) for b, e in zip(gb.moves, ge.moves)]
    assert all(b.bounded for b, _ in moves) and not any(e.bounded for _, e in moves)
    no_tree = 0
    for b, e in moves:
        assert b.expected - 1e-9 <= e.expected and (b.expected_high == -1 or e.expected <= b.expected_high + 1e-9)
        assert b.best_low - 1e-9 <= e.best
        if b.best == -1:  # no tree found before the budget ran out: only the lower end is known
            no_tree += 1
        else:
            assert e.best <= b.best + 1e-9  # the best tree found
        assert b.loss - 1e-9 <= e.loss and (b.loss_high == -1 or e.loss <= b.loss_high + 1e-9)
        assert (b.guess, b.tiles, b.candidates, b.possible) == (e.guess, e.tiles, e.candidates, e.possible)
    assert 0 < no_tree < len(moves)  # some states had no tree yet (the move's best was shown as its lower bound)
    summary = bounded.summary()
    assert summary["bounded_moves"] == len(moves) and summary["moves"] == 0
    low, high = summary["bounded_loss_per_game"]
    assert low - 1e-9 <= exact.summary()["mean_loss_per_game"] <= (high if high is not None else 99)
    assert "judged by bounds, not exactly" in bounded.to_markdown()
    path_text = bounded.to_json()
    assert '"bounded": true' in path_text and '"bounded"' not in exact.to_json()
    from guessgym.evaluation.analysis import load_analysis
    from guessgym.evaluation.viewer import viewer_data

    data = viewer_data([result], {0: bounded})["agents"][0]
    assert data["analysis"] is None  # no mean loss per game passed off as exact
    shown = data["records"]
    assert all(record[3] is None for record in shown)  # a game with bounded moves has no exact loss
    first = shown[0][4][0]
    assert first[2] == [round(moves[0][0].loss, 4), round(moves[0][0].loss_high, 4)] and first[3] is None
    saved = Path(tempfile.mkdtemp()) / "bounded.json"
    bounded.to_json(saved)
    assert load_analysis(saved).to_dict()["games"] == bounded.to_dict()["games"]


@pytest.mark.parametrize("bounds_budget", [None, 0.0])
@pytest.mark.usefixtures("nothing_shipped")
def test_the_bounds_past_the_budget_have_a_budget_of_their_own_and_hold_either_way(
        bounds_budget: float | None) -> None:
    """Issue 50's fallback had no time limit of its own: judging a classic Nerdle agent's moves by
    bounds ran past ten minutes. With searched bounds (no budget) and with the free ones (a budget
    already spent) every move's interval holds the exact figures; the free ones have no upper bound
    for a state not solved before (the opener's buckets)."""
    from guessgym.baselines.move_values import ValuesTimedOut

    result = evaluate(make_agent("expected-size"), "guessgym/Wordle-v1", record_guesses=True, sample=4, seed=5)
    game = make_game("guessgym/Wordle-v1")
    exact = analyze(result, values=StateValues(game))
    values = StateValues(game)
    values.openers = None
    values.set_budget(1e-9)
    with pytest.raises(ValuesTimedOut):
        values.best(values.split(values.everyone, game.guess_index["kayak"])[0][1], 5, values.all_guesses)
    values.bounds().set_budget(bounds_budget if bounds_budget is None else 1e-9)
    assert values.bounds().spent == (bounds_budget is not None)
    for record, judged in zip(result.records, exact.games):
        assert record.played is not None
        bounded = analyze_moves(values, record_moves(game, record.answer, record.played), record.answer)
        for b, e in zip(bounded.moves, judged.moves):
            assert b.bounded and b.expected - 1e-9 <= e.expected
            assert b.expected_high == -1 or e.expected <= b.expected_high + 1e-9
            assert b.best_low - 1e-9 <= e.best and b.loss - 1e-9 <= e.loss
            assert b.loss_high == -1 or e.loss <= b.loss_high + 1e-9
        # the opener's buckets, never solved: searched, a tree is found for each; free, none
        assert (bounded.moves[0].expected_high == -1) == (bounds_budget is not None)


def test_the_analyze_command_past_its_budget_prints_bounds(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["analyze", "--env", "guessgym/Wordle-v1", "--game", "fuzzy BBBBB trace YBBBB moist GGGGG",
                 "--time-budget", "0.000001", "--no-memo"])
    out = capsys.readouterr().out
    assert code == 0
    assert "| 1 | fuzzy | BBBBB | 2,309 | " in out and " to " in out and "(best found)" in out
    assert "judged by bounds, not exactly: the time budget ran out" in out


@pytest.mark.parametrize("hard_mode", [False, True])
def test_the_shipped_opener_table_judges_a_first_move_without_its_tree(hard_mode: bool, tmp_path: Path) -> None:
    from guessgym.agents.opener_values import parse_table
    from guessgym.baselines.opener_table import OpenerSolver, OpenerTable, fill_exact, fill_greedy, shipped_blob

    game = nerdle(5, hard_mode=hard_mode)
    solver = OpenerSolver(game)
    with OpenerTable(game, tmp_path / "t.jsonl") as table:
        fill_greedy(table, solver)
        fill_exact(table, solver, count=40)  # the rest stay intervals: those openers are solved as before
        shipped = parse_table(shipped_blob(game, dict(table.values), "test"), "t.json.gz")
    rng = np.random.default_rng(3)
    plain, with_table = StateValues(game), StateValues(game)
    plain.openers, with_table.openers = None, shipped
    for _ in range(40):
        answer = game.answers[int(rng.integers(len(game.answers)))]
        opener = game.guesses[int(rng.integers(len(game.guesses)))]
        moves = record_moves(game, answer, [opener] if opener == answer else [opener, answer])
        assert analyze_moves(with_table, moves, answer) == analyze_moves(plain, moves, answer)
        exact = shipped.interval(game, game.guess_index[opener])
        solved = with_table.knows_after(with_table.everyone, game.guess_index[opener], game.max_attempts,
                                        with_table.all_guesses)
        assert solved
        if exact is not None and exact.exact:  # judged from the table: its tree's buckets were not solved
            key = with_table._key(with_table.everyone, game.guess_index[opener], game.max_attempts,
                                  with_table.all_guesses)
            assert key not in with_table._after


@pytest.mark.usefixtures("nothing_shipped")
def test_the_main_job_says_when_its_analysis_ran_past_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ANALYSIS_BUDGET the moves left are judged by bounds: the leaderboard gets a note with
    their loss interval, never the exact moves' mean passed off as the agent's; the states solved
    before the budget ran out are kept for the next agent (issue 50: they were dropped)."""
    from guessgym import main_job
    from guessgym.baselines import move_values

    monkeypatch.setattr(main_job, "ANALYSIS_BUDGET", 1e-6)
    monkeypatch.setattr(move_values, "opener_values", lambda game: None)  # every opener's tree must be solved
    result = evaluate(make_agent("least-worst"), "guessgym/Wordle-v1", record_guesses=True, sample=2)
    outcome = main_job.Outcome(main_job.Entry("guessgym/Wordle-v1", "least-worst"), result)
    values: dict = {}  # type: ignore[type-arg]
    main_job._analyse(outcome, values, None, None)
    note = result.meta["analysis_note"]
    assert note.startswith("moves not all analysed exactly: solving took more than 1e-06 s") and " to " in note
    assert "--analysis-budget" in note
    assert "analysis" not in result.meta and len(values) == 1
    assert outcome.analysis is not None and all(m.bounded for g in outcome.analysis.games for m in g.moves)
    # a new budget lets the same values go on: the next analysis is exact
    again = main_job.Outcome(main_job.Entry("guessgym/Wordle-v1", "least-worst"), result)
    result.meta.pop("analysis_note")
    main_job._analyse(again, values, None, None, budget=600.0)
    assert "analysis_note" not in result.meta and result.meta["analysis"]["moves"] > 0


def test_values_cut_short_by_a_budget_stay_exact_and_are_saved(tmp_path: Path) -> None:
    """Issue 50, item 1: the over-budget path dropped what it had solved, so a warm cache ran out of
    budget again. A search cut short writes nothing wrong to its memo: the memo saved after the budget
    ran out, read back by a new run, gives the state's exact value (a state of some 2,000 nodes)."""
    game = make_game("guessgym/Wordle-v1")
    allowed = np.arange(len(game.guesses), dtype=np.int32)
    kayak = game.guess_index["kayak"]
    state = next(bucket for pattern, bucket in StateValues(game).split(np.arange(len(game.answers)), kayak)
                 if pattern == 3)  # kayak BBBBY... : 341 answers
    cut = StateValues(game, cache_dir=tmp_path)
    cut.set_budget(1e-9)
    with pytest.raises(move_values.ValuesTimedOut):
        cut.best(state, 4, allowed)
    assert cut.spent
    cut.save()
    reread = StateValues(game, cache_dir=tmp_path)
    assert reread.kernel.loaded > 0, "the memo of a budget that ran out is saved"
    assert reread.best(state, 4, allowed) == StateValues(game).best(state, 4, allowed)
    cut.set_budget(None)
    assert not cut.spent


@pytest.mark.usefixtures("nothing_shipped")
def test_compare_past_its_analysis_budget_finishes_and_writes_everything(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 50, item 1: README command 1 died with KeyError: 'analysis' when an entry's analysis ran
    past its budget, and wrote nothing. Forced through the command line (--analysis-budget): the
    run ends 0, its line and the leaderboard say why the row has no loss figure, and every file is written."""
    monkeypatch.setattr(move_values, "opener_values", lambda game: None)
    monkeypatch.setenv("GUESSGYM_CACHE_DIR", str(tmp_path / "cache"))  # no states solved by earlier runs
    out = tmp_path / "out"
    code = main(["compare", "--agents", "least-worst,expected-size", "--envs", "guessgym/Wordle-v1", "--sample", "3",
                 "--analysis-budget", "0.000001", "--no-progress", "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 0, text
    done = [line for line in text.splitlines() if line.startswith("done  ")]
    assert len(done) == 2 and all("moves not all analysed exactly: solving took more than 1e-06 s" in line
                                  for line in done), text
    report = (out / "leaderboard.md").read_text()
    assert "* least-worst: moves not all analysed exactly" in report
    for stem in ("Wordle-v1__least-worst", "Wordle-v1__expected-size"):
        for suffix in (".json", ".analysis.json.gz", ".png"):
            assert (out / f"{stem}{suffix}").is_file(), stem + suffix
    assert (out / "report.html").is_file()
    assert main(["compare", "--analysis-budget", "0", "--out", str(out)]) == 2
    assert "--analysis-budget: must be a number of seconds above 0" in capsys.readouterr().err


def test_compare_states_its_analysis_budget_default() -> None:
    from guessgym import main_job
    from guessgym.cli.evaluate import ANALYSIS_BUDGET_DEFAULT

    assert ANALYSIS_BUDGET_DEFAULT == main_job.ANALYSIS_BUDGET


def test_games_that_share_moves_share_their_judgements_and_equal_a_fresh_judge() -> None:
    """Issue 51: a move is judged once per sequence of moves that led to it (the state is a
    function of them), so a deterministic agent's games share the judgements of their common
    moves; each game equals its judgement by a values object that has seen nothing else."""
    result = evaluate(make_agent("expected-size"), "guessgym/MiniNerdle-v1", record_guesses=True)
    game = make_game("guessgym/MiniNerdle-v1")
    shared = analyze(result)
    firsts = {id(g.moves[0]) for g in shared.games}
    assert len(firsts) < len(shared.games)  # the opener's judgement is one object per tiles shown
    for record, judged in list(zip(result.records, shared.games))[::37]:
        assert record.played is not None
        alone = analyze_moves(StateValues(game), record_moves(game, record.answer, record.played), record.answer)
        assert alone == judged


def test_the_summary_is_made_once_and_stays_the_summary_of_the_games_held() -> None:
    """A report asks an analysis for its summary several times (its file, the result's meta, the
    viewer): the figures are made once for the games held, each caller gets its own copy, and a
    change to the games makes them again."""
    import dataclasses

    from guessgym.agents.registry import make_agent
    from guessgym.evaluation.evaluate import evaluate

    analysis = analyze(evaluate(make_agent("pattern-entropy"), "guessgym/MiniNerdle-v1", record_guesses=True))
    fresh = dataclasses.replace(analysis)  # the same games, nothing made yet
    for mistakes in (10, 0, 3, 10):
        assert analysis.summary(mistakes=mistakes) == fresh.summary(mistakes=mistakes)
        assert len(analysis.summary(mistakes=mistakes)["mistakes"]) <= mistakes
    taken = analysis.summary()
    taken["histogram"].clear()
    taken["mistakes"][0]["answers"].append("mine")
    assert analysis.summary() == dataclasses.replace(analysis).summary()
    held = len(analysis.games)
    analysis.games.remove(analysis.games[0])  # the list fresh shares too: it is fresh's summary that is made anew
    assert analysis.summary()["games"] == held - 1
    assert analysis.summary() == dataclasses.replace(analysis).summary()
