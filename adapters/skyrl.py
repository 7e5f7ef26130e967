"""guessgym's chat games as a SkyRL-Gym text environment, registered as SkyRL-Gym registers its own.

SkyRL trains language models on ``skyrl_gym`` environments: its generator builds one per sample
with ``skyrl_gym.make(env_class, env_config=..., extras=row)``, calls ``init(prompt)``, then
``step(model output)`` until ``done``. :func:`register` adds ``env_class="guessgym"``
(:class:`GuessgymTextEnv`): the environment's options come from the config (``env_id``,
``env_kwargs``: SkyRL's ``environment.skyrl_gym.guessgym`` section), the game of each sample from
its dataset row (``reward_spec.ground_truth``: the answer; ``extra_info.seed``). Each step plays the
model's reply in guessgym's chat game (:class:`~guessgym.envs.chat.env.ChatGuessEnv`) and returns
its feedback as the next user message, with the chat game's reward: a game through SkyRL is the
in-process game, reply for reply. :func:`skyrl_dataset` makes the rows (SkyRL reads them from a
parquet file: ``prompt``, ``env_class``, ``reward_spec``, ``extra_info``).

Example::

    import skyrl_gym
    from guessgym.adapters.skyrl import register, skyrl_dataset

    register()
    row = skyrl_dataset("guessgym/WordleChat-v0", games=1)[0]
    env = skyrl_gym.make("guessgym", env_config={}, extras=row)
    conversation, _ = env.init(row["prompt"])
    out = env.step("I will try [crane]")   # out["observations"]: the tiles, as a user message
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..envs.chat.env import ChatGuessEnv
from ..infra.optional import require_extra
from .openings import openings
from .options import chat_options, check_seed

#: The ``env_class`` guessgym's environment is registered under.
ENV_CLASS = "guessgym"
#: The chat id played unless the config names another.
DEFAULT_ENV_ID = "guessgym/WordleChat-v0"


def register(env_class: str = ENV_CLASS) -> None:
    """Register :class:`GuessgymTextEnv` with SkyRL-Gym as ``env_class`` (once; again is a no-op)."""
    require_extra("skyrl", "the SkyRL environment")
    from skyrl_gym.envs.registration import register as skyrl_register
    from skyrl_gym.envs.registration import registry

    if env_class not in registry:
        skyrl_register(id=env_class, entry_point="guessgym.adapters.skyrl:GuessgymTextEnv")


def _text_env_base() -> type:
    require_extra("skyrl", "the SkyRL environment")
    from skyrl_gym.envs.base_text_env import BaseTextEnv

    return BaseTextEnv


def _config(env_config: Any) -> tuple[str, dict[str, Any]]:
    """``env_id`` and ``env_kwargs`` from SkyRL's config section (a dict or OmegaConf ``DictConfig``)."""
    config: Mapping[str, Any] = {} if env_config is None else env_config
    env_id = str(config.get("env_id", DEFAULT_ENV_ID))
    options = config.get("env_kwargs") or {}
    if hasattr(options, "items"):
        options = {str(k): (dict(v) if hasattr(v, "items") else v) for k, v in options.items()}
    if not isinstance(options, dict):
        raise ValueError(f"env_kwargs must be a mapping of chat-game options, got {options!r}")
    return env_id, options


