"""The registered environment ids, and their registration with Gymnasium.

Registration names entry points as strings, so it imports nothing but Gymnasium: ``import
guessgym`` registers every id without loading numba or the word lists.
"""

from __future__ import annotations

import gymnasium as gym

#: The registered ids and the keyword arguments each one fixes (the rest are GuessEnv defaults).
ENV_SPECS: dict[str, dict[str, object]] = {
    "guessgym/Wordle-v1": {"kind": "wordle", "length": 5},
    "guessgym/WordleHard-v1": {"kind": "wordle", "length": 5, "hard_mode": True},
    "guessgym/Nerdle-v1": {"kind": "nerdle", "length": 8},
    "guessgym/MidiNerdle-v1": {"kind": "nerdle", "length": 7},
    "guessgym/MiniNerdle-v1": {"kind": "nerdle", "length": 6},
    "guessgym/MicroNerdle-v1": {"kind": "nerdle", "length": 5},
}

#: The chat ids (language-model agents: text in, text out) and the keyword arguments each fixes;
#: every size of either game, hard mode and every list are keyword arguments of these two.
CHAT_ENV_SPECS: dict[str, dict[str, object]] = {
    "guessgym/WordleChat-v0": {"kind": "wordle", "length": 5},
    "guessgym/NerdleChat-v0": {"kind": "nerdle", "length": 8},
}
CHAT_ENTRY_POINT = "guessgym.envs.chat.env:ChatGuessEnv"

#: The multi-board ids (one guess scored on every unsolved board) and what each fixes; attempts
#: default to boards + 5, as in the real games.
MULTIBOARD_ENV_SPECS: dict[str, dict[str, object]] = {
    "guessgym/Dordle-v0": {"kind": "wordle", "length": 5, "boards": 2},
    "guessgym/Quordle-v0": {"kind": "wordle", "length": 5, "boards": 4},
    "guessgym/Octordle-v0": {"kind": "wordle", "length": 5, "boards": 8},
    "guessgym/Sedecordle-v0": {"kind": "wordle", "length": 5, "boards": 16},
    "guessgym/DoubleNerdle-v0": {"kind": "nerdle", "length": 8, "boards": 2},
    "guessgym/QuadNerdle-v0": {"kind": "nerdle", "length": 8, "boards": 4},
}
MULTIBOARD_ENTRY_POINT = "guessgym.envs.multiboard:MultiBoardEnv"
MULTIBOARD_VECTOR_ENTRY_POINT = "guessgym.envs.multiboard_vector:make_batched_multiboard"

#: Adversarial games: the host keeps the largest set of answers (no attempt limit by default).
ABSURDLE_ENV_SPECS: dict[str, dict[str, object]] = {
    "guessgym/Absurdle-v0": {"kind": "wordle", "length": 5},
}
ABSURDLE_ENTRY_POINT = "guessgym.envs.absurdle:AbsurdleEnv"

#: Why the ids are at v1 (Gymnasium's rule: a change to seeded episodes bumps the version).
V1_CHANGE = (
    "v1 draws reset's random answers from a child stream of the seed (AnswerStream), which a "
    "same-seeded action space cannot follow; episodes with a fixed answer are unchanged"
)

#: Each earlier id and the id that replaced it. ``gymnasium.make`` of an old id raises Gymnasium's
#: ``DeprecatedEnv`` naming the new one; a saved evaluation of every answer carries over unchanged.
SUPERSEDED: dict[str, str] = {env_id.replace("-v1", "-v0"): env_id for env_id in ENV_SPECS}

#: The entry points every id is registered with.
ENTRY_POINT = "guessgym.envs.env:GuessEnv"
VECTOR_ENTRY_POINT = "guessgym.envs.vector:make_batched"


def register_envs() -> None:
    """Register every id of :data:`ENV_SPECS`, :data:`CHAT_ENV_SPECS`, :data:`MULTIBOARD_ENV_SPECS`
    and :data:`ABSURDLE_ENV_SPECS` (ids already registered are left alone)."""
    for env_id, kwargs in ENV_SPECS.items():
        if env_id not in gym.registry:
            gym.register(
                id=env_id,
                entry_point=ENTRY_POINT,
                vector_entry_point=VECTOR_ENTRY_POINT,
                kwargs=dict(kwargs),
            )
    for env_id, kwargs in CHAT_ENV_SPECS.items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=CHAT_ENTRY_POINT, kwargs=dict(kwargs))
    for env_id, kwargs in MULTIBOARD_ENV_SPECS.items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=MULTIBOARD_ENTRY_POINT,
                         vector_entry_point=MULTIBOARD_VECTOR_ENTRY_POINT, kwargs=dict(kwargs))
    for env_id, kwargs in ABSURDLE_ENV_SPECS.items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=ABSURDLE_ENTRY_POINT, kwargs=dict(kwargs))


def current_id(env_id: str) -> str:
    """The id that replaced ``env_id`` (itself if current or unknown)."""
    return SUPERSEDED.get(env_id, env_id)


def _kind_name(env_id: str) -> str | None:
    """The name of ``env_id``'s kind of game, from the entry point it is registered with (what the
    game core asks without loading an env class; :func:`guessgym.envs.kinds.kind_of` gives the
    kind's description itself)."""
    spec = gym.registry.get(env_id)
    entry = None if spec is None else spec.entry_point
    return {ENTRY_POINT: "plain", CHAT_ENTRY_POINT: "chat", MULTIBOARD_ENTRY_POINT: "multiboard",
            ABSURDLE_ENTRY_POINT: "absurdle"}.get(entry)  # type: ignore[arg-type]


def is_guessgym_id(env_id: str) -> bool:
    """Whether ``env_id`` is registered with guessgym's own (single-board) environment class."""
    return _kind_name(env_id) == "plain"


def is_chat_id(env_id: str) -> bool:
    """Whether ``env_id`` is registered with guessgym's chat environment class."""
    return _kind_name(env_id) == "chat"


def is_multiboard_id(env_id: str) -> bool:
    """Whether ``env_id`` is registered with guessgym's multi-board environment class."""
    return _kind_name(env_id) == "multiboard"


def is_absurdle_id(env_id: str) -> bool:
    """Whether ``env_id`` is registered with guessgym's Absurdle environment class."""
    return _kind_name(env_id) == "absurdle"


__all__ = [
    "ABSURDLE_ENTRY_POINT", "ABSURDLE_ENV_SPECS", "is_absurdle_id",
    "CHAT_ENTRY_POINT", "CHAT_ENV_SPECS", "ENTRY_POINT", "ENV_SPECS", "MULTIBOARD_ENTRY_POINT", "MULTIBOARD_ENV_SPECS",
    "MULTIBOARD_VECTOR_ENTRY_POINT",
    "SUPERSEDED", "V1_CHANGE", "VECTOR_ENTRY_POINT", "current_id", "is_chat_id", "is_guessgym_id", "is_multiboard_id",
    "register_envs",
]
