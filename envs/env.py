"""The Gymnasium environment: one class over any :class:`~guessgym.envs.game.Game`."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, ClassVar, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..infra.deprecation import RenamedAttribute
from .answer_stream import AnswerStream
from .engine import ANSWER, ATTEMPT, COUNT, REWARD_KEYS, GameEngine, RewardConfig
from .families import EnvFamily, GameSetup
from .game import GAME_KEYS, Game, make_game, split_env_options
from .mask_pool import ConstantMasks
from .options import check_action, check_bool, check_reset_options

#: The keys of ``info`` returned by ``reset`` and ``step``; ``"answer"`` only once the game ends.
INFO_KEYS = (
    "attempt", "guess", "tiles", "pattern", "candidates", "invalid_action", "invalid_reason", "action_mask",
)
END_INFO_KEYS = ("answer",)


class EngineViews:
    """Read-only views shared by the single and the batched environment (both hold ``engine``)."""

    engine: GameEngine

    @property
    def game(self) -> Game:
        """The game every sub-game plays."""
        return self.engine.game

    @property
    def guesses(self) -> tuple[str, ...]:
        """The guess vocabulary; actions index it."""
        return self.engine.game.guesses

    @property
    def answers(self) -> tuple[str, ...]:
        """The possible answers."""
        return self.engine.game.answers

    @property
    def rewards(self) -> RewardConfig:
        """The reward settings."""
        return self.engine.rewards


class GuessEnv(EngineViews, gym.Env[dict[str, np.ndarray], int]):
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
    * ``step_penalty`` (default 0; 0 or negative, as every penalty) is added to the reward of every
      valid guess, in both modes.
    * A rejected hard-mode guess earns ``invalid_action_penalty`` (default -0.1) and nothing else.

    ## Starting State
    An empty board; the answer is drawn uniformly from a child stream of ``self.np_random``'s seed
    (:class:`~guessgym.envs.answer_stream.AnswerStream`: an action space seeded with the same value
    cannot follow it), or fixed with
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
    ``gymnasium.make("guessgym/Wordle-v1", **kwargs)`` or ``GuessEnv(render_mode, **kwargs)``:

    * ``game``: a ready :class:`~guessgym.envs.game.Game`; otherwise one is built from
    * ``kind`` (``"wordle"``/``"nerdle"``), ``length``, ``word_list`` (Wordle preset),
      ``answers``, ``guesses`` (lists, paths, or for Nerdle ``"answers"``/``"all"``),
      ``max_attempts``, ``hard_mode``, ``commutative`` (Nerdle: a rearranged answer wins; see
      :func:`~guessgym.envs.game.make_game`);
    * ``reward_mode``, ``win_reward``, ``loss_reward``, ``step_penalty``,
      ``invalid_action_penalty``: see Rewards (:class:`~guessgym.envs.engine.RewardConfig`);
    * ``matrix_cache``: keep pattern matrices in the disk cache (default True).

    An unknown argument raises ``TypeError`` listing the allowed ones.

    ## Implementation
    The rules of a step live in :class:`~guessgym.envs.engine.GameEngine`, which this class runs
    with one game; :class:`~guessgym.envs.vector.BatchedGuessEnv` runs the same engine with many.
    The observation's ``action_mask`` and ``info["action_mask"]`` are one read-only array per step,
    whose memory is reused once nobody holds it (:mod:`~guessgym.envs.mask_pool`); answers come
    from :class:`~guessgym.envs.answer_stream.AnswerStream`.

    ## Version History
    * v1: answers of ``reset`` without ``options["answer"]`` come from a child stream of the seed
      (:class:`~guessgym.envs.answer_stream.AnswerStream`). In v0 they were
      ``np_random.integers(n)``, the very call ``Discrete.sample()`` makes: with
      ``env.reset(seed=s); env.action_space.seed(s)`` and a guess list that starts with the
      answers (Nerdle), a random agent guessed the answer first time, in every episode. Episodes
      with a fixed answer, and so every evaluation over an answer list, are unchanged. The
      observation's ``action_mask`` is read-only (its memory is reused when nobody holds it).
    * v0: initial release.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2}
    #: The description of this kind of game (:mod:`guessgym.envs.families`).
    family: ClassVar[EnvFamily]
    #: Deprecated name of :attr:`family` (until 0.3).
    kind = RenamedAttribute("family")

    def __init__(self, render_mode: str | None = None, **options: Any) -> None:
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.render_mode = render_mode
        self.engine = GameEngine.from_options(1, **options)
        # Gymnasium types Discrete as a Space[np.int64] and Dict as a Space[dict[str, Any]]: the
        # actions are ints and the observations dicts of arrays all the same.
        self.action_space = spaces.Discrete(len(self.game.guesses))  # type: ignore[assignment]
        self.observation_space = observation_space(self.game)  # type: ignore[assignment]
        self._status = self.engine.status[0]  # a view: (answer, attempt, done, candidates)
        self._board = self.engine.board[0]
        self._tiles = self.engine.tiles[0]
        self._n_guesses = len(self.game.guesses)
        self._tile_strings = self.engine.tile_strings
        self._guesses = self.game.guesses
        self._answer_stream: AnswerStream | None = None
        self._masks = ConstantMasks(self._n_guesses)
        self._hard_mode = self.game.hard_mode

    # ---- public read-only views (and those of EngineViews) -------------------------------------
    @property
    def matrix_cache(self) -> bool:
        return self.engine.matrix_cache

    @property
    def history(self) -> list[tuple[int, int]]:
        """(action, pattern) of every valid guess so far (a copy)."""
        return self.engine.history_of(0)

    @property
    def candidates(self) -> np.ndarray:
        """Indices into :attr:`answers` still consistent with the tiles (a copy)."""
        return self.engine.candidates_of(0)

    # ---- masks -----------------------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """Boolean mask of allowed actions (the method sb3-contrib's MaskablePPO calls)."""
        return self.engine.mask(0).astype(bool)

    # ---- gymnasium API -----------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        answer = None
        options = check_reset_options(options, ("answer",))
        if options:
            if options.get("answer") is not None:
                answer = self.game.answer_position(options["answer"])
        if answer is None:
            stream = self._answer_stream
            if seed is not None or stream is None or stream.source is not self.np_random:
                stream = self._answer_stream = AnswerStream.from_generator(self.np_random)
            answer = self.engine.draw_answer(stream)
        self.engine.start_one(0, answer)
        mask = self._masks.get(False)
        obs = {"board": self._board.copy(), "tiles": self._tiles.copy(), "action_mask": mask}
        info = self._info("", -1, 0, int(self._status[COUNT]), "", mask)
        if self.render_mode == "human":
            self.render()
        return obs, info

    def step(self, action: int) -> tuple[dict[str, np.ndarray], SupportsFloat, bool, bool, dict[str, Any]]:
        if type(action) is not int or not 0 <= action < self._n_guesses:
            action = check_action(action, self._n_guesses,
                                  "env.unwrapped.guesses (use the TextGuess wrapper to play words)")
        try:
            reward, terminated, pattern, attempt, count, reason = self.engine.play_one(0, action)
        except RuntimeError:
            if self._status[ATTEMPT] == 0:
                raise RuntimeError("step() was called before reset(); call reset() to start a game") from None
            raise RuntimeError("step() was called after the game ended; call reset() to start a new game") from None
        mask = self._mask(terminated) if self._hard_mode else self._masks.get(terminated)
        obs = {"board": self._board.copy(), "tiles": self._tiles.copy(), "action_mask": mask}
        if reason is not None:
            return obs, reward, False, False, self._info("", -1, attempt, count, reason, mask)
        info = self._info(self._guesses[action], pattern, attempt, count, "", mask)
        if terminated:
            info["answer"] = self.game.answers[self._status[ANSWER]]
        if self.render_mode == "human":
            self.render()
        return obs, reward, terminated, False, info

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gym.logger.warn(
                "render() was called without a render_mode; pass render_mode='ansi', 'human' or 'rgb_array'"
            )
            return None
        from . import render as rendering

        frame = rendering.render_board(self.board_rows(), self.game, self.render_mode)
        if self.render_mode == "human":
            print(frame, flush=True)
            return None
        return frame

    # ---- helpers -------------------------------------------------------------------------------
    def board_rows(self) -> list[tuple[str, str]]:
        """The played guesses with their tile strings, oldest first."""
        return self.engine.board_rows(0)

    def _mask(self, ended: bool) -> np.ndarray:
        """The observation mask: read-only, recycled when unheld (see :mod:`~guessgym.envs.mask_pool`)."""
        if not ended and self.engine.restricted(0):
            return self.engine.mask(0, False)  # a fresh array while hard mode restricts the guesses
        return self._masks.get(ended)

    def _info(
        self, guess: str, pattern: int, attempt: int, count: int, reason: str, mask: np.ndarray
    ) -> dict[str, Any]:
        return {
            "attempt": attempt,
            "guess": guess,
            "tiles": self._tile_strings[pattern],
            "pattern": pattern,
            "candidates": count,
            "invalid_action": bool(reason),
            "invalid_reason": reason,
            "action_mask": mask,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        # views into the engine's arrays are unpickled as copies: point them at the engine again
        self._status = self.engine.status[0]
        self._board = self.engine.board[0]
        self._tiles = self.engine.tiles[0]


class PlainFamily(EnvFamily):
    """Single-board Wordle and Nerdle: the evaluation plays each chosen answer once."""

    name = "plain"
    description = "single-board Wordle and Nerdle ids (guessgym/Wordle-v1, guessgym/Nerdle-v1, ...)"
    fixed_answer = True

    def resolve(self, env_id: str, env_kwargs: dict[str, Any] | None = None,
                max_attempts: int | None = None) -> GameSetup:
        env_kwargs = dict(env_kwargs or {})
        options = self._common_options(env_kwargs)
        game_kwargs, rest = split_env_options(env_kwargs)
        extra = sorted(set(rest) - {"matrix_cache", "render_mode", *REWARD_KEYS})
        if extra:
            raise ValueError(f"bad keyword arguments for {env_id}: unknown {extra}; allowed: {', '.join(GAME_KEYS)}, "
                             f"{', '.join(REWARD_KEYS)}, matrix_cache")
        try:
            game = make_game(env_id, **game_kwargs)
        except TypeError as exc:
            raise ValueError(f"bad keyword arguments for {env_id}: {exc}") from exc
        return self.setup(game, env_id, options, max_attempts)

    def setup(self, game: Game, env_id: str | None, env_options: dict[str, Any],
              max_attempts: int | None = None) -> GameSetup:
        """The setup of a ready game (given directly, or as an env object's)."""
        if max_attempts is not None and max_attempts != game.max_attempts:
            if int(max_attempts) < 1:
                raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
            game = game.replace(max_attempts=int(max_attempts))
        return GameSetup(self, game, env_id, env_options, label=game.name, max_attempts=game.max_attempts)

    @staticmethod
    def _common_options(env_kwargs: dict[str, Any]) -> dict[str, Any]:
        """``matrix_cache`` as the env option; reward options are checked (they play no part)."""
        options: dict[str, Any] = {}
        if "matrix_cache" in env_kwargs:
            options["matrix_cache"] = check_bool("matrix_cache", env_kwargs["matrix_cache"])
        RewardConfig(**{k: v for k, v in env_kwargs.items() if k in REWARD_KEYS})
        return options

    def make_env(self, setup: GameSetup) -> GuessEnv:
        return GuessEnv(game=setup.game, **setup.env_options)

    def outcome(self, env: gym.Env[Any, Any], index: int, info: dict[str, Any],
                played: list[str]) -> tuple[str, int, bool]:
        game: Game = env.unwrapped.game  # type: ignore[attr-defined]
        return game.answers[index], len(played), int(info["pattern"]) == game.solved_pattern


GuessEnv.family = PlainFamily()


#: The games whose observation spaces this process built most recently, by the spaces' shapes and the
#: game (:func:`games_of_spaces`); bounded, as a run of randomised games builds thousands.
_BUILT: OrderedDict[tuple[tuple[int, int, int], str, bool, int], Game] = OrderedDict()
MAX_BUILT_GAMES = 64


def observation_space(game: Game) -> spaces.Dict:
    """The observation space of one game (shared by :class:`GuessEnv` and the batched vector env)."""
    cells = game.max_attempts * game.length
    key = ((cells, game.n_symbols + 1, len(game.guesses)), game.fingerprint, game.hard_mode, game.max_attempts)
    _BUILT[key] = game
    _BUILT.move_to_end(key)
    while len(_BUILT) > MAX_BUILT_GAMES:
        _BUILT.popitem(last=False)
    return spaces.Dict(
        {
            "board": spaces.MultiDiscrete(np.full(cells, game.n_symbols + 1, dtype=np.int64)),
            "tiles": spaces.MultiDiscrete(np.full(cells, 4, dtype=np.int64)),
            "action_mask": spaces.MultiBinary(len(game.guesses)),
        }
    )


def games_of_spaces(observation: spaces.Space, action: spaces.Space) -> list[Game]:
    """The games this process built environments (or observation spaces) of with these spaces: how a
    guess policy given no ``game`` finds the one it plays (rl-zoo3's Optuna search replaces the
    hyperparameter file's ``policy_kwargs`` with its samples, ``game`` included)."""
    if not isinstance(observation, spaces.Dict) or not isinstance(action, spaces.Discrete):
        return []
    board = observation.spaces.get("board")
    if not isinstance(board, spaces.MultiDiscrete) or board.shape is None or len(board.nvec) == 0:
        return []
    shape = (int(board.shape[0]), int(board.nvec[0]), int(action.n))
    return [game for key, game in _BUILT.items() if key[0] == shape]


def check_render_mode(render_mode: str | None, allowed: list[str]) -> None:
    """Raise ``ValueError`` unless ``render_mode`` is ``None`` or one of ``allowed``."""
    if render_mode is not None and render_mode not in allowed:
        raise ValueError(f"render_mode {render_mode!r} is not supported; choose one of {allowed} or None")


__all__ = ["END_INFO_KEYS", "INFO_KEYS", "EngineViews", "GuessEnv", "PlainFamily", "check_render_mode",
           "games_of_spaces", "observation_space"]
