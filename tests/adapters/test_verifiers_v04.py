"""The verifiers 0.4 package (``integrations/verifiers``), in an environment of its own built from
its lock: loaded by verifiers' own plugin loader and evaluated by its own ``vf-eval`` (the null chat
harness in a local subprocess, as a user runs it without Prime's sandboxes) against guessgym's
scripted OpenAI-compatible server. Every game's reward, metrics and conversation equal the
in-process chat game's, replayed reply for reply; the seeded split gives the games it names."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from integration_venvs import integration_venv

from guessgym.agents.llm.scripted_server import ScriptedServer
from guessgym.envs.chat import ChatGuessEnv
from guessgym.envs.chat.env import ChatFamily
from guessgym.training.demos import split_answers

pytestmark = pytest.mark.xdist_group("verifiers-0.4")

#: (gym id, preset, options, games): guessgym's own format, which the scripted solver follows (it
#: wins every game), in hard mode and in Nerdle; and the verifiers preset, whose format it does not
#: follow (every reply refused, the game lost).
CONFIGS = [("guessgym/WordleChat-v0", None, {"hard_mode": True}, 3),
           ("guessgym/NerdleChat-v0", None, {"length": 6}, 2),
           ("guessgym/WordleChat-v0", "verifiers", {}, 2)]


def replay(gym_id: str, options: dict[str, Any], answer: str, seed: int,
           replies: list[str]) -> tuple[float, list[dict[str, str]], dict[str, Any]]:
    """The in-process chat game given the rollout's replies: its return, messages and last info (the
    split's evaluation answers withheld from its texts, as every adapter that splits withholds them)."""
    env = ChatGuessEnv(**ChatFamily.chat_kwargs(gym_id, options))
    _, evaluation = split_answers(range(len(env.game.answers)), 0.9, seed)
    env = ChatGuessEnv(**ChatFamily.chat_kwargs(gym_id, {**options, "withheld": [env.game.answers[i] for i in
                                                                                 evaluation]}))
    _, info = env.reset(seed=seed, options={"answer": answer})
    total = 0.0
    for reply in replies:
        _, reward, _, _, info = env.step(reply)
        total += float(reward)
    return total, info["messages"], info


@pytest.mark.parametrize(("gym_id", "preset", "options", "games"), CONFIGS,
                         ids=[f"{g.split('/')[1]}-{p}" for g, p, _, _ in CONFIGS])
def test_verifiers_04_evaluation_plays_the_in_process_game(tmp_path: Path, gym_id: str, preset: str | None,
                                                           options: dict[str, Any], games: int) -> None:
    bin_dir, env = integration_venv("verifiers")
    chat_options = {**options, **({"preset": preset} if preset else {})}
    game = ChatGuessEnv(**ChatFamily.chat_kwargs(gym_id, chat_options)).game
    seed = 7
    with ScriptedServer(game) as server:
        command = [str(bin_dir / "vf-eval"), "guessgym-verifiers", "-m", "solver", "--no-push", "--rich", "None",
                   "--client.base-url", server.base_url, "--client.api-key-var", "GUESSGYM_TEST_KEY",
                   "--env.player.harness.id", "null", "--env.player.runtime.type", "subprocess",
                   "--env.taskset.gym-id", gym_id, "--env.taskset.options", json.dumps(options),
                   "--env.taskset.num-tasks", str(games), "--env.taskset.seed", str(seed),
                   "--output-dir", str(tmp_path)]
        if preset:
            command += ["--env.taskset.preset", preset]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=tmp_path,
                              env={**env, "GUESSGYM_TEST_KEY": "unused"})
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    episodes = [json.loads(line) for path in tmp_path.glob("*/traces.jsonl") for line in path.read_text().splitlines()]
    assert len(episodes) == games and all(e["ok"] for e in episodes), (done.stdout + done.stderr)[-4000:]
    _, evaluation = split_answers(range(len(game.answers)), 0.9, seed)
    answers = set()
    for episode in episodes:
        (trace,) = episode["traces"]
        info = episode["task"]["data"]["info"]
        assert info["answer_index"] in evaluation and game.answers[info["answer_index"]] == info["answer"]
        answers.add(info["answer"])
        conversation = [node["message"] for node in trace["nodes"]]
        replies = [m["content"] for m in conversation if m["role"] == "assistant"]
        total, messages, last = replay(gym_id, chat_options, info["answer"], seed, replies)
        assert trace["rewards"]["game_return"]["score"] == pytest.approx(total)
        # the conversation is the chat game's; its last message, which ends the game, is kept in the info
        assert [(m["role"], m["content"]) for m in conversation] == [(m["role"], m["content"]) for m in messages[:-1]]
        assert trace["info"]["game_end"] == messages[-1]["content"]
        assert trace["metrics"] == {"won": float(last["won"]), "guesses": float(last["attempt"]),
                                    "invalid_replies": float(sum(last["invalid_counts"].values()))}
        assert last["won"] == (preset is None)  # the solver's bracketed replies are guessgym's own format
        if preset is not None:
            assert trace["metrics"]["invalid_replies"] == len(replies) > 0
    assert len(answers) == games


