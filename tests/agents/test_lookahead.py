"""The learned policy plus rollouts: never worse than the policy, the policy itself with top_k=1,
rollout costs equal to replaying the games one by one, legal in hard mode."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch as th

from guessgym.agents.learned import LearnedAgent, load_agent
from guessgym.agents.lookahead import LookaheadAgent
from guessgym.agents.registry import AgentSpecError, make_agent
from guessgym.envs.env import GuessEnv
from guessgym.envs.game import nerdle
from guessgym.evaluation.episodes import play_game
from guessgym.evaluation.evaluate import evaluate
from guessgym.training.config import TrainConfig
from guessgym.training.train import train

th.set_num_threads(1)


@pytest.fixture(scope="module")
def weak_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A briefly trained Mini Nerdle policy: good enough to win, far from the optimum (544)."""
    return train(TrainConfig(run_name="mini", env_id="guessgym/MiniNerdle-v1", total_steps=2048, num_envs=8,
                             n_steps=64, batch_size=128, n_epochs=2, eval_every=0, checkpoint_every=0, seed=3,
                             log_dir=str(tmp_path_factory.mktemp("runs")), net_arch={"pi": [32], "vf": [32]}))


@pytest.mark.parametrize("hard_mode", [False, True])
def test_rollouts_never_do_worse_than_the_policy(weak_model: Path, hard_mode: bool) -> None:
    kwargs = {"hard_mode": True} if hard_mode else None
    policy = evaluate(load_agent(weak_model), "guessgym/MiniNerdle-v1", env_kwargs=kwargs, progress=False)
    agent = LookaheadAgent(load_agent(weak_model), top_k=5)
    search = evaluate(agent, "guessgym/MiniNerdle-v1", env_kwargs=kwargs, progress=False)
    assert search.win_rate >= policy.win_rate
    assert 544 <= search.total_guesses <= policy.total_guesses  # 544: the proven optimum
    assert search.total_guesses < policy.total_guesses  # this policy leaves room, and the search finds some
    assert all(r.note == "" for r in search.records)  # never a rejected (illegal hard-mode) guess
    assert agent.rollouts > 0


def test_top_1_is_the_policy_itself(weak_model: Path) -> None:
    policy = evaluate(load_agent(weak_model), "guessgym/MiniNerdle-v1", progress=False)
    top1 = evaluate(LookaheadAgent(load_agent(weak_model), top_k=1), "guessgym/MiniNerdle-v1", progress=False)
    assert [(r.answer, r.guesses, r.solved) for r in top1.records] == [
        (r.answer, r.guesses, r.solved) for r in policy.records]


@pytest.mark.parametrize("hard_mode", [False, True])
def test_the_batched_rollout_records_the_shared_loops_games_move_for_move(weak_model: Path, hard_mode: bool) -> None:
    """play_batched_moves + from_rollout(moves=...) is evaluate(record_guesses=True) game for game,
    so the move analysis of a batched rollout is the shared loop's."""
    from guessgym.agents.learned import policy_actions
    from guessgym.agents.rollout import play_batched, play_batched_moves
    from guessgym.evaluation.analysis import analyze, game_of_result
    from guessgym.evaluation.results import EvaluationResult

    kwargs = {"hard_mode": True} if hard_mode else None
    shared = evaluate(load_agent(weak_model), "guessgym/MiniNerdle-v1", env_kwargs=kwargs, record_guesses=True,
                      progress=False)
    agent = load_agent(weak_model)
    game = nerdle(6, hard_mode=hard_mode)
    agent.begin(game)
    act = policy_actions(agent.model.policy)
    guesses, moves = play_batched_moves(act, game, batch_size=7)  # batches of unequal size
    assert np.array_equal(guesses, play_batched(act, game))
    batched = EvaluationResult.from_rollout("policy", game, np.arange(len(game.answers)), guesses, moves=moves,
                                            env_id=shared.env_id, env_kwargs=kwargs)
    assert game_of_result(batched).hard_mode == hard_mode
    by_answer = {r.answer: r for r in shared.records}
    assert [(r.answer, r.guesses, r.solved, r.played) for r in batched.records] == [
        (a, by_answer[a].guesses, by_answer[a].solved, by_answer[a].played) for a in game.answers]
    judged = [[(m.guess, m.loss, m.luck) for m in g.moves] for g in analyze(batched).games]
    assert judged == [[(m.guess, m.loss, m.luck) for m in g.moves] for g in analyze(shared.subset(game.answers)).games]


def test_a_rollout_cost_is_the_policys_games_replayed_one_by_one(weak_model: Path) -> None:
    game = nerdle(6)
    agent = LookaheadAgent(load_agent(weak_model), top_k=3)
    agent.begin(game)
    opener = game.guess_index["4*7=28"]
    agent.observe(opener, int(agent.matrix.row(opener)[game.answers.index("10-4=6")]))
    state = agent.state
    assert 1 < len(state.candidates) < len(game.answers)
    for guess in agent.ranked_guesses(state):
        total = 0.0
        for answer in state.candidates.indices:
            policy = load_agent(weak_model)
            replay = _Scripted([opener, int(guess)], policy)
            record = play_game(GuessEnv(game=game), replay, int(answer))
            total += record.guesses if record.solved else game.max_attempts + 1 + agent.loss_cost
        assert agent.rollout_cost(state, int(guess)) == total


class _Scripted(LearnedAgent):
    """Plays ``prefix`` first, then the policy (the slow, obvious reference of a rollout)."""

    def __init__(self, prefix: list[int], policy: LearnedAgent) -> None:
        super().__init__(policy.model)
        self.prefix = prefix
        self.turn = 0

    def act(self, observation, info) -> int:  # type: ignore[no-untyped-def]
        self.turn += 1
        return self.prefix[self.turn - 1] if self.turn <= len(self.prefix) else super().act(observation, info)


def test_the_ranking_is_the_policys_among_allowed_guesses(weak_model: Path) -> None:
    game = nerdle(6)
    agent = LookaheadAgent(load_agent(weak_model), top_k=4)
    agent.begin(game)
    ranked = agent.ranked_guesses(agent.state)
    obs, info = GuessEnv(game=game).reset(seed=0)
    policy = load_agent(weak_model)
    policy.begin(game)
    assert ranked[0] == policy.act(obs, info) and len(set(ranked.tolist())) == 4


def test_bad_arguments_are_named(weak_model: Path) -> None:
    with pytest.raises(ValueError, match="top_k must be a positive integer"):
        LookaheadAgent(load_agent(weak_model), top_k=0)
    with pytest.raises(ValueError, match="loss_cost"):
        LookaheadAgent(load_agent(weak_model), loss_cost=-1)
    with pytest.raises(AgentSpecError, match="no pretrained model 'nope'"):
        make_agent("lookahead", model="pretrained:nope")
    agent = make_agent("lookahead", model=f"model:{weak_model}", top_k=2)
    assert isinstance(agent, LookaheadAgent) and agent.name.startswith("lookahead-2")
    assert np.isfinite(evaluate(agent, "guessgym/MiniNerdle-v1", answers=["10-4=6"], progress=False).mean_guesses)
