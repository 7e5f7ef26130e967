"""The verifiers environment module, loaded by ``vf.load_environment`` and played by verifiers' own
rollout and evaluation code against guessgym's scripted OpenAI-compatible server: every game's
reward, messages and end equal the in-process chat game's, reply for reply."""

from __future__ import annotations

from typing import Any

import pytest

from guessgym.agents.llm.scripted_server import ScriptedServer
from guessgym.envs.chat import ChatGuessEnv
from guessgym.envs.chat.env import ChatFamily
from guessgym.training.demos import split_answers


@pytest.fixture(scope="module")
def vf() -> Any:
    """verifiers, imported by the tests that use it (seconds: not at collection, in every worker)."""
    return pytest.importorskip("verifiers", reason="the verifiers extra (in the test extra)")


@pytest.fixture(scope="module")
def openai() -> Any:
    return pytest.importorskip("openai")

MODULE = "guessgym.adapters.verifiers"
CONFIGS = [("guessgym/WordleChat-v0", None, {}), ("guessgym/WordleChat-v0", "verifiers", {}),
           ("guessgym/WordleChat-v0", "textarena", {"hard_mode": True}),
           ("guessgym/NerdleChat-v0", None, {"length": 6})]


def replay(env_id: str, options: dict[str, Any], answer: str, seed: int,
           completion: list[dict[str, Any]]) -> tuple[float, list[dict[str, str]], dict[str, Any]]:
    """The in-process chat game given the rollout's replies: its return, messages and last info (the
    split's evaluation answers withheld from its texts, as every adapter that splits withholds them)."""
    env = ChatGuessEnv(**ChatFamily.chat_kwargs(env_id, options))
    _, evaluation = split_answers(range(len(env.game.answers)), 0.9, seed)
    env = ChatGuessEnv(**ChatFamily.chat_kwargs(env_id, {**options, "withheld": [env.game.answers[i] for i in
                                                                                 evaluation]}))
    _, info = env.reset(seed=seed, options={"answer": answer})
    total = 0.0
    for message in completion:
        if message["role"] == "assistant":
            _, reward, terminated, _, info = env.step(message["content"] or "")
            total += float(reward)
    return total, info["messages"], info


@pytest.mark.parametrize(("env_id", "preset", "options"), CONFIGS,
                         ids=[f"{e.split('/')[1]}-{p}-{o}" for e, p, o in CONFIGS])
def test_verifiers_evaluation_plays_the_in_process_game(env_id: str, preset: str | None,
                                                        options: dict[str, Any], vf: Any, openai: Any) -> None:
    env = vf.load_environment(MODULE, gym_id=env_id, preset=preset, env_kwargs=options,
                              num_train_examples=5, num_eval_examples=12, seed=3)
    assert isinstance(env, vf.MultiTurnEnv) and env.env_id == MODULE
    chat_options = {**options, **({"preset": preset} if preset else {})}
    game = ChatGuessEnv(**ChatFamily.chat_kwargs(env_id, chat_options)).game
    with ScriptedServer(game) as server:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key="unused", max_retries=0)
        results = env.evaluate_sync(client, model="solver", num_examples=12, max_concurrent=4)
    outputs = results["outputs"]
    assert len(outputs) == 12
    wins = 0
    for out in outputs:
        total, messages, info = replay(env_id, chat_options, out["answer"], 3, out["completion"])
        assert out["reward"] == pytest.approx(total)
        assert out["prompt"] + out["completion"] == messages  # the conversation is the chat game's
        assert out["metrics"]["won"] == float(info["won"]) and out["metrics"]["guesses"] == info["attempt"]
        wins += bool(info["won"])
    if preset is None:
        assert wins == 12  # the scripted solver's bracketed replies are guessgym's own format


def test_the_datasets_split_the_answers_and_keep_them_out_of_the_prompt(vf: Any) -> None:
    env = vf.load_environment(MODULE, gym_id="guessgym/NerdleChat-v0", env_kwargs={"length": 6}, seed=5)
    train, evaluation = env.get_dataset(), env.get_eval_dataset()
    game = ChatGuessEnv(**ChatFamily.chat_kwargs("guessgym/NerdleChat-v0", {"length": 6})).game
    expected_train, expected_eval = split_answers(range(len(game.answers)), 0.9, 5)
    assert [r["info"]["answer_index"] for r in train] == expected_train
    assert [r["info"]["answer_index"] for r in evaluation] == expected_eval
    assert not {r["answer"] for r in train} & {r["answer"] for r in evaluation}
    assert all(r["answer"] not in "".join(m["content"] for m in r["prompt"]) for r in evaluation)


