"""Absurdle: adversarial Wordle, whose host keeps the largest set of answers still possible.

The game is the one engine's (:class:`~guessgym.envs.engine.GameEngine`) with the Absurdle host
(``host="absurdle"``): before every step the host moves the answer into the largest bucket the
guess leaves (:func:`~guessgym.envs.engine.host_choice`), then the one rule of a step scores the
guess and keeps that bucket. This module is the adapter: spaces, observations, infos, rendering.
"""

from __future__ import annotations

from typing import Any, ClassVar, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..infra.deprecation import RenamedAttribute
from .engine import ATTEMPT, COUNT, DONE, GameEngine, RewardConfig, host_choice
from .env import check_render_mode, observation_space
from .families import EnvFamily, GameSetup, registered_kwargs, take_cache_option
from .game import GAME_KEYS, Game, make_game
from .mask_pool import ConstantMasks
from .options import check_action, check_can_step, check_int, check_number, check_penalty, check_reset_options

#: Board rows in the observation of an uncapped game (the latest guesses are shown).
DEFAULT_ROWS = 16
#: Rows of an uncapped game's ``rgb_array`` image: this many, or one more than the guesses while it runs.
MIN_IMAGE_ROWS = 6


class AbsurdleEnv(gym.Env[dict[str, np.ndarray], int]):
    """Absurdle: no answer is fixed; after each guess the host keeps the largest bucket of answers.

    ## Description
    The host starts with every answer possible. After a guess it splits the answers still
    possible by the tiles the guess would show against each, keeps the largest group that the
    guess does not win (:func:`host_choice` for the tie-break: fewest greens, then fewest yellows,
    then the smallest pattern code) and shows its tiles. The game is won when the guess wins every
    answer left (the host has no other choice than all green): the only answer left, or with
    Nerdle's commutative rule, rearrangements of it. Tiles follow the game's own rule.

    ## Action Space
    ``Discrete(len(guesses))``; every guess is allowed at every step.

    ## Observation Space
    ``GuessEnv``'s ``Dict`` of ``board``, ``tiles`` and ``action_mask``, with ``rows`` board rows:
    ``max_attempts`` when the game is capped, else ``rows`` (default 16), showing the first
    ``rows`` guesses (a game that long has gone badly; ``info`` always has the latest).

    ## Rewards
    ``win_reward`` (1.0) for the winning guess; ``loss_reward`` (0.0) for the last guess of a
    capped game that is lost; ``step_penalty`` (0.0, or negative: every penalty is added) on
    every guess. With no cap, a negative ``step_penalty`` is the only pressure to finish; a
    positive one is refused (it would pay an agent never to finish).

    ## Starting State
    An empty board, every answer possible. There is no answer to fix: ``reset(options={"answer":
    ...})`` is a ``ValueError``.

    ## Episode End
    ``terminated`` when the host concedes, or when a capped game uses its last attempt.
    ``truncated`` is always False (wrap with ``gymnasium.wrappers.TimeLimit`` to bound an uncapped
    game). ``step`` after the end raises ``RuntimeError``.

    ## Information
    ``"attempt"``, ``"guess"``, ``"tiles"``, ``"pattern"``, ``"candidates"`` (answers the host can
    still choose), ``"action_mask"``; when the game ends, ``"answer"`` (the answer the host
    conceded, or ``""``) and ``"candidates_left"`` (the answers it had left).

    ## Arguments
    The game's arguments (``kind``, ``length``, ``word_list``, ``answers``, ``guesses``; or
    ``game``), ``max_attempts`` (``None``, the default: no cap), ``rows``, ``win_reward``,
    ``loss_reward``, ``step_penalty``, ``matrix_cache``. ``hard_mode=True`` is a ``ValueError``.

    ## Version History
    * v0: initial release; the ``rgb_array`` render mode came later and changes nothing else.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}
    #: The description of this kind of game (:mod:`guessgym.envs.families`).
    family: ClassVar[EnvFamily]
    #: Deprecated name of :attr:`family` (until 0.3).
    kind = RenamedAttribute("family")

    def __init__(self, render_mode: str | None = None, *, max_attempts: int | None = None, rows: int = DEFAULT_ROWS,
                 win_reward: float = 1.0, loss_reward: float = 0.0, step_penalty: float = 0.0,
                 matrix_cache: bool = True, game: Game | None = None, **game_options: Any) -> None:
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.render_mode = render_mode
        self.max_attempts = None if max_attempts is None else check_int("max_attempts", max_attempts, minimum=1)
        self.rows = self.max_attempts if self.max_attempts is not None else check_int("rows", rows, minimum=1)
        self.win_reward = check_number("win_reward", win_reward)
        self.loss_reward = check_number("loss_reward", loss_reward)
        self.step_penalty = check_penalty("step_penalty", step_penalty)
        if game is None:
            game = make_game(**game_options)
        elif game_options:
            raise TypeError(f"give the game's arguments or a ready game, not both ({sorted(game_options)})")
        if game.hard_mode:
            raise ValueError("hard mode is not defined for Absurdle here; play it with hard_mode=False")
        self.game = game.replace(max_attempts=self.rows)  # the observation's rows
        rewards = RewardConfig(win_reward=self.win_reward, loss_reward=self.loss_reward, step_penalty=self.step_penalty)
        self.engine = GameEngine(self.game, 1, rewards=rewards, matrix_cache=matrix_cache, host="absurdle",
                                 attempt_limit=self.max_attempts)
        self.matrix = self.engine.matrix
        self.action_space = spaces.Discrete(len(game.guesses))  # type: ignore[assignment]
        self.observation_space = observation_space(self.game)  # type: ignore[assignment]
        self._masks = ConstantMasks(len(game.guesses))
        self.history: list[tuple[int, int]] = []
        self._started = False

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        if options is not None and not isinstance(options, dict):
            check_reset_options(options, ())
        if options:
            if "answer" in options:
                raise ValueError("Absurdle has no fixed answer: the host keeps every answer possible and chooses "
                                 "as you guess; play the plain game (guessgym/Wordle-v1) to fix one")
            raise ValueError(f"unknown reset option(s) {sorted(options)}; Absurdle takes none")
        self.engine.start_one(0, 0)  # the host moves the answer before every guess
        self.history = []
        self._started = True
        return self._observation(), self._info("", -1)

    def step(self, action: int) -> tuple[dict[str, np.ndarray], SupportsFloat, bool, bool, dict[str, Any]]:
        check_can_step(self._done, self._started)
        action = check_action(action, len(self.game.guesses))
        reward, ended, pattern, _, _, _ = self.engine.play_one(0, action)
        self.history.append((action, pattern))
        info = self._info(self.game.guesses[action], pattern)
        if ended:
            kept = self.candidates
            info["answer"] = self.game.answers[int(kept[0])] if pattern == self.game.solved_pattern else ""
            info["candidates_left"] = [self.game.answers[int(a)] for a in kept]
        return self._observation(), reward, ended, False, info

    @property
    def candidates(self) -> np.ndarray:
        """Indices into the game's answers that the host can still choose (a copy)."""
        return self.engine.candidates_of(0)

    @property
    def _done(self) -> bool:
        return bool(self.engine.status[0, DONE])

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gym.logger.warn("render() was called without a render_mode; pass render_mode='ansi' or 'rgb_array'")
            return None
        from .scoring import pattern_to_tiles

        if self.render_mode == "rgb_array":
            from .render import board_image

            rows = [(self.game.guesses[a], pattern_to_tiles(p, self.game.length)) for a, p in self.history]
            shown = self.max_attempts or max(MIN_IMAGE_ROWS, len(rows) + (not self._done))
            return board_image(rows, self.game.length, shown, self.game.kind)
        return "\n".join(f"{self.game.guesses[a]}  {pattern_to_tiles(p, self.game.length)}" for a, p in self.history)

    def action_masks(self) -> np.ndarray:
        return np.full(len(self.game.guesses), not self._done, dtype=bool)

    def _observation(self) -> dict[str, np.ndarray]:
        return {"board": self.engine.board[0].copy(), "tiles": self.engine.tiles[0].copy(),
                "action_mask": self._masks.get(self._done)}

    def _info(self, guess: str, pattern: int) -> dict[str, Any]:
        from .scoring import pattern_to_tiles

        return {
            "attempt": int(self.engine.status[0, ATTEMPT]),
            "guess": guess,
            "tiles": "" if pattern < 0 else pattern_to_tiles(pattern, self.game.length),
            "pattern": pattern,
            "candidates": int(self.engine.status[0, COUNT]),
            "invalid_action": False,
            "invalid_reason": "",
            "action_mask": self._masks.get(self._done),
        }


