"""A stable-baselines3 policy whose size does not depend on the vocabulary.

* :class:`GuessFeaturesExtractor` (no trainable parameters) reduces the board and tiles to what they
  imply: greens, "not here", minimum and maximum copies of each symbol, the attempt, and with
  ``candidate_features`` the exact candidate set's size and symbol frequencies.
* :class:`GuessScoringHead` scores every guess as the actor's output times a **fixed** encoding of
  the guess (symbol per position, symbols present, is-an-answer) plus a learned bonus for guesses
  that are still possible answers (``candidate_prior`` starts it); with ``split_features`` it adds
  state-dependent weights over how each guess splits the candidates
  (:class:`~guessgym.agents.split_features.SplitFeatures`; ``split_prior`` starts them).
* No parameter belongs to a guess, so :meth:`GuessPolicyMixin.set_game` points a trained policy at
  another list of the same shape (the curriculum, transfer). MaskablePPO passes ``action_masks()``;
  plain PPO and A2C use :class:`GuessActorCriticPolicy`.

Why SB3's default policy fails here, the design in full and why the shipped priors are what they
are: the documentation's research notes (``docs/research/policies.md``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from sb3_contrib.qrdqn.policies import MultiInputPolicy as QRDQNMultiInputPolicy
from stable_baselines3.common.policies import ActorCriticPolicy, BasePolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, create_mlp
from stable_baselines3.dqn.policies import MultiInputPolicy as DQNMultiInputPolicy
from torch import nn

from ..envs.game import Game
from .guess_distributions import GuessCategoricalDistribution, MaskableGuessCategoricalDistribution
from .guess_encoding import (
    SparseSums,
    encoding_width,
    guess_encoding,
    guess_feature_index,
)
from .guess_features import GuessFeaturesExtractor, _check_obs_space, resolve_policy_game
from .split_features import FEATURES as SPLIT_FEATURES
from .split_features import SUMMARY as SPLIT_SUMMARY
from .split_features import check_log_scale, check_split_prior

#: Default hidden layers of the actor and the critic.
DEFAULT_NET_ARCH: dict[str, list[int]] = {"pi": [256, 256], "vf": [256, 256]}

#: Per-guess inputs of the head's split score (the split features).
SPLIT_INPUTS = len(SPLIT_FEATURES)


class RawCodesPolicy(BasePolicy):
    """A stable-baselines3 policy whose features extractor reads the observation as the environment
    gives it.

    SB3's ``extract_features`` one-hots every cell of a ``MultiDiscrete`` observation first (60
    operations a batch for Wordle's board and tiles, a quarter of a PPO update's time);
    :class:`GuessFeaturesExtractor` reads the codes itself, in one. SB3's policies reach this
    method through ``super()`` (the actor-critic's ``predict_values`` and ``get_distribution``), so
    it sits between them and ``BasePolicy`` in the method order: listed after SB3's policy class
    (``class P(GuessPolicyMixin, ActorCriticPolicy, RawCodesPolicy)``).
    """

    def extract_features(self, obs: Any, features_extractor: BaseFeaturesExtractor | None = None) -> Any:
        return (self.features_extractor if features_extractor is None else features_extractor)(obs)


class GuessScoringHead(nn.Module):
    """Scores every guess as ``z . E[g]`` (+ ``z_c * candidate(g)``) with ``E`` fixed.

    Args:
        latent_dim: size of the actor's last hidden layer.
        game: the game whose guesses are scored.
        candidate_prior: initial weight of the "is a candidate" score (see module doc).
        guess_bias: add one learned scalar per guess (makes the size depend on the vocabulary).
        split_features: add the split score ``w(state) . s(g)`` (see module doc).
        split_prior: initial weights of split features, by name (:data:`SPLIT_FEATURES`), for
            example ``{"log expected left": -300}``: the untrained greedy policy then plays the
            expected-size baseline's guess, and training starts from there.
        n_outputs: score vectors per state (QR-DQN's quantiles): the output is then
            ``(batch, n_outputs, guesses)``, each with its own weights ``z``.

    The scores ``z . E[g]`` are sums over each guess's few features
    (:mod:`~guessgym.agents.guess_encoding`), not a product with a dense ``E``.
    """

    answer_to_guess: th.Tensor
    guess_to_answer: th.Tensor
    guess_encoding: SparseSums

    def __init__(self, latent_dim: int, game: Game, candidate_prior: float = 0.0, guess_bias: bool = False,
                 split_features: bool = False, split_prior: dict[str, float] | None = None,
                 n_outputs: int = 1) -> None:
        super().__init__()
        if n_outputs < 1 or (n_outputs > 1 and split_features):
            raise ValueError("n_outputs must be at least 1, and 1 with split_features")
        self.split_prior = check_split_prior(split_prior, split_features)
        self.length, self.n_symbols = game.length, game.n_symbols
        self.encoding_dim = encoding_width(game)
        self.split_features = split_features
        self.n_outputs = int(n_outputs)
        self.output_dim = self.encoding_dim + 1 + (SPLIT_INPUTS if split_features else 0)
        self.linear = nn.Linear(latent_dim, self.n_outputs * self.output_dim)
        self.candidate_prior = float(candidate_prior)
        self.guess_bias = nn.Parameter(th.zeros(len(game.guesses))) if guess_bias else None
        self.set_game(game)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Orthogonal init with a small gain (near-uniform scores), plus the candidate and split priors."""
        nn.init.orthogonal_(self.linear.weight, gain=0.01)
        with th.no_grad():
            self.linear.bias.zero_()
            bias = self.linear.bias.view(self.n_outputs, self.output_dim)
            bias[:, self.encoding_dim] = self.candidate_prior
            for name, weight in self.split_prior.items():
                bias[:, self.encoding_dim + 1 + SPLIT_FEATURES.index(name)] = weight

    def set_game(self, game: Game) -> None:
        """Rebuild the fixed guess encoding ``E`` for ``game`` (same length and alphabet)."""
        if (game.length, game.n_symbols) != (self.length, self.n_symbols):
            raise ValueError(f"{game.name} does not have this head's length and alphabet")
        if self.guess_bias is not None and len(game.guesses) != self.guess_bias.shape[0]:
            raise ValueError("a head with per-guess biases cannot change its guess list")
        device = self.linear.weight.device
        if hasattr(self, "guess_encoding"):
            self.guess_encoding.set_index(guess_feature_index(game), device=device)
        else:
            self.guess_encoding = guess_encoding(game).to(device)
        a2g = th.as_tensor(game.answer_to_guess, dtype=th.long, device=device)
        identity = len(game.guesses) == len(game.answers) and bool(
            (a2g == th.arange(len(game.answers), device=device)).all()
        )
        self.register_buffer("answer_to_guess", a2g, persistent=False)
        g2a = th.full((len(game.guesses),), -1, dtype=th.long, device=device)
        g2a[a2g] = th.arange(len(game.answers), device=device)
        self.register_buffer("guess_to_answer", g2a, persistent=False)  # -1: the guess is no answer
        self._identity = identity
        self.n_guesses = len(game.guesses)

    def forward(self, latent: th.Tensor, candidates: th.Tensor | None,
                split: tuple[list[th.Tensor], th.Tensor] | None = None) -> th.Tensor:
        batch = latent.shape[0]
        z = self.linear(latent)
        if self.n_outputs > 1:  # one row of weights per output; each sees the state's candidates
            z = z.reshape(batch * self.n_outputs, self.output_dim)
            if candidates is not None and candidates.shape[0] == batch:
                candidates = candidates.repeat_interleave(self.n_outputs, 0)
        logits = self._score_rows(z, candidates, split, latent.shape[0])
        return logits.view(batch, self.n_outputs, -1) if self.n_outputs > 1 else logits

    def mean_scores(self, latent: th.Tensor, candidates: th.Tensor | None) -> th.Tensor:
        """``(batch, guesses)``: the mean over the outputs of :meth:`forward`'s scores (QR-DQN's Q-values,
        the mean of its quantiles), computed as one output: scores are linear in the weights ``z``, so
        the mean of the scores is the score of the mean weights (equal to rounding; one pass over the
        guesses instead of ``n_outputs``)."""
        if self.n_outputs == 1:
            return self(latent, candidates)
        z = self.linear(latent).view(latent.shape[0], self.n_outputs, self.output_dim).mean(dim=1)
        return self._score_rows(z, candidates, None, latent.shape[0])

    def score_guesses(self, latent: th.Tensor, candidates: th.Tensor | None, guesses: th.Tensor,
                      split: tuple[list[th.Tensor], th.Tensor] | None = None) -> th.Tensor:
        """The scores of one guess per state, ``guesses`` of shape ``(batch,)``: ``(batch,)``, or
        ``(batch, n_outputs)``: :meth:`forward`'s numbers at those guesses to the bit (the same
        weights added in the same order), and their gradients too (a per-guess bias's only to
        rounding: it sums a batch's rows in another order), at ``2L + 1`` sums a row instead of one
        per guess. A value-based loss needs only the played guess's value; this is its cost."""
        batch = latent.shape[0]
        guesses = guesses.long().reshape(-1)
        if guesses.shape[0] != batch:
            raise ValueError(f"expected one guess per state ({batch}), got {guesses.shape[0]}")
        if self.split_features:  # split scores come per candidate set: score every guess, then pick
            return self(latent, candidates, split).gather(1, guesses[:, None]).squeeze(1)
        z = self.linear(latent)
        per_row = guesses
        if self.n_outputs > 1:
            z = z.reshape(batch * self.n_outputs, self.output_dim)
            per_row = guesses.repeat_interleave(self.n_outputs)
        columns = self.guess_encoding.index[per_row]  # (rows, 2L + 1), padded with the zero column
        weights = nn.functional.pad(z[:, : self.encoding_dim], (0, 1)).gather(1, columns).unbind(1)
        scores = weights[0]
        for weight in weights[1:]:  # in the embedding bag's order, one feature at a time (a sum over
            scores = scores + weight  # the row would add them in another order: not the same numbers)
        if candidates is not None:
            if candidates.shape[0] not in (batch, z.shape[0]):
                raise RuntimeError(
                    "candidate context and latent batch sizes differ (features extracted for another batch)"
                )
            per_state = candidates.shape[0] == batch  # one candidate row per state, shared by its outputs
            answer = self.guess_to_answer[guesses if per_state else per_row]
            possible = candidates.gather(1, answer.clamp(min=0)[:, None]).squeeze(1)
            if per_state and self.n_outputs > 1:
                answer, possible = answer.repeat_interleave(self.n_outputs), possible.repeat_interleave(self.n_outputs)
            bonus = z[:, self.encoding_dim] * possible
            scores = th.where(answer >= 0, scores + bonus, scores)  # a guess that is no answer gets none
        if self.guess_bias is not None:
            scores = scores + self.guess_bias[per_row]
        return scores.view(batch, self.n_outputs) if self.n_outputs > 1 else scores

    def _score_rows(self, z: th.Tensor, candidates: th.Tensor | None,
                    split: tuple[list[th.Tensor], th.Tensor] | None, batch: int) -> th.Tensor:
        """``(rows, guesses)``: every guess's score under each row of weights ``z``."""
        logits = self.guess_encoding(z[:, : self.encoding_dim])
        if self.split_features:
            if split is None:
                raise RuntimeError("this head scores splits: the features extractor must compute split_features")
            sets, rows = split
            if rows.shape[0] != batch:
                raise RuntimeError("split features and latent batch sizes differ (extracted for another batch)")
            weights = z[:, self.encoding_dim + 1 :]  # (B, SPLIT_INPUTS): state-dependent weights
            # One product per distinct candidate set: rows of one set share its (guesses, 8) features.
            order = [th.nonzero(rows == u).squeeze(1) for u in range(len(sets))]
            scores = th.cat([weights[i] @ f.T for i, f in zip(order, sets)])
            logits = logits + scores[th.argsort(th.cat(order))]
        if candidates is not None:
            if candidates.shape[0] != z.shape[0]:
                raise RuntimeError(
                    "candidate context and latent batch sizes differ (features extracted for another batch)"
                )
            bonus = z[:, self.encoding_dim : self.encoding_dim + 1] * candidates  # (B, n_answers)
            # in place: the guess sums are a fresh tensor that nothing else holds
            logits = logits.add_(bonus) if self._identity else logits.index_add_(1, self.answer_to_guess, bonus)
        if self.guess_bias is not None:
            logits = logits + self.guess_bias
        return logits


def _check_action_space(action_space: spaces.Space, game: Game) -> None:
    if not isinstance(action_space, spaces.Discrete) or int(action_space.n) != len(game.guesses):
        raise ValueError(f"the action space must be Discrete({len(game.guesses)}) for {game.name}")


class _GuessOptions:
    """What every guess policy keeps of its guess options: the game, and the options written into
    its constructor parameters (so a saved model is rebuilt with them) in place of the extractor's."""

    _guess_options: dict[str, Any]

    @property
    def game(self) -> Game:
        """The game whose guesses the policy scores."""
        game: Game = self._guess_options["game"]
        return game

    def _with_guess_options(self, data: dict[str, Any]) -> dict[str, Any]:
        data.update(self._guess_options)
        data.pop("features_extractor_class", None)
        data.pop("features_extractor_kwargs", None)
        return data


class GuessPolicyMixin(_GuessOptions):
    """What the maskable and the plain actor-critic guess policies share.

    The constructor takes, besides SB3's arguments, ``game`` (required), ``candidate_features``,
    ``candidate_prior``, ``guess_bias``, ``split_features``, ``split_prior`` and ``log_scale``; the
    features extractor is always :class:`GuessFeaturesExtractor` and the action net a
    :class:`GuessScoringHead`.
    """

    # What the mixin uses of the actor-critic policy it is mixed into (typed loosely: the two
    # policies' own definitions win at run time).
    action_space: Any
    action_dist: Any
    action_net: Any
    mlp_extractor: Any
    optimizer: Any
    optimizer_class: Any
    optimizer_kwargs: Any
    features_extractor: Any
    pi_features_extractor: Any
    vf_features_extractor: Any

    def _init_guess(
        self, kwargs: dict[str, Any], game: Game | str | None, candidate_features: bool, candidate_prior: float,
        guess_bias: bool,
        split_features: bool = False, split_prior: dict[str, float] | None = None, log_scale: int | None = None,
    ) -> None:
        game = resolve_policy_game(game, kwargs["observation_space"], kwargs["action_space"])
        self._guess_options = {
            "game": game,
            "candidate_features": bool(candidate_features),
            "candidate_prior": float(candidate_prior),
            "guess_bias": bool(guess_bias),
            "split_features": bool(split_features),
            "split_prior": check_split_prior(split_prior, split_features),
        }
        check_log_scale(log_scale)
        if log_scale is not None:  # absent from the options of a policy without it, as in older model files
            self._guess_options["log_scale"] = log_scale
        kwargs["features_extractor_class"] = GuessFeaturesExtractor
        kwargs["features_extractor_kwargs"] = {"game": game, "candidate_features": bool(candidate_features),
                                               "split_features": bool(split_features), "log_scale": log_scale}
        if kwargs.get("net_arch") is None:
            kwargs["net_arch"] = {k: list(v) for k, v in DEFAULT_NET_ARCH.items()}
        observation_space = kwargs["observation_space"]
        _check_obs_space(observation_space, game)
        _check_action_space(kwargs["action_space"], game)

    def _build(self, lr_schedule: Any) -> None:
        n = int(self.action_space.n)
        masked = isinstance(self.action_dist, MaskableCategoricalDistribution)
        self.action_dist = MaskableGuessCategoricalDistribution(n) if masked else GuessCategoricalDistribution(n)
        super()._build(lr_schedule)  # type: ignore[misc]  # ActorCriticPolicy._build, through the MRO
        opts = self._guess_options
        self.action_net = GuessScoringHead(
            self.mlp_extractor.latent_dim_pi,
            opts["game"],
            opts["candidate_prior"],
            opts["guess_bias"],
            opts["split_features"],
            opts["split_prior"],
        )
        # The optimizer was built over the discarded dense layer: rebuild it over the real parameters.
        parameters = nn.Module.parameters(self)  # type: ignore[arg-type]  # the mixin is always an nn.Module
        self.optimizer = self.optimizer_class(parameters, lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_action_dist_from_latent(self, latent_pi: th.Tensor) -> Any:
        extractor = self.pi_features_extractor
        logits = self.action_net(latent_pi, extractor.guess_context, extractor.guess_split)
        return self.action_dist.proba_distribution(action_logits=logits)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return self._with_guess_options(super()._get_constructor_parameters())  # type: ignore[misc]

    # ---- helpers used by agents and training ---------------------------------------------------
    def _extractors(self) -> list[GuessFeaturesExtractor]:
        found = {id(m): m for m in (self.features_extractor, self.pi_features_extractor, self.vf_features_extractor)}
        return list(found.values())

    def set_game(self, game: Game) -> None:
        """Score ``game``'s guesses and use its answers for candidate features.

        ``game`` must have the same length, alphabet and number of attempts. The action space
        becomes ``Discrete(len(game.guesses))``.
        """
        for extractor in self._extractors():
            extractor.set_game(game)
        self.action_net.set_game(game)
        self._guess_options = {**self._guess_options, "game": game}
        self.action_space = spaces.Discrete(len(game.guesses))
        self.action_dist.action_dim = len(game.guesses)

    def set_answer_pool(self, pool: np.ndarray | None) -> None:
        """Restrict candidate features to ``pool`` (curriculum; ``None`` for every answer)."""
        for extractor in self._extractors():
            extractor.set_answer_pool(pool)

    def action_logits(self, obs: Any) -> th.Tensor:
        """Unmasked scores of every guess for a batch of (tensor) observations."""
        features = self.pi_features_extractor(obs)  # raw codes, as RawCodesPolicy hands them
        latent_pi = self.mlp_extractor.forward_actor(features)
        extractor = self.pi_features_extractor
        return self.action_net(latent_pi, extractor.guess_context, extractor.guess_split)


class MaskableGuessPolicy(GuessPolicyMixin, MaskableActorCriticPolicy, RawCodesPolicy):
    """The guess policy for sb3-contrib's ``MaskablePPO`` (masks from ``action_masks()``)."""

    def __init__(
        self,
        observation_space: spaces.Space,
        action_space: spaces.Space,
        lr_schedule: Any,
        *,
        game: Game | str | None = None,
        candidate_features: bool = True,
        candidate_prior: float = 0.0,
        guess_bias: bool = False,
        split_features: bool = False,
        split_prior: dict[str, float] | None = None,
        log_scale: int | None = None,
        **kwargs: Any,
    ) -> None:
        kwargs.update(observation_space=observation_space, action_space=action_space)
        self._init_guess(kwargs, game, candidate_features, candidate_prior, guess_bias, split_features, split_prior,
                         log_scale)
        super().__init__(lr_schedule=lr_schedule, **kwargs)


class GuessActorCriticPolicy(GuessPolicyMixin, ActorCriticPolicy, RawCodesPolicy):
    """The guess policy for stable-baselines3's ``PPO`` and ``A2C`` (no masking)."""

    def __init__(
        self,
        observation_space: spaces.Space,
        action_space: spaces.Space,
        lr_schedule: Any,
        *,
        game: Game | str | None = None,
        candidate_features: bool = True,
        candidate_prior: float = 0.0,
        guess_bias: bool = False,
        split_features: bool = False,
        split_prior: dict[str, float] | None = None,
        log_scale: int | None = None,
        **kwargs: Any,
    ) -> None:
        kwargs.update(observation_space=observation_space, action_space=action_space)
        self._init_guess(kwargs, game, candidate_features, candidate_prior, guess_bias, split_features, split_prior,
                         log_scale)
        super().__init__(lr_schedule=lr_schedule, **kwargs)


class GuessQNetwork(RawCodesPolicy):
    """A Q-network that values every guess through the shared guess encoding: ``Q(s, g) = z(s) . E[g]
    + z_c(s) * candidate(g)``, ``z`` from an MLP over :class:`GuessFeaturesExtractor`'s features
    (:class:`GuessScoringHead`, as the actor-critic policies score guesses).

    It takes the place of stable-baselines3's ``QNetwork`` (``n_quantiles=None``: one value per guess)
    and sb3-contrib's ``QuantileNetwork`` (``n_quantiles``: ``(batch, n_quantiles, guesses)``, each
    quantile its own ``z``). Nothing in it has a guess-sized dimension, so what one guess learns moves
    the values of the guesses that share its features. In hard mode the greedy choice (acting and
    evaluating) is among the guesses the rules allow (the extractor's ``guess_legal``); the values of
    the others are still learned from the penalty the environment gives them.
    """

    def __init__(self, observation_space: spaces.Space, action_space: spaces.Discrete,
                 features_extractor: BaseFeaturesExtractor, features_dim: int, net_arch: list[int] | None = None,
                 activation_fn: type[nn.Module] = nn.ReLU, normalize_images: bool = True, *,
                 game: Game, candidate_prior: float = 0.0, n_quantiles: int | None = None) -> None:
        super().__init__(observation_space, action_space, features_extractor=features_extractor,
                         normalize_images=normalize_images)
        self.net_arch = [64, 64] if net_arch is None else list(net_arch)
        self.activation_fn = activation_fn
        self.features_dim = features_dim
        self.n_quantiles = n_quantiles
        self.game = game
        self.candidate_prior = float(candidate_prior)
        self.trunk = nn.Sequential(*create_mlp(features_dim, 0, self.net_arch, activation_fn))
        latent_dim = self.net_arch[-1] if self.net_arch else features_dim
        self.head = GuessScoringHead(latent_dim, game, self.candidate_prior, n_outputs=n_quantiles or 1)

    def forward(self, obs: Any) -> th.Tensor:
        """``(batch, guesses)`` values, or ``(batch, n_quantiles, guesses)`` quantiles."""
        values: th.Tensor = self.head(*self.latent_and_context(obs))
        return values

    def latent_and_context(self, obs: Any) -> tuple[th.Tensor, th.Tensor | None]:
        """The head's inputs for ``obs``: the trunk's output and the extractor's candidate context."""
        latent: th.Tensor = self.trunk(self.extract_features(obs, self.features_extractor))
        context: th.Tensor | None = getattr(self.features_extractor, "guess_context", None)
        return latent, context

    def mean_values(self, obs: Any) -> th.Tensor:
        """``(batch, guesses)``: each guess's value (QR-DQN: the mean of its quantiles, computed in one
        pass as :meth:`GuessScoringHead.mean_scores` does)."""
        return self.head.mean_scores(*self.latent_and_context(obs))

    def guess_values(self, obs: Any, guesses: th.Tensor) -> th.Tensor:
        """The values of one guess per state: ``(batch,)``, or ``(batch, n_quantiles)``; the same numbers
        as :meth:`forward`'s at those guesses, to the bit (:meth:`GuessScoringHead.score_guesses`)."""
        return self.head.score_guesses(*self.latent_and_context(obs), guesses)

    def greedy_values(self, obs: Any) -> th.Tensor:
        """The values of each state's greedy guess (the highest mean value among all guesses, as
        QR-DQN's and DQN's targets take it): ``(batch,)``, or ``(batch, n_quantiles)``."""
        latent, context = self.latent_and_context(obs)
        greedy = self.head.mean_scores(latent, context).argmax(dim=1)
        return self.head.score_guesses(latent, context, greedy)

    def _predict(self, observation: Any, deterministic: bool = True) -> th.Tensor:
        values = self.mean_values(observation)
        legal: th.Tensor | None = getattr(self.features_extractor, "guess_legal", None)
        if legal is not None:
            values = values.masked_fill(~legal, -th.inf)
        return values.argmax(dim=1).reshape(-1)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(net_arch=self.net_arch, features_dim=self.features_dim, activation_fn=self.activation_fn,
                    features_extractor=self.features_extractor, game=self.game,
                    candidate_prior=self.candidate_prior, n_quantiles=self.n_quantiles)
        return data


class _GuessValuePolicy(_GuessOptions):
    """What the DQN and QR-DQN guess policies share: the guess options, and the features extractor
    (with hard mode's allowed guesses when the game has hard mode)."""

    #: the greedy choice is among the guesses hard mode allows (read by the benchmark's runner)
    chooses_allowed_guesses = True

    net_args: dict[str, Any]
    device: Any

    def _init_guess(self, kwargs: dict[str, Any], game: Game | str | None, candidate_features: bool,
                    candidate_prior: float) -> None:
        if "features_extractor_class" in kwargs and kwargs["features_extractor_class"] is not GuessFeaturesExtractor:
            raise ValueError("the guess Q-policies always use GuessFeaturesExtractor; leave features_extractor_class "
                             "out")
        game = resolve_policy_game(game, kwargs["observation_space"], kwargs["action_space"])
        _check_action_space(kwargs["action_space"], game)
        self._guess_options = {"game": game, "candidate_features": bool(candidate_features),
                               "candidate_prior": float(candidate_prior)}
        kwargs["features_extractor_class"] = GuessFeaturesExtractor
        kwargs["features_extractor_kwargs"] = {"game": game, "candidate_features": bool(candidate_features),
                                               "hard_mode_mask": game.hard_mode}

    def _guess_network(self, n_quantiles: int | None) -> GuessQNetwork:
        net_args = self._update_features_extractor(self.net_args, features_extractor=None)  # type: ignore[attr-defined]
        net_args.pop("n_quantiles", None)
        options = self._guess_options
        return GuessQNetwork(**net_args, game=options["game"], candidate_prior=options["candidate_prior"],
                             n_quantiles=n_quantiles).to(self.device)


class GuessQPolicy(_GuessValuePolicy, DQNMultiInputPolicy):
    """stable-baselines3's DQN policy with :class:`GuessQNetwork`s (``game``: a :class:`Game` or a
    registered id; ``candidate_prior``: the initial value bonus of a possible answer)."""

    def __init__(self, observation_space: spaces.Space, action_space: spaces.Space, lr_schedule: Any, *,
                 game: Game | str | None = None, candidate_features: bool = True, candidate_prior: float = 0.0,
                 **kwargs: Any) -> None:
        kwargs.update(observation_space=observation_space, action_space=action_space)
        self._init_guess(kwargs, game, candidate_features, candidate_prior)
        super().__init__(lr_schedule=lr_schedule, **kwargs)

    def make_q_net(self) -> GuessQNetwork:  # type: ignore[override]
        return self._guess_network(None)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return self._with_guess_options(super()._get_constructor_parameters())


class GuessQuantilePolicy(_GuessValuePolicy, QRDQNMultiInputPolicy):
    """sb3-contrib's QR-DQN policy with quantile :class:`GuessQNetwork`s (as :class:`GuessQPolicy`)."""

    def __init__(self, observation_space: spaces.Space, action_space: spaces.Space, lr_schedule: Any, *,
                 game: Game | str | None = None, candidate_features: bool = True, candidate_prior: float = 0.0,
                 **kwargs: Any) -> None:
        kwargs.update(observation_space=observation_space, action_space=action_space)
        self._init_guess(kwargs, game, candidate_features, candidate_prior)
        super().__init__(lr_schedule=lr_schedule, **kwargs)

    def make_quantile_net(self) -> GuessQNetwork:  # type: ignore[override]
        return self._guess_network(self.n_quantiles)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return self._with_guess_options(super()._get_constructor_parameters())


def count_parameters(module: nn.Module) -> int:
    """Number of trainable parameters (buffers such as the guess encoding are not counted)."""
    return sum(p.numel() for p in module.parameters() if p.requires_grad)


def default_candidate_prior(game: Game) -> float:
    """A prior that gives candidate answers most of the initial probability: ``ln(n_guesses) + 1``."""
    return math.log(max(len(game.guesses), 1)) + 1.0


__all__ = [
    "DEFAULT_NET_ARCH",
    "GuessActorCriticPolicy",
    "GuessFeaturesExtractor",
    "GuessPolicyMixin",
    "GuessQNetwork",
    "GuessQPolicy",
    "GuessQuantilePolicy",
    "GuessScoringHead",
    "RawCodesPolicy",
    "MaskableGuessPolicy",
    "SPLIT_INPUTS",
    "SPLIT_SUMMARY",
    "count_parameters",
    "default_candidate_prior",
    "resolve_policy_game",
]
