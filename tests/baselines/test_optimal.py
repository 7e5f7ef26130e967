"""The exact solver: against every tree of tiny games, never worse than a greedy baseline, and the
published Micro Nerdle optimum (2.94 by dynamic programming)."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import guessgym  # noqa: F401
from guessgym.agents.base import UnsupportedGameError
from guessgym.agents.decision_tree import DecisionTree
from guessgym.agents.registry import make_agent
from guessgym.baselines.optimal import INF, SolveResult, solve
from guessgym.baselines.optimal_agent import OptimalAgent
from guessgym.cli import main
from guessgym.envs.candidates import HardModeRule
from guessgym.envs.equations import commutative_form
from guessgym.envs.game import Game, nerdle, wordle
from guessgym.envs.scoring import all_green, score
from guessgym.evaluation.evaluate import evaluate
from guessgym.evaluation.tree_checks import record_tree, verify_tree


def brute_force(game: Game, max_attempts: int) -> int:
    """The minimum total over every tree, by plain recursion over every guess (no bounds, no memo);
    in hard mode the guesses are those the environment's own rule allows."""
    green = all_green(game.length)

    def best(cands: tuple[str, ...], left: int, rule: HardModeRule | None) -> int:
        if len(cands) == 1:
            return 1 if left >= 1 else INF
        if left <= 1:
            return INF
        out = INF
        for index, guess in enumerate(game.guesses):
            if rule is not None and rule.violation(index) is not None:
                continue
            buckets: dict[int, list[str]] = {}
            for a in cands:
                buckets.setdefault(game.score(guess, a), []).append(a)  # commutative wins included
            if len(buckets) == 1 and green not in buckets:
                continue
            total = len(cands)
            for pattern, bucket in buckets.items():
                if pattern != green:
                    child = None
                    if rule is not None:
                        child = rule.copy()
                        child.add(index, pattern)
                    total += best(tuple(bucket), left - 1, child)
            out = min(out, total)
        return out

    return best(game.answers, max_attempts, HardModeRule(game) if game.hard_mode else None)


def assert_solve_equals_brute_force(game: Game, attempts: int, env_id: str) -> SolveResult | None:
    """The exact solver's total is the brute-force minimum within ``attempts`` (proven, and replayed
    through ``env_id``), or both find no tree. Returns the result, if any."""
    expected = brute_force(game, attempts)
    if expected >= INF:
        with pytest.raises(ValueError, match="no tree solves every answer"):
            solve(game, max_attempts=attempts)
        return None
    result = solve(game, max_attempts=attempts)
    assert result.total == expected, (game.answers, game.guesses, attempts)
    assert result.proven and result.lower_bound == expected
    assert result.tree.max_depth <= attempts
    check = verify_tree(result.tree, gym.make(env_id, game=game.replace(max_attempts=attempts)))
    assert check.ok and check.total == expected
    return result


WORDS = ["crane", "crate", "grate", "slate", "plate", "place", "space", "spade", "shade", "share", "stare",
         "scare", "score", "store", "stone", "shone", "phone", "prone", "drone", "crone"]


@pytest.mark.parametrize("hard_mode", [False, True])
@pytest.mark.parametrize("seed", range(12))
def test_equal_to_brute_force_on_tiny_games(seed: int, hard_mode: bool) -> None:
    rng = np.random.default_rng(seed)
    answers = sorted(rng.choice(WORDS, size=int(rng.integers(3, 8)), replace=False).tolist())
    extra = sorted(set(rng.choice(WORDS, size=3, replace=False).tolist()) - set(answers))
    game = wordle(answers=answers, guesses=answers + extra, hard_mode=hard_mode)
    for attempts in (2, 3, 4, 6):
        assert_solve_equals_brute_force(game, attempts, "guessgym/Wordle-v1")


