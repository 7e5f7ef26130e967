"""The tool-calling adapter for LLM reinforcement learning (guessgym.envs.chat.tools), alone and
inside TRL's own rollout code: GRPOTrainer with environment_factory, a tiny causal LM whose tokens
are forced to a scripted player's tool calls, one training step on the CPU, no download."""

from __future__ import annotations

import inspect
import json
import os
from typing import Any

import pytest
from tiny_lm import byte_tokenizer, tiny_qwen

from guessgym.agents.llm.scripted_server import ScriptedSolver
from guessgym.agents.registry import make_agent
from guessgym.envs.chat.tools import GuessToolEnv, tool_dataset
from guessgym.envs.game import nerdle
from guessgym.evaluation.evaluate import evaluate

MINI_CHAT = "guessgym/NerdleChat-v0"

# transformers deprecates names that TRL's trainer still calls; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:`.*checkpointing.*` is deprecated:FutureWarning")


# ---- the adapter alone ------------------------------------------------------------------------------
def test_the_tool_env_plays_the_chat_game_and_scores_it() -> None:
    env = GuessToolEnv(MINI_CHAT, length=6, loss_reward=-1.0, invalid_penalty=-0.25)
    assert env.reset(answer="12/3=4", seed=0) is None
    invalid = env.guess("1+1=30")
    assert "not a valid true equation" in invalid and "did not use a guess" in invalid
    env.guess("12/3=4")
    assert env.done and env.get_reward() == pytest.approx(1.0 - 0.25)
    assert env.info["invalid_counts"]["unknown"] == 1 and env.info["attempt"] == 1
    assert env.guess("12/3=4") == "The game is over; no more guesses."
    env.reset(answer="12/3=4")
    env.guess("10-4=6")
    assert not env.done and env.get_reward() == -1.0  # a rollout that stops before the game ends is a loss


def test_tool_dataset_rows_ask_for_the_tool_and_keep_the_answer_out_of_the_prompt() -> None:
    rows = tool_dataset(MINI_CHAT, {"length": 6}, games=206, seed=2)
    assert sorted(r["answer"] for r in rows) == sorted(nerdle(6).answers) and len({r["id"] for r in rows}) == 206
    system, user = rows[0]["prompt"]
    assert system["role"] == "system" and "call the `guess` tool" in system["content"] and "[" not in user["content"]
    assert "square brackets" not in system["content"]
    with pytest.raises(ValueError, match="not a chat environment"):
        tool_dataset("guessgym/MiniNerdle-v1")


# ---- inside TRL's rollout code --------------------------------------------------------------------------
def scripted_model(tokenizer: Any, solver: ScriptedSolver, opening: list[str], give_up: bool) -> Any:
    """A 1-layer Qwen2 (random, trainable) whose sampled tokens are forced, during generation, to
    spell the scripted player's reply: the ``opening`` guesses, then the solver's, each as a
    ``guess`` tool call; or, with ``give_up``, a reply without a tool call."""
    import torch
    from transformers import Qwen2ForCausalLM

    marker = "<|im_start|>assistant\n"

    class ScriptedPlayer(Qwen2ForCausalLM):
        def forward(self, input_ids=None, attention_mask=None, **kwargs):  # type: ignore[no-untyped-def]
            kwargs["use_cache"] = False
            out = super().forward(input_ids=input_ids, attention_mask=attention_mask, **kwargs)
            if torch.is_grad_enabled():  # the training pass: the network's own logits
                return out
            forced = torch.full_like(out.logits[:, -1, :], -1e4)
            for row, ids in enumerate(input_ids.tolist()):
                text = tokenizer.decode(ids)
                start = text.rfind(marker)
                context, written = text[:start], text[start + len(marker):]
                played = context.count("Guess ") + context.count("Invalid reply")
                if give_up or "Solved on guess" in context or "Out of guesses" in context:
                    target = "I give up.<|im_end|>" if give_up else "Done.<|im_end|>"
                else:
                    guess = opening[played] if played < len(opening) else solver.next_guess(context)
                    call = json.dumps({"name": "guess", "arguments": {"guess": guess}})
                    target = f"<tool_call>\n{call}\n</tool_call><|im_end|>"
                target_ids = tokenizer(target).input_ids
                done = len(tokenizer(written).input_ids) if written else 0
                forced[row, target_ids[done] if done < len(target_ids) else tokenizer.eos_token_id] = 1e4
            out.logits = out.logits.clone()
            out.logits[:, -1, :] = forced
            return out

    return tiny_qwen(tokenizer, ScriptedPlayer)


