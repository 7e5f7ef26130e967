"""Type checks for keyword arguments: a bool is a bool, an int an int, a choice one of its values.

Keyword arguments reach the games and environments from code, from ``gymnasium.make`` and from
the command line, where ``hard_mode="False"`` (a non-empty string, so truthy) or ``length=6.0``
would otherwise be taken at face value. Every game and environment argument goes through one of
these functions, which either return the value as the plain Python type or raise an error naming
the argument, the value given and what is allowed.

Examples:
    >>> check_bool("hard_mode", "False")
    Traceback (most recent call last):
    ...
    TypeError: hard_mode must be a bool (True or False), got 'False' (str)
    >>> check_int("length", 6.0)
    Traceback (most recent call last):
    ...
    TypeError: length must be an int, got 6.0 (float)
    >>> check_choice("reward_mode", "dense", ("sparse", "shaped"))
    Traceback (most recent call last):
    ...
    ValueError: reward_mode must be one of 'sparse', 'shaped'; got 'dense'
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np


def _shown(value: Any) -> str:
    return f"{value!r} ({type(value).__name__})"


def check_bool(name: str, value: Any) -> bool:
    """``value`` as a bool; only ``True``/``False`` (or NumPy booleans) are accepted."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{name} must be a bool (True or False), got {_shown(value)}")


def check_int(name: str, value: Any, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """``value`` as an int (NumPy integers too; not a bool, not a float such as ``6.0``)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {_shown(value)}")
    value = int(value)
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        if maximum is None:
            allowed = f"at least {minimum}"
        elif minimum is None:
            allowed = f"at most {maximum}"
        else:
            allowed = f"{minimum} to {maximum}"
        raise ValueError(f"{name} must be {allowed}, got {value}")
    return value


def check_number(name: str, value: Any) -> float:
    """``value`` as a finite float (ints accepted; not a bool, not a string)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a finite number, got {_shown(value)}")
    if not math.isfinite(float(value)):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return float(value)


#: The one sign convention of every reward option (documented once, in the README's Rewards).
PENALTY_RULE = "every penalty is added to the reward, so it is 0 or negative"


def check_penalty(name: str, value: Any) -> float:
    """A penalty (``step_penalty``, ``invalid_action_penalty``, ``invalid_penalty``): a finite
    number, 0 or negative, added to the reward of the step it applies to (:data:`PENALTY_RULE`).
    A positive value would pay the agent for the very thing the penalty discourages (with
    Absurdle's uncapped games, for never finishing; for an invalid reply, credit it never earns),
    so it is refused."""
    number = check_number(name, value)
    if number > 0:
        hint = (f"; guessgym 0.3 subtracted step_penalty: write {-number!r} for what {value!r} meant there"
                if name == "step_penalty" else "; a positive one would pay for what it should discourage: "
                "a penalty never earns credit")
        raise ValueError(f"{name} must be 0 or negative ({PENALTY_RULE}), got {value!r}{hint}")
    return number


def check_choice(name: str, value: Any, allowed: Sequence[str]) -> str:
    """``value`` if it is one of the strings ``allowed``."""
    if isinstance(value, str) and value in allowed:
        return value
    choices = ", ".join(repr(a) for a in allowed)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {choices}; got {_shown(value)}")
    raise ValueError(f"{name} must be one of {choices}; got {value!r}")


def check_action(action: Any, n: int, indexing: str = "env.unwrapped.game.guesses") -> int:
    """A ``Discrete(n)`` action as an int (a 0-d array is accepted), or a ``ValueError`` naming the
    space and what the index refers to (``indexing``)."""
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action.item()
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool) and 0 <= action < n:
        return int(action)
    raise ValueError(f"action {action!r} is outside the action space Discrete({n}): expected an integer "
                     f"0..{n - 1} indexing {indexing}")


def check_reset_options(options: Any, allowed: Sequence[str]) -> dict[str, Any]:
    """``reset(options=...)`` as a dict (``None`` is empty): a ``TypeError`` for anything but a
    mapping, a ``ValueError`` naming unknown keys and the ``allowed`` ones."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(f"reset(options=...) must be a dict or None, got {_shown(options)}; "
                        f"keys it may have: {list(allowed) or 'none'}")
    unknown = sorted(str(k) for k in set(options) - set(allowed))
    if unknown:
        raise ValueError(f"unknown reset option(s) {unknown}; supported: {', '.join(map(repr, allowed)) or 'none'}")
    return dict(options)


def check_can_step(done: bool, started: bool) -> None:
    """A ``RuntimeError`` when ``step()`` comes before the first ``reset()`` or after the game ended."""
    if done:
        if not started:
            raise RuntimeError("step() was called before reset(); call reset() to start a game")
        raise RuntimeError("step() was called after the game ended; call reset() to start a new game")


__all__ = ["PENALTY_RULE", "check_action", "check_bool", "check_can_step", "check_choice", "check_int", "check_number",
           "check_penalty", "check_reset_options"]