#: Options of :class:`AbsurdleEnv` that play no part in an evaluation.
PLAY_OPTIONS = ("win_reward", "loss_reward", "step_penalty", "rows")


class AbsurdleFamily(EnvFamily):
    """Absurdle: the host keeps every answer possible, so an evaluation plays seeded game numbers
    (one is enough for a deterministic agent); the record's answer is the one the host conceded."""

    name = "absurdle"
    summary = "the host keeps the most answers"
    description = "Absurdle ids (guessgym/Absurdle-v0)"
    plays_answers = False
    adversarial = True
    #: Guesses after which an uncapped game is counted as lost (an agent may never win).
    max_guesses = 100
    no_answers = ("has no answers to choose: the host keeps every answer possible; give sample=N (games; one "
                  "is enough for a deterministic agent)")

    def resolve(self, env_id: str, env_kwargs: dict[str, Any] | None = None,
                max_attempts: int | None = None) -> GameSetup:
        kwargs = registered_kwargs(env_id, env_kwargs)
        cap = kwargs.pop("max_attempts", None) if max_attempts is None else max_attempts
        for key in PLAY_OPTIONS:
            kwargs.pop(key, None)
        options = take_cache_option(env_id, kwargs, f"{', '.join(GAME_KEYS)}, {', '.join(PLAY_OPTIONS)}")
        probe = AbsurdleEnv(max_attempts=cap, **options, **kwargs)
        game = probe.game
        return GameSetup(self, game, env_id, {**options, "max_attempts": probe.max_attempts},
                         label=f"absurdle-{game.name}", meta={"absurdle": {"max_attempts": probe.max_attempts}},
                         max_attempts=probe.max_attempts)

    def make_env(self, setup: GameSetup) -> AbsurdleEnv:
        return AbsurdleEnv(game=setup.game, **setup.env_options)

    def default_games(self, game: Game) -> int:
        return 1

    def reset(self, env: gym.Env[Any, Any], index: int, seed: int) -> tuple[Any, dict[str, Any]]:
        return env.reset(seed=seed)

    def outcome(self, env: gym.Env[Any, Any], index: int, info: dict[str, Any],
                played: list[str]) -> tuple[str, int, bool]:
        answer = info.get("answer", "") or ""
        return answer, len(played), bool(info.get("answer"))


AbsurdleEnv.family = AbsurdleFamily()


__all__ = ["DEFAULT_ROWS", "PLAY_OPTIONS", "AbsurdleEnv", "AbsurdleFamily", "host_choice"]
