"""guessgym's chat games as a verifiers environment module: ``load_environment(...)`` returns a
``vf.MultiTurnEnv`` with its dataset and rubric.

verifiers (Prime Intellect's environment library, what prime-rl trains on) loads an environment by
importing a module and calling its ``load_environment``; ``vf.load_environment(env_id)`` imports the
module the id names, so ``vf.load_environment("guessgym.adapters.verifiers", ...)`` (or
``vf-eval guessgym.adapters.verifiers``) loads this one. Each rollout plays one game of a guessgym
chat id in :class:`~guessgym.envs.chat.env.ChatGuessEnv`: the dataset row's prompt is the game's
opening conversation, every model reply is played as the in-process chat game plays it, and the
game's message is the next user turn, so a game through verifiers is the in-process game reply for
reply. The rubric's reward is the chat game's return (its rewards summed; a rollout that ends before
the game does, by an error or an over-long prompt, counts as lost, as in
:class:`~guessgym.envs.chat.tools.GuessToolEnv`), with ``won``, ``guesses`` and ``invalid_replies``
as metrics (weight 0).

The answers are split once, seeded (:func:`~guessgym.adapters.options.split_games`, as
``guessgym export-demos`` splits them): training games come from the first ``split`` of the
answers, evaluation games from the rest, so no evaluation answer is ever a training game, and no
text of any game (the rules' examples, the reply format, the feedback) names an evaluation answer;
fewer games than a side holds are drawn from it by the seed. Every rollout shares one
:class:`~guessgym.envs.game.Game`. The options are held to the closed set a
saved file may set (:mod:`~guessgym.adapters.options`).

Example::

    import verifiers as vf

    env = vf.load_environment("guessgym.adapters.verifiers", gym_id="guessgym/WordleChat-v0",
                              preset="verifiers", num_train_examples=2000, num_eval_examples=20)
    results = env.evaluate_sync(openai_client, model="my-model", num_examples=20)
"""

from __future__ import annotations

import functools
from typing import Any

from ..envs.chat.env import ChatGuessEnv
from ..infra.optional import require_extra
from .openings import openings
from .options import ChatGames, chat_games, check_seed, draw, split_games

#: The chat id played unless another is named.
DEFAULT_ENV_ID = "guessgym/WordleChat-v0"
#: The state keys a rollout's game writes (the rubric reads them; the environment object itself is
#: dropped when the rollout ends).
_ENV, _RETURN, _DONE = "guessgym_env", "guessgym_return", "guessgym_done"


def _rows(env: ChatGuessEnv, indices: list[int], seed: int) -> list[dict[str, Any]]:
    return [{"prompt": messages, "answer": answer, "task": "guessgym", "info": {"answer_index": index, "seed": seed}}
            for index, answer, messages in openings(env, indices, seed)]


@functools.cache
def _make_class() -> type:
    require_extra("verifiers", "the verifiers environment")
    import verifiers as vf

    class GuessgymVerifiersEnv(vf.MultiTurnEnv):
        """A guessgym chat game as verifiers' multi-turn environment (see the module docstring).

        Args:
            env_id: a chat id, or a plain id played in conversation.
            env_kwargs: the chat game's options (``preset``, ``hard_mode``, ``word_list``, ``invalid``...).
            games: the game already resolved (:func:`load_environment` passes its split's, the
                evaluation answers withheld); made of ``env_id`` and ``env_kwargs`` otherwise.
            dataset, eval_dataset: the training and evaluation rows (:func:`load_environment` makes them).
        """

        def __init__(self, env_id: str = DEFAULT_ENV_ID, env_kwargs: dict[str, Any] | None = None,
                     games: ChatGames | None = None, **kwargs: Any) -> None:
            self.games = games if games is not None else chat_games(env_id, env_kwargs, "verifiers environment")
            probe = self.games.make_env()
            rubric = vf.Rubric(funcs=[game_return], weights=[1.0])
            for metric in (won, guesses, invalid_replies):
                rubric.add_metric(metric)
            kwargs.setdefault("max_turns", probe.max_replies)
            super().__init__(rubric=rubric, message_type="chat", **kwargs)
            self.loss_reward = float(probe.env.rewards.loss_reward)

        async def setup_state(self, state: Any) -> Any:
            env = self.games.make_env()
            info = state.get("info") or {}
            env.reset(seed=info.get("seed"), options={"answer": state["answer"]})
            state[_ENV], state[_RETURN], state[_DONE] = env, 0.0, False
            state["guessgym_info"] = {}
            return state

        async def env_response(self, messages: Any, state: Any, **kwargs: Any) -> Any:
            """Play the model's last reply; the game's message is the next user turn."""
            env: ChatGuessEnv = state[_ENV]
            reply = messages[-1].get("content") if messages and messages[-1].get("role") == "assistant" else None
            _, reward, terminated, truncated, info = env.step(reply if isinstance(reply, str) else "")
            state[_RETURN] += float(reward)
            state["guessgym_info"] = {key: info[key] for key in ("attempt", "won", "invalid_counts") if key in info}
            feedback = [dict(info["messages"][-1])]
            if terminated or truncated:
                state[_DONE] = True
                state["final_env_response"] = feedback
            return feedback

        @vf.cleanup
        async def drop_game(self, state: Any) -> None:
            """The chat environment is not kept with the rollout's results (only its outcome is)."""
            state.pop(_ENV, None)
            if not state.get(_DONE):
                state[_RETURN] = float(state.get(_RETURN, 0.0)) + self.loss_reward

    GuessgymVerifiersEnv.__module__ = __name__
    GuessgymVerifiersEnv.__qualname__ = "GuessgymVerifiersEnv"
    return GuessgymVerifiersEnv