@pytest.mark.parametrize("hard_mode", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_the_one_scan_bound_never_exceeds_the_optimum(seed: int, hard_mode: bool) -> None:
    """Issue 28: an opener's buckets are bounded by one scan of their guesses before any search
    (:meth:`SearchKernel.scan_bound`, the bit-table scan in a plain game), and before that by
    :meth:`SearchKernel.quick_floor`; neither bound may pass the bucket's true optimum, or a
    refutation would be wrong. Against brute force, every bucket of every opener of tiny games."""
    from guessgym.baselines.optimal import ExactSearch, SearchKernel

    rng = np.random.default_rng(100 + seed)
    answers = sorted(rng.choice(WORDS, size=int(rng.integers(5, 10)), replace=False).tolist())
    game = wordle(answers=answers, guesses=sorted(set(answers) | set(rng.choice(WORDS, 4).tolist())),
                  hard_mode=hard_mode)
    search = ExactSearch(game)
    kernel = SearchKernel(game, search.mt, 0, 0.0, None)
    everyone = np.arange(len(game.answers), dtype=np.int32)
    checked = 0
    for opener in range(len(game.guesses)):
        for _, bucket, allowed in kernel.children(everyone, opener, kernel.all_guesses):
            for left in (1, 2, 3, 5):
                sub = game.replace(answers=tuple(game.answers[int(a)] for a in bucket),
                                   guesses=tuple(game.guesses[int(g)] for g in allowed))
                truth = brute_force(sub, left) if not hard_mode else INF
                bound = kernel.scan_bound(bucket, left, allowed)
                if hard_mode:  # the sub-game's hard-mode rule starts afresh: compare with the kernel's own search
                    truth = kernel.cost(bucket, left, allowed, INF)
                assert bound <= truth, (game.guesses[opener], [game.answers[int(a)] for a in bucket], left)
                floor = 2 * bucket.size - 1 if bucket.size > 1 else 1
                if left >= 2:  # the opener's pre-scan floor (2m without a perfect candidate) holds too,
                    quick = kernel.quick_floor(bucket, floor)  # and passing it on changes no scan's answer
                    assert quick <= truth, [game.answers[int(a)] for a in bucket]
                    assert kernel.scan_bound(bucket, left, allowed, quick) == max(bound, quick)
                checked += 1
    assert checked > 20


RHYMES = ["shone", "phone", "prone", "drone", "crone", "stone", "shine", "spine", "crate", "grate", "plate", "slate",
          "spate", "skate"]


def test_a_set_without_a_perfect_candidate_costs_at_least_twice_its_size() -> None:
    """Issue 28: before searching a guess's buckets, the search raises a bucket's bound from
    ``2m - 1`` to ``2m`` when no candidate splits the others into singletons. Against brute force
    on random sets of rhyming words (where that often happens), with every number of attempts."""
    without = 0
    for seed in range(30):
        rng = np.random.default_rng(300 + seed)
        words = sorted(rng.choice(RHYMES, size=int(rng.integers(4, 7)), replace=False).tolist())
        game = wordle(answers=words, guesses=sorted(set(words) | set(rng.choice(RHYMES, 3).tolist())))
        perfect = any(len({score(c, a) for a in words}) == len(words) for c in words)
        without += not perfect
        for left in (2, 3, 4, 6):
            truth = brute_force(game, left)
            if truth < INF:
                assert truth >= 2 * len(words) - (1 if perfect else 0), (words, left, truth)
    assert without >= 5  # the bound was put to the test


@pytest.mark.parametrize("hard_mode", [False, True])
def test_a_memo_of_earlier_searches_changes_no_total(tmp_path: Path, hard_mode: bool) -> None:
    """Issue 28: the search reads each bucket's memo entry (exact cost or floor) before searching
    any bucket. Solving games again with the memo of earlier searches (the cache folder, and every
    attempt limit after the first in one memo) must give the brute-force totals."""
    for seed in range(3):
        rng = np.random.default_rng(400 + seed)
        words = sorted(rng.choice(RHYMES, size=int(rng.integers(5, 9)), replace=False).tolist())
        game = wordle(answers=words, guesses=sorted(set(words) | set(rng.choice(RHYMES, 4).tolist())),
                      hard_mode=hard_mode)
        for attempts in (3, 6, 4):
            expected = brute_force(game, attempts)
            for _ in range(2):
                if expected >= INF:
                    with pytest.raises(ValueError, match="no tree solves every answer"):
                        solve(game, max_attempts=attempts, cache_dir=tmp_path)
                else:
                    assert solve(game, max_attempts=attempts, cache_dir=tmp_path).total == expected


MICRO = nerdle(5).answers
REARRANGED = sorted(a for a in MICRO if any(b != a and commutative_form(b) == commutative_form(a) for b in MICRO))


@pytest.mark.parametrize("seed", range(10))
def test_commutative_games_equal_brute_force(seed: int) -> None:
    """With rearranged answers won together: small Micro Nerdle games rich in rearrangements."""
    rng = np.random.default_rng(seed)
    answers = sorted(set(rng.choice(REARRANGED, size=int(rng.integers(3, 7)), replace=False).tolist())
                     | set(rng.choice(MICRO, size=2, replace=False).tolist()))
    game = nerdle(5, answers=answers, guesses=answers, commutative=True)
    for attempts in (1, 2, 3, 6):
        result = assert_solve_equals_brute_force(game, attempts, "guessgym/MicroNerdle-v1")
        if result is not None:
            assert DecisionTree.from_dict(game, result.tree.to_dict(game)).paths == result.tree.paths


def test_the_commutative_mini_nerdle_optimum_beats_or_equals_the_greedy_baselines() -> None:
    game = nerdle(6, commutative=True)
    result = solve(game, openers="all")
    assert result.proven and result.total == 525  # 2.5485; most-buckets, the best greedy rule, needs 526
    best_greedy = min(evaluate(make_agent(name), game, progress=False).total_guesses
                      for name in ("most-buckets", "min-average", "expected-size"))
    assert result.total <= best_greedy
    with pytest.raises(ValueError, match="save the tree as .json"):
        result.tree.to_text(game)


@pytest.mark.parametrize(("length", "total"), [(5, 374), (6, 544)])
def test_small_nerdle_optima_beat_or_equal_every_greedy_baseline(length: int, total: int) -> None:
    game = nerdle(length)
    result = solve(game)
    assert result.total == total  # Micro: 374 / 127 = 2.9449, the published 2.94
    env_id = {5: "guessgym/MicroNerdle-v1", 6: "guessgym/MiniNerdle-v1"}[length]
    assert verify_tree(result.tree, gym.make(env_id)).ok
    for name in ("least-worst", "expected-size", "min-average", "pattern-entropy", "position-entropy"):
        records = evaluate(make_agent(name), game, progress=False).records
        greedy = sum(r.guesses if r.solved else game.max_attempts + 1 for r in records)
        assert result.total <= greedy, name
    assert result.total < record_tree(make_agent("least-worst"), game).total


def test_options_fixed_opener_and_attempt_limit() -> None:
    game = nerdle(5)
    free = solve(game)
    fixed = solve(game, opener="8-1=7")
    assert fixed.tree.root.guess == "8-1=7" and fixed.total >= free.total
    tight = solve(game, max_attempts=4)
    assert tight.tree.max_depth <= 4 and tight.total >= free.total


@pytest.mark.parametrize("hard_mode", [False, True])
def test_every_width_is_at_least_the_optimum_and_plays_legally(hard_mode: bool) -> None:
    game = nerdle(6, hard_mode=hard_mode)
    exact = solve(game, openers=3)
    env = gym.make("guessgym/MiniNerdle-v1", hard_mode=hard_mode)
    for width in (1, 2, 4):
        near = solve(game, openers=3, width=width)
        assert near.total >= exact.total and not near.proven
        check = verify_tree(near.tree, env)
        assert check.ok and check.total == near.total, check.report()
    assert verify_tree(exact.tree, env).ok


def test_hard_mode_narrow_widths_widen_until_a_tree_fits() -> None:
    game = wordle(word_list="nyt", hard_mode=True)
    result = solve(game, opener="salet", width=1)
    assert result.tree.max_depth <= 6 and result.settings["width"] > 1
    assert verify_tree(result.tree, gym.make("guessgym/WordleHard-v1")).ok


def test_time_budget_returns_a_complete_tree_with_its_gap() -> None:
    game = nerdle(8)
    result = solve(game, openers=1, time_budget=0.05)
    assert result.timed_out and not result.proven
    assert len(result.tree.paths) == len(game.answers) and result.tree.max_depth <= 6
    assert 0 < result.lower_bound <= result.total and result.gap == result.total - result.lower_bound
    assert verify_tree(result.tree, gym.make("guessgym/Nerdle-v1")).ok


@pytest.mark.parametrize(("options", "message"), [
    ({"proof": True, "width": 2}, "proof mode"),
    ({"proof": True, "opener": "8-1=7"}, "proof mode"),
    ({"width": -1}, "width must be"),
    ({"time_budget": 0}, "time_budget must be"),
    ({"openers": 0}, "openers must be at least 1"),
    ({"openers": "best"}, "openers must be 'all'"),
    ({"max_attempts": 0}, "max_attempts must be at least 1"),
])
def test_bad_options_are_named(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        solve(nerdle(5), **options)


def test_a_game_whose_matrix_exceeds_the_solver_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every classic Nerdle equation as a guess (2.4 GB of patterns) is solved since issue 28; a
    matrix above the solver's limit is still refused with one line, before anything is built."""
    import guessgym.envs.matrix as matrix

    monkeypatch.setattr(matrix, "SOLVER_MAX_BYTES", 1 << 30)
    expected = (r"^the exact solver needs nerdle-all's whole pattern matrix in memory "
                r"\(67,346 x 17,723 takes 2\.2 GiB, more than the exact solver's 1 GiB\)$")
    with pytest.raises(UnsupportedGameError, match=expected):
        solve(nerdle(8, guesses="all"))


def test_the_solve_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "micro.txt.gz"
    memo = tmp_path / "memo"
    assert main(["solve", "--env", "guessgym/MicroNerdle-v1", "--proof", "--out", str(out),
                 "--memo-dir", str(memo)]) == 0
    text = capsys.readouterr().out
    assert "total 374 over 127 answers" in text and "proven optimal over every opener" in text
    assert DecisionTree.load(out, nerdle(5)).total == 374
    assert (tmp_path / "micro.txt.gz.proof.jsonl").is_file()  # the resumable record
    assert len(list(memo.glob("memo-*-e-w0.npz"))) == 1  # the solved subproblems
    assert main(["solve", "--env", "guessgym/MicroNerdle-v1", "--opener", "8-1=7", "--beam", "1",
                 "--out", str(tmp_path / "b.txt"), "--no-memo"]) == 0
    assert "not proven among trees opening with 8-1=7" in capsys.readouterr().out
    assert main(["solve", "--env", "guessgym/MicroNerdle-v1", "--openers", "3", "--out", str(tmp_path / "c.txt"),
                 "--memo-dir", str(memo)]) == 0
    text = capsys.readouterr().out  # issue 52: exact among the openers searched is not "not proven (gap 0)"
    assert "proven optimal among the 3 most promising openers, not over every opener" in text and "gap 0" not in text
    for argv, message in [
        (["--proof", "--beam", "2"], "--proof searches every opener exactly"),
        (["--openers", "some"], "--openers must be 'all' or a number"),
        (["--opener", "salet"], "salet"),
        (["--out", str(tmp_path / "micro.txt.gz" / "x.txt")], "--out"),  # a file where a folder must be
    ]:
        full = ["solve", "--env", "guessgym/MicroNerdle-v1", "--out", str(tmp_path / "t.txt"), *argv]
        assert main(full) == 2
        assert message in capsys.readouterr().err


def test_the_optimal_baseline_plays_the_optimum_and_leaves_the_tree_gracefully() -> None:
    game = nerdle(5)
    result = evaluate(make_agent("optimal"), game, progress=False)
    assert sum(r.guesses for r in result.records) == 374 and result.win_rate == 1.0
    agent = make_agent("optimal")
    agent.begin(game)  # type: ignore[union-attr]
    assert isinstance(agent, OptimalAgent)
    first = agent.propose()
    agent.observe(game.guess_index["1+2=3"], score("1+2=3", "9-8=1"))  # not the tree's move
    forced = agent.propose()
    rest = [a for a in game.answers if score("1+2=3", a) == score("1+2=3", "9-8=1")]
    sub = solve(game.replace(answers=tuple(rest), max_attempts=5), openers="all")
    assert game.guesses[forced] == sub.tree.root.guess
    assert game.guesses[first] == solve(game).tree.root.guess
