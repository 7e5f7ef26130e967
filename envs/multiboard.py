"""Multi-board games (Dordle, Quordle, Octordle, Sedecordle, multi-board Nerdle): one guess scored
on every unsolved board."""

from __future__ import annotations

from typing import Any, ClassVar, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..infra.deprecation import RenamedAttribute
from .answer_stream import AnswerStream
from .engine import COUNT, GameEngine
from .env import check_render_mode
from .families import EnvFamily, GameSetup, registered_kwargs, take_cache_option
from .game import GAME_KEYS, Game
from .mask_pool import ConstantMasks
from .options import check_action, check_can_step, check_int, check_number, check_penalty, check_reset_options

#: The real games' numbers of boards and attempts (attempts = boards + 5 for all of them).
MULTIBOARD_DEFAULTS = {2: 7, 4: 9, 8: 13, 16: 21}


def default_attempts(boards: int) -> int:
    """The attempts of a game of ``boards`` boards: ``boards + 5`` (Dordle 7, Quordle 9, Octordle
    13, Sedecordle 21)."""
    return boards + 5


def draw_distinct_answers(engine: GameEngine, stream: AnswerStream, boards: int) -> np.ndarray:
    """``boards`` distinct answers drawn from ``stream`` in turn (a repeat is drawn again)."""
    drawn: list[int] = []
    while len(drawn) < boards:
        a = engine.draw_answer(stream)
        if a not in drawn:
            drawn.append(a)
    return np.array(drawn, dtype=np.int64)