async def game_return(state: Any) -> float:
    """The chat game's return: its rewards summed (an unfinished game: as lost)."""
    return float(state.get(_RETURN, 0.0))


async def won(state: Any) -> float:
    """1 for a solved game, else 0."""
    return float(bool(state.get("guessgym_info", {}).get("won")))


async def guesses(state: Any) -> float:
    """Valid guesses played."""
    return float(state.get("guessgym_info", {}).get("attempt", 0))


async def invalid_replies(state: Any) -> float:
    """Replies the game refused (no guess in the format, an unknown word, a repeat...)."""
    return float(sum(state.get("guessgym_info", {}).get("invalid_counts", {}).values()))


def load_environment(gym_id: str = DEFAULT_ENV_ID, preset: str | None = None, num_train_examples: int = -1,
                     num_eval_examples: int = -1, split: float = 0.9, seed: int = 0,
                     env_kwargs: dict[str, Any] | None = None, **kwargs: Any) -> Any:
    """The verifiers environment of a guessgym chat game.

    Args:
        gym_id: a chat id (``guessgym/WordleChat-v0``, ``guessgym/NerdleChat-v0``) or a plain id
            played in conversation (not ``env_id``: ``vf.load_environment`` takes that name for the
            module's).
        preset: a chat preset (``"verifiers"``, ``"textarena"``, ``"gem"``, ``"nemo"``, ``"trl"``), or
            ``None`` for guessgym's own rules and rewards.
        num_train_examples, num_eval_examples: games in each dataset (``-1``: every answer of that side).
        split: the share of answers that are training games (the rest are evaluation games).
        seed: the split's and the games' seed.
        env_kwargs: the chat game's other options (``hard_mode``, ``word_list``, ``invalid``...).
        **kwargs: passed to ``vf.MultiTurnEnv`` (``max_turns``, ``sampling_args``...).

    Raises:
        ValueError: an id that is not a text game, an option outside the closed set or one the
            chat game refuses, a seed outside 0 to 2**63 - 1, or counts beyond the split.
    """
    cls = _make_class()
    options = dict(env_kwargs or {})
    if preset is not None:
        options["preset"] = preset
    check_seed(seed)
    games, train, test = split_games(chat_games(gym_id, options, "verifiers environment"), split, seed, "split")
    train = draw(train, num_train_examples, seed, "num_train_examples", "training")
    test = draw(test, num_eval_examples, seed, "num_eval_examples", "evaluation")
    from datasets import Dataset

    probe = games.make_env()
    dataset = Dataset.from_list(_rows(probe, train, seed)) if train else None
    eval_dataset = Dataset.from_list(_rows(probe, test, seed)) if test else None
    return cls(gym_id, options, games, dataset=dataset, eval_dataset=eval_dataset, **kwargs)


def __getattr__(name: str) -> Any:
    if name == "GuessgymVerifiersEnv":
        globals()[name] = built = _make_class()
        return built
    raise AttributeError(name)


__all__ = ["DEFAULT_ENV_ID", "GuessgymVerifiersEnv", "load_environment"]  # noqa: F822 (built on use)
