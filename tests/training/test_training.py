"""Training: configs, the SB3 adapter, learning a small game, save/load, resume == uninterrupted,
the command line, and learned agents in the shared evaluation loop."""

from __future__ import annotations

import argparse
import csv
import json
import os
import pickle
import shutil
import subprocess
import sys
import threading
import types
from pathlib import Path

import numpy as np
import pytest
import torch as th
from stable_baselines3.common.callbacks import BaseCallback

from guessgym.agents import learned
from guessgym.agents.base import UnsupportedGameError
from guessgym.agents.learned import LearnedAgent, detect_algorithm, load_agent, load_model
from guessgym.agents.rollout import play_batched
from guessgym.cli import train as cli
from guessgym.envs.env import GuessEnv
from guessgym.envs.game import nerdle, wordle
from guessgym.envs.vector import BatchedGuessEnv
from guessgym.evaluation.results import EvaluationResult
from guessgym.infra.atomic import _host
from guessgym.training.checkpoints import CheckpointError, decode_state, encode_state, latest_checkpoint
from guessgym.training.config import ALGORITHMS, TrainConfig, apply_overrides, load_config
from guessgym.training.sb3_vec import BatchedVecEnv
from guessgym.training.train import train

th.set_num_threads(1)

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def tiny_config(tmp_path: Path, name: str, **changes) -> TrainConfig:
    """A few-second Micro Nerdle run with checkpoints, evaluations and a curriculum stage."""
    base = dict(
        run_name=name,
        env_id="guessgym/MicroNerdle-v1",
        total_steps=3 * 512,
        num_envs=8,
        n_steps=64,
        batch_size=128,
        n_epochs=2,
        checkpoint_every=512,
        eval_every=512,
        log_dir=str(tmp_path),
        net_arch={"pi": [32], "vf": [32]},
        curriculum=[[40, 512]],
        seed=5,
    )
    base.update(changes)
    return TrainConfig(**base)


def play_every_answer(agent: LearnedAgent, game) -> tuple[float, float]:
    """Drive the agent through GuessEnv on every answer (the Agent protocol: begin, then act)."""
    env = GuessEnv(game=game)
    wins, guesses = 0, []
    for a in range(len(game.answers)):
        obs, info = env.reset(seed=0, options={"answer": a})
        agent.begin(game)
        done = False
        while not done:
            obs, _, done, _, info = env.step(agent.act(obs, info))
        if info["pattern"] == game.solved_pattern:
            wins += 1
            guesses.append(info["attempt"])
    return wins / len(game.answers), float(np.mean(guesses)) if guesses else float("nan")


class InterruptAt(BaseCallback):
    """Simulates a crash (Ctrl-C, power cut) in the middle of a rollout."""

    def __init__(self, step: int) -> None:
        super().__init__()
        self.step = step

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.step:
            raise KeyboardInterrupt
        return True


class StopAt(BaseCallback):
    def __init__(self, step: int, event: threading.Event) -> None:
        super().__init__()
        self.step, self.event = step, event

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.step:
            self.event.set()
        return True


# ---- configuration -----------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["mini-nerdle", "nerdle", "wordle"])
def test_example_configs_are_valid(name: str) -> None:
    config = load_config(CONFIGS / f"{name}.toml")
    assert config.run_name == name
    assert TrainConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config


def test_config_errors_and_overrides(tmp_path: Path) -> None:
    assert ALGORITHMS == learned.ALGORITHMS
    with pytest.raises(ValueError, match="unknown config key"):
        TrainConfig.from_dict({"learning_rat": 0.1})
    with pytest.raises(ValueError, match="algorithm"):
        TrainConfig.from_dict({"algorithm": "dqn"})
    with pytest.raises(ValueError, match="env_kwargs"):
        TrainConfig.from_dict({"env_kwargs": {"colour": "red"}})
    cfg = apply_overrides(
        TrainConfig(),
        [
            "total_steps=1000",
            "env_kwargs.reward_mode=shaped",
            "net_arch.pi=[8, 8]",
            "curriculum=[[10, 100], [50, 200]]",
            "candidate_prior=null",
        ],
    )
    assert cfg.total_steps == 1000 and cfg.env_kwargs == {"reward_mode": "shaped"}
    assert cfg.net_arch["pi"] == [8, 8] and [s.answers for s in cfg.curriculum] == [10, 50]
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cfg.to_dict()))
    assert load_config(path) == cfg


