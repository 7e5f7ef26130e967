"""The guess policies' categorical distributions give torch's log-probabilities, entropies and
gradients to rounding, masked as sb3-contrib masks, and draw only allowed actions."""

from __future__ import annotations

import numpy as np
import pytest
import torch as th
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
from stable_baselines3.common.distributions import CategoricalDistribution

from guessgym.agents.guess_distributions import GuessCategoricalDistribution, MaskableGuessCategoricalDistribution

th.set_num_threads(1)


def _both(fast, slow, logits: th.Tensor, actions: th.Tensor, masks: np.ndarray | None):  # type: ignore[no-untyped-def]
    out = []
    for dist in (fast, slow):
        x = logits.clone().requires_grad_(True)
        dist.proba_distribution(x)
        if masks is not None:
            dist.apply_masking(masks)
        log_prob, entropy = dist.log_prob(actions), dist.entropy()
        (log_prob.sum() * 0.7 - entropy.sum() * 1.3).backward()
        out.append((log_prob.detach(), entropy.detach(), x.grad))
    return out


@pytest.mark.parametrize("n", [7, 12_947])
@pytest.mark.parametrize("masked", [False, True])
def test_log_prob_entropy_and_gradients_are_torchs(n: int, masked: bool) -> None:
    gen = th.Generator().manual_seed(n)
    logits = th.randn(16, n, generator=gen) * 4
    masks = None
    if masked:
        masks = (th.rand(16, n, generator=gen) < 0.3).numpy()
        masks[:, 0] = True
        actions = th.as_tensor([np.flatnonzero(row)[-1] for row in masks])
        fast, slow = MaskableGuessCategoricalDistribution(n), MaskableCategoricalDistribution(n)
    else:
        actions = th.randint(0, n, (16,), generator=gen)
        fast, slow = GuessCategoricalDistribution(n), CategoricalDistribution(n)
    (lp, h, g), (lp_ref, h_ref, g_ref) = _both(fast, slow, logits, actions, masks)
    assert th.allclose(lp, lp_ref, atol=1e-4) and th.allclose(h, h_ref, atol=1e-4)
    assert th.allclose(g, g_ref, atol=1e-5)
    # the entropy asked first (no log-probability yet) is the same
    fast.proba_distribution(logits)
    if masks is not None:
        fast.apply_masking(masks)
    assert th.allclose(fast.entropy(), h, atol=1e-5)
    # torch's distribution object is still there for code that reads it
    assert th.allclose(fast.distribution.log_prob(actions), lp, atol=1e-4)


def test_draws_and_modes_respect_masks() -> None:
    n = 50
    dist = MaskableGuessCategoricalDistribution(n)
    logits = th.zeros(200, n)
    logits[:, 3] = 10.0  # the most likely action is masked out
    masks = np.zeros((200, n), dtype=bool)
    masks[:, 10:20] = True
    dist.proba_distribution(logits)
    dist.apply_masking(masks)
    draws = dist.sample().numpy()
    assert ((draws >= 10) & (draws < 20)).all() and len(set(draws.tolist())) > 5
    assert ((dist.mode().numpy() >= 10) & (dist.mode().numpy() < 20)).all()
    dist.apply_masking(None)  # masks removed: the original logits again
    assert (dist.mode().numpy() == 3).all()


def test_a_rollouts_log_prob_of_its_draws_is_torchs() -> None:
    """In a rollout (no gradients) the draw's own log-probabilities serve the log_prob that follows."""
    n = 500
    logits = th.randn(32, n, generator=th.Generator().manual_seed(3)) * 3
    fast, slow = GuessCategoricalDistribution(n), CategoricalDistribution(n)
    with th.no_grad():
        actions = fast.proba_distribution(logits).sample()
        assert fast._drawn_log_probs is not None
        got = fast.log_prob(actions)
        expected = slow.proba_distribution(logits).log_prob(actions)
    assert th.allclose(got, expected, atol=1e-5)
    # with gradients, the autograd function (and a gradient) instead
    x = logits.clone().requires_grad_(True)
    fast.proba_distribution(x).log_prob(actions).sum().backward()
    assert x.grad is not None and th.allclose(x.grad.sum(1), th.zeros(32), atol=1e-5)
