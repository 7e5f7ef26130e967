"""Shipped models: they load in one line, reproduce their cards on a seeded sample of answers, and
a corrupt, missing or mismatched file is a clear error; shipping a run writes a card that checks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch as th

from guessgym import cli
from guessgym.agents import pretrained
from guessgym.agents.learned import LearnedAgent, load_model
from guessgym.agents.pretrained import PretrainedError, available, load_pretrained, model_card, model_path
from guessgym.agents.registry import AgentSpecError, make_agent
from guessgym.envs.game import nerdle
from guessgym.evaluation.evaluate import evaluate
from guessgym.training.config import TrainConfig
from guessgym.training.model_card import answer_string, ship
from guessgym.training.train import train

th.set_num_threads(1)

#: The models the project ships.
SHIPPED = tuple(available())


def check_against_card(name: str, sample: int, seed: int) -> None:
    card = model_card(name)
    agent = load_pretrained(name)
    game = agent.trained_game
    record = card["evaluation"]["answer_guesses"]
    assert len(record) == len(game.answers) == card["evaluation"]["games"]
    picks = np.random.default_rng(seed).choice(len(game.answers), size=min(sample, len(game.answers)), replace=False)
    result = evaluate(agent, card["env_id"], env_kwargs=card["env_kwargs"] or None,
                      answers=[game.answers[i] for i in picks], progress=False)
    got = {r.answer: (str(r.guesses) if r.solved else "X") for r in result.records}
    assert got == {game.answers[i]: record[i] for i in picks}


def test_the_models_the_project_promises_are_shipped() -> None:
    assert {"wordle", "wordle-hard", "nerdle", "mini-nerdle"} <= set(SHIPPED)
    assert {"wordle-cloned", "wordle-hard-cloned", "nerdle-cloned"} <= set(SHIPPED)  # issue 27
    assert model_card("wordle-hard")["hard_mode"] and not model_card("wordle")["hard_mode"]


@pytest.mark.parametrize("name", SHIPPED)
def test_each_shipped_model_reproduces_its_card_on_a_seeded_sample(name: str) -> None:
    card = model_card(name)
    record = card["evaluation"]["answer_guesses"]
    wins = [int(c) for c in record if c != "X"]
    assert card["evaluation"]["win_rate"] == pytest.approx(len(wins) / len(record))
    assert card["evaluation"]["mean_guesses"] == pytest.approx(sum(wins) / len(wins))
    assert model_path(name).stat().st_size == card["model_bytes"] < 8_000_000
    check_against_card(name, sample=24, seed=11)


def test_one_line_loaders_and_the_command_line_play_the_cards_game(capsys: pytest.CaptureFixture[str]) -> None:
    agent = make_agent("pretrained:mini-nerdle")
    assert isinstance(agent, LearnedAgent) and agent.name == "pretrained:mini-nerdle"
    assert agent.trained_game.fingerprint == model_card("mini-nerdle")["fingerprint"]
    assert cli.main(["evaluate", "--agent", "pretrained:mini-nerdle", "--answers", "12", "--no-progress"]) == 0
    assert "mini-nerdle" in capsys.readouterr().out  # no --env: the card's game, not Wordle
    assert cli.main(["pretrained"]) == 0
    table = capsys.readouterr().out
    assert all(f"pretrained:{name}" in table for name in SHIPPED)
    assert cli.main(["pretrained", "mini-nerdle"]) == 0
    assert "guessgym/MiniNerdle-v1" in capsys.readouterr().out


def test_each_model_is_described_by_how_it_was_trained(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 52: the general policy was trained by DAgger, not "MaskablePPO ... trained 0 steps";
    a cloned model says its epochs; a PPO model its steps (from its card, in the list and the agent alike)."""
    general, cloned, ppo = (load_pretrained(n).describe() for n in ("wordle-general", "wordle-cloned", "mini-nerdle"))
    assert "DAgger, 10 iterations over 240 games" in general and "0 steps" not in general
    assert "cloned, 4 epochs" in cloned and "0 PPO steps" not in cloned
    assert f"{model_card('mini-nerdle')['training']['steps']:,} PPO steps" in ppo
    assert cli.main(["pretrained"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if "pretrained:wordle-general " in line)
    assert "DAgger" in row and "0 PPO steps" not in row


# ---- shipping a run, and the errors -----------------------------------------------------------------
@pytest.fixture
def shipped_micro(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A few-second Micro Nerdle run shipped as ``pretrained:micro`` into a temporary folder."""
    run = train(TrainConfig(run_name="micro", env_id="guessgym/MicroNerdle-v1", total_steps=1024, num_envs=8,
                            n_steps=64, batch_size=128, n_epochs=2, eval_every=0, checkpoint_every=0,
                            log_dir=str(tmp_path / "runs"), net_arch={"pi": [32], "vf": [32]}, seed=3))
    agent = LearnedAgent(load_model(run))
    result = evaluate(agent, "guessgym/MicroNerdle-v1", progress=False)
    dest = tmp_path / "pretrained"
    card = ship(run.parent, "micro", result, dest, reproduce="pytest tests/agents/test_pretrained.py",
                summary="a test model")
    assert card["evaluation"]["answer_guesses"] == answer_string(result, nerdle(5))
    assert (run.parent / "model.zip").stat().st_size > card["model_bytes"]  # the optimizer's moments are gone
    monkeypatch.setattr(pretrained, "PRETRAINED_DIR", dest)
    return dest


def test_a_shipped_run_loads_and_reproduces_its_card(shipped_micro: Path) -> None:
    assert available() == ["micro"]
    check_against_card("micro", sample=40, seed=0)
    card = model_card("micro")
    assert card["training"]["steps"] >= 1024 and card["training"]["config"]["seed"] == 3
    assert {"torch", "stable-baselines3", "python"} <= set(card["training"]["versions"])
    assert "AVX2" in card["training"]["numerics"] and card["parameters"] > 0


def test_a_cloned_run_ships_with_its_cloning_stage_and_its_held_out_answers(tmp_path: Path) -> None:
    """A cloning-only run (clone_epochs, total_steps = 0, holdout): the card says how it was trained
    and what it scored on the answers it never saw, and the Markdown shows both."""
    from guessgym.agents.pretrained import card_markdown
    from guessgym.training.train import training_answers

    config = TrainConfig(run_name="micro-cloned", env_id="guessgym/MicroNerdle-v1", total_steps=0, clone_epochs=2,
                         holdout=0.25, num_envs=8, eval_every=0, checkpoint_every=0, log_dir=str(tmp_path / "runs"),
                         net_arch={"pi": [32], "vf": [32]}, seed=3)
    run = train(config)
    result = evaluate(LearnedAgent(load_model(run)), "guessgym/MicroNerdle-v1", progress=False)
    card = ship(run.parent, "micro-cloned", result, tmp_path / "pretrained", reproduce="pytest", changes="cloned")
    game = nerdle(5)
    _, held = training_answers(config, game)
    part = result.subset([game.answers[int(a)] for a in held])
    assert card["evaluation"]["held_out"]["games"] == len(held) == part.n_games > 0
    assert card["evaluation"]["held_out"]["total_guesses"] == part.total_guesses
    cloning = card["training"]["cloning"]
    assert cloning["epochs"] == 2 and cloning["train_answers"] == len(game.answers) - len(held)
    assert card["training"]["steps"] == 0 and card["training"]["wall_time_s"] >= cloning["wall_time_s"]
    text = card_markdown(card)
    assert "| behaviour cloning | 2 epochs over" in text and "(25% held out, seeded)" in text
    assert "no reinforcement learning after cloning" in text
    assert f"held out of training ({len(held):,} answers)" in text and "## What changed\n\ncloned" in text


@pytest.mark.parametrize("damage, message", [
    (lambda p: p.write_bytes(p.read_bytes()[:-100]), "corrupt"),
    (lambda p: p.write_bytes(p.read_bytes()[:500] + b"\x00" + p.read_bytes()[501:]), "corrupt"),
    (lambda p: p.unlink(), "missing"),
])
def test_a_damaged_model_file_is_a_clear_error(shipped_micro: Path, damage, message: str) -> None:
    damage(shipped_micro / "micro.zip")
    with pytest.raises(PretrainedError, match=message):
        load_pretrained("micro")
    with pytest.raises(AgentSpecError, match=message):
        make_agent("pretrained:micro")
    assert cli.main(["evaluate", "--agent", "pretrained:micro", "--answers", "3"]) == 2


def test_a_model_that_is_not_its_cards_is_refused(shipped_micro: Path) -> None:
    card = json.loads((shipped_micro / "micro.json").read_text())
    other = shipped_micro / "other.zip"
    shutil.copy(shipped_micro / "micro.zip", other)
    (shipped_micro / "other.json").write_text(json.dumps({**card, "name": "other", "fingerprint": "0" * 16}))
    with pytest.raises(PretrainedError, match="its card says"):
        load_pretrained("other")


def test_unknown_names_and_broken_cards_are_named(shipped_micro: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(AgentSpecError, match="no pretrained model 'wordel'; shipped: micro"):
        make_agent("pretrained:wordel")
    assert cli.main(["evaluate", "--agent", "pretrained:wordel"]) == 2
    assert "shipped: micro" in capsys.readouterr().err
    (shipped_micro / "micro.json").write_text("{not json")
    with pytest.raises(PretrainedError, match="unreadable"):
        model_card("micro")


def test_the_wordle_model_plays_another_word_list_without_retraining() -> None:
    """No parameter belongs to a word: the nyt policy plays the original lists (2,315 answers, 12,972 guesses)."""
    agent = load_pretrained("wordle")
    result = evaluate(agent, "guessgym/Wordle-v1", env_kwargs={"word_list": "original"}, sample=30, seed=4,
                      progress=False)
    assert result.game == "wordle-5-original" and result.n_games == 30
    assert agent.policy.game.name == "wordle-5-original"  # retargeted
    assert result.win_rate == 1.0 and result.mean_guesses < 4.0


def test_the_docs_give_the_shipped_wordle_models_parameter_count_from_its_card() -> None:
    """Issue 24: the README said 524k where the card says 528,295 (the text is now docs/learned.md)."""
    import re

    page = (Path(__file__).resolve().parents[2] / "docs" / "learned.md").read_text(encoding="utf-8")
    stated = re.search(r"the shipped Wordle model has ([\d,]+)", page)
    card = json.loads((Path(__file__).resolve().parents[2] / "agents" / "pretrained" / "wordle.json").read_text())
    assert stated is not None and int(stated.group(1).replace(",", "")) == card["parameters"]