# ---- the stable-baselines3 adapter ---------------------------------------------------------------
def test_sb3_adapter_same_step_reset_and_masks() -> None:
    game = nerdle(5)
    venv = BatchedVecEnv(BatchedGuessEnv(3, game=game))
    assert "action_mask" not in venv.observation_space.spaces
    venv.seed(4)
    venv.set_options({"answer": 0})
    obs = venv.reset()
    win = int(game.answer_to_guess[0])
    obs, rewards, dones, infos = venv.step(np.array([win, 1, 2]))
    assert dones[0] and rewards[0] == 1.0 and infos[0]["is_success"] and infos[0]["episode"]["l"] == 1
    terminal = infos[0]["terminal_observation"]
    assert terminal["board"][: game.length].tolist() == (game.guess_codes[win] + 1).tolist()
    assert not obs["board"][0].any()  # already a new game (same-step reset)
    masks = np.stack(venv.env_method("action_masks"))
    assert masks.shape == (3, len(game.guesses)) and masks.all()
    assert venv.has_attr("action_masks") and venv.get_attr("game")[0] is game
    assert venv.env_is_wrapped(object) == [False, False, False]
    state = pickle.loads(pickle.dumps(venv.get_state()))
    after = [venv.step(np.array([3, 4, 5]))[0]["board"] for _ in range(4)]
    venv.set_state(state)
    again = [venv.step(np.array([3, 4, 5]))[0]["board"] for _ in range(4)]
    assert all(np.array_equal(a, b) for a, b in zip(after, again))


# ---- learning --------------------------------------------------------------------------------------
def test_learns_micro_nerdle_from_a_uniform_start(tmp_path: Path) -> None:
    """From a uniform policy (candidate_prior=0, the untrained greedy policy wins ~3%), a short
    MaskablePPO run must win at least 95% of Micro Nerdle's 127 answers."""
    config = TrainConfig(
        run_name="learn",
        env_id="guessgym/MicroNerdle-v1",
        total_steps=16_384,
        num_envs=16,
        n_steps=32,
        batch_size=128,
        n_epochs=4,
        learning_rate=1e-3,
        candidate_prior=0.0,
        eval_every=10**6,
        checkpoint_every=0,
        net_arch={"pi": [64, 64], "vf": [64, 64]},
        log_dir=str(tmp_path),
        seed=0,
    )
    model_path = train(config)
    rows = list(csv.DictReader(open(tmp_path / "learn" / "eval.csv")))
    untrained = float(rows[0]["win_rate"])
    assert rows[0]["step"] == "0" and untrained < 0.2
    agent = load_agent(model_path)
    win_rate, mean = play_every_answer(agent, nerdle(5))
    assert win_rate >= 0.95, (untrained, win_rate)
    assert win_rate == pytest.approx(
        json.loads((tmp_path / "learn" / "final.json").read_text())["final_eval"]["win_rate"]
    )
    assert 1.0 < mean <= 6.0
    assert (tmp_path / "learn" / "tb").is_dir() and any((tmp_path / "learn" / "tb").iterdir())


# ---- save / load -----------------------------------------------------------------------------------
@pytest.mark.parametrize("algorithm", ["maskable_ppo", "a2c"])
def test_save_load_round_trip_gives_identical_actions(tmp_path: Path, algorithm: str) -> None:
    config = tiny_config(tmp_path, "rt", algorithm=algorithm, total_steps=512, curriculum=[])
    path = train(config)
    assert detect_algorithm(path) == algorithm
    agent = load_agent(path)
    again = load_agent(tmp_path / "rt")  # a run directory works too
    copied = pickle.loads(pickle.dumps(agent))  # the evaluation loop's worker processes
    ckpt = load_agent(latest_checkpoint(tmp_path / "rt"))
    game = nerdle(5)
    env = GuessEnv(game=game)
    rng = np.random.default_rng(0)
    for a in range(0, len(game.answers), 9):
        obs, info = env.reset(options={"answer": a})
        for ag in (agent, again, copied, ckpt):
            ag.begin(game)
        done = False
        while not done:
            actions = {ag.act(obs, info) for ag in (agent, again, copied, ckpt)}
            assert len(actions) == 1
            action = actions.pop() if rng.random() < 0.7 else int(rng.integers(len(game.guesses)))
            obs, _, done, _, info = env.step(action)
    # the batched greedy decision equals the per-game one
    venv = BatchedGuessEnv(5, game=game)
    obs, _ = venv.reset(seed=0, options={"answer": [0, 10, 20, 30, 40]})
    obs, *_ = venv.step(np.array([1, 2, 3, 4, 5]))
    batch = agent.act_batch(obs, obs["action_mask"])
    agent.begin(game)
    single = [agent.act({k: v[i] for k, v in obs.items()}, {}) for i in range(5)]
    assert batch.tolist() == single