class MultiBoardEnv(gym.Env[dict[str, np.ndarray], int]):
    """K boards of one game, each with its own hidden answer, played with one guess at a time.

    ## Description
    ``boards`` distinct answers are drawn from the game's answer list. Each step plays one guess
    on every board not yet solved, and reveals each of those boards' tiles by the game's own rule
    (:class:`~guessgym.envs.env.GuessEnv`'s: greens first, then yellows left to right while copies
    remain). A board is solved when its tiles are all green and receives no further guess. The
    game is won when every board is solved, and lost when the attempts run out first.

    ## Action Space
    ``Discrete(len(guesses))``, as in ``GuessEnv``. Every guess of the list is allowed at every
    step (hard mode is not defined across boards).

    ## Observation Space
    A flat ``Dict``:

    * ``"board"``: ``MultiDiscrete([len(alphabet) + 1] * (boards * max_attempts * length))``:
      board by board, row by row, the symbols of the guesses that board received (0 empty; a
      solved board's rows stop at its winning guess);
    * ``"tiles"``: ``MultiDiscrete([4] * (boards * max_attempts * length))``: 0 empty, 1 grey,
      2 yellow, 3 green, in the same layout;
    * ``"solved"``: ``MultiBinary(boards)``;
    * ``"action_mask"``: ``MultiBinary(len(guesses))`` (all ones while the game runs).

    ## Rewards
    ``win_reward`` (1.0) when the last board is solved, ``loss_reward`` (0.0) when the attempts run
    out, ``board_reward`` (0.0) for each board a guess solves (shaping; the winning guess earns it
    too), plus ``step_penalty`` (0.0, or negative: every penalty is added) per guess.

    ## Starting State
    Empty boards; the answers are drawn without repetition from a child stream of the seed (as
    ``GuessEnv``'s), or fixed with ``reset(options={"answers": [...]})`` (``boards`` distinct
    answers, strings or indices).

    ## Episode End
    ``terminated`` when every board is solved or the attempts are used up; ``truncated`` is always
    False. ``step`` after the end raises ``RuntimeError``.

    ## Information
    * ``"attempt"``: guesses played; ``"guess"``: the last one;
    * ``"tiles"``: the tile string of the last guess on each board (``""`` for a board that was
      already solved), ``"patterns"``: the same as pattern codes (-1);
    * ``"candidates"``: answers still consistent with each board's tiles;
    * ``"solved"``: which boards are solved; ``"action_mask"``;
    * ``"answers"``: the hidden answers, once the game has ended.

    ## Arguments
    ``boards`` (2 to 32; default 4), ``max_attempts`` (default ``boards + 5``; a ready ``game``
    keeps its own unless given), the game's arguments (``game``, or ``kind``, ``length``,
    ``word_list``, ``answers``, ``guesses``), ``win_reward``,
    ``loss_reward``, ``board_reward``, ``step_penalty``, ``matrix_cache``. More boards than
    answers, or ``hard_mode=True``, is a ``ValueError``.

    ## Version History
    * v0: initial release; the ``rgb_array`` render mode came later and changes nothing else.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}
    #: The description of this kind of game (:mod:`guessgym.envs.families`).
    family: ClassVar[EnvFamily]
    #: Deprecated name of :attr:`family` (until 0.3).
    kind = RenamedAttribute("family")

    def __init__(self, render_mode: str | None = None, *, boards: int = 4, max_attempts: int | None = None,
                 board_reward: float = 0.0, win_reward: float = 1.0, loss_reward: float = 0.0,
                 step_penalty: float = 0.0, **options: Any) -> None:
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.render_mode = render_mode
        self.boards = check_int("boards", boards, minimum=2, maximum=32)
        game = options.get("game")
        if max_attempts is not None:
            attempts = check_int("max_attempts", max_attempts, minimum=1)
        elif isinstance(game, Game):
            attempts = game.max_attempts  # a ready game keeps its own limit
        else:
            attempts = default_attempts(self.boards)
        if isinstance(game, Game) and game.max_attempts != attempts:
            options["game"] = game.replace(max_attempts=attempts)
        if options.get("hard_mode") or (isinstance(game, Game) and game.hard_mode):
            raise ValueError("hard mode is not defined for multi-board games (each board would constrain the "
                             "same guess); play hard mode on the single-board ids")
        self.rewards = {name: check_number(name, value) for name, value in (
            ("board_reward", board_reward), ("win_reward", win_reward), ("loss_reward", loss_reward))}
        self.rewards["step_penalty"] = check_penalty("step_penalty", step_penalty)
        self.engine = GameEngine.from_options(self.boards, max_attempts=attempts, **options)
        self.game: Game = self.engine.game
        if len(self.game.answers) < self.boards:
            raise ValueError(f"{self.boards} boards need {self.boards} distinct answers; {self.game.name} has "
                             f"{len(self.game.answers)}")
        n_guesses, cells = len(self.game.guesses), self.boards * attempts * self.game.length
        self.action_space = spaces.Discrete(n_guesses)  # type: ignore[assignment]
        self.observation_space = spaces.Dict({  # type: ignore[assignment]
            "board": spaces.MultiDiscrete(np.full(cells, self.game.n_symbols + 1, dtype=np.int64)),
            "tiles": spaces.MultiDiscrete(np.full(cells, 4, dtype=np.int64)),
            "solved": spaces.MultiBinary(self.boards),
            "action_mask": spaces.MultiBinary(n_guesses),
        })
        self._solved = np.zeros(self.boards, dtype=np.int8)
        self._attempt = 0
        self._done = True
        self._started = False
        self._answer_stream: AnswerStream | None = None
        self._masks = ConstantMasks(n_guesses)

    # ---- gymnasium API ----------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        answers = None
        options = check_reset_options(options, ("answers",))
        if options:
            if options.get("answers") is not None:
                answers = self._check_answers(options["answers"])
        if answers is None:
            stream = self._answer_stream
            if seed is not None or stream is None or stream.source is not self.np_random:
                stream = self._answer_stream = AnswerStream.from_generator(self.np_random)
            answers = draw_distinct_answers(self.engine, stream, self.boards)
        self.engine.start(np.arange(self.boards), answers)
        self._solved[:] = 0
        self._attempt = 0
        self._done = False
        self._started = True
        return self._observation_and_info("", np.full(self.boards, -1, dtype=np.int64))

    def step(self, action: int) -> tuple[dict[str, np.ndarray], SupportsFloat, bool, bool, dict[str, Any]]:
        check_can_step(self._done, self._started)
        action = check_action(action, len(self.game.guesses))
        playing = np.flatnonzero(self._solved == 0)
        result = self.engine.play(np.full(self.boards, action, dtype=np.int64), playing)
        self._attempt += 1
        newly = playing[result.patterns[playing] == self.game.solved_pattern]
        self._solved[newly] = 1
        won = bool(self._solved.all())
        lost = not won and self._attempt >= self.engine.game.max_attempts
        reward = self.rewards["board_reward"] * len(newly) + self.rewards["step_penalty"]
        if won:
            reward += self.rewards["win_reward"]
        elif lost:
            reward += self.rewards["loss_reward"]
        self._done = won or lost
        obs, info = self._observation_and_info(self.game.guesses[int(action)], result.patterns)
        if self._done:
            info["answers"] = [self.game.answers[int(a)] for a in self.engine.answer]
        return obs, reward, self._done, False, info

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gym.logger.warn("render() was called without a render_mode; pass render_mode='ansi' or 'rgb_array'")
            return None
        if self.render_mode == "rgb_array":
            from .render import boards_image

            columns = 4 if self.boards <= 8 else 8
            return boards_image([self.engine.board_rows(i) for i in range(self.boards)], self.game.length,
                                self.game.max_attempts, self.game.kind, columns)
        blocks = []
        for i in range(self.boards):
            rows = self.engine.board_rows(i)
            lines = [f"board {i + 1}" + (" (solved)" if self._solved[i] else "")]
            lines += [f"  {guess}  {tiles}" for guess, tiles in rows]
            blocks.append("\n".join(lines))
        return "\n".join(blocks)

    # ---- helpers ----------------------------------------------------------------------------------
    @property
    def candidates(self) -> list[np.ndarray]:
        """The answers still consistent with each board's tiles (copies)."""
        return [self.engine.candidates_of(i) for i in range(self.boards)]

    def action_masks(self) -> np.ndarray:
        """Boolean mask of allowed actions (every guess while the game runs)."""
        return np.full(len(self.game.guesses), not self._done, dtype=bool)

    def _check_answers(self, answers: Any) -> np.ndarray:
        if isinstance(answers, (str, bytes)) or not hasattr(answers, "__len__"):
            raise ValueError(f"options['answers'] must be a list of {self.boards} answers, got {answers!r}")
        if len(answers) != self.boards:
            raise ValueError(f"options['answers'] must hold {self.boards} answers (one per board), got {len(answers)}")
        indices = np.array([self.game.answer_position(a) for a in answers], dtype=np.int64)
        if len(set(indices.tolist())) != self.boards:
            raise ValueError(f"the answers of the boards must be distinct, got {list(answers)!r}")
        return indices

    def _observation_and_info(self, guess: str, patterns: np.ndarray) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        mask = self._masks.get(self._done)  # read-only, shared by the observation and the info
        obs = {"board": self.engine.board.reshape(-1).copy(), "tiles": self.engine.tiles.reshape(-1).copy(),
               "solved": self._solved.copy(), "action_mask": mask}
        strings = self.engine.tile_strings
        info = {
            "attempt": self._attempt,
            "guess": guess,
            "tiles": [strings[int(p)] for p in patterns],
            "patterns": patterns.astype(np.int64).copy(),
            "candidates": self.engine.status[:, COUNT].astype(np.int64).copy(),
            "solved": self._solved.astype(bool),
            "action_mask": mask,
        }
        return obs, info


