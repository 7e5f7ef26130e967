"""The game engine against slow obvious references: N games in one engine are N games played alone,
every pattern is the two-pass score of the strings, the candidates are the answers consistent with
every (guess, tiles) so far, and a hard-mode guess is rejected exactly when the rule on strings
says so."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from guessgym.envs.engine import GameEngine, RewardConfig
from guessgym.envs.game import Game, nerdle, wordle
from guessgym.envs.scoring import score

WORDS = ["crane", "crate", "slate", "plate", "trace", "caret", "react", "stare", "tears", "rates", "arise",
         "raise", "store", "stone", "tones", "notes", "onset", "steno", "ample", "maple"]


def small_game(hard_mode: bool = False, attempts: int = 6) -> Game:
    return wordle(answers=WORDS[:14], guesses=WORDS, hard_mode=hard_mode, max_attempts=attempts)


def consistent(game: Game, history: list[tuple[int, int]]) -> list[int]:
    """Brute force: the answers every played guess would have scored exactly as it did."""
    return [a for a, answer in enumerate(game.answers)
            if all(score(game.guesses[g], answer) == p for g, p in history)]


def hard_mode_allows(game: Game, history: list[tuple[int, int]], guess: str) -> bool:
    """The rule on strings: greens stay in place, each revealed letter used as often as revealed."""
    for g, p in history:
        played = game.guesses[g]
        tiles = [(p // 3**i) % 3 for i in range(game.length)]
        for i, t in enumerate(tiles):
            if t == 2 and guess[i] != played[i]:
                return False
        for letter in set(played):
            shown = sum(1 for i, t in enumerate(tiles) if t > 0 and played[i] == letter)
            if guess.count(letter) < shown:
                return False
    return True


@given(st.lists(st.integers(0, 13), min_size=1, max_size=6), st.lists(st.integers(0, len(WORDS) - 1),
       min_size=6, max_size=6))
def test_many_games_in_one_engine_are_each_game_played_alone(answers: list[int], guesses: list[int]) -> None:
    game = small_game()
    together = GameEngine(game, len(answers), matrix_cache=False)
    together.start(np.arange(len(answers)), np.array(answers))
    alone = [GameEngine(game, 1, matrix_cache=False) for _ in answers]
    for engine, answer in zip(alone, answers):
        engine.start_one(0, answer)
    for guess in guesses:
        playing = np.flatnonzero(together.state[:, 2] == 0)
        if playing.size == 0:
            break
        step = together.play(np.full(len(answers), guess), playing)
        for i in playing:
            reward, ended, pattern, attempt, count, _ = alone[i].play_one(0, guess)
            assert (step.rewards[i], step.terminated[i], step.patterns[i]) == (reward, ended, pattern)
            assert pattern == score(game.guesses[guess], game.answers[answers[i]])
            assert np.array_equal(together.state[i], alone[i].state[0])
            assert together.candidates_of(i).tolist() == consistent(game, together.history_of(i))


@given(st.integers(0, 13), st.lists(st.integers(0, len(WORDS) - 1), min_size=1, max_size=12))
def test_hard_mode_rejects_exactly_what_the_rule_on_strings_forbids(answer: int, guesses: list[int]) -> None:
    game = small_game(hard_mode=True, attempts=12)
    engine = GameEngine(game, 1, rewards=RewardConfig(invalid_action_penalty=-0.5), matrix_cache=False)
    engine.start_one(0, answer)
    for guess in guesses:
        history = engine.history_of(0)
        allowed = hard_mode_allows(game, history, game.guesses[guess])
        reward, ended, pattern, _, _, reason = engine.play_one(0, guess)
        assert (reason is None) == allowed, (history, game.guesses[guess], reason)
        if not allowed:
            assert (reward, pattern, engine.history_of(0)) == (-0.5, -1, history)  # nothing changed
        if ended:
            break


def test_rewards_and_the_end_of_a_game_follow_the_reward_config() -> None:
    game = nerdle(5)
    engine = GameEngine(game, 2, rewards=RewardConfig(win_reward=2.0, loss_reward=-1.0, step_penalty=-0.25),
                        matrix_cache=False)
    engine.start(np.array([0, 1]), np.array([3, 4]))
    win = engine.play(np.array([game.answer_to_guess[3], game.answer_to_guess[3]]))
    assert win.terminated.tolist() == [True, False] and win.rewards[0] == 2.0 - 0.25
    for _ in range(game.max_attempts - 1):
        last = engine.play(np.array([0, game.answer_to_guess[3]]), np.array([1]))
    assert last.terminated[1] and last.rewards[1] == -1.0 - 0.25


@given(st.lists(st.integers(0, len(WORDS) - 1), min_size=1, max_size=10))
def test_the_absurdle_host_is_a_rule_of_who_picks_the_answer(guesses: list[int]) -> None:
    """The engine with ``host="absurdle"`` keeps, at every step, the largest bucket of the answers
    left (fewest greens, then fewest yellows, then the smallest code on a tie), worked out here on
    strings; with no attempt limit it plays on past the board's rows."""
    game = small_game(attempts=3)  # three rows on the board
    engine = GameEngine(game, 1, host="absurdle", attempt_limit=None, matrix_cache=False)
    engine.start_one(0, 0)
    left = list(game.answers)
    for turn, guess in enumerate(guesses, 1):
        word = game.guesses[guess]
        buckets: dict[int, list[str]] = {}
        for answer in left:
            buckets.setdefault(score(word, answer), []).append(answer)
        choices = [p for p in buckets if p != game.solved_pattern] or [game.solved_pattern]

        def rank(p: int, buckets: dict[int, list[str]] = buckets) -> tuple[int, int, int, int]:
            tiles = [(p // 3**i) % 3 for i in range(game.length)]
            return (-len(buckets[p]), tiles.count(2), tiles.count(1), p)

        expected = min(choices, key=rank)
        _, ended, pattern, attempt, count, _ = engine.play_one(0, guess)
        left = buckets[expected]
        assert (pattern, attempt, count) == (expected, turn, len(left))
        assert [game.answers[a] for a in engine.candidates_of(0)] == left
        assert len(engine.history_of(0)) == min(turn, 3)  # the board keeps its first rows
        if ended:
            assert pattern == game.solved_pattern and len(left) == 1
            break


def test_an_engine_that_scores_only_what_a_step_reads_plays_the_same_games(isolated_cache) -> None:  # type: ignore[no-untyped-def]
    """Issue 51, aim 3: a chat server built every pair's pattern before its first game (classic
    Nerdle: 14 s and a 628 MB cache). With ``build_matrix=False`` a step scores its guess against
    the game's candidates only (or takes a whole row, kept, where most answers are left): every
    step, tile, reward and candidate count equals the dense engine's, and nothing is built or cached."""
    from guessgym.envs.matrix import PatternMatrix

    rng = np.random.default_rng(51)
    full = wordle()
    games = [wordle(answers=list(full.answers[::190])), wordle(answers=list(full.answers[::7]), hard_mode=True),
             nerdle(6, commutative=True), nerdle(6, guesses="all"), nerdle(5)]
    for game in games:
        lazy = GameEngine(game, build_matrix=False)
        assert lazy.matrix.dense is None and not list(isolated_cache.glob(f"patterns-{game.fingerprint}*"))
        dense = GameEngine(game)
        assert dense.matrix.dense is not None and lazy.matrix.dense is None
        for _ in range(60):
            answer = int(rng.integers(len(game.answers)))
            for engine in (lazy, dense):
                engine.start_one(0, answer)
            while not dense.state[0, 2]:
                guess = int(rng.integers(len(game.guesses)))
                if rng.random() < 0.3:  # a guess consistent so far: small candidate sets, then a win
                    guess = game.answer_to_guess[int(rng.choice(dense.candidates_of(0)))]
                got, expected = lazy.play_one(0, guess), dense.play_one(0, guess)
                assert got == expected, (game.name, answer, guess)
                assert np.array_equal(lazy.state, dense.state)
                assert lazy.candidates_of(0).tolist() == dense.candidates_of(0).tolist()
        PatternMatrix.clear_memory()
