"""``guessgym play``: play Wordle or Nerdle in the terminal, through the real environment.

Every guess goes through :class:`~guessgym.envs.env.GuessEnv`; a typed guess is checked first with
``game.explain_invalid_guess`` (wrong length, not a word, not a true equation, outside the guess
vocabulary) and hard-mode refusals come back from the environment itself, each with its reason.
The board is the environment's ``ansi`` render (coloured tiles), or plain ``GUESS  GYB`` rows when
colours are off (not a terminal, or ``--color never``).
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

import gymnasium as gym

from .envs.env import GuessEnv


def run_play(
    env_id: str = "guessgym/Wordle-v1",
    *,
    seed: int | None = None,
    answer: str | None = None,
    env_kwargs: dict[str, Any] | None = None,
    color: bool | None = None,
    hints: bool = False,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """Play one game; return 0 if won, 1 if lost or abandoned.

    ``color=None`` colours the board when ``stdout`` is a terminal; ``hints`` prints how many
    answers are still possible after each guess.

    Raises:
        ValueError: unknown answer or bad environment arguments (before the game starts).
    """
    stdin = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else sys.stdout
    if color is None:
        color = bool(getattr(out, "isatty", lambda: False)())
    from . import envs  # noqa: F401  (registers the ids)

    env = gym.make(env_id, render_mode="ansi", disable_env_checker=True, **(env_kwargs or {}))
    core = env.unwrapped
    if not isinstance(core, GuessEnv):
        raise ValueError(f"{env_id} is not a guessgym environment")
    game = core.game
    options = {"answer": answer} if answer is not None else None
    env.reset(seed=seed, options=options)

    def say(text: str = "") -> None:
        out.write(text + "\n")

    noun = "word" if game.kind == "wordle" else "equation"
    say(f"{game.name}: find the {game.length}-symbol {noun} in {game.max_attempts} guesses"
        + (" (hard mode: revealed hints must be used)" if game.hard_mode else "") + ".")
    say("Tiles: G green = right place, Y yellow" + ("/purple" if game.kind == "nerdle" else "")
        + " = elsewhere, B grey = absent. Type 'quit' to give up.")
    attempt = 0
    while True:
        out.write(f"guess {attempt + 1}/{game.max_attempts}> ")
        out.flush()
        line = stdin.readline()
        if not line:
            say("")
            say(f"input ended; the answer was {_answer(core)}")
            return 1
        if not stdin.isatty():
            out.write(line if line.endswith("\n") else line + "\n")
        text = line.strip()
        if not text:
            continue
        if text.lower() in ("quit", "exit", "q"):
            say(f"the answer was {_answer(core)}")
            return 1
        reason = game.explain_invalid_guess(text)
        if reason is not None:
            say(f"not accepted: {reason}")
            continue
        action = game.guess_index[game.normalize_guess(text)]
        _, _, terminated, _, info = env.step(action)
        if info["invalid_action"]:
            say(f"not accepted: {info['invalid_reason']}")
            continue
        attempt = info["attempt"]
        if color:
            say(str(env.render()))
        else:
            for guess, tiles in core.board_rows():
                say(f"  {guess.upper() if game.kind == 'wordle' else guess}  {tiles}")
        if terminated:
            if int(info["pattern"]) == game.solved_pattern:
                say(f"solved in {attempt} guess{'es' if attempt > 1 else ''}!")
                return 0
            say(f"out of guesses; the answer was {info['answer']}")
            return 1
        if hints:
            say(f"{info['candidates']:,} possible answer{'s' if info['candidates'] != 1 else ''} left")


def _answer(env: GuessEnv) -> str:
    return env.game.answers[env.engine.answer[0]]


__all__ = ["run_play"]
