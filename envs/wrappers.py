"""Wrappers around :class:`~guessgym.envs.env.GuessEnv`: text guesses, and ending the episode on a rule break.

* :class:`TextGuess` lets an agent type its guess (``"crane"``, ``"48-32=16"``) instead of choosing
  an index; this is the natural interface for language-model agents. A guess that cannot be played
  raises ``ValueError`` saying why (unknown word, false equation, wrong length, not in the
  vocabulary), so the caller can show the message to the agent and ask again.
* :class:`TerminateOnInvalidAction` ends the episode when the environment rejects an action (a
  hard-mode violation) instead of letting the agent try again.

Examples:
    >>> import gymnasium as gym
    >>> from guessgym import envs
    >>> env = TextGuess(gym.make("guessgym/Wordle-v1"))
    >>> obs, info = env.reset(seed=0, options={"answer": "crane"})
    >>> obs, reward, terminated, truncated, info = env.step("SLATE")
    >>> info["guess"], info["tiles"], terminated
    ('slate', 'BBGBG', False)
    >>> env.step("xyzzy")
    Traceback (most recent call last):
    ...
    ValueError: 'xyzzy' is not in the word list (12947 allowed guesses)
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .game import Game

__all__ = ["TerminateOnInvalidAction", "TextGuess"]


def _game_of(env: gym.Env) -> Game:
    game = getattr(env.unwrapped, "game", None)
    if not isinstance(game, Game):
        raise TypeError(
            f"{type(env.unwrapped).__name__} has no Game; these wrappers need a guessgym GuessEnv "
            "(e.g. gymnasium.make('guessgym/Wordle-v1'))"
        )
    return game


class TextGuess(gym.Wrapper[dict[str, np.ndarray], str, dict[str, np.ndarray], int]):
    """Take guesses as text instead of action indices.

    The action space is ``gymnasium.spaces.Text`` of exactly ``game.length`` symbols over the
    game's alphabet (for Wordle in lower and upper case: ``"CRANE"`` and ``"crane"`` are the same
    guess). Typed guesses are normalised with :meth:`Game.normalize_guess` (Wordle: lower case;
    both games: surrounding and, for Nerdle, inner spaces removed) and validated with
    :meth:`Game.explain_invalid_guess`.

    Note that ``action_space.sample()`` draws random strings of the right length, which are almost
    never playable words or true equations; sample an index from the wrapped environment and
    convert it with :meth:`action_to_guess` if you need random playable guesses.

    Observations, rewards and info are those of the wrapped environment. A playable guess that
    breaks hard mode is passed on and rejected by the environment as usual
    (``info["invalid_action"]`` and ``info["invalid_reason"]``); combine with
    :class:`TerminateOnInvalidAction` to end the episode instead.

    Raises (from :meth:`step` and :meth:`guess_to_action`):
        ValueError: the text is not a playable guess; the message names it and says why.
        TypeError: the action is not a string.
    """

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.game = _game_of(env)
        charset = self.game.alphabet
        if self.game.kind == "wordle":
            charset += self.game.alphabet.upper()
        self.action_space = spaces.Text(self.game.length, min_length=self.game.length, charset=charset)

    def guess_to_action(self, text: str) -> int:
        """The action index that plays ``text``.

        Raises:
            ValueError: naming ``text`` and saying why it cannot be played.
            TypeError: if ``text`` is not a string.
        """
        if not isinstance(text, str):
            raise TypeError(
                f"TextGuess expects the guess as a string, got {type(text).__name__} {text!r}; "
                "unwrap the environment to play action indices"
            )
        reason = self.game.explain_invalid_guess(text)
        if reason is not None:
            raise ValueError(reason)
        return self.game.guess_index[self.game.normalize_guess(text)]

    def action_to_guess(self, action: int) -> str:
        """The text of action index ``action`` (the inverse of :meth:`guess_to_action`)."""
        n = len(self.game.guesses)
        if not (isinstance(action, (int, np.integer)) and not isinstance(action, bool) and 0 <= action < n):
            raise ValueError(f"action {action!r} is not an index 0..{n - 1} into the guess list")
        return self.game.guesses[int(action)]

    def step(self, action: str) -> tuple[dict[str, np.ndarray], SupportsFloat, bool, bool, dict[str, Any]]:
        """Play the typed guess ``action``; see the class docstring for errors."""
        return self.env.step(self.guess_to_action(action))  # type: ignore[arg-type]  # the inner env takes ints


class TerminateOnInvalidAction(gym.Wrapper[dict[str, np.ndarray], Any, dict[str, np.ndarray], Any]):
    """End the episode when the environment rejects an action, instead of allowing a retry.

    :class:`~guessgym.envs.env.GuessEnv` rejects a hard-mode violation without using an attempt and lets
    the agent try again. Under this wrapper the same step returns ``terminated=True`` (the game is
    over, by a rule of the wrapped game, so it is termination, not truncation), the reward is the
    environment's ``invalid_action_penalty`` unless ``penalty`` is given, and ``info`` keeps
    ``invalid_action=True`` and the ``invalid_reason``, and gains ``"answer"`` like every other
    end of a game. The masks in the observation, in ``info["action_mask"]`` and from
    :meth:`action_masks` are all zero after the end, and calling ``step`` again before ``reset``
    raises ``RuntimeError``.

    Args:
        env: the environment (a GuessEnv, possibly wrapped, e.g. by :class:`TextGuess`).
        penalty: reward for the terminating invalid step; ``None`` keeps the environment's.
    """

    def __init__(self, env: gym.Env, penalty: float | None = None) -> None:
        super().__init__(env)
        self.penalty = None if penalty is None else float(penalty)
        self._ended = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        self._ended = False
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], SupportsFloat, bool, bool, dict[str, Any]]:
        if self._ended:
            raise RuntimeError(
                "step() was called after the episode ended on an invalid action; call reset() to start a new game"
            )
        obs, reward, terminated, truncated, info = self.env.step(action)
        if info.get("invalid_action", False):
            terminated = True
            if self.penalty is not None:
                reward = self.penalty
            env: Any = self.env.unwrapped  # a GuessEnv (checked when the wrapper was built)
            if "answer" not in info:
                # GuessEnv has no public accessor for the hidden answer; it is revealed at the end.
                info["answer"] = env.game.answers[env.engine.answer[0]]
            no_action = np.zeros_like(info["action_mask"])
            info["action_mask"] = no_action
            obs = dict(obs)
            obs["action_mask"] = no_action.copy()
        self._ended = bool(terminated or truncated)
        return obs, float(reward), bool(terminated), bool(truncated), info

    def action_masks(self) -> np.ndarray:
        """Boolean mask of allowed actions (all False once the episode has ended here)."""
        mask = np.asarray(self.env.get_wrapper_attr("action_masks")(), dtype=bool)
        return np.zeros_like(mask) if self._ended else mask
