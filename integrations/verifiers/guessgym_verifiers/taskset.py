"""guessgym's chat games as a verifiers 0.4 taskset, the game engine playing the user.

verifiers 0.4 (``verifiers.v1``) splits an environment into a taskset (config in, task rows out)
and an ``Env`` that turns one task into one episode. Here each task is one game of a guessgym chat
id: its prompt is the game's opening conversation (the system prompt and the first user turn,
never the answer), and :class:`GuessgymEnv` plays it host-side: every reply of the model is played
by :class:`~guessgym.envs.chat.env.ChatGuessEnv` as the in-process chat game plays it, the game's
message is the next user turn, and the finished game ends the exchange. The trace's reward is the
game's return (its rewards summed; a game the exchange left unfinished counts as lost, as in the
0.1 adapter), with ``won``, ``guesses`` and ``invalid_replies`` as metrics.

The answers are split once, seeded, as guessgym's other adapters split them
(:func:`guessgym.envs.chat.splits.split_games`): ``split: train`` draws games from the first
``train_fraction`` of the answers, ``split: eval`` from the rest (a side left without answers is
refused), and fewer games than a side holds are drawn from it by the seed. No text of any game (the
rules' examples, the reply format, the feedback) names an evaluation answer, and every game shares
one :class:`~guessgym.envs.game.Game`. The options are held to the closed set a saved file may set
(:mod:`guessgym.adapters.options`), so a config from anyone cannot name a file or a pattern.

Run it (the package installed beside guessgym's core)::

    vf-eval guessgym-verifiers -n 20 -m MODEL --env.taskset.gym-id guessgym/WordleChat-v0 \\
        --env.taskset.preset verifiers --env.player.harness.id null
"""

from __future__ import annotations

import functools
import json
from typing import Any, Literal

import verifiers.v1 as vf
from pydantic import field_validator

from guessgym.adapters.openings import openings
from guessgym.adapters.options import chat_games, check_seed, check_side, draw
from guessgym.envs.chat.splits import ChatGames, split_games


class GuessgymConfig(vf.TasksetConfig):
    """Which games the taskset holds (``--env.taskset.*``)."""

    gym_id: str = "guessgym/WordleChat-v0"
    """A chat id (``guessgym/WordleChat-v0``, ``guessgym/NerdleChat-v0``) or a plain id played in conversation."""
    preset: str | None = None
    """A chat preset (``verifiers``, ``textarena``, ``gem``, ``nemo``, ``trl``), or none for guessgym's own rules."""
    options: dict[str, Any] = {}
    """The chat game's other options (``hard_mode``, ``word_list``, ``invalid``, ...)."""
    split: Literal["train", "eval"] = "eval"
    """Training games come from the first ``train_fraction`` of the answers, evaluation games from the rest."""
    train_fraction: float = 0.9
    """The share of answers on the training side, in (0, 1] (``true`` is not a share)."""
    num_tasks: int = -1
    """Games drawn from the split's side by the seed (-1: every answer of that side)."""
    seed: int = 0
    """The split's, the draw's and the games' seed."""

    @field_validator("train_fraction", mode="before")
    @classmethod
    def _not_a_truth_value(cls, value: Any) -> Any:
        if isinstance(value, bool):  # pydantic would read true as 1.0: every answer a training answer
            raise ValueError(f"train_fraction must be a fraction in (0, 1], the share of answers for training; got "
                             f"{str(value).lower()}")
        return value

    def games(self) -> tuple[ChatGames, list[int], list[int]]:
        """The chat game (the options held to the closed set, the evaluation answers withheld from
        every text) and the split's training and evaluation answers (``ValueError`` otherwise)."""
        options = dict(self.options)
        if self.preset is not None:
            options["preset"] = self.preset
        return _split(self.gym_id, json.dumps(options, sort_keys=True), self.train_fraction, check_seed(self.seed))


@functools.lru_cache(maxsize=8)
def _split(gym_id: str, options: str, fraction: float, seed: int) -> tuple[ChatGames, list[int], list[int]]:
    """The split of one config, made once however many games are played of it."""
    return split_games(chat_games(gym_id, json.loads(options), "verifiers taskset"), fraction, seed, "train_fraction")


class GuessgymData(vf.TaskData):
    info: dict[str, Any]
    """What the env replays the game from: the answer, its index and the seed."""


class GuessgymTask(vf.Task[GuessgymData, vf.State, vf.TaskConfig]):
    """One game; its reward is recorded by :class:`GuessgymEnv` when the game ends."""


class GuessgymTaskset(vf.Taskset[GuessgymTask, GuessgymConfig]):
    """The games of one side of the seeded split (see the module docstring)."""

    def load(self) -> list[GuessgymTask]:
        config = self.config
        seed = check_seed(config.seed)
        games, train, test = config.games()
        side, name = (train, "training") if config.split == "train" else (test, "evaluation")
        check_side(side, config.train_fraction, "train_fraction", name)
        picked = draw(side, config.num_tasks, seed, "num_tasks", name)
        env = games.make_env()
        tasks = []
        for index, answer, messages in openings(env, picked, seed):
            system = [m["content"] for m in messages if m["role"] == "system"]
            prompt = [m for m in messages if m["role"] != "system"]
            data = GuessgymData(name=f"{config.gym_id}#{index}", prompt=prompt,
                                system_prompt=system[0] if system else None,
                                info={"answer": answer, "answer_index": index, "seed": seed})
            tasks.append(GuessgymTask(data, config.task))
        return tasks


class GuessgymEnvConfig(vf.EnvConfig):
    player: vf.AgentConfig = vf.AgentConfig()


class GuessgymEnv(vf.Env[GuessgymEnvConfig]):
    """Plays each task's game with the model as the player (see the module docstring)."""

    async def run(self, task: GuessgymTask, agents: Any) -> None:
        config: GuessgymConfig = self.taskset.config  # type: ignore[assignment]
        env = config.games()[0].make_env()
        info: dict[str, Any] = {}
        env.reset(seed=task.data.info["seed"], options={"answer": task.data.info["answer"]})
        total, done = 0.0, False
        async with agents.player.interaction(task) as interaction:
            segment = await interaction.turn()  # the opening conversation is the prompt: the model moves first
            while not segment.terminated:
                _, reward, terminated, truncated, info = env.step(_reply(segment))
                total += float(reward)
                if terminated or truncated:
                    done = True
                    break  # the game is over: the exchange ends (its last message kept in the trace's info)
                segment = await interaction.turn(info["messages"][-1]["content"])
            if not done:
                total += float(env.env.rewards.loss_reward)
            # recorded before the exchange closes, so that the rollout's own summary counts them
            trace = interaction.trace
            trace.record_reward("game_return", total, 1.0)
            trace.record_metric("won", float(bool(info.get("won"))))
            trace.record_metric("guesses", float(info.get("attempt", 0)))
            trace.record_metric("invalid_replies", float(sum(info.get("invalid_counts", {}).values())))
            if done:
                trace.info["game_end"] = info["messages"][-1]["content"]


def _reply(segment: Any) -> str:
    """The model's last reply as it sent it (``Segment.last_reply`` strips it; the game reads the text as is)."""
    for message in reversed(segment.messages):
        if isinstance(message, vf.AssistantMessage):
            return message.content or ""
    return segment.last_reply