def _make_class() -> type:
    base = _text_env_base()

    class GuessgymTextEnv(base):  # type: ignore[misc, valid-type]
        """One game of a guessgym chat id, as SkyRL-Gym's ``BaseTextEnv`` (see the module docstring).

        Args:
            env_config: ``env_id`` (a chat id, or a plain id played in conversation) and ``env_kwargs``.
            extras: the dataset row: ``reward_spec["ground_truth"]`` (the answer; else a seeded draw),
                ``extra_info["seed"]``, and SkyRL's ``max_turns``.
        """

        def __init__(self, env_config: Any = None, extras: Mapping[str, Any] | None = None) -> None:
            super().__init__()
            extras = dict(extras or {})
            env_id, options = _config(env_config)
            self.env = ChatGuessEnv(**chat_options(env_id, options, "SkyRL environment config"))
            spec = extras.get("reward_spec") or {}
            info = extras.get("extra_info") or {}
            self.answer = spec.get("ground_truth") if hasattr(spec, "get") else None
            seed = info.get("seed") if hasattr(info, "get") else None
            self.seed = None if seed is None else check_seed(seed)
            self.max_turns = int(extras.get("max_turns") or self.env.max_replies)
            self.info: dict[str, Any] = {}
            self.total_reward = 0.0

        def init(self, prompt: list[dict[str, str]]) -> tuple[list[dict[str, str]], dict[str, Any]]:
            """Start the game: the conversation is guessgym's (its rules and first turn), whatever the
            row's prompt says (:func:`skyrl_dataset` writes the same)."""
            options = {"answer": self.answer} if self.answer is not None else None
            _, self.info = self.env.reset(seed=self.seed, options=options)
            self.turns = 0
            self.total_reward = 0.0
            return [dict(m) for m in self.info["messages"]], {"env_id": self.env.game.name}

        def step(self, action: str) -> dict[str, Any]:
            """Play the model's reply; its feedback is the next user message."""
            self.turns += 1
            _, reward, terminated, truncated, self.info = self.env.step(action)
            self.total_reward += float(reward)
            done = bool(terminated or truncated)
            feedback = self.info["messages"][-1]
            metadata = {key: self.info[key] for key in ("guess", "tiles", "attempt", "invalid_kind")}
            if done:
                metadata.update(won=bool(self.info["won"]), answer=self.info["answer"],
                                reward_terms=dict(self.info.get("reward_terms", {})))
            return {"observations": [] if done else [dict(feedback)], "reward": float(reward), "done": done,
                    "metadata": metadata, "postprocessed_action": None}

        def get_metrics(self) -> dict[str, Any]:
            """What SkyRL logs per game: attempts used, whether it was won, the return."""
            return {"attempts": int(self.info.get("attempt", 0)), "won": float(bool(self.info.get("won"))),
                    "return": self.total_reward}

        @staticmethod
        def aggregate_metrics(metrics: list[dict[str, Any]]) -> dict[str, Any]:
            if not metrics:
                return {}
            n = len(metrics)
            return {f"mean_{key}": sum(float(m[key]) for m in metrics) / n for key in ("attempts", "won", "return")}

        def close(self) -> None:
            self.env.close()

    GuessgymTextEnv.__module__ = __name__
    GuessgymTextEnv.__qualname__ = "GuessgymTextEnv"
    return GuessgymTextEnv


def skyrl_dataset(env_id: str = DEFAULT_ENV_ID, games: int | None = None, *, seed: int = 0,
                  env_kwargs: dict[str, Any] | None = None, env_class: str = ENV_CLASS) -> list[dict[str, Any]]:
    """SkyRL's dataset rows for ``games`` answers (a seeded sample; every answer for ``None``): the
    game's opening conversation as ``prompt``, ``env_class``, the answer as
    ``reward_spec.ground_truth``, and ``extra_info`` (its index, the seed, the id)."""
    from ..evaluation.games import select_answers

    check_seed(seed)
    env = ChatGuessEnv(**chat_options(env_id, env_kwargs, "SkyRL dataset"))
    return [{"prompt": messages, "env_class": env_class, "reward_spec": {"method": "rule", "ground_truth": answer},
             "extra_info": {"answer_index": index, "seed": seed, "env_id": env_id}}
            for index, answer, messages in openings(env, select_answers(env.game, None, games, seed), seed)]


def __getattr__(name: str) -> Any:
    if name == "GuessgymTextEnv":
        globals()[name] = built = _make_class()
        return built
    raise AttributeError(name)


__all__ = ["DEFAULT_ENV_ID", "ENV_CLASS", "GuessgymTextEnv", "register", "skyrl_dataset"]  # noqa: F822 (built on use)