def run_grpo_step(tmp_path: Any, rows: list[dict[str, Any]], model: Any, tokenizer: Any,
                  env_kwargs: dict[str, Any], make: Any = None) -> tuple[list[Any], list[dict[str, Any]]]:
    """One GRPOTrainer step (TRL's generation, tool loop, rewards and update) on ``rows``; the
    environments are ``make()``'s (in-process ``GuessToolEnv``s unless given)."""
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    made: list[Any] = []

    def factory() -> Any:
        made.append(make() if make is not None else GuessToolEnv(MINI_CHAT, **env_kwargs))
        return made[-1]

    args = GRPOConfig(output_dir=str(tmp_path), per_device_train_batch_size=4, num_generations=2, max_steps=1,
                      max_completion_length=4096, learning_rate=1e-6, report_to=[], logging_steps=1, use_cpu=True,
                      save_strategy="no", generation_kwargs={"use_cache": False}, bf16=False, seed=0)
    trainer = GRPOTrainer(model=model, args=args, train_dataset=Dataset.from_list(rows), processing_class=tokenizer,
                          environment_factory=factory)
    trainer.train()
    return made, trainer.state.log_history


def test_trl_grpo_rollouts_play_the_games_through_the_tool(tmp_path: Any) -> None:
    pytest.importorskip("trl", reason="the trl extra: pip install -e '.[trl]'")
    game = nerdle(6)
    tokenizer = byte_tokenizer()
    model = scripted_model(tokenizer, ScriptedSolver(game), opening=["zzzzzz"], give_up=False)
    rows = tool_dataset(MINI_CHAT, {"length": 6}, games=2, seed=5)
    envs, logs = run_grpo_step(tmp_path, rows, model, tokenizer, {"length": 6, "invalid_penalty": -0.25})
    reference = {r.answer: r for r in evaluate(make_agent("least-worst"), "guessgym/MiniNerdle-v1",
                                               answers=[row["answer"] for row in rows]).records}
    played = [env for env in envs if env.info.get("turn")]
    assert sorted(env.info["answer"] for env in played) == sorted(2 * [row["answer"] for row in rows])
    for env in played:  # each rollout: one unknown equation (a retry), then the baseline's game
        assert env.done and env.info["won"] and env.info["invalid_counts"]["unknown"] == 1
        assert env.info["attempt"] == reference[env.info["answer"]].guesses
        assert env.get_reward() == pytest.approx(1.0 - 0.25)
    step = logs[0]
    assert step["rewards/GuessToolEnv/mean"] == pytest.approx(0.75)  # TRL's reward is the environment's
    expected_calls = sum(reference[env.info["answer"]].guesses + 1 for env in played) / len(played)
    assert step["tools/call_frequency"] == pytest.approx(expected_calls) and step["tools/failure_frequency"] == 0


def test_trl_grpo_rollouts_play_a_guessgym_server_over_openenv(tmp_path: Any) -> None:
    """The OpenEnv path: the same GRPO step with each environment a session of a guessgym server
    (RemoteGuessToolEnv over OpenEnv's socket) gives what the in-process environment gives."""
    pytest.importorskip("trl", reason="the trl extra: pip install -e '.[trl]'")
    pytest.importorskip("openenv", reason="the openenv extra")
    from guessgym.serving.app import make_app, serving
    from guessgym.serving.tool import RemoteGuessToolEnv

    game = nerdle(6)
    tokenizer = byte_tokenizer()
    model = scripted_model(tokenizer, ScriptedSolver(game), opening=["zzzzzz"], give_up=False)
    rows = tool_dataset(MINI_CHAT, {"length": 6}, games=2, seed=5)
    options = {"length": 6, "invalid_penalty": -0.25}
    with serving(make_app(MINI_CHAT, options, max_sessions=16)) as url:
        envs, logs = run_grpo_step(tmp_path, rows, model, tokenizer, options,
                                   make=lambda: RemoteGuessToolEnv(url, MINI_CHAT, **options))
        reference = {r.answer: r for r in evaluate(make_agent("least-worst"), "guessgym/MiniNerdle-v1",
                                                   answers=[row["answer"] for row in rows]).records}
        played = [env for env in envs if env.info.get("turn")]
        assert sorted(env.info["answer"] for env in played) == sorted(2 * [row["answer"] for row in rows])
        for env in played:  # as in process: one unknown equation (a retry), then the baseline's game
            assert env.done and env.info["won"] and env.info["invalid_counts"]["unknown"] == 1
            assert env.info["attempt"] == reference[env.info["answer"]].guesses
            assert env.get_reward() == pytest.approx(1.0 - 0.25)
        for env in envs:
            env._close()
    assert logs[0]["rewards/RemoteGuessToolEnv/mean"] == pytest.approx(0.75)
    public = {name for name, _ in inspect.getmembers(RemoteGuessToolEnv, callable) if not name.startswith("_")}
    assert public == {"reset", "guess", "get_reward"}  # one tool, as in process


def test_a_rollout_that_never_guesses_is_a_loss_in_trl(tmp_path: Any) -> None:
    pytest.importorskip("trl", reason="the trl extra: pip install -e '.[trl]'")
    tokenizer = byte_tokenizer()
    model = scripted_model(tokenizer, ScriptedSolver(nerdle(6)), opening=[], give_up=True)
    rows = tool_dataset(MINI_CHAT, {"length": 6}, games=2, seed=6)
    envs, logs = run_grpo_step(tmp_path, rows, model, tokenizer, {"length": 6, "loss_reward": -1.0})
    assert logs[0]["rewards/GuessToolEnv/mean"] == -1.0 and logs[0]["tools/call_frequency"] == 0
    assert all(not env.done for env in envs)
