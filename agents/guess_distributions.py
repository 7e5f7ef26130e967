"""Categorical distributions over a vocabulary-sized action space, at the cost of what they compute.

stable-baselines3's ``CategoricalDistribution`` (torch's ``Categorical``) normalises the logits on
construction, draws with ``torch.multinomial`` and takes the entropy through ``softmax``, ``clamp``,
a product and a sum, each a pass over ``batch x 12,947`` numbers and again in the backward pass.
Here one autograd function gives the log-probability of the actions and the entropy together
(:class:`_LogProbEntropy`: a log-sum-exp, one exponential, one dot product; a backward of four
passes), and draws invert the cumulative distribution. The values are torch's to rounding (a test).

:class:`GuessCategoricalDistribution` is PPO's and A2C's; :class:`MaskableGuessCategoricalDistribution`
sb3-contrib's MaskablePPO's, masking as it does (a masked guess's logit becomes ``-1e8``: its
probability and its part of the entropy are 0).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch as th
from sb3_contrib.common.maskable.distributions import MaskableCategorical, MaskableCategoricalDistribution
from stable_baselines3.common.distributions import CategoricalDistribution
from torch.distributions import Categorical

#: The logit of a masked action (sb3-contrib's value).
MASKED_LOGIT = -1e8


def inverse_cdf_sample(probs: th.Tensor) -> th.Tensor:
    """One draw per row of ``probs`` by inverting the cumulative distribution.

    ``torch.multinomial`` takes about 15 ms for 32 rows of 12,947 probabilities on one CPU core;
    a cumulative sum and a binary search take well under 1 ms. A zero-probability (masked)
    entry is never drawn: ``searchsorted(..., right=True)`` returns the first index whose
    cumulative sum *exceeds* ``u * total``, and a zero entry never raises the sum.
    """
    cdf = probs.cumsum(dim=-1)
    u = th.rand(probs.shape[:-1] + (1,), dtype=cdf.dtype, device=cdf.device) * cdf[..., -1:]
    return th.searchsorted(cdf, u, right=True).clamp_(max=probs.shape[-1] - 1).squeeze(-1)


def _log_probs(logits: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
    """``(log p, p)`` of each row."""
    log_probs = logits - th.logsumexp(logits, dim=-1, keepdim=True)
    return log_probs, log_probs.exp()


class _LogProbEntropy(th.autograd.Function):
    """``(log p(a), H)`` of the categorical with these logits, per row.

    With ``log p = logits - logsumexp(logits)`` and ``p = exp(log p)``: ``H = -p . log p``; the
    gradients are ``onehot(a) - p`` and ``-p * (log p + H)``.
    """

    @staticmethod
    def forward(ctx: Any, logits: th.Tensor, actions: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        log_probs, probs = _log_probs(logits)
        entropy = -th.linalg.vecdot(probs, log_probs)
        chosen = actions[:, None]
        ctx.save_for_backward(log_probs, probs, entropy, chosen)
        return log_probs.gather(-1, chosen).squeeze(-1), entropy

    @staticmethod
    def backward(ctx: Any, grad_log_prob: th.Tensor, grad_entropy: th.Tensor) -> tuple[th.Tensor, None]:
        log_probs, probs, entropy, chosen = ctx.saved_tensors
        grad = log_probs + entropy[:, None]
        grad.mul_(grad_entropy[:, None]).add_(grad_log_prob[:, None]).mul_(probs).neg_()
        grad.scatter_add_(-1, chosen, grad_log_prob[:, None])
        return grad, None


class _FusedCategorical:
    """What both distributions share: the logits (masked ones set to :data:`MASKED_LOGIT`), the
    log-probability and the entropy from one :class:`_LogProbEntropy`, the fast sampler. The torch
    distribution object (``.distribution``) is built only if something asks for it. A draw keeps
    its log-probabilities for the ``log_prob`` of the drawn actions that follows it in a rollout
    (without gradients), so a rollout step normalises its logits once."""

    action_dim: int
    _logits: th.Tensor
    _entropy: th.Tensor | None
    _drawn_log_probs: th.Tensor | None
    _torch_distribution: Categorical | None

    def _set_logits(self, logits: th.Tensor) -> None:
        self._logits = logits
        self._entropy = None
        self._drawn_log_probs = None
        self._torch_distribution = None

    def log_prob(self, actions: th.Tensor) -> th.Tensor:
        actions = actions.long().reshape(-1)
        if self._drawn_log_probs is not None and not th.is_grad_enabled():
            return self._drawn_log_probs.gather(-1, actions[:, None]).squeeze(-1)
        log_prob, self._entropy = _LogProbEntropy.apply(self._logits, actions)
        return log_prob

    def entropy(self) -> th.Tensor:
        if self._entropy is None:  # asked before any log_prob: actions do not change the entropy
            zeros = th.zeros(self._logits.shape[0], dtype=th.long, device=self._logits.device)
            self._entropy = _LogProbEntropy.apply(self._logits, zeros)[1]
        return self._entropy

    def sample(self) -> th.Tensor:
        with th.no_grad():
            log_probs, probs = _log_probs(self._logits)
        if not th.is_grad_enabled():
            self._drawn_log_probs = log_probs
        return inverse_cdf_sample(probs)

    def mode(self) -> th.Tensor:
        return th.argmax(self._logits, dim=1)


class _Categorical(Categorical):
    """Categorical without argument validation (a full pass over every batch of logits; ours
    come from a network, never from a user)."""

    _validate_args = False


class _MaskableCategorical(MaskableCategorical):
    _validate_args = False


class GuessCategoricalDistribution(_FusedCategorical, CategoricalDistribution):
    """SB3's categorical distribution, computing what it needs once (module doc)."""

    def proba_distribution(self, action_logits: th.Tensor) -> GuessCategoricalDistribution:
        self._set_logits(action_logits)
        return self

    @property  # type: ignore[override]
    def distribution(self) -> Categorical | None:
        if getattr(self, "_torch_distribution", None) is None and getattr(self, "_logits", None) is not None:
            self._torch_distribution = _Categorical(logits=self._logits)
        return getattr(self, "_torch_distribution", None)

    @distribution.setter
    def distribution(self, value: Any) -> None:  # SB3's constructor sets None
        self._torch_distribution = value