PROBE = r"""
import json, sys
import verifiers.v1 as vf
from verifiers.v1.utils.loaders import taskset_class, environment_class
from guessgym_verifiers import GuessgymConfig, GuessgymEnv, GuessgymTaskset

assert taskset_class("guessgym-verifiers") is GuessgymTaskset and environment_class("guessgym-verifiers") is GuessgymEnv
def names(**config):
    return [t.data.info["answer_index"] for t in GuessgymTaskset(GuessgymConfig(id="guessgym-verifiers", **config))]
out = {"train": names(split="train", num_tasks=50, seed=1), "eval": names(split="eval", seed=1),
       "again": names(split="train", num_tasks=50, seed=1), "other": names(split="train", num_tasks=50, seed=2),
       "prompt": [{**t.data.model_dump(include={"prompt", "system_prompt"}), "answer": t.data.info["answer"]}
                  for t in GuessgymTaskset(GuessgymConfig(id="guessgym-verifiers", num_tasks=1))]}
# seed 0 puts "abide", the rules' repeated-letter example, on the evaluation side (issue 63 item 18)
out["texts"] = [t.data.model_dump_json(include={"prompt", "system_prompt"}).lower()
                for split in ("train", "eval")
                for t in GuessgymTaskset(GuessgymConfig(id="guessgym-verifiers", split=split, num_tasks=20, seed=0))]
bad_configs = ({"options": {"word_list": "/etc/passwd"}}, {"gym_id": "guessgym/Nope-v0"}, {"seed": -1},
               {"num_tasks": 10**6}, {"train_fraction": 1.0, "split": "eval"}, {"train_fraction": True})
for bad in bad_configs:
    try:
        names(**bad)
        out.setdefault("errors", []).append(None)
    except (ValueError, TypeError) as exc:
        out.setdefault("errors", []).append(str(exc))
print(json.dumps(out))
"""


def test_the_taskset_splits_answers_by_its_seed_and_refuses_what_a_saved_game_may_not_set() -> None:
    """Loaded the way verifiers 0.4 resolves an id (its plugin loader), the training and evaluation
    games never share an answer, a seed gives the same games again and another seed others, the
    prompt carries the game's opening and never its answer, and options outside the closed set of
    a saved game are refused with one line naming them."""
    bin_dir, env = integration_venv("verifiers")
    done = subprocess.run([str(bin_dir / "python"), "-c", PROBE], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    game = ChatGuessEnv(**ChatFamily.chat_kwargs("guessgym/WordleChat-v0", {})).game
    train, evaluation = split_answers(range(len(game.answers)), 0.9, 1)
    assert len(out["train"]) == 50 and set(out["train"]) <= set(train) and out["eval"] == list(evaluation)
    assert out["again"] == out["train"] != out["other"]
    (first,) = out["prompt"]
    assert first["system_prompt"].startswith("You are playing Wordle") and "guess" in str(first["prompt"]).lower()
    assert first["answer"] not in str(first["prompt"]).lower() + first["system_prompt"].lower()
    _, at_seed_0 = split_answers(range(len(game.answers)), 0.9, 0)
    withheld = {game.answers[i] for i in at_seed_0}
    assert "abide" in withheld and len(out["texts"]) == 40
    assert all("for example, guessing" in text for text in out["texts"])  # the rules' example, of other words
    assert not any("abide" in text for text in out["texts"])
    word_list, gym_id, seed, count, everyone_trains, truth = out["errors"]
    # issue 63 item 17: 0 tasks without a word; true read as 1.0
    assert everyone_trains is not None and "train_fraction=1.0 leaves no evaluation answers" in everyone_trains
    assert truth is not None and "train_fraction must be a fraction in (0, 1]" in truth and "true" in truth
    assert word_list is not None and "word_list" in word_list and "\n" not in word_list
    assert gym_id is not None and "Nope" in gym_id
    assert seed is not None and "seed" in seed and count is not None and "num_tasks" in count
