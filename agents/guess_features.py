"""The guess policies' features: what the board and tiles imply, read from the observation's codes.

:class:`GuessFeaturesExtractor` (no trainable parameters) reduces the board and tiles to greens, "not
here", minimum and maximum copies of each symbol and the attempt, and with ``candidate_features`` the
exact candidate set's size and symbol frequencies (the candidates themselves are handed to the guess
head); in hard mode it can also find the guesses the rules allow. Used by every guess policy of
:mod:`guessgym.agents.policies`; the design is in the documentation's research notes
(``docs/research/policies.md``).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch.nn import functional as F

from ..envs.game import Game
from .guess_encoding import SparseSums, hard_mode_index, position_and_copy_index
from .split_features import SUMMARY as SPLIT_SUMMARY
from .split_features import SplitFeatures, check_log_scale, log_divisor


def _check_obs_space(observation_space: spaces.Space, game: Game) -> None:
    if not isinstance(observation_space, spaces.Dict) or not {"board", "tiles"} <= set(observation_space.spaces):
        raise ValueError("the guess policy needs a Dict observation with 'board' and 'tiles' (GuessEnv's)")
    cells = game.max_attempts * game.length
    board, tiles = observation_space["board"], observation_space["tiles"]
    if (
        not isinstance(board, spaces.MultiDiscrete)
        or board.shape != (cells,)
        or int(board.nvec[0]) != game.n_symbols + 1
    ):
        raise ValueError(
            f"observation 'board' does not match {game.name}: expected MultiDiscrete of {cells} cells "
            f"with {game.n_symbols + 1} values"
        )
    if not isinstance(tiles, spaces.MultiDiscrete) or tiles.shape != (cells,):
        raise ValueError(f"observation 'tiles' does not match {game.name}: expected MultiDiscrete of {cells} cells")


def resolve_policy_game(game: Any, observation_space: spaces.Space | None = None,
                        action_space: spaces.Space | None = None) -> Game:
    """The game of a policy's ``game`` keyword: a :class:`Game`; a registered id (a string, what
    rl-zoo3's hyperparameter files can hold: ``policy_kwargs: "dict(game='guessgym/MicroNerdle-v1')"``);
    or ``None``: the one game of these spaces whose environments this process made
    (:func:`~guessgym.envs.env.games_of_spaces`; rl-zoo3's Optuna samples replace ``policy_kwargs``)."""
    if isinstance(game, str):
        from ..envs.game import make_game

        return make_game(game)
    if game is None and observation_space is not None and action_space is not None:
        from ..envs.env import games_of_spaces

        found = games_of_spaces(observation_space, action_space)
        if len(found) == 1:
            return found[0]
        if found:
            raise TypeError(f"policy_kwargs has no game and several games of these spaces are in play "
                            f"({', '.join(sorted(g.name for g in found))}): give game=<id or Game>")
    if not isinstance(game, Game):
        raise TypeError("policy_kwargs must contain game=<guessgym.envs.game.Game> or a registered id such as "
                        f"'guessgym/MicroNerdle-v1' (the game the policy plays), got {game!r}")
    return game


class GuessFeaturesExtractor(BaseFeaturesExtractor):
    """Letter-knowledge and candidate features from the board and tiles (nothing trainable).

    It reads the observation's raw codes (``board`` and ``tiles``, shape ``(batch, cells)``), not
    stable-baselines3's one-hot of them: the guess policies skip that preprocessing
    (:class:`RawCodesPolicy`).

    Args:
        observation_space: ``GuessEnv``'s Dict space (the ``action_mask`` key, if present, is ignored).
        game: the game whose answers define the candidate features.
        candidate_features: add candidate-set features (and the candidate context of the head).
        split_features: add the summary of how the best guess splits the candidates.
        log_scale: the answer count whose logarithm scales the size features (``None``: the game's,
            or the answer pool's; see :class:`~guessgym.agents.split_features.SplitFeatures`).
        hard_mode_mask: in hard mode, also find the guesses the rules allow after the tiles seen
            (``guess_legal``, read by the Q-networks' greedy choice).
    """

    # Buffers (registered in __init__ / set_game; declared for type checkers, which see buffers
    # through Module.__getattr__ as "Tensor | Module").
    _k: th.Tensor
    _answer_positions: th.Tensor
    _answer_symbols: th.Tensor
    _pool: th.Tensor

    def __init__(self, observation_space: spaces.Dict, game: Game | str, candidate_features: bool = True,
                 split_features: bool = False, log_scale: int | None = None, hard_mode_mask: bool = False) -> None:
        game = resolve_policy_game(game)
        _check_obs_space(observation_space, game)
        check_log_scale(log_scale)
        self.log_scale = log_scale
        if split_features and not candidate_features:
            raise ValueError("split_features needs candidate_features: the splits are of the candidate set")
        length, n_sym, attempts = game.length, game.n_symbols, game.max_attempts
        dim = 4 * length * n_sym + attempts + 1
        if candidate_features:
            dim += length * n_sym + n_sym + 3
        if split_features:
            dim += len(SPLIT_SUMMARY)
        super().__init__(observation_space, features_dim=dim)
        self.length, self.n_symbols, self.max_attempts = length, n_sym, attempts
        self.candidate_features = candidate_features
        self.split_features = split_features
        #: split features of the last forward pass, read by the head: the features of each
        #: distinct candidate set (guesses, 8) and, per row, which set it is (B,)
        self.guess_split: tuple[list[th.Tensor], th.Tensor] | None = None
        self._splits: SplitFeatures | None = None
        self.register_buffer("_k", th.arange(1, length + 1, dtype=th.float32), persistent=False)
        #: candidate mask over answers of the last forward pass, read by the scoring head
        self.guess_context: th.Tensor | None = None
        self.hard_mode_mask = bool(hard_mode_mask)
        #: the guesses hard mode allows after each state of the last forward pass, a boolean tensor of
        #: shape ``(batch, number of guesses)``; ``None`` when not asked for or not hard mode
        self.guess_legal: th.Tensor | None = None
        self._hard_rule: SparseSums | None = None
        self.set_game(game)

    def set_game(self, game: Game) -> None:
        """Rebuild the answer encodings for ``game`` (same length, alphabet and attempts)."""
        if (game.length, game.n_symbols, game.max_attempts) != (self.length, self.n_symbols, self.max_attempts):
            raise ValueError(
                f"{game.name} has length {game.length}, {game.n_symbols} symbols and {game.max_attempts} attempts; "
                f"this network was built for {self.length}, {self.n_symbols} and {self.max_attempts}"
            )
        self.game = game
        device = self._k.device
        codes = th.as_tensor(game.answer_codes.astype(np.int64), device=device)
        pos = F.one_hot(codes, self.n_symbols).float()  # (A, L, S)
        counts = pos.sum(1)  # (A, S)
        n_ans = codes.shape[0]
        # An answer's violations of [forbidden position | needed count | count cap] are sums over its
        # position and copy columns (candidates()).
        self._answer_columns = SparseSums(position_and_copy_index(game.answer_codes, self.n_symbols),
                                          2 * self.length * self.n_symbols).to(device)
        self.register_buffer("_answer_positions", pos.reshape(n_ans, -1).contiguous(), persistent=False)
        self.register_buffer("_answer_symbols", (counts > 0).float(), persistent=False)
        self.register_buffer("_pool", th.ones(n_ans, device=device), persistent=False)
        self._log_answers = log_divisor(n_ans if self.log_scale is None else self.log_scale)
        self._splits = SplitFeatures(game, log_scale=self.log_scale) if self.split_features else None
        requirements = 2 * self.length * self.n_symbols  # green (L*S) and need (S*L)
        self._hard_rule = (SparseSums(hard_mode_index(game), requirements).to(device)
                           if self.hard_mode_mask and game.hard_mode else None)

    def set_answer_pool(self, pool: np.ndarray | None) -> None:
        """Count only ``pool`` answers (indices into ``game.answers``) as candidates; None: all."""
        weights = th.ones_like(self._pool) if pool is None else th.zeros_like(self._pool)
        if pool is not None:
            weights[th.as_tensor(np.asarray(pool, dtype=np.int64), device=weights.device)] = 1.0
        self._pool.copy_(weights)
        if self.log_scale is None:
            self._log_answers = log_divisor(int(weights.sum().item()))

    def knowledge(self, observations: dict[str, th.Tensor]) -> dict[str, th.Tensor]:
        """What the tiles imply, from the raw board and tile codes (``(B, cells)``, any number type).

        The guess policies hand the extractor the observation as the environment gives it
        (:class:`RawCodesPolicy`): one one-hot of the whole board here is a single operation,
        where stable-baselines3's preprocessing makes one per cell."""
        L, S, R = self.length, self.n_symbols, self.max_attempts
        board = F.one_hot(observations["board"].long().reshape(-1, R, L), S + 1).float()
        tiles = F.one_hot(observations["tiles"].long().reshape(-1, R, L), 4).float()
        sym = board[..., 1:]  # (B, R, L, S); empty cells are all zero
        grey, yellow, green = tiles[..., 1:2], tiles[..., 2:3], tiles[..., 3:4]
        green_at = (sym * green).amax(1)  # (B, L, S)
        not_here = (sym * (yellow + grey)).amax(1)
        revealed = (sym * (green + yellow)).sum(2)  # (B, R, S): copies shown in each row
        at_least = revealed.amax(1)  # (B, S)
        capped = (sym * grey).amax(2) > 0  # (B, R, S): the row has a grey copy
        at_most = th.where(capped, revealed, th.full_like(revealed, float(L))).amin(1)
        need = (at_least[..., None] >= self._k).float()  # (B, S, L)
        over = (at_most[..., None] < self._k).float()
        has_green = green_at.sum(-1, keepdim=True)
        forbidden = th.maximum(not_here, has_green * (1.0 - green_at))
        attempt = (tiles[..., 1:].sum((-1, -2)) > 0).sum(1)  # (B,)
        return {
            "green": green_at,
            "not_here": not_here,
            "need": need,
            "over": over,
            "forbidden": forbidden,
            "attempt": attempt,
        }

    def candidates(self, know: dict[str, th.Tensor]) -> th.Tensor:
        """``(B, n_answers)`` float 0/1: the answers consistent with every tile seen.

        An answer ``a`` shows a row's tiles exactly when (1) it has the green symbols where they
        are green and not the yellow/grey symbols where those are, and (2) for each symbol ``s``
        it has at least as many copies as the row shows green+yellow, and exactly that many if
        the row also shows a grey ``s``: under the scoring rule (greens first, then yellows
        left to right while copies remain) the number of yellow ``s`` is ``min(non-green
        copies in the guess, unmatched copies in the answer)``, and their positions follow.
        Conditions (1) and (2) over all rows are ``forbidden``, ``need`` and ``over``; a
        violation count of 0 is consistency. With ``has[s, k]`` "the answer has a (k+1)-th copy of
        s" the count is ``forbidden . position + need . (1 - has) + over . has``, that is
        ``sum(need)`` plus the sum of ``[forbidden | over - need]`` over the answer's ``2L``
        position and copy columns (small integers: exact in floating point).
        """
        batch = know["forbidden"].shape[0]
        need, over = know["need"].reshape(batch, -1), know["over"].reshape(batch, -1)
        violations = self._answer_columns(th.cat([know["forbidden"].reshape(batch, -1), over - need], 1))
        violations = violations + need.sum(1, keepdim=True)
        return (violations < 0.5).float() * self._pool

    def forward(self, observations: dict[str, th.Tensor]) -> th.Tensor:
        with th.no_grad():
            know = self.knowledge(observations)
            batch = know["green"].shape[0]
            parts = [
                know["green"].reshape(batch, -1),
                know["not_here"].reshape(batch, -1),
                know["need"].reshape(batch, -1),
                know["over"].reshape(batch, -1),
                F.one_hot(know["attempt"].long().clamp(max=self.max_attempts), self.max_attempts + 1).float(),
            ]
            if self.candidate_features:
                cand = self.candidates(know)
                n = cand.sum(1, keepdim=True).clamp(min=1.0)
                parts += [
                    (cand @ self._answer_positions) / n,
                    (cand @ self._answer_symbols) / n,
                    th.log(n) / self._log_answers,
                    1.0 / n,
                    (n <= 1.0).float(),
                ]
                self.guess_context = cand
                if self._splits is not None:
                    sets, summaries, rows = self._splits.unique_batch(cand.cpu().numpy())
                    with warnings.catch_warnings():  # the cached arrays are read-only; the head only reads them
                        warnings.filterwarnings("ignore", message="The given NumPy array is not writable")
                        tensors = [th.from_numpy(f).to(cand.device) for f in sets]
                    self.guess_split = (tensors,
                                        th.as_tensor(rows, dtype=th.long, device=cand.device))
                    parts.append(th.as_tensor(summaries, device=cand.device))  # what the best guess achieves
            else:
                self.guess_context = None
            self.guess_legal = None if self._hard_rule is None else self.allowed(know)
            return th.cat(parts, dim=1)

    def allowed(self, know: dict[str, th.Tensor]) -> th.Tensor:
        """``(B, guesses)`` bool: the guesses hard mode allows, each green kept and each revealed
        symbol used as often as revealed (:func:`~guessgym.agents.guess_encoding.hard_mode_index`)."""
        if self._hard_rule is None:
            raise RuntimeError("this extractor was not built for hard mode's allowed guesses (hard_mode_mask)")
        batch = know["green"].shape[0]
        required = th.cat([know["green"].reshape(batch, -1), know["need"].reshape(batch, -1)], 1)
        return self._hard_rule(required) > required.sum(1, keepdim=True) - 0.5


__all__ = ["GuessFeaturesExtractor", "resolve_policy_game"]
