"""The play metrics against a slow obvious reference, the analysis' own verdicts, and the accounting."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from guessgym.agents.registry import make_agent
from guessgym.envs import make_game
from guessgym.envs.game import Game
from guessgym.envs.scoring import pattern_to_tiles
from guessgym.evaluation import analyze, evaluate
from guessgym.evaluation.conduct import conduct_summary, game_conduct, games_conduct
from guessgym.evaluation.report import result_markdown
from guessgym.evaluation.results import GameRecord

MINI = make_game("guessgym/MiniNerdle-v1")


def reference(game: Game, answer: str, played: list[str]) -> tuple[int, int, int, int]:
    """Repeated, hint-ignoring, excluded-symbol and impossible guesses, by the rules in words."""
    repeated = ignores = excluded = impossible = 0
    earlier: list[tuple[str, str]] = []
    for guess in played:
        repeated += guess in [g for g, _ in earlier]
        broke = False
        for g, tiles in earlier:
            if any(t == "G" and guess[i] != g[i] for i, t in enumerate(tiles)):
                broke = True
            shown = Counter(g[i] for i, t in enumerate(tiles) if t in "GY")
            if any(Counter(guess)[s] < n for s, n in shown.items()):
                broke = True
        ignores += broke
        # an earlier guess with a grey copy of a symbol tells how many copies the answer has: its non-grey ones
        excluded += any(Counter(guess)[s] > sum(1 for c, t in zip(g, tiles) if c == s and t != "B")
                        for g, tiles in earlier for s, t in zip(g, tiles) if t == "B")
        possible = guess in game.answers and all(
            pattern_to_tiles(int(game.score(g, guess)), game.length) == tiles for g, tiles in earlier)
        impossible += not possible
        earlier.append((guess, pattern_to_tiles(int(game.score(guess, answer)), game.length)))
    return repeated, ignores, excluded, impossible


@settings(max_examples=200, deadline=None)
@given(st.integers(0, len(MINI.answers) - 1), st.lists(st.integers(0, len(MINI.guesses) - 1), min_size=1, max_size=6))
def test_the_counts_equal_the_rules_in_words(answer: int, guesses: list[int]) -> None:
    played = [MINI.guesses[g] for g in guesses]
    got = game_conduct(MINI, MINI.answers[answer], played)
    assert (got.repeated, got.ignores_hints, got.excluded, got.impossible) == \
        reference(MINI, MINI.answers[answer], played)
    assert got.guesses == len(played)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.lists(st.integers(0, 5), min_size=1, max_size=5)),
                min_size=1, max_size=12))
def test_games_that_share_their_first_moves_are_counted_each_as_alone(games: list[tuple[int, list[int]]]) -> None:
    """games_conduct walks the games as the tree they share (issue 51): few answers and guesses,
    so games share their first moves, and each equals the rules in words."""
    pool = [MINI.guesses[i * 37 % len(MINI.guesses)] for i in range(6)]
    given_games = [(MINI.answers[a * 11 % len(MINI.answers)], [pool[g] for g in guesses]) for a, guesses in games]
    got = games_conduct(MINI, given_games)
    assert [(c.repeated, c.ignores_hints, c.excluded, c.impossible) for c in got] == \
        [reference(MINI, answer, played) for answer, played in given_games]
    assert [c.guesses for c in got] == [len(played) for _, played in given_games]


def test_impossible_guesses_are_the_moves_the_analysis_calls_impossible() -> None:
    result = evaluate(make_agent("expected-size"), "guessgym/MiniNerdle-v1", record_guesses=True)
    analysis = analyze(result)
    flagged = sum(not m.possible for g in analysis.games for m in g.moves)
    assert result.meta["conduct"]["impossible"] == flagged > 0
    assert result.meta["conduct"]["repeated"] == 0 and result.meta["conduct"]["aborted"] == 0


def test_the_summary_and_where_it_appears() -> None:
    records = [GameRecord("1+9=10", 3, True, played=("4*7=28", "4*7=28", "1+9=10")),
               GameRecord("4*7=28", 6, False, played=("1+9=10",) * 5, forfeits=1)]
    summary = conduct_summary(MINI, records)
    assert summary is not None
    assert (summary["guesses"], summary["repeated"], summary["games_with_repeated"], summary["aborted"]) == (8, 5, 2, 1)
    assert summary["repeated_share"] == round(5 / 8, 6)
    assert conduct_summary(MINI, [GameRecord("1+9=10", 1, True)]) is None  # no guesses kept
    plain = evaluate(make_agent("least-worst"), MINI, sample=5)
    assert "conduct" not in plain.meta
    kept = evaluate(make_agent("random-consistent"), MINI, sample=20, record_guesses=True)
    assert kept.meta["conduct"]["impossible"] == 0 and kept.meta["conduct"]["ignores_hints"] == 0  # candidates only
    assert kept.meta["conduct"]["excluded"] == 0
    assert "Play: of " in result_markdown(kept)


def test_clembench_scores_as_its_scorer_computes_them() -> None:
    from guessgym.envs.game import wordle
    from guessgym.evaluation.conduct import clembench_scores

    game = wordle()
    won = clembench_scores(game, GameRecord("sneak", 2, True, played=("creek", "sneak")))
    # creek on sneak: B B G B G (closeness 10); greens e, k used again +40, grey e used again -20
    assert won == {"speed": 100.0, "closeness": [10, 25], "strategy": [0.0, 20.0]}
    assert clembench_scores(game, GameRecord("sneak", 1, True, played=("sneak",)))["strategy"] == [100.0]
    five = ("crane", "slate", "pious", "dumpy", "sneak")
    assert clembench_scores(game, GameRecord("sneak", 5, True, played=five))["speed"] == 30.0
    lost = GameRecord("sneak", 6, False, played=("crane",) * 6)
    assert clembench_scores(game, lost)["speed"] == 0.0
    aborted = GameRecord("sneak", 6, False, played=("crane",) * 3, forfeits=3)
    assert clembench_scores(game, aborted)["speed"] is None
    summary = conduct_summary(game, [GameRecord("sneak", 2, True, played=("creek", "sneak")), lost, aborted])
    assert summary is not None and summary["clembench"]["speed"] == 50.0  # (100 + 0) / 2, the aborted game unscored