#: The reward options of :class:`MultiBoardEnv` (no part in an evaluation).
REWARD_OPTIONS = ("board_reward", "win_reward", "loss_reward", "step_penalty")


def board_answers(n_answers: int, boards: int, seed: int) -> np.ndarray:
    """The answers of one game of a multi-board evaluation: ``boards`` distinct answer indices
    drawn from the game's own seed (so every backend and chunking plays the same games)."""
    rng = np.random.default_rng(seed)
    return rng.choice(n_answers, size=boards, replace=False).astype(np.int64)


class MultiBoardFamily(EnvFamily):
    """Several boards, one guess for all: an evaluation plays seeded game numbers, each game's
    answers drawn from its own seed; the record's answer is the boards' answers joined by ``+``."""

    name = "multiboard"
    summary = "one guess, every board"
    description = "multi-board ids (guessgym/Quordle-v0, guessgym/DoubleNerdle-v0, ...)"
    plays_answers = False
    no_answers = "draws each game's answers from its own seed; give sample=N (the number of games), not answers"

    def resolve(self, env_id: str, env_kwargs: dict[str, Any] | None = None,
                max_attempts: int | None = None) -> GameSetup:
        kwargs = registered_kwargs(env_id, env_kwargs)
        boards = kwargs.pop("boards")
        rewards = {k: kwargs.pop(k) for k in REWARD_OPTIONS if k in kwargs}
        options = take_cache_option(env_id, kwargs, f"boards, {', '.join(GAME_KEYS)}, {', '.join(REWARD_OPTIONS)}")
        if max_attempts is not None:
            kwargs["max_attempts"] = max_attempts
        try:
            probe = MultiBoardEnv(None, boards=boards, **rewards, **options, **kwargs)
        except TypeError as exc:
            raise ValueError(f"bad keyword arguments for {env_id}: {exc}") from exc
        game = probe.game
        return GameSetup(self, game, env_id, {**options, "boards": probe.boards},
                         label=f"{game.name}-{probe.boards}boards", meta={"boards": probe.boards},
                         max_attempts=game.max_attempts)

    def make_env(self, setup: GameSetup) -> MultiBoardEnv:
        return MultiBoardEnv(game=setup.game, **setup.env_options)

    def reset(self, env: gym.Env[Any, Any], index: int, seed: int) -> tuple[Any, dict[str, Any]]:
        base: MultiBoardEnv = env.unwrapped  # type: ignore[assignment]
        answers = board_answers(len(base.game.answers), base.boards, seed)
        return env.reset(seed=seed, options={"answers": answers})

    def outcome(self, env: gym.Env[Any, Any], index: int, info: dict[str, Any],
                played: list[str]) -> tuple[str, int, bool]:
        base: MultiBoardEnv = env.unwrapped  # type: ignore[assignment]
        answers = "+".join(base.game.answers[int(a)] for a in base.engine.answer)
        return answers, int(info["attempt"]), bool(info["solved"].all())

    def agent_problem(self, agent: Any) -> str | None:
        if getattr(agent, "multiboard", False):
            return None
        return ("plays one board at a time; multi-board games need an agent that plays every board "
                "(multi-expected-size, or an Agent with multiboard = True)")


MultiBoardEnv.family = MultiBoardFamily()


__all__ = ["MULTIBOARD_DEFAULTS", "REWARD_OPTIONS", "MultiBoardEnv", "MultiBoardFamily", "board_answers",
           "default_attempts", "draw_distinct_answers"]