def test_no_text_of_either_dataset_names_an_evaluation_answer(vf: Any) -> None:
    """Issue 63 item 18: the rules' repeated-letter example ("speed" when the answer is "abide") named an
    answer that seed 0 puts on the evaluation side, in every prompt of both datasets; and the rows share one
    game."""
    env = vf.load_environment(MODULE, seed=0, num_train_examples=30, num_eval_examples=30)
    game = env.games.game
    _, evaluation = split_answers(range(len(game.answers)), 0.9, 0)
    assert "abide" in {game.answers[i] for i in evaluation}
    rows = list(env.get_dataset()) + list(env.get_eval_dataset())
    texts = ["".join(m["content"] for m in row["prompt"]).lower() for row in rows]
    assert len(texts) == 60 and all("for example, guessing" in t for t in texts)
    assert not any("abide" in t for t in texts)
    assert env.games.make_env().game is game


def test_a_rollout_cut_short_counts_as_lost(vf: Any, openai: Any) -> None:
    env = vf.load_environment(MODULE, gym_id="guessgym/NerdleChat-v0", env_kwargs={"length": 6},
                              num_eval_examples=3, max_turns=1)
    game = ChatGuessEnv(**ChatFamily.chat_kwargs("guessgym/NerdleChat-v0", {"length": 6})).game
    with ScriptedServer(game) as server:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key="unused", max_retries=0)
        outputs = env.evaluate_sync(client, model="rambler", num_examples=3)["outputs"]
    loss = ChatGuessEnv(**ChatFamily.chat_kwargs("guessgym/NerdleChat-v0", {"length": 6})).env.rewards.loss_reward
    assert [o["reward"] for o in outputs] == [pytest.approx(loss)] * 3


def test_bad_arguments_are_named(vf: Any) -> None:
    from guessgym.adapters.verifiers import load_environment

    with pytest.raises(RuntimeError, match="a text agent plays a registered guessgym id, got 'guessgym/Dordle-v0'"):
        vf.load_environment(MODULE, gym_id="guessgym/Dordle-v0")  # verifiers wraps the ValueError
    with pytest.raises(ValueError, match="num_eval_examples=500 is more than the 21 evaluation answers"):
        load_environment("guessgym/NerdleChat-v0", env_kwargs={"length": 6}, num_eval_examples=500)
    with pytest.raises(ValueError, match="num_train_examples must be -1"):
        load_environment("guessgym/NerdleChat-v0", env_kwargs={"length": 6}, num_train_examples=-2)
    with pytest.raises(ValueError, match="split must be a fraction"):
        load_environment("guessgym/NerdleChat-v0", env_kwargs={"length": 6}, split=2)
    with pytest.raises(ValueError, match="preset='gem' follows a Wordle suite"):
        load_environment("guessgym/NerdleChat-v0", preset="gem")


@pytest.mark.usefixtures("vf")  # the adapter imports verifiers
def test_subsets_are_drawn_by_the_seed() -> None:
    """Issue 50, item 10: num_eval_examples=10 kept the alphabetically first evaluation answers
    (abbey, abide, abort, afire...); a subset is drawn by the seed, from its side of the split."""
    from guessgym.adapters.verifiers import load_environment

    def picked(seed: int) -> tuple[list[str], list[str]]:
        env = load_environment(num_train_examples=30, num_eval_examples=10, seed=seed)
        return [r["answer"] for r in env.get_dataset()], [r["answer"] for r in env.get_eval_dataset()]

    train, evaluation = picked(0)
    game = ChatGuessEnv().game
    whole_train, whole_eval = split_answers(range(len(game.answers)), 0.9, 0)
    assert len(evaluation) == 10 and {game.answer_index[a] for a in evaluation} <= set(whole_eval)
    assert len(train) == 30 and {game.answer_index[a] for a in train} <= set(whole_train)
    first = [game.answers[i] for i in whole_eval[:10]]
    assert evaluation != first and evaluation == sorted(evaluation)  # not the list's head; in list order
    assert picked(0) == (train, evaluation) and picked(1)[1] != evaluation  # the seed decides


@pytest.mark.usefixtures("vf")  # the adapter imports verifiers
@pytest.mark.parametrize(("kwargs", "message"), [
    ({"seed": 10**30}, "seed must be a whole number from 0 to 2\\*\\*63 - 1"),
    ({"seed": -1}, "seed must be a whole number"),
    ({"seed": True}, "seed must be a whole number"),
    ({"env_kwargs": {"answers": "/etc/hostname"}}, "option answers='/etc/hostname' is not a value"),
    ({"env_kwargs": {"reply_format": "(?P<guess>.*)"}}, "option reply_format="),
    ({"env_kwargs": {"cache_dir": "/tmp"}}, "option 'cache_dir' is not one a verifiers environment may set"),
    ({"num_eval_examples": 2.5}, "num_eval_examples must be -1"),
])
def test_hostile_options_are_refused_in_one_line(kwargs: dict[str, Any], message: str) -> None:
    """Issue 50, items 8 and 10: seed=10**30 was an OverflowError from pyarrow; an answers file path
    was read and its first line echoed into the prompt."""
    from guessgym.adapters.verifiers import load_environment

    with pytest.raises(ValueError, match=message) as raised:
        load_environment(**kwargs)
    assert "\n" not in str(raised.value)
