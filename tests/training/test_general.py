"""One policy for every list: the drawn games hold training words only, every label is an optimal
move (checked against the solver's values of every guess), the rollouts follow the rules of every
other loop, and a run is seeded and resumes to the same model as one never stopped."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from guessgym.agents.learned import policy_actions
from guessgym.agents.rollout import play_batched
from guessgym.baselines.move_values import StateValues
from guessgym.cli import main
from guessgym.training.general import GeneralConfig, load_general_config
from guessgym.training.general_games import GameShape, Visits, draw_game, policy_logits, visit_game
from guessgym.training.general_loop import GeneralRun, train_general
from guessgym.training.transfer import transfer_split

ROOT = Path(__file__).resolve().parents[2]
TINY = {"iterations": 2, "games_per_iteration": 2, "min_answers": 8, "max_answers": 24, "max_guesses": 60,
        "validation_games": 2, "net_arch": {"pi": [32], "vf": [8]}, "batch_size": 32}


@pytest.fixture(scope="module")
def split():
    return transfer_split()


def test_drawn_games_hold_training_words_only_and_follow_the_seed(split) -> None:
    shape = GameShape(10, 300, 1200, 0.3, 0.5)
    draws = [draw_game(np.random.default_rng([3, i]), split, shape) for i in range(40)]
    again = [draw_game(np.random.default_rng([3, i]), split, shape) for i in range(40)]
    assert all((a.answers == b.answers).all() and (a.guesses == b.guesses).all() and a.hard == b.hard
               for a, b in zip(draws, again))
    unseen = set(split.unseen_words)
    for draw in draws:
        game = draw.game(split)  # the split refuses an unseen word
        assert not unseen & (set(game.answers) | set(game.guesses))
        assert set(game.answers) <= set(split.training_answers) and set(game.answers) <= set(game.guesses)
        assert 10 <= len(game.answers) <= 300 and len(game.guesses) <= 1200
    assert {d.hard for d in draws} == {True, False}
    assert any(len(d.guesses) == len(d.answers) for d in draws)
    assert any(len(d.guesses) > len(d.answers) for d in draws)


@pytest.mark.parametrize("hard", [False, True])
def test_every_label_is_an_optimal_move_and_the_expert_plays_the_optimum(split, hard: bool) -> None:
    draw = draw_game(np.random.default_rng(5), split, GameShape(30, 30, 90, 0.0, 1.0 if hard else 0.0))
    game = draw.game(split)
    values = StateValues(game)
    outcome = visit_game(None, game, values, ("expert",), np.random.default_rng(0), 1.0)
    root = values.best(values.everyone, game.max_attempts, values.all_guesses)
    assert int(outcome.guesses["expert"].sum()) == root and (outcome.guesses["expert"] > 0).all()
    visits = outcome.visits
    assert visits.weights[0] == len(game.answers) and (visits.masks is not None) == hard
    # the root's label against every guess's exact value (the slow, obvious reference)
    every = [values.after_total(values.everyone, g, game.max_attempts, values.all_guesses)
             for g in range(len(game.guesses))]
    assert every[int(visits.labels[0])] == min(every) == root
    assert visit_game(None, game, StateValues(game), ("expert",), np.random.default_rng(1), 1.0).visits.labels \
        .tolist() == visits.labels.tolist()  # the same move for the same state, every time


def test_policy_rollouts_follow_the_rules_of_every_other_loop(split) -> None:
    run = GeneralRun(GeneralConfig.from_dict({**TINY, "log_dir": "unused"}))
    game = draw_game(np.random.default_rng(2), split, GameShape(40, 40, 120, 0.0, 1.0)).game(split)
    values = StateValues(game)
    outcome = visit_game(run.policy, game, values, ("greedy", "sampled"), np.random.default_rng(0), 1.0)
    run.policy.set_game(game)
    assert outcome.guesses["greedy"].tolist() == play_batched(policy_actions(run.policy), game).tolist()
    assert outcome.policy_asked == len(outcome.visits) > 0
    visits = outcome.visits
    assert visits.masks is not None and visits.masks[np.arange(len(visits)), visits.labels].all()
    assert visits.weights[0] == len(game.answers)  # every game starts at the root (weights per mode)
    back = Visits.from_arrays(visits.arrays("x_"), "x_")
    assert (back.masks == visits.masks).all() and (back.labels == visits.labels).all()  # type: ignore[operator]


def test_a_large_game_is_opened_by_the_policy_and_only_what_follows_is_labelled(split) -> None:
    shape = GameShape(10, 40, 120, 0.0, 0.0, large_share=1.0, large_max_answers=70, large_max_guesses=300)
    draw = draw_game(np.random.default_rng(4), split, shape)
    game = draw.game(split)
    assert draw.large and 40 <= len(game.answers) <= 70 and len(game.guesses) <= 300
    run = GeneralRun(GeneralConfig.from_dict({**TINY, "log_dir": "unused"}))
    values = StateValues(game)
    outcome = visit_game(run.policy, game, values, ("greedy", "sampled"), np.random.default_rng(0), 1.0,
                         label_start=False)
    run.policy.set_game(game)
    opener = int(np.argmax(policy_logits(run.policy, _start(game))[0]))
    visits = outcome.visits
    assert visits.board.shape[0] == len(visits) and (visits.board[:, : game.length] > 0).all()  # none at the start
    assert visits.weights.sum() < 2 * len(game.answers)  # the start's weight is not there
    assert (visits.board[:, : game.length] - 1 == np.array(game.guess_codes[opener])).all()  # both modes open so
    with pytest.raises(ValueError, match="opened by the policy"):
        visit_game(None, game, values, ("expert",), np.random.default_rng(0), 1.0, label_start=False)


def _start(game):
    from guessgym.envs.vector import BatchedGuessEnv

    obs, _ = BatchedGuessEnv(1, game=game, track_candidates=False).reset(seed=0, options={"answer": np.array([0])})
    return obs


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_run_resumes_to_the_same_model_as_one_never_stopped(tmp_path: Path) -> None:
    straight = GeneralConfig.from_dict({**TINY, "log_dir": str(tmp_path / "a")})
    assert train_general(straight) == tmp_path / "a" / "wordle-general" / "model.zip"
    stopped = GeneralConfig.from_dict({**TINY, "log_dir": str(tmp_path / "b")})
    stop = threading.Event()
    stop.set()
    assert train_general(stopped, stop_event=stop) is None
    assert (tmp_path / "b" / "wordle-general" / "general.csv").read_text().count("\n") == 2
    final = train_general(stopped)
    assert final is not None and _sha(final) == _sha(tmp_path / "a" / "wordle-general" / "model.zip")
    rows = (tmp_path / "a" / "wordle-general" / "general.csv").read_text().splitlines()
    assert len(rows) == 3 and rows[0].startswith("iteration,games,states_new")
    other = GeneralConfig.from_dict({**TINY, "log_dir": str(tmp_path / "b"), "seed": 1})
    with pytest.raises(ValueError, match="another configuration"):
        train_general(other)


def test_building_games_leaves_torch_on_the_configured_threads(split) -> None:
    """numba's parallel kernels (a pattern matrix built for each drawn game) share torch's OpenMP
    runtime; the run pins both, so its products keep the configured thread count on any machine
    (checked in a fresh process, where numba's pool starts)."""
    code = ("import torch\n"
            "from guessgym.training.general import GeneralConfig\n"
            "from guessgym.training.general_loop import GeneralRun, train_general\n"
            "from guessgym.training.general_games import GameShape, draw_game\n"
            "import numpy as np\n"
            "run = GeneralRun(GeneralConfig.from_dict({'log_dir': 'unused', 'net_arch': {'pi': [8], 'vf': [8]}}))\n"
            "after = [torch.get_num_threads()]\n"
            "draw_game(np.random.default_rng(9), run.split, GameShape(300, 300, 3000, 0.0, 0.0)).game(run.split)\n"
            "after.append(torch.get_num_threads())\n"
            "print(after)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "NUMBA_NUM_THREADS": "4"})  # as on a machine of four cores or more
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[1, 1]"


def test_bad_configs_are_refused_in_one_line(tmp_path: Path, capsys) -> None:
    with pytest.raises(ValueError, match=r"unknown config key\(s\) \['iteration'\]"):
        GeneralConfig.from_dict({"iteration": 3})
    with pytest.raises(ValueError, match="'modes' must be a list of some of"):
        GeneralConfig.from_dict({"modes": ["greedy", "greedy"]})
    with pytest.raises(ValueError, match="'max_answers' must be a whole number >= 50"):
        GeneralConfig.from_dict({"min_answers": 50, "max_answers": 10})
    with pytest.raises(ValueError, match="log_scale must be None"):
        GeneralConfig.from_dict({"log_scale": 1})
    config = tmp_path / "bad.toml"
    config.write_text("iterations = 'many'\n")
    assert main(["train-general", "--config", str(config)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "'iterations' must be a whole number >= 1" in err


def test_the_shipped_config_reads(split) -> None:
    config = load_general_config(ROOT / "configs" / "wordle-general.toml")
    assert config.run_name == "wordle-general" and config.log_scale == 3158
    assert config.unseen_share == split.unseen_share and config.split_seed == split.seed


@pytest.mark.parametrize(("override", "says"), [
    ("net_arch.pi=[1000000000]", "net_arch.pi must be a list of at most 32 layer sizes, each a whole number from 1 "
                                 "to 65,536"),
    # issue 63 items 15 and 16: within the width bound, 17 GB allocated and a traceback; a seed numpy's legacy
    # generator refuses, 15 s later and naming no key
    ("net_arch.pi=[65536,65536]", "net_arch.pi=[65536, 65536] holds 4,295,098,368 weights between its hidden layers, "
                                  "over the 33,554,432 a policy may have"),
    ("seed=4294967296", "config key 'seed' must be a whole number from 0 to 2**32 - 1"),
    ("seed=-1", "config key 'seed' must be a whole number from 0 to 2**32 - 1"),
    ('split_prior={"log buckets":1e308}', "split_prior['log buckets'] must be a number from -1e+06 to 1e+06"),
    ("unseen_share=0.999999", "'unseen_share' must be a number in [0.0, 0.95]"),
    ("torch_threads=100000", "torch_threads must be a whole number from 1 to 256"),
    ("validation_games=100000000", "'validation_games' must be at most 10,000"),
    ("iterations=" + "[" * 100_000, "is nested too deep"),
])
def test_hostile_overrides_are_one_line(override: str, says: str, capsys) -> None:
    """Issue 50, items 8 and 9: each was a traceback (an allocator error, an overflow, 'math domain
    error', 'out of memory') or ran past any limit."""
    assert main(["train-general", "--config", str(ROOT / "configs" / "wordle-general.toml"), "--set", override]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and says in err, err


def test_a_config_nested_too_deep_is_one_line(tmp_path: Path, capsys) -> None:
    config = tmp_path / "deep.toml"
    config.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert main(["train-general", "--config", str(config)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "nested too deep to be a config" in err, err
    deep_json = tmp_path / "deep.json"
    deep_json.write_text("[" * 100_000 + "]" * 100_000)
    assert main(["train", "--config", str(deep_json)]) == 2
    assert "nested too deep to be a config" in capsys.readouterr().err
