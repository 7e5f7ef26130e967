"""Learned policy plus search: rank guesses with the policy, pick among the best by rollouts.

:class:`LookaheadAgent` is the rollout algorithm (policy improvement by simulation): at each
position it takes the ``top_k`` guesses the learned policy scores highest among those allowed,
and for each one *plays the rest of the game with the policy itself* on every answer still
possible (a batched rollout through :func:`~guessgym.agents.rollout.play_batched`, the same rules
as every other loop). It plays the guess whose rollouts need the fewest guesses in total, a lost
game costing ``max_attempts + 1 + loss_cost``; ties go to the guess the policy ranks higher.

Because the policy's own choice is among the ``top_k`` and rollouts are exact (greedy policy,
every remaining answer), each decision is at least as good as the policy's in expectation over
the remaining answers, and so is the whole game: the agent never does worse than its policy over
a uniform answer list (the classic rollout guarantee). ``top_k = 1`` is the policy itself.

Decisions depend only on the position, so they are memoised per candidate set (plus the history
in hard mode) by :class:`~guessgym.agents.base.CandidateAgent`: an evaluation over every answer
searches each position of the agent's decision tree once.

Examples:
    guessgym evaluate --agent lookahead --agent-kwargs model=pretrained:wordle top_k=5
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..envs.game import Game
from .base import CandidateAgent, SolverState
from .registry import make_agent, register
from .rollout import play_batched

if TYPE_CHECKING:
    from .learned import LearnedAgent


def _load_policy_agent(model: str | LearnedAgent) -> LearnedAgent:
    """A :class:`LearnedAgent` from one, or from a ``pretrained:NAME`` / ``model:PATH`` spec (resolved by
    the agent registry, with its errors) or a bare model path."""
    from .learned import LearnedAgent
    from .pretrained import SPEC_PREFIX

    if isinstance(model, LearnedAgent):
        return model
    if not isinstance(model, str):
        raise TypeError(f"model must be a LearnedAgent or a spec such as 'pretrained:wordle', got {model!r}")
    agent = make_agent(model if model.startswith((SPEC_PREFIX, "model:")) else f"model:{model}")
    if not isinstance(agent, LearnedAgent):
        raise TypeError(f"model {model!r} is not a learned policy (got {type(agent).__name__})")
    return agent


class LookaheadAgent(CandidateAgent):
    """A learned policy's top guesses, compared by rolling the policy out on every remaining answer.

    Args:
        model: the policy: a :class:`~guessgym.agents.learned.LearnedAgent`, ``"pretrained:NAME"``,
            or a model path (``"model:PATH"`` or ``PATH``).
        top_k: how many of the policy's best guesses are compared (1: the policy alone).
        loss_cost: extra cost of a lost game in a rollout, on top of ``max_attempts + 1``
            guesses (large: never trade a win for fewer guesses).
        batch_size: games per batched rollout step.
    """

    name = "lookahead"

    def __init__(self, model: str | LearnedAgent = "pretrained:wordle", *, top_k: int = 5, loss_cost: float = 100.0,
                 batch_size: int = 512) -> None:
        super().__init__()
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise ValueError(f"top_k must be a positive integer, got {top_k!r}")
        if not loss_cost >= 0:
            raise ValueError(f"loss_cost must be non-negative, got {loss_cost!r}")
        self.policy_agent = _load_policy_agent(model)
        self.top_k = top_k
        self.loss_cost = float(loss_cost)
        self.batch_size = int(batch_size)
        self.name = f"lookahead-{top_k}({self.policy_agent.name})"
        self.rollouts = 0  # rollout games played (each remaining answer, for each compared guess)

    def describe(self) -> str:
        return f"top {self.top_k} guesses of the {self.policy_agent.describe()}, chosen by policy rollouts"

    def begin(self, game: Game) -> None:
        self.policy_agent.begin(game)  # retargets the network when the game differs (same board)
        super().begin(game)

    def _act_batch(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        return self.policy_agent.act_batch(obs, obs.get("action_mask"))

    def ranked_guesses(self, state: SolverState) -> np.ndarray:
        """The allowed guesses in the policy's order at ``state`` (best first), at most ``top_k``."""
        from .learned import policy_logits_after

        logits, mask = policy_logits_after(self.policy_agent, state.game, [g for g, _ in state.history],
                                           int(state.candidates.indices[0]))
        logits = np.where(mask, logits, -np.inf)
        k = min(self.top_k, int(mask.sum()))
        best = np.argpartition(-logits, k - 1)[:k]
        return best[np.lexsort((best, -logits[best]))]  # by score, then index: deterministic order

    def rollout_cost(self, state: SolverState, guess: int) -> float:
        """Total guesses (a loss: ``max_attempts + 1 + loss_cost``) of playing ``guess`` now and then the
        policy, over every remaining answer."""
        answers = np.asarray(state.candidates.indices, dtype=np.int64)
        prefix = [g for g, _ in state.history] + [int(guess)]
        guesses = play_batched(self._act_batch, state.game, answers, batch_size=self.batch_size, prefix=prefix)
        self.rollouts += len(answers)
        lost = int((guesses == 0).sum())
        return float(guesses.sum()) + lost * (state.game.max_attempts + 1 + self.loss_cost)

    def choose(self, state: SolverState) -> int:
        cands = state.candidates.indices
        if len(cands) == 1:
            return int(state.game.answer_to_guess[cands[0]])
        ranked = self.ranked_guesses(state)
        if len(ranked) == 1:
            return int(ranked[0])
        costs = [self.rollout_cost(state, int(g)) for g in ranked]
        return int(ranked[int(np.argmin(costs))])  # argmin: the first (best-ranked) of equal costs


register("lookahead", LookaheadAgent)

__all__ = ["LookaheadAgent"]
