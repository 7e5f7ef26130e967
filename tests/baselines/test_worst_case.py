"""The worst-case search (minimax and Absurdle's minimum) against slow obvious references on small
games, its strategies replayed through the environments, the checkpoint, bad input, and the
figures of the registered games that are quick to prove."""

from __future__ import annotations

import functools
import itertools
import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guessgym.baselines import worst_case
from guessgym.baselines import worst_case_kernels as W
from guessgym.baselines.worst_case import WorstCaseSearch, capacity, solve_worst_case
from guessgym.envs.absurdle import AbsurdleEnv, host_choice
from guessgym.envs.game import Game, make_game, nerdle, wordle
from guessgym.envs.scoring import pattern_to_list
from guessgym.envs.wordlists import preset_lists

POOL = ["crane", "crate", "grate", "slate", "plate", "place", "plane", "spare", "share", "shard", "chard",
        "scare", "score", "store", "stare", "snare", "spine", "shine", "whine", "trace"]
EXTRA = ["scrag", "plonk", "light", "dumpy", "champ", "ghost", "bawdy", "vixen"]


def minimax_reference(game: Game) -> int:
    """Fewest guesses that win every answer whatever the host answers: plain recursion over every
    guess and every bucket, with the game's own scoring (commutative wins included)."""
    green = game.solved_pattern

    @functools.cache
    def need(answers: frozenset[str]) -> int:
        best = 10**9
        for guess in game.guesses:
            buckets: dict[int, set[str]] = {}
            for a in answers:
                buckets.setdefault(game.score(guess, a), set()).add(a)
            rest = [frozenset(b) for p, b in buckets.items() if p != green]
            if any(b == answers for b in rest):  # learns nothing
                continue
            best = min(best, 1 + max((need(b) for b in rest), default=0))
        return best

    return need(frozenset(game.answers))


def absurdle_reference(game: Game, limit: int = 6) -> int:
    """Fewest guesses that beat the Absurdle host: breadth-first over every guess sequence, the
    host played by :func:`host_choice`."""
    level = [tuple(range(len(game.answers)))]
    for depth in range(1, limit + 1):
        nxt = set()
        for cands in level:
            for guess in game.guesses:
                patterns = np.array([game.score(guess, game.answers[a]) for a in cands])
                p = host_choice(patterns, game.length)
                if p == game.solved_pattern:
                    return depth
                nxt.add(tuple(a for a, q in zip(cands, patterns.tolist()) if q == p))
        level = sorted(nxt)
    raise AssertionError("no win within the limit")


def replay_paths(game: Game, paths: dict[str, tuple[str, ...]]) -> None:
    """Every answer's guesses win it, and they form one strategy (same history, same guess)."""
    assert set(paths) == set(game.answers)
    chosen: dict[tuple[int, ...], str] = {}
    for answer, path in paths.items():
        tiles: tuple[int, ...] = ()
        for k, guess in enumerate(path):
            assert chosen.setdefault(tiles, guess) == guess, "two guesses after the same tiles"
            pattern = game.score(guess, answer)
            assert (pattern == game.solved_pattern) == (k == len(path) - 1)
            tiles = (*tiles, pattern)


def play_absurdle(game: Game, line: tuple[str, ...]) -> int:
    env = AbsurdleEnv(game=game)
    env.reset(seed=0)
    for k, guess in enumerate(line, start=1):
        _, reward, terminated, _, _ = env.step(game.guess_index[guess])
        if terminated:
            assert reward == 1.0 and k == len(line)
            return k
    raise AssertionError(f"the line {line} does not beat the host")


small_games = st.builds(
    lambda answers, extra: wordle(answers=sorted(answers), guesses=sorted(set(answers) | set(extra))),
    st.sets(st.sampled_from(POOL), min_size=2, max_size=9),
    st.sets(st.sampled_from(EXTRA), max_size=3),
)


@settings(max_examples=40, deadline=None)
@given(small_games)
def test_minimax_equals_the_reference(game: Game) -> None:
    result = solve_worst_case(game, matrix_cache=False)
    assert result.proven and result.lower_bound == result.guesses == minimax_reference(game)
    replay_paths(game, result.paths)
    assert max(len(p) for p in result.paths.values()) == result.guesses == len(result.line)
    tree = result.tree(game)  # the strategy is a tree like any other: same paths, same worst case
    assert tree.paths == result.paths and tree.max_depth == result.guesses


