"""guessgym's benchmark for reinforcement-learning algorithms.

* :mod:`~guessgym.training.benchmark.protocol`: the versioned protocol (tiers, budgets, seeds,
  the score) and each tier's anchors, the proven optimum and the random-consistent baseline;
* :mod:`~guessgym.training.benchmark.hyperparams`: the shipped hyperparameter files, in rl-zoo3's
  format, read without running code;
* :mod:`~guessgym.training.benchmark.runner`: one run (algorithm, tier, seed), resumable, writing
  its evaluations in the protocol's format (``guessgym benchmark run``);
* :mod:`~guessgym.training.benchmark.report`: rliable's aggregates and figures over saved runs
  (``guessgym benchmark report``).

``import guessgym.training.benchmark`` loads the protocol only (no torch); the documentation's
"RL benchmark" page is the protocol in words.
"""

from __future__ import annotations

from .protocol import PROTOCOL_VERSION, SEEDS, TIERS, Tier, anchors_of, tier

__all__ = ["PROTOCOL_VERSION", "SEEDS", "TIERS", "Tier", "anchors_of", "tier"]
