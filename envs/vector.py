"""A batched vector environment: many games of one :class:`~guessgym.envs.game.Game` stepped at once in numpy.

:class:`BatchedGuessEnv` is a :class:`gymnasium.vector.VectorEnv` with the same rules, rewards,
observations, masks and ``info`` keys as :class:`~guessgym.envs.env.GuessEnv`, but it keeps the state of
every sub-game in the engine's arrays (answers, boards, tiles, attempts, candidate lists) and
advances them together: one compiled (numba) pass reads every sub-game's feedback from the cached
pattern matrix, writes the board rows and compacts the candidate lists; infos are built with vectorised lookups
(tile strings by pattern code, guess strings by action); the vocabulary-sized masks are recycled
rather than reallocated (see :class:`~guessgym.envs.mask_pool.MaskPool`). The rules of a step are those of
:class:`~guessgym.envs.engine.GameEngine`, the same engine :class:`~guessgym.envs.env.GuessEnv` runs
with one game; this class only draws answers, builds observations and infos, and auto-resets.
That makes it more than ten times faster than
``gymnasium.make_vec(..., vectorization_mode="sync")``, which calls ``GuessEnv.step`` once per
sub-game in Python and then merges per-game info dicts key by key
(``benchmarks/bench_vector_env.py`` measures both).

Equivalence with the single environment is exact, including randomness: sub-game ``i`` owns its
own :class:`~guessgym.envs.answer_stream.AnswerStream` seeded like the ``i``-th environment of a
``SyncVectorEnv`` (``seed + i``), the stream ``GuessEnv.reset`` draws its answers from. For identical
seeds and actions, observations, rewards, terminations and infos equal those of
``gymnasium.make_vec(id, num_envs, vectorization_mode="sync")`` (``tests/envs/test_vector_env.py``).

Examples:
    >>> import numpy as np
    >>> from guessgym.envs.game import nerdle
    >>> venv = BatchedGuessEnv(3, game=nerdle(6))
    >>> obs, info = venv.reset(seed=0)
    >>> obs["board"].shape, obs["action_mask"].shape
    ((3, 36), (3, 206))
    >>> obs, reward, terminated, truncated, info = venv.step(np.array([0, 1, 2]))
    >>> info["attempt"].tolist()
    [1, 1, 1]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .answer_stream import AnswerStream
from .engine import ANSWER, ATTEMPT, COUNT, DONE, GameEngine, StepResult
from .env import EngineViews, GuessEnv, check_render_mode, observation_space
from .mask_pool import MaskPool
from .options import check_reset_options

#: Reset options understood by :meth:`BatchedGuessEnv.reset`.
RESET_OPTIONS = ("answer", "reset_mask")


class BatchedGuessEnv(EngineViews, VectorEnv):
    """``num_envs`` games of Wordle or Nerdle advanced together with numpy.

    ## Description
    The vectorised counterpart of :class:`~guessgym.envs.env.GuessEnv` (read its docstring for the rules).
    Every sub-game has the same :class:`~guessgym.envs.game.Game`; each has its own hidden answer,
    board, candidate set and random generator.

    ## Action Space
    ``single_action_space`` is ``GuessEnv``'s ``Discrete(len(guesses))``; ``action_space`` is
    ``MultiDiscrete([len(guesses)] * num_envs)``. An action outside the space raises
    ``ValueError``; hard-mode violations are rejected exactly as in ``GuessEnv``.

    ## Observation Space
    ``single_observation_space`` is ``GuessEnv``'s ``Dict(board, tiles, action_mask)``;
    observations are that dict with a leading ``num_envs`` axis. ``board`` and ``tiles`` are
    fresh arrays. ``action_mask`` is *read-only* and is the same array as ``info["action_mask"]``
    of that step: its memory is recycled once nobody holds it any more, so only the rows of games
    that started or ended are rewritten (copy it to modify it). :meth:`action_masks` returns a
    fresh writeable bool array.

    ## Rewards, Episode End
    As ``GuessEnv``. Sub-games autoreset with Gymnasium's *next-step* semantics
    (``metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP``): the step that ends a game returns
    its final observation with ``terminated=True``; the next call to :meth:`step` ignores that
    sub-game's action, starts a new game and returns its first observation with reward 0.

    ## Information
    A dict of arrays, one entry per sub-game, with the same keys as ``GuessEnv`` (``attempt``,
    ``guess``, ``tiles``, ``pattern``, ``candidates``, ``invalid_action``, ``invalid_reason``,
    ``action_mask``, and ``answer`` for the games that ended), each paired with a boolean
    ``"_key"`` array saying which sub-games carry it, exactly as ``SyncVectorEnv`` builds them.
    Strings are numpy object arrays.

    ## Arguments
    * ``num_envs``: the number of sub-games.
    * ``render_mode``: ``None``, ``"ansi"`` or ``"rgb_array"`` (:meth:`render` returns a tuple
      with one frame per sub-game).
    * every keyword argument of ``GuessEnv`` (``game`` or ``kind``/``length``/..., reward
      options, ``matrix_cache``); an unknown one raises ``TypeError`` listing the allowed ones.
    * ``track_candidates``: keep every sub-game's candidate set (default True). Needed for
      ``info["candidates"]`` and ``reward_mode="shaped"``; training with sparse rewards may turn
      it off for speed, and ``info["candidates"]`` is then ``-1``.

    ## Curriculum
    :meth:`set_answer_pool` restricts the answers that new games draw to a subset of
    ``game.answers``: each sub-game then plays the game whose answer list is that subset (its
    candidate sets and shaped reward count only pool answers). ``set_answer_pool(None)`` restores
    the full list. Running games are not disturbed.

    ## Version History
    * v1: answers from :class:`~guessgym.envs.answer_stream.AnswerStream` (matches ``GuessEnv`` v1;
      states saved by v0 cannot be restored).
    * v0: initial release (matches ``GuessEnv`` v0).
    """

    metadata = {
        "render_modes": ["ansi", "rgb_array"],
        "render_fps": 2,
        "autoreset_mode": AutoresetMode.NEXT_STEP,
    }

    #: The reset option that fixes the answers (one entry per sub-game).
    answer_option = "answer"

    def __init__(
        self, num_envs: int = 1, render_mode: str | None = None, *, track_candidates: bool = True, **options: Any
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.num_envs = int(num_envs)
        self.render_mode = render_mode
        self.engine = GameEngine.from_options(self.num_envs, track_candidates=track_candidates, **options)
        self.single_action_space = spaces.Discrete(len(self.game.guesses))
        self.single_observation_space = observation_space(self.game)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)

        self._n_guesses = len(self.game.guesses)
        self._tile_strings = np.array(self.engine.tile_strings, dtype=object)
        self._guess_strings = np.array([*self.game.guesses, ""], dtype=object)
        self._answer_strings = np.array(self.game.answers, dtype=object)
        self._autoreset = np.zeros(self.num_envs, dtype=bool)
        self._streams: list[AnswerStream | None] = [None] * self.num_envs
        self._mask_pool = MaskPool((self.num_envs, self._n_guesses))

    # ---- read-only views (and those of EngineViews) -----------------------------------------------
    @property
    def track_candidates(self) -> bool:
        return self.engine.track_candidates

    @property
    def answer_pool(self) -> np.ndarray:
        """Indices into :attr:`answers` that new games draw from (every answer by default)."""
        pool = self.engine.pool
        return np.arange(self.engine.n_answers) if pool is None else pool.copy()

    @property
    def current_answers(self) -> np.ndarray:
        """The hidden answer index of every sub-game (a copy)."""
        return self.engine.answer.copy()

    def candidate_masks(self) -> np.ndarray:
        """``(num_envs, n_answers)`` bool: answers still consistent with each sub-game's tiles."""
        masks = np.zeros((self.num_envs, self.engine.n_answers), dtype=bool)
        for i in range(self.num_envs):
            masks[i, self.engine.candidates_of(i)] = True
        return masks

    # ---- curriculum ----------------------------------------------------------------------------
    def set_answer_pool(self, pool: Sequence[int] | np.ndarray | None) -> None:
        """Make new games draw their answers from ``pool`` (indices into :attr:`answers`).

        ``None`` restores the full answer list. Games in progress keep their answer.
        """
        self.engine.set_answer_pool(None if pool is None else np.asarray(pool))

    # ---- masks ---------------------------------------------------------------------------------
    def _observation_masks(self) -> np.ndarray:
        """The masks of an observation: read-only int8, recycled (see :class:`~guessgym.envs.mask_pool.MaskPool`)."""
        engine = self.engine
        restricted = engine.game.hard_mode and any(engine.restricted(i) for i in range(self.num_envs))
        if not restricted:  # only the rows of games that ended or started since the array was last written
            return self._mask_pool.for_done(engine.status[:, DONE].astype(bool))
        slot, masks = self._mask_pool.get()
        engine.write_masks(masks)
        return self._mask_pool.publish(slot, masks, None)

    def action_masks(self) -> np.ndarray:
        """``(num_envs, n_guesses)`` bool mask of allowed actions (what MaskablePPO asks for)."""
        masks = np.empty((self.num_envs, self._n_guesses), dtype=bool)
        self.engine.write_masks(masks)
        return masks

    # ---- gymnasium vector API ------------------------------------------------------------------
    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Start new games.

        Args:
            seed: ``None`` (keep each sub-game's generator, creating it from fresh entropy the
                first time), an int (sub-game ``i`` is seeded with ``seed + i``, like
                ``SyncVectorEnv``) or a list of ``num_envs`` ints/None.
            options: ``{"answer": a}`` fixes the answer: ``a`` is a string or index used for
                every reset sub-game, or a sequence with one entry per sub-game. ``{"reset_mask":
                bool array}`` resets only the marked sub-games (the others keep playing).
        """
        if seed is not None and not isinstance(seed, (int, np.integer)):
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"a list of seeds must have num_envs={self.num_envs} entries, got {len(seeds)}")
        elif seed is None:
            seeds = [None] * self.num_envs
        else:
            seeds = [int(seed) + i for i in range(self.num_envs)]
        super().reset(seed=None if seed is None else seeds[0])
        options = check_reset_options(options, RESET_OPTIONS)
        if options.get("reset_mask") is not None:
            mask = options["reset_mask"]
            if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_ or mask.shape != (self.num_envs,):
                raise TypeError(f"options['reset_mask'] must be a bool numpy array of shape ({self.num_envs},)")
            if not mask.any():
                raise ValueError("options['reset_mask'] must select at least one sub-game")
            idx = np.flatnonzero(mask)
        else:
            idx = np.arange(self.num_envs)
        for i in idx:
            if seeds[i] is not None or self._streams[i] is None:
                self._streams[i] = AnswerStream.from_seed(seeds[i])
        answers = self._answers_option(options.get("answer"), idx)
        self.start_games(idx, answers)
        self._autoreset[idx] = False
        obs = self.observations()
        info = self._reset_infos(np.isin(np.arange(self.num_envs), idx), obs["action_mask"])
        return obs, info

    def step(
        self, actions: np.ndarray | Sequence[int]
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play one guess in every sub-game (sub-games that ended last step start anew instead)."""
        actions = self.check_actions(actions)
        resetting = self._autoreset
        if resetting.any():
            self.start_games(np.flatnonzero(resetting))
            played = self.engine.play(actions, np.flatnonzero(~resetting))
        else:
            played = self.engine.play(actions)
        truncated = np.zeros(self.num_envs, dtype=bool)
        self._autoreset = played.terminated.copy()
        obs = self.observations()
        info = self._step_infos(actions, played, resetting, obs["action_mask"])
        return obs, played.rewards, played.terminated, truncated, info

    def render(self) -> tuple[Any, ...] | None:
        """One frame per sub-game: ANSI text or an RGB array, depending on ``render_mode``."""
        if self.render_mode is None:
            gym.logger.warn("render() was called without a render_mode; pass render_mode='ansi' or 'rgb_array'")
            return None
        from .render import render_board

        return tuple(render_board(self.board_rows(i), self.game, self.render_mode) for i in range(self.num_envs))

    def board_rows(self, index: int) -> list[tuple[str, str]]:
        """The guesses played in sub-game ``index`` with their tile strings, oldest first."""
        return self.engine.board_rows(index)

    # ---- what the stable-baselines3 adapter shares -----------------------------------------------
    def check_actions(self, actions: np.ndarray | Sequence[int]) -> np.ndarray:
        """``actions`` as an int64 array of one valid index per sub-game, or a ``ValueError``."""
        arr = np.asarray(actions)
        if arr.shape != (self.num_envs,):
            arr = arr.reshape(-1) if arr.size == self.num_envs else arr
        if arr.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} actions (one per sub-game), got shape {np.shape(actions)}")
        if arr.dtype.kind not in "iu":
            if arr.dtype.kind == "f" and np.all(np.mod(arr, 1) == 0):
                arr = arr.astype(np.int64)
            else:
                raise ValueError(f"actions must be integers indexing the guesses, got dtype {arr.dtype}")
        arr = arr.astype(np.int64, copy=False)
        bad = (arr < 0) | (arr >= self._n_guesses)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"action {int(arr[i])} of sub-game {i} is outside the action space Discrete({self._n_guesses}): "
                f"expected integers 0..{self._n_guesses - 1}"
            )
        return arr

    def advance(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Play ``actions`` (already checked) in every sub-game, without autoreset: the rewards, the
        games that ended and those that were won (what a stable-baselines3 adapter needs)."""
        played = self.engine.play(actions)
        return played.rewards, played.terminated, played.patterns == self.game.solved_pattern

    def start_games(self, idx: np.ndarray, answers: np.ndarray | None = None) -> None:
        """Start new games in sub-games ``idx``, drawing answers from their streams unless given."""
        if answers is None:
            answers = np.empty(len(idx), dtype=np.int64)
            for k, i in enumerate(idx):
                stream = self._streams[i]
                if stream is None:
                    stream = self._streams[i] = AnswerStream.from_seed(None)
                answers[k] = self.engine.draw_answer(stream)
        self.engine.start(idx, answers)

    def observations(self, with_mask: bool = True) -> dict[str, np.ndarray]:
        """The observation of every sub-game (``with_mask=False`` leaves out ``action_mask``)."""
        obs = {"board": self.engine.board.copy(), "tiles": self.engine.tiles.copy()}
        if with_mask:
            obs["action_mask"] = self._observation_masks()
        return obs

    def _answers_option(self, answer: Any, idx: np.ndarray) -> np.ndarray | None:
        if answer is None:
            return None
        if isinstance(answer, (str, int, np.integer)) and not isinstance(answer, bool):
            return np.array([self.game.answer_position(answer)] * len(idx), dtype=np.int64)
        values = list(answer)
        if len(values) == self.num_envs:
            values = [values[i] for i in idx]
        elif len(values) != len(idx):
            raise ValueError(
                f"options['answer'] needs one entry per sub-game ({self.num_envs}) or per reset sub-game ({len(idx)})"
            )
        return np.array([self.game.answer_position(a) for a in values], dtype=np.int64)

    # ---- infos (dicts of arrays, as SyncVectorEnv builds them) --------------------------------
    def _reset_infos(self, present: np.ndarray, masks: np.ndarray) -> dict[str, Any]:
        n = self.num_envs
        status = self.engine.status
        info: dict[str, Any] = {
            "attempt": np.where(present, status[:, ATTEMPT], 0),
            "guess": _strings_where(present),
            "tiles": _strings_where(present),
            "pattern": np.where(present, -1, 0).astype(np.int64),
            "candidates": np.where(present, status[:, COUNT], 0),
            "invalid_action": np.zeros(n, dtype=bool),
            "invalid_reason": _strings_where(present),
            "action_mask": masks if present.all() else masks * present[:, None].astype(np.int8),
        }
        return self._with_presence(info, present)

    def _step_infos(
        self, actions: np.ndarray, played: StepResult, resetting: np.ndarray, masks: np.ndarray
    ) -> dict[str, Any]:
        n = self.num_envs
        status = self.engine.status
        patterns = played.patterns
        # both string tables end with "" so that index -1 (nothing played) reads as ""
        info: dict[str, Any] = {
            "attempt": status[:, ATTEMPT].copy(),
            "guess": self._guess_strings[np.where(patterns >= 0, actions, -1)],
            "tiles": self._tile_strings[patterns],
            "pattern": patterns,
            "candidates": status[:, COUNT].copy(),
            "invalid_action": played.invalid,
            "invalid_reason": played.reasons if played.reasons is not None else np.full(n, "", dtype=object),
            "action_mask": masks,
        }
        info = self._with_presence(info, np.ones(n, dtype=bool))
        ended = played.terminated  # the games that reset this step have not ended
        if ended.any():
            answer = np.full(n, None, dtype=object)
            answer[ended] = self._answer_strings[status[ended, ANSWER]]
            info["answer"] = answer
            info["_answer"] = ended.copy()
        return info

    @staticmethod
    def _with_presence(info: dict[str, Any], present: np.ndarray) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in info.items():
            out[key] = value
            out["_" + key] = present.copy()
        return out

    # ---- state, for checkpoints ----------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        """Everything needed to continue exactly from here (the engine's state, the generators')."""
        return {
            "engine": self.engine.get_state(),
            "autoreset": self._autoreset.copy(),
            "answer_streams": [None if s is None else s.get_state() for s in self._streams],
        }

    def set_state(self, state: dict[str, Any]) -> None:
        """Restore a state returned by :meth:`get_state` (same game and ``num_envs``)."""
        if "answer_streams" not in state:
            raise ValueError(
                "this state was saved by guessgym < 0.3 (the v0 environments, whose answers came from "
                "another random stream): it cannot be continued by the v1 environments"
            )
        self.engine.set_state(state["engine"])
        self._autoreset[:] = state["autoreset"]
        self._streams = [None if s is None else AnswerStream.restored(s) for s in state["answer_streams"]]


def _strings_where(present: np.ndarray) -> np.ndarray:
    """An object array: ``""`` where ``present``, ``None`` elsewhere (as SyncVectorEnv merges infos)."""
    out = np.full(present.shape, None, dtype=object)
    out[present] = ""
    return out


def make_batched(num_envs: int = 1, **kwargs: Any) -> BatchedGuessEnv:
    """Vector entry point for ``gymnasium.register(..., vector_entry_point="guessgym.envs.vector:make_batched")``.

    ``gymnasium.make_vec(id, num_envs, vectorization_mode="vector_entry_point")`` calls it with the
    id's keyword arguments (``kind``, ``length``, ...).
    """
    kwargs.pop("max_episode_steps", None)  # games end by their own rules
    return BatchedGuessEnv(num_envs, **kwargs)


def single_env_like(venv: BatchedGuessEnv) -> GuessEnv:
    """A :class:`GuessEnv` with the same game and reward settings as ``venv`` (for checks)."""
    return GuessEnv(**venv.engine.options())


__all__ = ["RESET_OPTIONS", "BatchedGuessEnv", "make_batched", "single_env_like"]
