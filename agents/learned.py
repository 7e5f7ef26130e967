"""A trained stable-baselines3 model as an :class:`~guessgym.agents.base.Agent`.

:func:`load_agent` opens a model saved by MaskablePPO, PPO or A2C (a ``.zip``, a checkpoint
directory or a training run directory) and returns a :class:`LearnedAgent`, which the shared
evaluation loop drives like any baseline: ``begin(game)`` then ``act(obs, info)`` each step.

By default the agent plays the highest-scoring *allowed* guess (argmax of the masked logits), so
its play is deterministic. ``deterministic=False`` samples from the masked policy with the agent's
own seeded generator instead.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from stable_baselines3.common.base_class import BaseAlgorithm

from ..envs.game import Game
from ..infra.inputs import read_input
from .base import Agent, UnsupportedGameError
from .model_files import (
    ALGORITHMS,
    ModelFileError,
    algorithm_class,
    algorithm_name,
    has_manifest,
    manifest_algorithm,
    model_from_bytes,
    read_model,
    save_model,
)
from .policies import GuessPolicyMixin

logger = logging.getLogger(__name__)



class LearnedAgent(Agent):
    """Plays with a trained actor-critic policy (one of :mod:`guessgym.agents.policies`' guess policies).

    Args:
        model: a trained SB3 algorithm (MaskablePPO, PPO or A2C) whose policy is a guess policy.
        deterministic: play the best allowed guess (default) or sample from the masked policy.
        name: the name shown in result tables.
        seed: seed of the sampling generator (only used when ``deterministic=False``).
    """

    name = "learned"

    def __init__(
        self, model: BaseAlgorithm, *, deterministic: bool = True, name: str | None = None, seed: int | None = 0
    ) -> None:
        if not isinstance(model.policy, GuessPolicyMixin):
            raise TypeError("LearnedAgent needs a model whose policy is a guess policy (guessgym.agents.policies)")
        self.model = model
        self.policy: GuessPolicyMixin = model.policy
        self.deterministic = deterministic
        self.trained_game: Game = self.policy.game
        if name is not None:
            self.name = name
        self._rng = np.random.default_rng(seed)
        self._keys = list(model.policy.observation_space.spaces)  # type: ignore[attr-defined]
        #: how the policy was trained, in words, where the model's own step count does not say it
        #: (a shipped model's card: DAgger or cloning leave an SB3 model with 0 steps)
        self.training: str | None = None

    def describe(self) -> str:
        how = "argmax" if self.deterministic else "sampled"
        if self.training is not None:
            return f"guess policy trained on {self.trained_game.name} ({self.training}; {how})"
        algo = type(self.model).__name__
        steps = int(getattr(self.model, "num_timesteps", 0))
        return f"{algo} guess policy trained {steps:,} steps on {self.trained_game.name} ({how})"

    def begin(self, game: Game) -> None:
        """Start a game; a game other than the training one must share length, alphabet and attempts.

        The network has no per-guess parameters, so it can score another vocabulary: the fixed
        guess encoding and the candidate features are rebuilt for ``game``.

        Raises:
            UnsupportedGameError: if the board shape or alphabet differs from the training game.
        """
        super().begin(game)
        self.check_game(game)
        if game.fingerprint != self.policy.game.fingerprint or game.hard_mode != self.policy.game.hard_mode:
            t = self.trained_game
            logger.info("re-targeting the policy trained on %s at %s", t.name, game.name)
            self.policy.set_game(game)
            self.policy.set_answer_pool(None)

    def check_game(self, game: Game) -> None:
        """Refuse a game whose board this network cannot read: another length, alphabet or attempt
        limit than its training game's (the board has a row per attempt)."""
        t = self.trained_game
        if (game.length, game.alphabet, game.max_attempts) != (t.length, t.alphabet, t.max_attempts):
            raise UnsupportedGameError(
                f"{self.name} was trained on {t.name} (length {t.length}, {t.max_attempts} attempts, alphabet "
                f"{t.alphabet!r}); this game ({game.name}, length {game.length}, {game.max_attempts} attempts) "
                "differs, so its board cannot be read by this network"
            )

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        mask = observation.get("action_mask")
        if mask is None:
            mask = info.get("action_mask")
        with th.no_grad():
            obs = {k: th.as_tensor(np.asarray(observation[k])[None]) for k in self._keys}
            logits = self.policy.action_logits(obs)[0].cpu().numpy().astype(np.float64)
        if mask is not None:
            allowed = np.asarray(mask).astype(bool)
            if allowed.any():
                logits = np.where(allowed, logits, -np.inf)
        if self.deterministic:
            return int(np.argmax(logits))
        p = np.exp(logits - logits.max())
        p /= p.sum()
        return int(self._rng.choice(len(p), p=p))

    def __getstate__(self) -> dict[str, Any]:
        """Pickle the model as its saved zip (SB3 algorithms are not picklable as objects), so the
        agent can be sent to the evaluation loop's worker processes."""
        buffer = io.BytesIO()
        save_model(self.model, buffer)
        state = {k: v for k, v in self.__dict__.items() if k not in ("model", "policy")}
        state["_model_zip"] = buffer.getvalue()
        state["_current_game"] = self.policy.game
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        zip_bytes = state.pop("_model_zip")
        current = state.pop("_current_game")
        self.__dict__.update(state)
        self.model = model_from_bytes(zip_bytes)
        self.policy = self.model.policy  # type: ignore[assignment]
        if current.fingerprint != self.policy.game.fingerprint:
            self.policy.set_game(current)

    def act_batch(self, observations: dict[str, np.ndarray], masks: np.ndarray | None = None) -> np.ndarray:
        """Greedy actions for a batch of observations (``masks``: allowed actions, True where allowed)."""
        with th.no_grad():
            obs = {k: th.as_tensor(np.asarray(observations[k])) for k in self._keys}
            logits = self.policy.action_logits(obs)
            if masks is not None:
                m = th.as_tensor(np.asarray(masks).astype(bool))
                logits = th.where(m, logits, th.full_like(logits, -th.inf))
            return logits.argmax(dim=1).cpu().numpy()


def policy_actions(policy: GuessPolicyMixin) -> Callable[[dict[str, np.ndarray]], np.ndarray]:
    """The greedy (argmax of masked logits) action function of a guess policy, for a batch of
    observations that carry ``"action_mask"`` (what :func:`~guessgym.agents.rollout.play_batched` calls)."""
    keys = list(policy.observation_space.spaces)  # type: ignore[attr-defined]

    def act(obs: dict[str, np.ndarray]) -> np.ndarray:
        with th.no_grad():
            logits = policy.action_logits({k: th.as_tensor(obs[k]) for k in keys})
            mask = th.as_tensor(obs["action_mask"].astype(bool))
            logits = th.where(mask, logits, th.full_like(logits, -th.inf))
            return logits.argmax(dim=1).cpu().numpy()

    return act


def policy_logits_after(
    agent: LearnedAgent, game: Game, played: Sequence[int], answer: int
) -> tuple[np.ndarray, np.ndarray]:
    """The policy's scores of every guess, and the mask of the allowed ones, after ``played``.

    The observation is rebuilt by playing ``played`` in a one-game batched environment whose
    answer is ``answer`` (any answer consistent with the tiles gives the same observation).
    """
    from ..envs.vector import BatchedGuessEnv

    venv = BatchedGuessEnv(1, game=game, track_candidates=False)
    obs, _ = venv.reset(seed=0, options={"answer": np.array([answer])})
    for guess in played:
        obs, _, terminated, _, _ = venv.step(np.array([guess]))
        if terminated[0]:
            raise ValueError(f"the game with answer {game.answers[answer]!r} ends within {list(played)}")
    with th.no_grad():
        logits = agent.policy.action_logits({k: th.as_tensor(obs[k]) for k in agent._keys})[0]
    return logits.cpu().numpy().astype(np.float64), obs["action_mask"][0].astype(bool)


def _resolve_model_path(path: Path) -> Path:
    """A model zip from a zip, a checkpoint directory or a run directory (final model, else latest checkpoint)."""
    if path.is_file():
        return path
    if path.is_dir():
        for candidate in (path / "model.zip", path / "final" / "model.zip"):
            if candidate.is_file():
                return candidate
        ckpt_root = path / "checkpoints"
        if ckpt_root.is_dir():
            dirs = sorted(
                d
                for d in ckpt_root.iterdir()
                if d.is_dir() and d.name.startswith("step-") and (d / "model.zip").is_file()
            )
            if dirs:
                return dirs[-1] / "model.zip"
    if path.with_suffix(".zip").is_file():
        return path.with_suffix(".zip")
    raise FileNotFoundError(f"no trained model found at {path} (expected a .zip, a checkpoint or a run directory)")


def run_folder_game(model_path: Path) -> Game | None:
    """The game of the training run a model zip lies in (``model.zip``, ``best_model.zip``,
    ``final/model.zip`` or ``checkpoints/step-N/model.zip`` of a run folder with ``config.json``),
    or ``None`` outside a run folder. Used for zips saved by guessgym 0.3, which do not carry their
    game (see :mod:`guessgym.agents.model_files`)."""
    from ..envs.game import make_game

    for folder in (model_path.parent, model_path.parent.parent, model_path.parent.parent.parent):
        config_path = folder / "config.json"
        if config_path.is_file():
            try:
                config = json.loads(read_input(config_path, "run config").decode("utf-8"))
                env_kwargs = config.get("env_kwargs") or {}
                if not isinstance(env_kwargs, dict):
                    raise ValueError("env_kwargs is not an object")
                return make_game(str(config["env_id"]), **env_kwargs)
            except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
                raise ModelFileError(f"{model_path}: the run folder's {config_path} does not describe a game "
                                     f"({type(exc).__name__}: {exc})") from None
    return None


def detect_algorithm(path: str | Path) -> str:
    """``"maskable_ppo"``, ``"ppo"`` or ``"a2c"`` for a saved model zip (read without unpickling)."""
    return manifest_algorithm(_resolve_model_path(Path(path)))


def load_model(path: str | Path, *, device: str = "cpu", game: Game | None = None) -> BaseAlgorithm:
    """Load a MaskablePPO, PPO or A2C guess-policy model without an environment, never running
    code from the file (:func:`guessgym.agents.model_files.read_model`).

    ``game`` is the game it plays; a zip saved by guessgym 0.3 carries none, and is then read with
    the game of the run folder it lies in.

    Raises:
        FileNotFoundError: nothing at ``path``.
        ModelFileError: a file guessgym will not open (the message says why).
    """
    model_path = _resolve_model_path(Path(path))
    if game is None and not has_manifest(model_path):
        game = run_folder_game(model_path)
    return read_model(model_path, game=game, device=device)


def load_agent(
    path: str | Path, *, deterministic: bool = True, name: str | None = None, game: Game | None = None
) -> LearnedAgent:
    """Load a trained model (zip, checkpoint directory or run directory) as a :class:`LearnedAgent`
    (never running code from the file; see :func:`load_model`)."""
    model = load_model(path, game=game)
    return LearnedAgent(model, deterministic=deterministic, name=name)


__all__ = [
    "ALGORITHMS",
    "LearnedAgent",
    "algorithm_class",
    "algorithm_name",
    "detect_algorithm",
    "load_agent",
    "load_model",
    "policy_actions",
    "policy_logits_after",
    "run_folder_game",
]