class MaskableGuessCategoricalDistribution(_FusedCategorical, MaskableCategoricalDistribution):
    """sb3-contrib's masked categorical distribution, computing what it needs once (module doc)."""

    _original: th.Tensor
    _masks: th.Tensor | None

    def proba_distribution(self, action_logits: th.Tensor) -> MaskableGuessCategoricalDistribution:
        self._original = action_logits.view(-1, self.action_dim)
        self._masks = None
        self._set_logits(self._original)
        return self

    def apply_masking(self, masks: np.ndarray | th.Tensor | None) -> None:
        if masks is None:
            self._masks = None
            self._set_logits(self._original)
            return
        logits = self._original
        self._masks = th.as_tensor(masks, dtype=th.bool, device=logits.device).reshape(logits.shape)
        self._set_logits(th.where(self._masks, logits, th.tensor(MASKED_LOGIT, dtype=logits.dtype,
                                                                  device=logits.device)))

    @property  # type: ignore[override]
    def distribution(self) -> MaskableCategorical | None:
        if getattr(self, "_torch_distribution", None) is None and getattr(self, "_original", None) is not None:
            torch_distribution = _MaskableCategorical(logits=self._original)
            torch_distribution.apply_masking(self._masks)
            self._torch_distribution = torch_distribution
        return getattr(self, "_torch_distribution", None)

    @distribution.setter
    def distribution(self, value: Any) -> None:
        self._torch_distribution = value


__all__ = ["GuessCategoricalDistribution", "MASKED_LOGIT", "MaskableGuessCategoricalDistribution",
           "inverse_cdf_sample"]