def test_load_model_for_each_algorithm(tmp_path: Path) -> None:
    for algorithm in ALGORITHMS:
        path = train(
            tiny_config(
                tmp_path,
                f"alg-{algorithm}",
                algorithm=algorithm,
                total_steps=512,
                curriculum=[],
                eval_every=0,
                checkpoint_every=0,
            )
        )
        model = load_model(path)
        assert learned.algorithm_name(model) == algorithm == detect_algorithm(path)


# ---- resume ----------------------------------------------------------------------------------------
def _params(path: Path) -> dict[str, th.Tensor]:
    return load_model(path).policy.state_dict()


@pytest.mark.parametrize("algorithm", ["maskable_ppo", "a2c"])
def test_resume_after_crash_equals_uninterrupted_run(tmp_path: Path, algorithm: str) -> None:
    full = train(tiny_config(tmp_path, "full", algorithm=algorithm))
    with pytest.raises(KeyboardInterrupt):
        train(tiny_config(tmp_path, "cut", algorithm=algorithm), callbacks=[InterruptAt(1100)])
    assert latest_checkpoint(tmp_path / "cut").name == "step-000000001024"
    resumed = train(tiny_config(tmp_path, "cut", algorithm=algorithm), resume=True)
    a, b = _params(full), _params(resumed)
    assert set(a) == set(b) and all(th.equal(a[k], b[k]) for k in a)
    assert load_model(full).num_timesteps == load_model(resumed).num_timesteps == 1536
    for name in ("curve.csv", "eval.csv"):
        rows_a = list(csv.reader(open(tmp_path / "full" / name)))
        rows_b = list(csv.reader(open(tmp_path / "cut" / name)))
        if name == "eval.csv":  # the last column is wall time
            rows_a, rows_b = [r[:-1] for r in rows_a], [r[:-1] for r in rows_b]
        assert rows_a == rows_b, name


def test_a_hard_mode_run_checkpoints_and_resumes_to_the_same_model(tmp_path: Path) -> None:
    """Hard mode's per-game rules are in every checkpoint, as plain data (a checkpoint of a hard-mode
    run used to fail: the rules were objects, which the checkpoint format refuses to hold)."""
    hard = {"env_id": "guessgym/MiniNerdle-v1", "env_kwargs": {"hard_mode": True}, "curriculum": []}
    full = train(tiny_config(tmp_path, "full", **hard))
    with pytest.raises(KeyboardInterrupt):
        train(tiny_config(tmp_path, "cut", **hard), callbacks=[InterruptAt(1100)])
    assert latest_checkpoint(tmp_path / "cut").name == "step-000000001024"
    resumed = train(tiny_config(tmp_path, "cut", **hard), resume=True)
    a, b = _params(full), _params(resumed)
    assert all(th.equal(a[k], b[k]) for k in a)


def test_graceful_stop_then_resume_with_more_steps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    full = train(tiny_config(tmp_path, "full", total_steps=2048))
    stop = threading.Event()
    path = train(tiny_config(tmp_path, "stop", total_steps=1536), stop_event=stop, callbacks=[StopAt(600, stop)])
    assert path.parent.name == "step-000000001024" and not (tmp_path / "stop" / "model.zip").exists()
    # a save that was killed half-way left its temporary folder; the next save removes it
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    leftover = tmp_path / "stop" / "checkpoints" / f".tmp-step-000000001536-{_host()}~{int(dead.stdout)}-abcd"
    leftover.mkdir()
    (leftover / "model.zip").write_bytes(b"half")
    capsys.readouterr()
    resumed = train(tiny_config(tmp_path, "stop", total_steps=2048, progress_bar=True), resume=True)  # more steps
    assert not leftover.exists()
    bar = capsys.readouterr().err.replace("\r", "\n")
    assert " 1024/2048 " in bar and " 2048/2048 " in bar and "2560/" not in bar and " 0/" not in bar
    a, b = _params(full), _params(resumed)
    assert all(th.equal(a[k], b[k]) for k in a)


