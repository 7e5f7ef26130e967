"""The Gymnasium environment: one class over any :class:`~guessgym.envs.game.Game`."""

from __future__ import annotations

import math
from typing import Any, Literal, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .candidates import HardModeRule
from .game import Game, make_game
from .matrix import PatternMatrix
from .scoring import GREEN, YELLOW, pattern_to_list, pattern_to_tiles

RewardMode = Literal["sparse", "shaped"]

#: The keys of ``info`` returned by ``reset`` and ``step``; ``"answer"`` only once the game ends.
INFO_KEYS = (
    "attempt", "guess", "tiles", "pattern", "candidates", "invalid_action", "invalid_reason", "action_mask",
)
END_INFO_KEYS = ("answer",)


class GuessEnv(gym.Env[dict[str, np.ndarray], int]):
    """Wordle or Nerdle as a Gymnasium environment.

    ## Description
    A hidden answer is drawn from the game's answer list. Each step plays one guess from the
    game's guess list and reveals its tiles: green (right symbol, right place), yellow/purple (in
    the answer elsewhere) or grey/black (not in the answer, or no further copy of it: greens are
    marked first, then copies left to right while the answer still has unmatched ones). The game
    is won when every tile is green, and lost after ``max_attempts`` guesses.

    ## Action Space
    ``Discrete(len(guesses))``: action ``i`` plays ``env.unwrapped.guesses[i]``. An action outside
    the space raises ``ValueError``. In hard mode a guess that ignores revealed hints is rejected:
    it does not use an attempt, earns ``invalid_action_penalty`` and sets
    ``info["invalid_action"]``. Use :meth:`action_masks` (sb3-contrib), ``info["action_mask"]``
    or the observation's ``action_mask`` to avoid them; all three come from one function.

    ## Observation Space
    A flat ``Dict``:

    * ``"board"``: ``MultiDiscrete([len(alphabet) + 1] * (max_attempts * length))``, row-major
      (attempt, position); 0 is an empty cell, ``k + 1`` is ``alphabet[k]``.
    * ``"tiles"``: ``MultiDiscrete([4] * (max_attempts * length))``; 0 empty, 1 grey, 2 yellow,
      3 green.
    * ``"action_mask"``: ``MultiBinary(len(guesses))`` (int8), 1 where the guess is allowed.

    ## Rewards
    * ``reward_mode="sparse"`` (default): ``win_reward`` (1.0) for the winning guess, ``loss_reward``
      (0.0) for the last guess of a lost game, 0 otherwise.
    * ``reward_mode="shaped"``: in addition, every valid guess earns the fraction of information
      it revealed, ``(ln|C_before| - ln|C_after|) / ln|answers|`` where ``C`` is the set of
      answers still consistent with the tiles; over a won game these add up to 1.
    * ``step_penalty`` (default 0) is subtracted for every valid guess, in both modes.
    * A rejected hard-mode guess earns ``invalid_action_penalty`` (default -0.1) and nothing else.

    ## Starting State
    An empty board; the answer is drawn uniformly with ``self.np_random``, or fixed with
    ``reset(options={"answer": "crane"})`` (a string or an index into ``env.unwrapped.answers``).

    ## Episode End
    ``terminated`` is True when the guess is all green or the attempts are used up. ``truncated``
    is always False: the game ends by its own rules, a time limit is a wrapper's business.
    Calling ``step`` after the end raises ``RuntimeError``.

    ## Information
    * ``"attempt"`` (int): guesses used so far.
    * ``"guess"`` (str): the last guess played (``""`` after reset or an invalid action).
    * ``"tiles"`` (str): its tiles, ``G`` green, ``Y`` yellow, ``B`` grey (``""`` if none).
    * ``"pattern"`` (int): the same tiles as a base-3 pattern (``-1`` if none).
    * ``"candidates"`` (int): how many answers are still consistent with every tile seen.
    * ``"invalid_action"`` (bool): whether this step's action was rejected (hard mode).
    * ``"invalid_reason"`` (str): why it was rejected, ``""`` otherwise.
    * ``"action_mask"`` (int8 array): which guesses are allowed next.
    * ``"answer"`` (str): the hidden answer, only once the game has ended.

    ## Arguments
    ``gymnasium.make("guessgym/Wordle-v0", **kwargs)`` or ``GuessEnv(render_mode, **kwargs)``:

    * ``game``: a ready :class:`~guessgym.envs.game.Game`; otherwise one is built from
    * ``kind`` (``"wordle"``/``"nerdle"``), ``length``, ``word_list`` (Wordle preset),
      ``answers``, ``guesses`` (lists, paths, or for Nerdle ``"answers"``/``"all"``),
      ``max_attempts``, ``hard_mode``;
    * ``reward_mode``, ``win_reward``, ``loss_reward``, ``step_penalty``,
      ``invalid_action_penalty``: see Rewards;
    * ``matrix_cache``: keep pattern matrices in the disk cache (default True).

    ## Version History
    * v0: initial release.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        render_mode: str | None = None,
        *,
        game: Game | None = None,
        kind: str = "wordle",
        length: int | None = None,
        word_list: str | None = None,
        answers: Any = None,
        guesses: Any = None,
        max_attempts: int = 6,
        hard_mode: bool = False,
        reward_mode: RewardMode = "sparse",
        win_reward: float = 1.0,
        loss_reward: float = 0.0,
        step_penalty: float = 0.0,
        invalid_action_penalty: float = -0.1,
        matrix_cache: bool = True,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode {render_mode!r} is not supported; choose one of {self.metadata['render_modes']} or None"
            )
        check_reward_mode(reward_mode)
        self.render_mode = render_mode
        self.game = game if game is not None else make_game(
            kind=kind, length=length, word_list=word_list, answers=answers, guesses=guesses,
            max_attempts=max_attempts, hard_mode=hard_mode,
        )
        self.reward_mode: RewardMode = reward_mode
        self.win_reward = float(win_reward)
        self.loss_reward = float(loss_reward)
        self.step_penalty = float(step_penalty)
        self.invalid_action_penalty = float(invalid_action_penalty)
        self.matrix_cache = matrix_cache
        self.matrix = PatternMatrix.for_game(self.game, cache=matrix_cache)

        g = self.game
        cells = g.max_attempts * g.length
        self.action_space = spaces.Discrete(len(g.guesses))
        self.observation_space = observation_space(g)
        self._board = np.zeros(cells, dtype=np.int64)
        self._tiles = np.zeros(cells, dtype=np.int64)
        self._all_allowed = np.ones(len(g.guesses), dtype=np.int8)
        self._log_answers = math.log(len(g.answers)) if len(g.answers) > 1 else 1.0
        self._answer = 0
        self._attempt = 0
        self._done = True
        self._candidates = np.arange(len(g.answers), dtype=np.int64)
        self._hard: HardModeRule | None = None
        self._history: list[tuple[int, int]] = []

    # ---- public read-only views ---------------------------------------------------------------
    @property
    def guesses(self) -> tuple[str, ...]:
        """The guess vocabulary; actions index it."""
        return self.game.guesses

    @property
    def answers(self) -> tuple[str, ...]:
        """The possible answers."""
        return self.game.answers

    @property
    def history(self) -> list[tuple[int, int]]:
        """(action, pattern) of every valid guess so far (a copy)."""
        return list(self._history)

    @property
    def candidates(self) -> np.ndarray:
        """Indices into :attr:`answers` still consistent with the tiles (a copy)."""
        return self._candidates.copy()

    # ---- masks -----------------------------------------------------------------------------------
    def _mask(self) -> np.ndarray:
        if self._done:
            return np.zeros(len(self.game.guesses), dtype=np.int8)
        if self._hard is None or not self._hard.active:
            return self._all_allowed.copy()
        return self._hard.legal_mask().astype(np.int8)

    def action_masks(self) -> np.ndarray:
        """Boolean mask of allowed actions (the method sb3-contrib's MaskablePPO calls)."""
        return self._mask().astype(bool)

    # ---- gymnasium API -----------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        options = options or {}
        unknown = set(options) - {"answer"}
        if unknown:
            raise ValueError(f"unknown reset option(s) {sorted(unknown)}; supported: 'answer'")
        if options.get("answer") is not None:
            self._answer = self._answer_index(options["answer"])
        else:
            self._answer = int(self.np_random.integers(len(self.game.answers)))
        self._board[:] = 0
        self._tiles[:] = 0
        self._attempt = 0
        self._done = False
        self._candidates = np.arange(len(self.game.answers), dtype=np.int64)
        self._hard = HardModeRule(self.game) if self.game.hard_mode else None
        self._history = []
        obs, info = self._observation(), self._info("", -1, False, "")
        if self.render_mode == "human":
            self.render()
        return obs, info

    def step(self, action: int) -> tuple[dict[str, np.ndarray], SupportsFloat, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError("step() was called after the game ended; call reset() to start a new game")
        a = self._check_action(action)
        if self._hard is not None:
            reason = self._hard.violation(a) if not self._hard.legal_mask()[a] else None
            if reason is not None:
                info = self._info("", -1, True, f"hard mode: {self.game.guesses[a]!r} is not allowed: {reason}")
                return self._observation(), self.invalid_action_penalty, False, False, info

        pattern = self.matrix.pattern(a, self._answer)
        row = self._attempt * self.game.length
        codes = self.game.guess_codes[a]
        self._board[row : row + self.game.length] = codes.astype(np.int64) + 1
        self._tiles[row : row + self.game.length] = np.asarray(pattern_to_list(pattern, self.game.length)) + 1
        before = len(self._candidates)
        self._candidates = self._candidates[self.matrix.row(a)[self._candidates] == pattern]
        if self._hard is not None:
            self._hard.add(a, pattern)
        self._history.append((a, pattern))
        self._attempt += 1

        won = pattern == self.game.solved_pattern
        terminated = won or self._attempt >= self.game.max_attempts
        reward = 0.0 - self.step_penalty
        if self.reward_mode == "shaped":
            reward += (math.log(before) - math.log(max(len(self._candidates), 1))) / self._log_answers
        if won:
            reward += self.win_reward
        elif terminated:
            reward += self.loss_reward
        self._done = terminated
        info = self._info(self.game.guesses[a], pattern, False, "")
        if self.render_mode == "human":
            self.render()
        return self._observation(), float(reward), bool(terminated), False, info

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gym.logger.warn(
                "render() was called without a render_mode; pass render_mode='ansi', 'human' or 'rgb_array'"
            )
            return None
        from . import render as rendering

        rows = self.board_rows()
        if self.render_mode == "rgb_array":
            return rendering.board_image(rows, self.game.length, self.game.max_attempts, self.game.kind)
        text = rendering.board_ansi(rows, self.game.length, self.game.max_attempts, self.game.kind)
        if self.render_mode == "human":
            print(text, flush=True)
            return None
        return text

    # ---- helpers -------------------------------------------------------------------------------
    def board_rows(self) -> list[tuple[str, str]]:
        """The played guesses with their tile strings, oldest first."""
        return [(self.game.guesses[a], pattern_to_tiles(p, self.game.length)) for a, p in self._history]

    def _answer_index(self, answer: int | str) -> int:
        if isinstance(answer, (int, np.integer)) and not isinstance(answer, bool):
            if not 0 <= int(answer) < len(self.game.answers):
                raise ValueError(
                    f"answer index {answer} is out of range; expected 0..{len(self.game.answers) - 1}"
                )
            return int(answer)
        if isinstance(answer, str):
            key = self.game.normalize_guess(answer)
            if key not in self.game.answer_index:
                raise ValueError(
                    f"answer {answer!r} is not in this game's answer list ({len(self.game.answers)} answers)"
                )
            return self.game.answer_index[key]
        raise TypeError(f"answer must be a string or an int index, got {type(answer).__name__}")

    def _check_action(self, action: Any) -> int:
        n = len(self.game.guesses)
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        if isinstance(action, (int, np.integer)) and not isinstance(action, bool) and 0 <= action < n:
            return int(action)
        raise ValueError(
            f"action {action!r} is outside the action space Discrete({n}): expected an integer 0..{n - 1} "
            "indexing env.unwrapped.guesses (use the TextGuess wrapper to play words)"
        )

    def _observation(self) -> dict[str, np.ndarray]:
        return {"board": self._board.copy(), "tiles": self._tiles.copy(), "action_mask": self._mask()}

    def _info(self, guess: str, pattern: int, invalid: bool, reason: str) -> dict[str, Any]:
        info: dict[str, Any] = {
            "attempt": self._attempt,
            "guess": guess,
            "tiles": pattern_to_tiles(pattern, self.game.length) if pattern >= 0 else "",
            "pattern": int(pattern),
            "candidates": int(len(self._candidates)),
            "invalid_action": invalid,
            "invalid_reason": reason,
            "action_mask": self._mask(),
        }
        if self._done:
            info["answer"] = self.game.answers[self._answer]
        return info

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["matrix"] = None  # rebuilt (from the disk cache) on unpickling
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.matrix = PatternMatrix.for_game(self.game, cache=self.matrix_cache)


def observation_space(game: Game) -> spaces.Dict:
    """The observation space of one game (shared by :class:`GuessEnv` and the batched vector env)."""
    cells = game.max_attempts * game.length
    return spaces.Dict(
        {
            "board": spaces.MultiDiscrete(np.full(cells, game.n_symbols + 1, dtype=np.int64)),
            "tiles": spaces.MultiDiscrete(np.full(cells, 4, dtype=np.int64)),
            "action_mask": spaces.MultiBinary(len(game.guesses)),
        }
    )


def check_reward_mode(reward_mode: str) -> None:
    """Raise ``ValueError`` unless ``reward_mode`` is one the environments implement."""
    if reward_mode not in ("sparse", "shaped"):
        raise ValueError(f"reward_mode must be 'sparse' or 'shaped', got {reward_mode!r}")


__all__ = [
    "END_INFO_KEYS", "GREEN", "INFO_KEYS", "YELLOW", "GuessEnv", "check_reward_mode", "make_game", "observation_space",
]
