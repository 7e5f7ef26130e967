"""The SkyRL-Gym text environment, made by SkyRL-Gym's own ``make`` from a registered ``env_class``
and a dataset row, as SkyRL's generator makes it: every game equals the in-process chat game,
reply for reply, reward and end included."""

from __future__ import annotations

import random
from typing import Any

import pytest

skyrl_gym = pytest.importorskip("skyrl_gym", reason="the skyrl extra (in the test extra)")
omegaconf = pytest.importorskip("omegaconf")

from guessgym.adapters.skyrl import ENV_CLASS, GuessgymTextEnv, register, skyrl_dataset  # noqa: E402
from guessgym.agents.llm.scripted_server import ScriptedSolver  # noqa: E402
from guessgym.envs.chat import ChatGuessEnv  # noqa: E402
from guessgym.envs.chat.env import ChatFamily  # noqa: E402

CONFIGS = [("guessgym/WordleChat-v0", {}), ("guessgym/WordleChat-v0", {"preset": "verifiers"}),
           ("guessgym/WordleChat-v0", {"preset": "nemo", "hard_mode": True}), ("guessgym/NerdleChat-v0", {"length": 6})]


@pytest.mark.parametrize(("env_id", "options"), CONFIGS, ids=[f"{e.split('/')[1]}-{o}" for e, o in CONFIGS])
def test_skyrl_plays_the_in_process_game(env_id: str, options: dict[str, Any]) -> None:
    register()
    register()  # a second registration changes nothing
    config = omegaconf.DictConfig({"env_id": env_id, "env_kwargs": options})  # SkyRL's config section
    rows = skyrl_dataset(env_id, games=25, seed=4, env_kwargs=options)
    reference = ChatGuessEnv(**ChatFamily.chat_kwargs(env_id, options))
    solver = ScriptedSolver(reference.game, "least-worst")
    rng = random.Random(1)
    metrics = []
    for row in rows:
        extras = {k: v for k, v in row.items() if k not in ("prompt", "env_class")} | {"max_turns": 20}
        env = skyrl_gym.make(row["env_class"], env_config=config, extras=extras)
        assert isinstance(env, GuessgymTextEnv) and row["env_class"] == ENV_CLASS
        conversation, _ = env.init(row["prompt"])
        _, info = reference.reset(seed=4, options={"answer": row["reward_spec"]["ground_truth"]})
        assert conversation == row["prompt"] == info["messages"]
        done = False
        while not done:
            guess = solver.next_guess("\n".join(m["content"] for m in reference.messages if m["role"] == "user"))
            reply = rng.choices([reference.parser.reply_for(guess), f"[{guess}]", "hmm",
                                 reference.parser.reply_for("q" * reference.game.length)], weights=[7, 1, 1, 1])[0]
            _, reward, done, _, info = reference.step(reply)
            out = env.step(reply)
            assert (out["reward"], out["done"]) == (reward, done)
            assert out["observations"] == ([] if done else [info["messages"][-1]])
            assert out["metadata"]["tiles"] == info["tiles"] and out["metadata"]["invalid_kind"] == info["invalid_kind"]
        assert out["metadata"]["won"] == info["won"] and out["metadata"]["answer"] == row["reward_spec"]["ground_truth"]
        metrics.append(env.get_metrics())
        env.close()
    summary = GuessgymTextEnv.aggregate_metrics(metrics)
    assert 0 < summary["mean_won"] <= 1 and summary["mean_attempts"] > 1


def test_a_bad_config_is_named() -> None:
    register()
    with pytest.raises(ValueError, match="a text agent plays a registered guessgym id"):
        skyrl_gym.make(ENV_CLASS, env_config={"env_id": "guessgym/Dordle-v0"}, extras={})
    with pytest.raises(ValueError, match="preset='gem' follows a Wordle suite"):
        skyrl_gym.make(ENV_CLASS, env_config={"env_id": "guessgym/NerdleChat-v0", "env_kwargs": {"preset": "gem"}},
                       extras={})


def test_hostile_configs_are_refused() -> None:
    """Issue 50, item 10: an adapter took any option, a file path among them."""
    with pytest.raises(ValueError, match="option answers='/etc/hostname' is not a value a SkyRL"):
        GuessgymTextEnv({"env_kwargs": {"answers": "/etc/hostname"}}, {})
    with pytest.raises(ValueError, match="seed must be a whole number"):
        GuessgymTextEnv({}, {"extra_info": {"seed": 10**30}})
    with pytest.raises(ValueError, match="seed must be a whole number"):
        skyrl_dataset(games=2, seed=-3)
    with pytest.raises(ValueError, match="sample must be a whole number"):
        skyrl_dataset(games=2.5)  # type: ignore[arg-type]