@settings(max_examples=40, deadline=None)
@given(small_games)
def test_absurdle_minimum_equals_the_reference(game: Game) -> None:
    result = solve_worst_case(game, adversary="absurdle", matrix_cache=False)
    assert result.proven and result.guesses == absurdle_reference(game) == len(result.line)
    assert play_absurdle(game, result.line) == result.guesses
    assert result.guesses <= solve_worst_case(game, matrix_cache=False).guesses  # a weaker adversary


def test_openers_cut_short_in_the_first_phase_leave_the_same_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    # one set per opener and round: openers are cut short and retried with four times the allowance
    cuts = []
    win = worst_case.WorstCaseSearch.win

    def counting_win(self: worst_case.WorstCaseSearch, cands: np.ndarray, depth: int) -> int:
        try:
            return win(self, cands, depth)
        except worst_case._OutOfNodes:
            cuts.append(depth)
            raise

    clusters = wordle(answers=["eight", "fight", "light", "might", "night", "right", "sight", "tight", "wight",
                               "bound", "found", "hound", "mound", "pound", "round", "sound", "wound"], guesses=None)
    for game in (make_game("guessgym/MicroNerdle-v1"), clusters):
        plain = solve_worst_case(game, matrix_cache=False)
        with monkeypatch.context() as patch:
            patch.setattr(worst_case, "FIRST_ALLOWANCE", 1)
            patch.setattr(worst_case.WorstCaseSearch, "win", counting_win)
            cuts.clear()
            result = solve_worst_case(game, matrix_cache=False)
        assert cuts, "no opener was cut short: the test does not exercise the allowance"
        assert result.proven and result.guesses == plain.guesses
        replay_paths(game, result.paths)
    assert result.guesses == minimax_reference(clusters) == 8


def test_the_proof_on_two_processes_finds_what_one_finds(tmp_path: Path) -> None:
    # 100 answers, guessed among themselves: the Absurdle host needs 3, every host 4, so the proof
    # refutes openers at 3 (the second phase, the one that runs on several processes)
    answers, _ = preset_lists("nyt2023", 5)
    game = wordle(answers=answers[:100], guesses=None)
    serial = solve_worst_case(game, matrix_cache=False, checkpoint=tmp_path / "one.jsonl")
    seen: list[tuple[int, int, int]] = []
    parallel = solve_worst_case(game, matrix_cache=False, checkpoint=tmp_path / "two.jsonl", n_jobs=2,
                                progress=lambda *args: seen.append(args))
    assert serial.proven and parallel.proven and parallel.guesses == serial.guesses == 4
    assert parallel.paths == serial.paths and parallel.openers_refuted == serial.openers_refuted == 100

    def outcomes(name: str) -> set[str]:
        return set((tmp_path / name).read_text().splitlines()[1:])

    assert outcomes("two.jsonl") == outcomes("one.jsonl") and len(outcomes("one.jsonl")) > 50
    at_three = [line for line in outcomes("one.jsonl") if '"depth": 3' in line]  # every opener left by capacity
    assert seen[-1] == (3, len(at_three), len(at_three))
    with pytest.raises(ValueError, match="n_jobs must be a whole number of processes, at least 1, not 0"):
        solve_worst_case(game, matrix_cache=False, n_jobs=0)


def test_commutative_answers_are_won_together() -> None:
    answers = ["1+2=3", "2+1=3", "3*2=6", "2*3=6", "6-2=4", "6-4=2", "8/2=4", "9-5=4"]
    plain = nerdle(5, answers=answers, guesses="answers")
    commutative = nerdle(5, answers=answers, guesses="answers", commutative=True)
    for game in (plain, commutative):
        result = solve_worst_case(game, matrix_cache=False)
        assert result.proven and result.guesses == minimax_reference(game)
        absurd = solve_worst_case(game, adversary="absurdle", matrix_cache=False)
        assert absurd.guesses == absurdle_reference(game) == play_absurdle(game, absurd.line)
    # the commutative strategy's paths may end with a rearrangement: it wins all the same
    result = solve_worst_case(commutative, matrix_cache=False)
    for answer, path in result.paths.items():
        assert commutative.score(path[-1], answer) == commutative.solved_pattern


