"""The shared evaluation loop: which answers, how games end, and that backends agree."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from guessgym import envs  # noqa: F401  (registers the ids)
from guessgym.agents.base import Agent, CandidateAgent, SolverState, UnsupportedGameError
from guessgym.agents.registry import make_agent
from guessgym.envs.game import Game, nerdle, wordle
from guessgym.envs.scoring import all_green, score
from guessgym.evaluation.backends import WorkerDied
from guessgym.evaluation.evaluate import evaluate
from guessgym.evaluation.games import select_answers
from guessgym.evaluation.report import result_markdown

WORDS = ("crane", "crate", "grate", "slate", "plate", "place", "space", "spade", "shade", "share")
EXTRA = ("zzzzz", "lucky", "stomp")


def small_wordle(**kwargs: Any) -> Game:
    return wordle(answers=WORDS, guesses=WORDS + EXTRA, **kwargs)


class FirstCandidate(CandidateAgent):
    """Plays the first answer still possible."""

    name = "first-candidate"

    def choose(self, state: SolverState) -> int:
        return int(state.game.answer_to_guess[state.candidates.indices[0]])


class RandomCandidate(CandidateAgent):
    """Plays a random possible answer, seeded per game by the evaluation loop."""

    name = "random-candidate"
    memoise = False

    def __init__(self) -> None:
        super().__init__()
        self.rng = np.random.default_rng(12345)

    def seed_episode(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def choose(self, state: SolverState) -> int:
        pick = self.rng.choice(state.candidates.indices)
        return int(state.game.answer_to_guess[pick])


class Stubborn(Agent):
    """Plays 'crane', then keeps playing 'zzzzz' (refused by hard mode after any green)."""

    name = "stubborn"

    def begin(self, game: Game) -> None:
        super().begin(game)
        self.moves = 0

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        self.moves += 1
        return self.game.guess_index["crane" if self.moves == 1 else "zzzzz"]


class OutOfSpace(Agent):
    """Returns an action outside the action space."""

    name = "out-of-space"

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        return -1


class WordleOnly(FirstCandidate):
    name = "wordle-only"

    def check_game(self, game: Game) -> None:
        if game.kind != "wordle":
            raise UnsupportedGameError(f"{self.name} plays Wordle only, not {game.name}")


def reference_first_candidate(game: Game, answer: str, max_attempts: int) -> tuple[int, bool, list[str]]:
    """The first-candidate strategy written independently with string scoring."""
    candidates = list(game.answers)
    played: list[str] = []
    while len(played) < max_attempts:
        guess = candidates[0]
        played.append(guess)
        pattern = score(guess, answer)
        if pattern == all_green(game.length):
            return len(played), True, played
        candidates = [c for c in candidates if score(guess, c) == pattern]
    return len(played), False, played


# ---- answers -------------------------------------------------------------------------------------
def test_every_answer_played_once_and_matches_reference() -> None:
    game = small_wordle()
    result = evaluate(FirstCandidate(), game, record_guesses=True)
    assert [r.answer for r in result.records] == list(WORDS)
    for rec in result.records:
        guesses, solved, played = reference_first_candidate(game, rec.answer, game.max_attempts)
        assert (rec.guesses, rec.solved, list(rec.played or ())) == (guesses, solved, played)
        assert rec.seconds > 0
    assert result.agent == "first-candidate"
    assert result.description == "Plays the first answer still possible."
    assert result.game == game.name and result.env_id is None and result.max_attempts == 6


def test_micro_nerdle_by_id_matches_reference() -> None:
    result = evaluate(FirstCandidate(), "guessgym/MicroNerdle-v1")
    game = nerdle(5)
    assert result.env_id == "guessgym/MicroNerdle-v1" and result.game == "micro-nerdle"
    assert result.n_games == len(game.answers) == 127
    expected = [reference_first_candidate(game, a, 6)[:2] for a in game.answers]
    assert [(r.guesses, r.solved) for r in result.records] == expected
    assert result.n_solved == sum(s for _, s in expected)
    assert result.records[0].played is None  # not recorded unless asked


def test_wrapped_env_uses_its_game_and_rules() -> None:
    env = gym.make("guessgym/MicroNerdle-v1", reward_mode="shaped", step_penalty=-0.5)
    result = evaluate(FirstCandidate(), env, answers=["1+2=3"])
    assert result.env_id == "guessgym/MicroNerdle-v1"
    assert result.records[0].solved
    hard = gym.make("guessgym/WordleHard-v1")
    assert evaluate(FirstCandidate(), hard, sample=3).game == "wordle-5-nyt-hard"


def test_env_kwargs_for_a_registered_id() -> None:
    result = evaluate(FirstCandidate(), "guessgym/Wordle-v1", env_kwargs={"answers": list(WORDS)})
    assert result.n_games == len(WORDS)
    assert result.meta["env_kwargs"] == {"answers": list(WORDS)}
    with pytest.raises(ValueError, match="bad keyword arguments"):
        evaluate(FirstCandidate(), "guessgym/Wordle-v1", env_kwargs={"colour": "blue"})
    with pytest.raises(ValueError, match="cannot be applied"):
        evaluate(FirstCandidate(), small_wordle(), env_kwargs={"hard_mode": True})


def test_unknown_env_id_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown environment id 'guessgym/Nope-v1'.*Wordle-v1"):
        evaluate(FirstCandidate(), "guessgym/Nope-v1")


def test_sample_is_seeded_sorted_and_deterministic() -> None:
    game = nerdle(5)
    a = select_answers(game, sample=20, seed=7)
    assert len(a) == 20 and len(set(a.tolist())) == 20
    assert a.tolist() == sorted(a.tolist())
    assert np.array_equal(a, select_answers(game, sample=20, seed=7))
    assert not np.array_equal(a, select_answers(game, sample=20, seed=8))
    expected = np.sort(np.random.default_rng(7).choice(127, size=20, replace=False))
    assert np.array_equal(a, expected)
    r1 = evaluate(FirstCandidate(), game, sample=20, seed=7)
    r2 = evaluate(FirstCandidate(), game, sample=20, seed=7)
    assert [r.answer for r in r1.records] == [game.answers[i] for i in a]
    assert r1.records == r2.records
    assert r1.meta["answers"] == "sample" and r1.meta["sample"] == 20


def test_sample_size_checked() -> None:
    game = small_wordle()
    with pytest.raises(ValueError, match="between 1 and 10"):
        select_answers(game, sample=11)
    with pytest.raises(ValueError, match="between 1 and 10"):
        select_answers(game, sample=0)
    assert len(select_answers(game, answers=["crane", "slate", "share"], sample=2)) == 2


def test_explicit_answers_strings_and_indices_in_given_order() -> None:
    game = small_wordle()
    result = evaluate(FirstCandidate(), game, answers=["SLATE", 0, "crane", np.int64(9)])
    assert [r.answer for r in result.records] == ["slate", "crane", "share"]  # duplicate dropped
    assert result.meta["answers"] == "list"


def test_unknown_answers_are_named() -> None:
    game = small_wordle()
    with pytest.raises(ValueError, match=r"2 answer\(s\) not in .*'lucky', index 99"):
        evaluate(FirstCandidate(), game, answers=["crane", "lucky", 99])
    with pytest.raises(TypeError, match="not a single string"):
        select_answers(game, answers="crane")


# ---- how games end -----------------------------------------------------------------------------------
def test_max_attempts_override() -> None:
    six = evaluate(FirstCandidate(), "guessgym/MicroNerdle-v1")
    assert six.n_failed > 0
    long = evaluate(FirstCandidate(), "guessgym/MicroNerdle-v1", max_attempts=25)
    assert long.max_attempts == 25 and long.win_rate == 1.0
    assert long.win_rate_at(6) == pytest.approx(six.win_rate)
    short = evaluate(FirstCandidate(), "guessgym/MicroNerdle-v1", max_attempts=2)
    assert all(r.guesses <= 2 for r in short.records)
    assert short.n_solved == sum(1 for r in six.records if r.solved and r.guesses <= 2)
    assert all(r.guesses == 2 for r in short.records if not r.solved)
    with pytest.raises(ValueError, match="at least 1"):
        evaluate(FirstCandidate(), "guessgym/MicroNerdle-v1", max_attempts=0)


def test_agent_stuck_on_refused_actions_loses_with_reason() -> None:
    game = small_wordle(hard_mode=True)
    result = evaluate(Stubborn(), game, answers=["crane", "crate"], max_invalid_actions=5)
    crane, crate = result.records
    assert crane.solved and crane.guesses == 1 and crane.note == ""
    assert not crate.solved and crate.guesses == 1
    assert "5 rejected actions" in crate.note and "hard mode" in crate.note
    assert "rejected actions" in result_markdown(result)


def test_out_of_space_action_error_names_the_game() -> None:
    with pytest.raises(ValueError, match="outside the action space") as info:
        evaluate(OutOfSpace(), small_wordle(), answers=["slate"])
    assert any("'slate'" in note for note in info.value.__notes__)


def test_unsupported_game_raises_before_playing() -> None:
    with pytest.raises(UnsupportedGameError, match="Wordle only"):
        evaluate(WordleOnly(), "guessgym/MicroNerdle-v1", n_jobs=2)
    assert evaluate(WordleOnly(), small_wordle()).n_games == len(WORDS)


def test_progress_callback_and_no_printing(capsys: pytest.CaptureFixture[str]) -> None:
    calls: list[tuple[int, int]] = []
    evaluate(FirstCandidate(), small_wordle(), progress=lambda d, t: calls.append((d, t)))
    assert calls == [(i, len(WORDS)) for i in range(1, len(WORDS) + 1)]
    evaluate(FirstCandidate(), small_wordle())
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


def test_progress_true_draws_a_bar_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    evaluate(FirstCandidate(), small_wordle(), progress=True)
    out = capsys.readouterr()
    assert out.out == ""
    assert "first-candidate on wordle-5-custom" in out.err and "10/10" in out.err


def test_argument_checks() -> None:
    with pytest.raises(ValueError, match="backend"):
        evaluate(FirstCandidate(), small_wordle(), backend="threads")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="n_jobs"):
        evaluate(FirstCandidate(), small_wordle(), n_jobs=0)


# ---- backends ---------------------------------------------------------------------------------------
def test_serial_and_process_results_identical() -> None:
    serial = evaluate(FirstCandidate(), "guessgym/MicroNerdle-v1", record_guesses=True)
    calls: list[tuple[int, int]] = []
    parallel = evaluate(
        FirstCandidate(), "guessgym/MicroNerdle-v1", record_guesses=True, n_jobs=2, chunk_size=10,
        progress=lambda d, t: calls.append((d, t)), backend="process",
    )
    assert parallel.meta["backend"] == "process" and parallel.meta["n_jobs"] == 2
    assert serial.meta["backend"] == "tree"  # a deterministic solver's games, played as a tree: the same records
    assert parallel.records == serial.records
    assert calls[-1] == (127, 127) and [d for d, _ in calls] == sorted(d for d, _ in calls)
    # A randomised agent plays each game from a seed of its own: chunking does not matter.
    rs = evaluate(RandomCandidate(), small_wordle(), seed=3, record_guesses=True)
    rp = evaluate(RandomCandidate(), small_wordle(), seed=3, record_guesses=True, backend="process",
                  n_jobs=2, chunk_size=3)
    assert rs.records == rp.records
    assert rs.records != evaluate(RandomCandidate(), small_wordle(), seed=4, record_guesses=True).records


def test_unpicklable_agent_is_refused_for_processes() -> None:
    agent = FirstCandidate()
    agent.hook = lambda: None  # lambdas do not pickle
    with pytest.raises(TypeError, match="cannot be pickled.*serial"):
        evaluate(agent, small_wordle(), n_jobs=2, backend="process")


def test_ray_missing_gives_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # makes `import ray` fail
    with pytest.raises(ImportError, match=r'pip install "guessgym\[ray\]"'):
        evaluate(FirstCandidate(), small_wordle(), backend="ray", n_jobs=2)


class DiesInWorkers(FirstCandidate):
    """Plays the first candidate, but a worker process is killed when it starts its third game."""

    name = "dies-in-workers"

    def __init__(self) -> None:
        super().__init__()
        self.parent = os.getpid()
        self.games = 0

    def seed_episode(self, seed: int) -> None:
        self.games += 1
        if os.getpid() != self.parent and self.games == 3:
            os.kill(os.getpid(), signal.SIGKILL)


def test_a_dead_worker_stops_the_evaluation_with_advice() -> None:
    with pytest.raises(WorkerDied, match=r"died before finishing its games.*if __name__ == \"__main__\":"):
        evaluate(DiesInWorkers(), nerdle(5), n_jobs=2, backend="process", progress=False)


def test_a_script_without_a_main_guard_fails_fast(tmp_path: Path) -> None:
    """The spawned workers import the script; each would run the evaluation again."""
    script = tmp_path / "unguarded.py"
    script.write_text(
        "from guessgym.evaluation.evaluate import evaluate\n"
        "from guessgym.agents.registry import make_agent\n"
        "evaluate(make_agent('least-worst'), 'guessgym/MicroNerdle-v1', n_jobs=2, backend='process', progress=False)\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    assert "WorkerDied" in done.stderr and 'if __name__ == "__main__":' in done.stderr


def test_a_program_read_from_stdin_is_told_it_cannot_spawn_workers_instead_of_hanging(tmp_path: Path) -> None:
    """Workers re-import the main program; ``<stdin>`` is no file, and the pool once waited for ever."""
    program = (
        "from guessgym.evaluation.evaluate import evaluate\n"
        "from guessgym.agents.registry import make_agent\n"
        "evaluate(make_agent('least-worst'), 'guessgym/MicroNerdle-v1', sample=50, n_jobs=2, backend='process')\n"
    )
    done = subprocess.run([sys.executable, "-"], input=program, capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)
    assert done.returncode != 0 and "'<stdin>' is not a file" in done.stderr and "backend='serial'" in done.stderr


def test_the_one_result_table_shows_the_gap_to_the_optimum() -> None:
    """Issue 24: ``guessgym evaluate`` printed no vs-optimum column although the JSON had it."""
    result = evaluate(make_agent("least-worst"), "guessgym/MicroNerdle-v1")
    optimum = result.meta["optimum"]["total"]
    table = result_markdown(result)
    assert "| vs optimum |" in table and f"| {result.total_guesses - optimum:+,} (" in table
    assert f"total guesses minus {optimum:,}" in table  # what the figure is measured against
    sample = evaluate(make_agent("least-worst"), "guessgym/MicroNerdle-v1", sample=10)
    assert "vs optimum" not in result_markdown(sample)  # a sample has no optimum to compare with