def test_a_config_error_leaves_no_run_folder(tmp_path: Path) -> None:
    for bad in ({"env_kwargs": {"hard_mode": "False"}}, {"env_id": "guessgym/WordleHard-v1", "algorithm": "ppo"}):
        with pytest.raises((TypeError, ValueError)):
            train(tiny_config(tmp_path, "bad", **bad))
        assert not (tmp_path / "bad").exists()


def test_resume_guards(tmp_path: Path) -> None:
    train(tiny_config(tmp_path, "g", total_steps=512, curriculum=[]))
    with pytest.raises(FileExistsError):
        train(tiny_config(tmp_path, "g", total_steps=512, curriculum=[]))
    with pytest.raises(ValueError, match="learning_rate"):
        train(tiny_config(tmp_path, "g", total_steps=1024, curriculum=[], learning_rate=1e-2), resume=True)
    # resuming a finished run with the same budget returns the model without training again
    assert train(tiny_config(tmp_path, "g", total_steps=512, curriculum=[]), resume=True).name == "model.zip"


def test_resume_without_a_checkpoint_is_refused_and_changes_nothing(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 22, item 6: ``--resume`` of a run whose checkpoints are gone used to retrain from
    step 0 over model.zip and final.json and exit 0."""
    config = tiny_config(tmp_path, "r", total_steps=512, curriculum=[])
    train(config)
    run = tmp_path / "r"
    shutil.rmtree(run / "checkpoints")
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    with pytest.raises(FileNotFoundError, match="nothing to resume: .* has no checkpoint"):
        train(config, resume=True)
    with pytest.raises(FileNotFoundError, match="has no checkpoint"):
        train(tiny_config(tmp_path, "never-started"), resume=True)
    assert not (tmp_path / "never-started").exists()
    path = tmp_path / "r.json"
    path.write_text(json.dumps(config.to_dict()))
    parser = argparse.ArgumentParser(prog="guessgym")
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["train", "--config", str(path), "--resume", "--no-progress"])
    assert args.func(args) == 2
    assert "has no checkpoint" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before


def test_a_curve_file_that_is_not_the_runs_is_refused_on_resume_and_left_as_it_is(tmp_path: Path) -> None:
    """The training curves are resumable logs too: a resumed run cuts them back to the checkpoint's
    row count, but never a file whose header is not its own."""
    train(tiny_config(tmp_path, "f", total_steps=512, curriculum=[]))
    foreign = "when,what\n2026-11-25,my own notes\n"
    (tmp_path / "f" / "eval.csv").write_text(foreign)
    with pytest.raises(CheckpointError, match="not this run's log"):
        train(tiny_config(tmp_path, "f", total_steps=1024, curriculum=[]), resume=True)
    assert (tmp_path / "f" / "eval.csv").read_text() == foreign


def test_checkpoints_hold_no_pickle_and_a_pickled_one_is_refused(tmp_path: Path) -> None:
    config = tiny_config(tmp_path, "c", total_steps=512, curriculum=[])
    train(config)
    checkpoint = latest_checkpoint(tmp_path / "c")
    assert sorted(p.name for p in checkpoint.iterdir()) == ["model.zip", "state.json", "state.npz"]
    # guessgym 0.3's checkpoints were pickles: never read, and the message says why
    legacy = tmp_path / "old"
    (legacy / "checkpoints" / "step-000000000512").mkdir(parents=True)
    (legacy / "checkpoints" / "step-000000000512" / "state.pkl").write_bytes(pickle.dumps({"format": 1}))
    with pytest.raises(CheckpointError, match="pickle"):
        train(tiny_config(tmp_path, "old"), resume=True)


@pytest.mark.parametrize("edit", [
    lambda s: s.pop("env"),
    lambda s: s.__setitem__("rng", {"torch": 1, "numpy": [], "python": None}),
    lambda s: s["model_extra"].__setitem__("_last_obs", {"$array": "nope"}),
    lambda s: s.__setitem__("wall_time_s", "soon"),
    lambda s: s["callbacks"]["eval"].__setitem__("rows", "many"),
    lambda s: s.__setitem__("format", 1),
])
def test_an_edited_checkpoint_state_is_one_error_naming_it(tmp_path: Path, edit) -> None:
    config = tiny_config(tmp_path, "e", total_steps=1024, curriculum=[])
    with pytest.raises(KeyboardInterrupt):
        train(config, callbacks=[InterruptAt(600)])
    checkpoint = latest_checkpoint(tmp_path / "e")
    state = json.loads((checkpoint / "state.json").read_text())
    edit(state)
    (checkpoint / "state.json").write_text(json.dumps(state))
    with pytest.raises(CheckpointError, match=str(checkpoint.name)):
        train(config, resume=True)


def test_checkpoint_state_round_trips_and_refuses_unknown_tags() -> None:
    from collections import deque

    state = {"t": (1, "a", None), "a": np.arange(3, dtype=np.uint32), "x": th.tensor([1, 2], dtype=th.uint8),
             "d": deque([{"r": 1.0}], maxlen=5), "n": np.float64(2.5), "l": [[1], {"k": True}]}
    arrays: dict[str, np.ndarray] = {}
    doc = json.loads(json.dumps(encode_state(state, arrays)))
    back = decode_state(doc, arrays)
    assert back["t"] == (1, "a", None) and back["a"].dtype == np.uint32 and th.equal(back["x"], state["x"])
    assert back["d"] == state["d"] and back["d"].maxlen == 5 and back["n"] == 2.5 and back["l"] == state["l"]
    with pytest.raises(TypeError, match="object array"):
        encode_state({"o": np.array([None])}, {})
    with pytest.raises(TypeError, match="set"):
        encode_state({"s": {1}}, {})
    for bad in ({"$pickle": "x"}, {"$array": "a9"}, {"$deque": [], "maxlen": -1}, {"$tuple": 3}):
        with pytest.raises(ValueError):
            decode_state(bad, arrays)


def test_curriculum_pools_are_nested_and_applied(tmp_path: Path) -> None:
    from guessgym.training.config import CurriculumStage
    from guessgym.training.curriculum import CurriculumSchedule

    schedule = CurriculumSchedule([CurriculumStage(10, 100), CurriculumStage(40, 100)], 127, seed=0)
    assert schedule.stage_at(0) == 0 and schedule.stage_at(150) == 1 and schedule.stage_at(200) == 2
    p0, p1 = schedule.pool(0), schedule.pool(1)
    assert len(p0) == 10 and len(p1) == 40 and set(p0) <= set(p1) and schedule.pool(2) is None
    path = train(tiny_config(tmp_path, "cur", total_steps=1024, curriculum=[[10, 512]]))
    rows = list(csv.DictReader(open(tmp_path / "cur" / "curve.csv")))
    assert rows and int(rows[-1]["step"]) >= 1024
    assert load_agent(path).policy.features_extractor._pool.sum() == 127  # loads with every answer


# ---- command line ----------------------------------------------------------------------------------
def test_cli_train_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tiny_config(tmp_path, "cli", total_steps=512, curriculum=[])
    path = tmp_path / "cli.json"
    path.write_text(json.dumps(config.to_dict()))
    parser = argparse.ArgumentParser(prog="guessgym")
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["train", "--config", str(path), "--set", "seed=1", "--no-progress"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "done:" in out and "model:" in out
    mismatch = parser.parse_args(["train", "--config", str(path), "--resume", "--total-steps", "1024", "--no-progress"])
    assert mismatch.func(mismatch) == 2  # the run was started with seed=1
    assert "seed" in capsys.readouterr().err
    args = parser.parse_args(
        ["train", "--config", str(path), "--resume", "--total-steps", "1024", "--set", "seed=1", "--no-progress"]
    )
    assert args.func(args) == 0
    assert load_model(tmp_path / "cli" / "model.zip").num_timesteps == 1024
    bad = parser.parse_args(["train", "--config", str(path), "--set", "algorithm=dqn"])
    assert bad.func(bad) == 2


# ---- learned agents and the shared evaluation loop ---------------------------------------------------
def test_learned_agent_in_the_shared_evaluation_loop(tmp_path: Path) -> None:
    evaluate = pytest.importorskip("guessgym.evaluation.evaluate").evaluate
    path = train(tiny_config(tmp_path, "ev", total_steps=1024, curriculum=[]))
    agent = load_agent(path, name="ppo-micro")
    result = evaluate(agent, "guessgym/MicroNerdle-v1")
    assert result.n_games == 127 and result.agent == "ppo-micro"
    expected, _ = play_every_answer(load_agent(path), nerdle(5))
    assert result.win_rate == pytest.approx(expected)
    summary = json.loads((tmp_path / "ev" / "final.json").read_text())["final_eval"]
    assert result.win_rate == pytest.approx(summary["win_rate"])  # the fast in-training evaluation agrees


def test_learned_agent_retargets_and_rejects_games(tmp_path: Path) -> None:
    path = train(tiny_config(tmp_path, "rg", total_steps=512, curriculum=[], eval_every=0, checkpoint_every=0))
    agent = load_agent(path)
    subset = nerdle(5, answers=list(nerdle(5).answers[:30]))
    win_rate, _ = play_every_answer(agent, subset)  # same board, another answer list
    assert 0.0 <= win_rate <= 1.0 and agent.policy.game is subset
    with pytest.raises(UnsupportedGameError):
        agent.begin(nerdle(6))
    with pytest.raises(UnsupportedGameError):
        agent.begin(wordle(answers=["crane"], guesses=["crane"]))
    assert "MaskablePPO" in agent.describe()


# ---- the same model on every machine --------------------------------------------------------------
_TRAIN_AND_HASH = """
import hashlib, json, sys
from sb3_contrib import MaskablePPO
from guessgym.training.config import TrainConfig
from guessgym.training.train import train
model = MaskablePPO.load(train(TrainConfig(**json.loads(sys.argv[1]))))
digest = hashlib.sha256()
for key, value in sorted(model.policy.state_dict().items()):
    digest.update(key.encode())
    digest.update(value.numpy().tobytes())
print(digest.hexdigest())
"""


def _trained_digest(tmp_path: Path, name: str, numerics: str, machine: dict[str, str]) -> str:
    """Train a tiny run in a fresh process whose environment stands in for another machine."""
    config = tiny_config(tmp_path, name, numerics=numerics, total_steps=2 * 512, eval_every=0, checkpoint_every=0)
    env = {k: v for k, v in os.environ.items() if k not in ("MKL_CBWR", "ATEN_CPU_CAPABILITY")} | machine
    out = subprocess.run([sys.executable, "-c", _TRAIN_AND_HASH, json.dumps(config.to_dict())], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip().splitlines()[-1]


def test_portable_numerics_give_the_same_model_whatever_code_paths_the_machine_would_choose(tmp_path: Path) -> None:
    """Another MKL branch (MKL_CBWR) and another ATen capability stand in for another CPU: they
    change a native run's model, and not a portable one's."""
    machines = [{}, {"MKL_CBWR": "COMPATIBLE", "ATEN_CPU_CAPABILITY": "default"}]
    portable = {_trained_digest(tmp_path, f"portable{i}", "portable", m) for i, m in enumerate(machines)}
    native = {_trained_digest(tmp_path, f"native{i}", "native", m) for i, m in enumerate(machines)}
    assert len(portable) == 1
    assert len(native) == 2


def test_numerics_is_checked_and_recorded(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="numerics must be"):
        tiny_config(tmp_path, "bad", numerics="fast").validate()
    from guessgym.training.numerics import describe_numerics

    described = describe_numerics("portable")
    assert described["aten_cpu_capability"] == "AVX2" and described["mkl_cbwr"] == "AVX2"
    assert described["libraries"]["torch"] and described["libraries"]["stable-baselines3"]


def test_portable_numerics_refuse_a_process_whose_kernels_were_already_chosen() -> None:
    code = ("import torch; torch.ones(3).softmax(0)\n"
            "from guessgym.training.numerics import pin_numerics\n"
            "try:\n    pin_numerics('portable')\nexcept ValueError as exc:\n    print(exc)\n")
    env = {k: v for k, v in os.environ.items() if k != "MKL_CBWR"} | {"ATEN_CPU_CAPABILITY": "default"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert "torch already chose its DEFAULT kernels" in out.stdout and "ATEN_CPU_CAPABILITY=avx2" in out.stdout


# ---- evaluation table, curve, early stop ---------------------------------------------------------
def test_each_evaluation_prints_a_row_against_the_references_and_redraws_the_curve(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tiny_config(tmp_path, "report", references=["least-worst"], curriculum=[])
    train(config, print_evaluations=True)
    lines = [line for line in capsys.readouterr().out.splitlines() if " | " in line]
    assert "vs least-worst" in lines[0] and "vs optimum" in lines[0]
    assert len(lines) == 1 + len(read_eval_rows(config.run_dir))  # a header, then a row per evaluation
    references = json.loads((config.run_dir / "references.json").read_text())["means"]
    assert references["optimum"] == pytest.approx(374 / 127) and references["least-worst"] > references["optimum"]
    assert (config.run_dir / "curve.png").stat().st_size > 0
    assert json.loads((config.run_dir / "final.json").read_text())["references"] == references


def test_vs_optimum_is_extra_guesses_over_the_optimal_tree_on_the_answers_played(tmp_path: Path) -> None:
    """The training table's *vs optimum* is evaluate's (extra guesses over the tree, percent), on the
    answers the evaluation played: a sample is compared with the tree on that sample, and says so."""
    from guessgym.agents.optima import known_optimum
    from guessgym.envs import make_game
    from guessgym.training.eval_report import EvalReport

    game = make_game("guessgym/MicroNerdle-v1")
    tree = known_optimum(game).load_tree(game)  # type: ignore[union-attr]
    report = EvalReport(tmp_path, "t", {}, game=game)
    sample = game.answers[:10]
    on_tree = sum(len(tree.paths[a]) for a in sample)
    assert report.vs_optimum({"played": sample, "total_guesses": on_tree + 3}) == (
        f"+3 (+{100 * 3 / on_tree:.2f}%) on 10 of 127")
    everyone = {"played": list(game.answers), "total_guesses": tree.total}
    assert report.vs_optimum(everyone) == "+0 (+0.00%)" and tree.total == 374
    assert report.vs_optimum({"games": 10}) == "-"
    assert "vs optimum" not in EvalReport(tmp_path, "t", {}).header()  # no game given: no tree to compare with


def read_eval_rows(run_dir: Path) -> list[dict[str, str]]:
    with open(run_dir / "eval.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_a_run_stops_at_its_target_and_stays_finished(tmp_path: Path) -> None:
    # Micro Nerdle's policy wins every game after a few hundred steps; the budget is 50 times more.
    config = tiny_config(tmp_path, "target", total_steps=50 * 512, curriculum=[], target_win_rate=1.0)
    path = train(config)
    final = json.loads((config.run_dir / "final.json").read_text())
    reached = final["target"]["reached_at_step"]
    assert reached < config.total_steps and reached <= final["steps"] <= reached + config.n_steps * config.num_envs
    assert final["final_eval"]["win_rate"] == 1.0 and path.is_file()
    again = train(config, resume=True)  # complete: nothing more to train
    assert again == path and json.loads((config.run_dir / "final.json").read_text())["steps"] == final["steps"]


def test_the_best_evaluated_model_is_kept_and_reproduces_its_score(tmp_path: Path) -> None:
    # Evaluations on a 40-answer sample every 512 steps, then every answer at the end: the best
    # model is ranked among all of them on the sample, and the file holds that model.
    config = tiny_config(tmp_path, "best", total_steps=4 * 512, eval_answers=40, curriculum=[])
    train(config)
    rows = read_eval_rows(config.run_dir)
    final = json.loads((config.run_dir / "final.json").read_text())
    best = json.loads((config.run_dir / "best.json").read_text())
    assert final["best"] == best and best["games"] == 40
    sample_rows = [r for r in rows if int(r["games"]) == 40]
    assert [int(r["step"]) for r in sample_rows] == [0, 512, 1024, 1536]

    model = load_model(config.run_dir / "best_model.zip")
    game = model.policy.game
    sample = np.sort(np.random.default_rng(config.seed + 1).choice(len(game.answers), 40, replace=False))
    replayed = EvaluationResult.from_rollout("best", game, sample,
                                             play_batched(learned.policy_actions(model.policy), game, sample))
    assert model.num_timesteps == best["step"]
    assert replayed.win_rate == best["win_rate"] and replayed.mean_guesses == pytest.approx(best["mean_guesses"])

    # No model evaluated in the run ranks above it (the final one is ranked on the sample too).
    last = load_model(config.run_dir / "model.zip")
    on_sample = EvaluationResult.from_rollout("last", game, sample,
                                              play_batched(learned.policy_actions(last.policy), game, sample))
    scores = [(float(r["win_rate"]), -float(r["mean_guesses"])) for r in sample_rows]
    scores.append((on_sample.win_rate, -on_sample.mean_guesses))
    assert (best["win_rate"], -best["mean_guesses"]) == max(scores)
    assert best["step"] == min(s for s, score in zip([0, 512, 1024, 1536, final["steps"]], scores)
                               if score == max(scores))


@pytest.mark.parametrize(("changes", "message"), [
    ({"references": "least-worst"}, "config key 'references' must be a list of strings"),
    ({"target_win_rate": 1.5}, "target_win_rate must be in"),
    ({"target_mean_guesses": 0.5}, "target_mean_guesses must be at least 1"),
    ({"split_features": True, "split_prior": {"expected left": -1.0}}, "split_prior must be a table of split feature"),
    ({"split_prior": {"entropy": 1.0}}, "needs split_features = true"),
])
def test_bad_targets_and_references_are_named(tmp_path: Path, changes: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        tiny_config(tmp_path, "bad", **changes).validate()


def test_split_features_train_through_a_curriculum(tmp_path: Path) -> None:
    """The first games start before the curriculum narrows the answer pool: their candidate sets
    under the pool are empty, which the split features must take (they once raised)."""
    config = tiny_config(tmp_path, "split", split_features=True)
    path = train(config)
    final = json.loads((config.run_dir / "final.json").read_text())
    assert path.is_file() and final["final_eval"]["games"] == 127


def train_results_script() -> types.ModuleType:
    """``scripts/train_results.py`` as a module (scripts are not part of the package)."""
    import importlib.util

    script = Path(__file__).resolve().parents[2] / "scripts" / "train_results.py"
    spec = importlib.util.spec_from_file_location("train_results_script", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_train_results_reuses_only_the_evaluation_of_the_same_finished_run(tmp_path: Path) -> None:
    from guessgym.baselines import make_baseline
    from guessgym.evaluation.evaluate import evaluate

    module = train_results_script()

    result = evaluate(make_baseline("least-worst"), nerdle(5), progress=False)
    result.meta.update({"training_steps": 1024, "training_wall_s": 12.5})
    path = tmp_path / "learned-micro.json"
    assert module.saved_evaluation(path, {"steps": 1024, "wall_time_s": 12.5}) is None  # nothing saved yet
    result.to_json(path)
    reused = module.saved_evaluation(path, {"steps": 1024, "wall_time_s": 12.5})
    assert reused is not None and reused.distribution == result.distribution
    assert module.saved_evaluation(path, {"steps": 2048, "wall_time_s": 30.0}) is None  # a resumed, longer run


def test_train_results_report_only_rebuilds_the_leaderboard(tmp_path: Path) -> None:
    from guessgym.baselines import make_baseline
    from guessgym.evaluation.evaluate import evaluate

    module = train_results_script()

    evaluate(make_baseline("least-worst"), nerdle(5), progress=False).to_json(tmp_path / "learned-micro.json")
    runs = tmp_path / "no-runs"
    assert module.main(["--report", "--out", str(tmp_path), "--runs-dir", str(runs)]) == 0
    board = (tmp_path / "leaderboard.md").read_text()
    assert board.startswith("# Learned agents") and "least-worst" in board
    assert not runs.exists() and not (tmp_path / "summary.json").exists()  # nothing trained, nothing evaluated