@functools.cache
def sweep_search() -> WorstCaseSearch:
    """A search over 400 NYT answers and 1,500 guesses: enough near-identical words for the pair
    sweep to strike most guesses, small enough to build in a moment."""
    answers, guesses = preset_lists("nyt", 5)
    game = wordle(answers=answers[:400], guesses=sorted(set(guesses[::9]) | set(answers[:400])))
    return WorstCaseSearch(game, matrix_cache=False)


@settings(max_examples=60, deadline=None)
@given(st.sets(st.integers(0, 399), min_size=2, max_size=60))
def test_the_two_guess_sweep_finds_the_same_first_guess(members: set[int]) -> None:
    s = sweep_search()
    cands = np.array(sorted(members), dtype=np.int64)
    args = (cands, s.cls, s.green, False, True, s.host_rank, s.counts, s.stamp, s.owner, s.gen, s.alive)
    swept = W.two_guess_win(s.mt, s.mtT, *args)
    unswept = W.two_guess_win(s.mt, np.empty((0, 0), dtype=s.mt.dtype), *args)
    # the slow obvious reference: the first guess that shows every answer a pattern of its own
    first = next((g for g in range(s.n_guesses) if len(set(s.mt[g, cands].tolist())) == len(cands)), -1)
    assert swept == unswept == first


def test_most_buckets_bounds_what_two_guesses_win() -> None:
    s = sweep_search()
    assert s.most_buckets == max(len(np.unique(row)) for row in s.mt) == s.root_buckets.max()
    assert s.cap(2) == s.most_buckets and s.cap(3) == s.most_buckets**2 and s.cap(1) == 1


def test_capacity_bounds_what_a_depth_can_win() -> None:
    assert [capacity(d, 3**5) for d in range(4)] == [0, 1, 243, 1 + 242 * 243]
    # a game with more answers than one guess can separate needs a third guess
    game = wordle(answers=POOL, guesses=POOL + EXTRA)
    assert solve_worst_case(game, matrix_cache=False).guesses >= 2


def test_registered_games(tmp_path: Path) -> None:
    # Mini Nerdle: three guesses win every answer and two cannot; Absurdle's host is no harder
    game = make_game("guessgym/MiniNerdle-v1")
    mini = solve_worst_case(game)
    assert (mini.guesses, mini.proven) == (3, True)
    replay_paths(game, mini.paths)
    absurd = solve_worst_case(game, adversary="absurdle")
    assert (absurd.guesses, absurd.proven) == (3, True) and play_absurdle(game, absurd.line) == 3
    # Wordle (nyt lists) against the Absurdle host: 4 guesses, and no line of 3 beats it
    game = make_game("guessgym/Wordle-v1")
    wordle_absurdle = solve_worst_case(game, adversary="absurdle")
    assert (wordle_absurdle.guesses, wordle_absurdle.lower_bound, wordle_absurdle.proven) == (4, 4, True)
    assert wordle_absurdle.openers_refuted == len(game.guesses)
    assert play_absurdle(game, wordle_absurdle.line) == 4


def test_checkpoint_resumes_and_refuses_another_search(tmp_path: Path) -> None:
    game = make_game("guessgym/MicroNerdle-v1")
    path = tmp_path / "micro.jsonl"
    first = solve_worst_case(game, adversary="absurdle", checkpoint=path)
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["adversary"] == "absurdle" and header["fingerprint"] == game.fingerprint
    outcomes = [json.loads(line) for line in lines[1:]]
    assert {o["depth"] for o in outcomes} == {first.guesses - 1, first.guesses}
    assert sum(not o["win"] and o["depth"] == first.guesses - 1 for o in outcomes) > 0
    # a run cut short: its last line half written; the rerun reuses every settled opener
    path.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2])
    again = solve_worst_case(game, adversary="absurdle", checkpoint=path)
    assert (again.guesses, again.proven, again.line) == (first.guesses, True, first.line)
    with pytest.raises(ValueError, match="checkpoint of another run"):
        solve_worst_case(game, adversary="any", checkpoint=path)
    # against every host, the Absurdle minimum is a lower bound: Micro Nerdle's 4 needs no refutation
    every = solve_worst_case(game, checkpoint=tmp_path / "any.jsonl")
    assert (every.guesses, every.proven) == (4, True)


class Clock:
    """Stands in for the search's clock: at 0 until ``late`` is set, then past any deadline."""

    def __init__(self) -> None:
        self.late = False

    def perf_counter(self) -> float:
        return 1e9 if self.late else 0.0


def test_a_time_budget_spent_during_the_proof_leaves_an_honest_bound(monkeypatch: pytest.MonkeyPatch,
                                                                     tmp_path: Path) -> None:
    import guessgym.baselines.worst_case as module

    clock = Clock()
    monkeypatch.setattr(module, "time", clock)
    game = make_game("guessgym/MidiNerdle-v1")
    path = tmp_path / "midi.jsonl"

    def first_opener_spends_the_budget(depth: int, done: int, total: int) -> None:
        clock.late = True

    result = solve_worst_case(game, adversary="absurdle", time_budget=60, checkpoint=path,
                              progress=first_opener_spends_the_budget)
    assert result.timed_out and not result.proven and result.lower_bound < result.guesses
    assert result.openers_refuted == 1
    assert play_absurdle(game, result.line) == result.guesses
    clock.late = False
    resumed = solve_worst_case(game, adversary="absurdle", checkpoint=path)
    assert resumed.proven and resumed.guesses == result.guesses


def test_a_budget_spent_before_any_strategy_raises_and_never_runs_on() -> None:
    """Wordle against every host needs minutes to find its first strategy (five guesses): the
    budget is checked inside each opener's search, not only between openers."""
    from guessgym.baselines.worst_case import WorstCaseTimeout

    game = make_game("guessgym/Wordle-v1")
    with pytest.raises(WorstCaseTimeout, match=r"time budget \(0.5 s\) ran out before any strategy was found"):
        solve_worst_case(game, time_budget=0.5)
    for bad in (0, -1, float("nan")):
        with pytest.raises(ValueError, match="time_budget must be a positive number of seconds"):
            solve_worst_case(game, time_budget=bad)


def test_bad_input_is_named() -> None:
    game = wordle(answers=POOL[:4])
    with pytest.raises(ValueError, match="unknown adversary 'nice'.*any, absurdle"):
        solve_worst_case(game, adversary="nice")
    with pytest.raises(ValueError, match="hard mode"):
        solve_worst_case(game.replace(hard_mode=True))


def test_host_ranks_follow_the_host_choice() -> None:
    from guessgym.baselines.worst_case import host_ranks

    ranks = host_ranks(5)
    rng = np.random.default_rng(0)
    for _ in range(200):  # a tie between random patterns goes where host_choice sends it
        patterns = rng.choice(3**5, size=rng.integers(1, 6), replace=False)
        assert host_choice(patterns, 5) == patterns[np.argmin(ranks[patterns])]
    assert ranks[0] == 0 and ranks[3**5 - 1] == 3**5 - 1
    assert all(pattern_to_list(int(p), 5).count(2) <= pattern_to_list(int(q), 5).count(2)
               for p, q in itertools.pairwise(np.argsort(ranks)))


def test_a_forged_win_in_a_checkpoint_is_refused_naming_its_line(tmp_path: Path) -> None:
    """Issue 22, item 11: a resumed record that contradicts the game is refused with its line."""
    game = nerdle(5)
    path = tmp_path / "micro.jsonl"
    result = solve_worst_case(game, "any", checkpoint=path)
    lines = path.read_text().splitlines()
    # an opener that phase 1 tried before the winner, refuted at the winning depth
    refuted = next(i for i, line in enumerate(lines[1:], start=1) if not json.loads(line)["win"]
                   and json.loads(line)["depth"] == result.guesses)
    row = json.loads(lines[refuted])
    lines[refuted] = json.dumps({**row, "win": True})
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=rf"micro\.jsonl: line {refuted + 1} claims that opener "
                                         rf"{re.escape(repr(row['opener']))} wins within {result.guesses} guesses, "
                                         "but it does not"):
        solve_worst_case(game, "any", checkpoint=path)
    lines[refuted] = json.dumps({**row, "opener": "salet"})
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=rf"line {refuted + 1} is refused: opener 'salet' is not a guess"):
        solve_worst_case(game, "any", checkpoint=path)
