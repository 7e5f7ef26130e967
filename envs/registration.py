"""The registered environment ids, and their registration with Gymnasium.

Registration names entry points as strings, so it imports nothing but Gymnasium: ``import
guessgym`` registers every id without loading numba or the word lists.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import gymnasium as gym


@dataclass(frozen=True)
class EntryPoints:
    """Where Gymnasium finds one family's environment class (and its batched version), as strings
    so that registering imports nothing."""

    env: str
    vector: str | None = None


#: Each family of environment (:mod:`guessgym.envs.families`) and its entry points.
FAMILY_ENTRY_POINTS: dict[str, EntryPoints] = {
    "plain": EntryPoints("guessgym.envs.env:GuessEnv", "guessgym.envs.vector:make_batched"),
    "chat": EntryPoints("guessgym.envs.chat.env:ChatGuessEnv"),
    "multiboard": EntryPoints("guessgym.envs.multiboard:MultiBoardEnv",
                              "guessgym.envs.multiboard_vector:make_batched_multiboard"),
    "absurdle": EntryPoints("guessgym.envs.absurdle:AbsurdleEnv"),
}

#: Every registered id: its family and the keyword arguments it fixes (the rest are the env class's
#: defaults). Chat ids play every size of either game, hard mode and every list through keyword
#: arguments; multi-board ids default to boards + 5 attempts, as in the real games; Absurdle's host
#: keeps the largest set of answers (no attempt limit by default).
REGISTRY: dict[str, tuple[str, dict[str, object]]] = {
    "guessgym/Wordle-v1": ("plain", {"kind": "wordle", "length": 5}),
    "guessgym/WordleHard-v1": ("plain", {"kind": "wordle", "length": 5, "hard_mode": True}),
    "guessgym/Nerdle-v1": ("plain", {"kind": "nerdle", "length": 8}),
    "guessgym/MidiNerdle-v1": ("plain", {"kind": "nerdle", "length": 7}),
    "guessgym/MiniNerdle-v1": ("plain", {"kind": "nerdle", "length": 6}),
    "guessgym/MicroNerdle-v1": ("plain", {"kind": "nerdle", "length": 5}),
    "guessgym/WordleChat-v0": ("chat", {"kind": "wordle", "length": 5}),
    "guessgym/NerdleChat-v0": ("chat", {"kind": "nerdle", "length": 8}),
    "guessgym/Dordle-v0": ("multiboard", {"kind": "wordle", "length": 5, "boards": 2}),
    "guessgym/Quordle-v0": ("multiboard", {"kind": "wordle", "length": 5, "boards": 4}),
    "guessgym/Octordle-v0": ("multiboard", {"kind": "wordle", "length": 5, "boards": 8}),
    "guessgym/Sedecordle-v0": ("multiboard", {"kind": "wordle", "length": 5, "boards": 16}),
    "guessgym/DoubleNerdle-v0": ("multiboard", {"kind": "nerdle", "length": 8, "boards": 2}),
    "guessgym/QuadNerdle-v0": ("multiboard", {"kind": "nerdle", "length": 8, "boards": 4}),
    "guessgym/Absurdle-v0": ("absurdle", {"kind": "wordle", "length": 5}),
}


#: The benchmark's own ids (:mod:`guessgym.training.benchmark.protocol`), single-board games of the
#: plain family kept apart from :data:`REGISTRY` (and so from :data:`ENV_SPECS`, which every registered
#: game's optimum and seeding tests cover): seeded samples of the NYT answers
#: (:func:`guessgym.envs.game.sample_answers`), closed (the sample is the guess list) for the small
#: tiers, with every allowed guess for the generalisation tier's training side. The ``Train`` ids are
#: protocol 2's training sides: a seeded fifth (``WordleHalfTrain``: half, of another seed's permutation)
#: of the answers held out (``held_out``: still guesses, never answers), which the tier is scored on.
BENCHMARK_SPECS: dict[str, dict[str, object]] = {
    "guessgym/Wordle100-v0": {"kind": "wordle", "length": 5, "answer_sample": 100, "guesses": "answers"},
    "guessgym/Wordle500-v0": {"kind": "wordle", "length": 5, "answer_sample": 500, "guesses": "answers"},
    "guessgym/WordleHalf-v0": {"kind": "wordle", "length": 5, "answer_sample": 1155},
    "guessgym/Wordle500Train-v0": {"kind": "wordle", "length": 5, "answer_sample": 500, "guesses": "answers",
                                   "held_out": 100},
    "guessgym/WordleTrain-v0": {"kind": "wordle", "length": 5, "held_out": 462},
    "guessgym/WordleHardTrain-v0": {"kind": "wordle", "length": 5, "held_out": 462, "hard_mode": True},
    "guessgym/WordleHalfTrain-v0": {"kind": "wordle", "length": 5, "held_out": 1154, "sample_seed": 1},
}


def specs_of(family: str) -> dict[str, dict[str, object]]:
    """The ids of one family and the keyword arguments each fixes, in registration order."""
    return {env_id: dict(kwargs) for env_id, (of, kwargs) in REGISTRY.items() if of == family}


#: The views of :data:`REGISTRY` by family (the names the package had before the one table).
ENV_SPECS = specs_of("plain")
CHAT_ENV_SPECS = specs_of("chat")
MULTIBOARD_ENV_SPECS = specs_of("multiboard")
ABSURDLE_ENV_SPECS = specs_of("absurdle")
ENTRY_POINT = FAMILY_ENTRY_POINTS["plain"].env
VECTOR_ENTRY_POINT = FAMILY_ENTRY_POINTS["plain"].vector
CHAT_ENTRY_POINT = FAMILY_ENTRY_POINTS["chat"].env
MULTIBOARD_ENTRY_POINT = FAMILY_ENTRY_POINTS["multiboard"].env
MULTIBOARD_VECTOR_ENTRY_POINT = FAMILY_ENTRY_POINTS["multiboard"].vector
ABSURDLE_ENTRY_POINT = FAMILY_ENTRY_POINTS["absurdle"].env

#: Why the ids are at v1 (Gymnasium's rule: a change to seeded episodes bumps the version).
V1_CHANGE = (
    "v1 draws reset's random answers from a child stream of the seed (AnswerStream), which a "
    "same-seeded action space cannot follow; episodes with a fixed answer are unchanged"
)

#: Each earlier id and the id that replaced it. ``gymnasium.make`` of an old id raises Gymnasium's
#: ``DeprecatedEnv`` naming the new one; a saved evaluation of every answer carries over unchanged.
SUPERSEDED: dict[str, str] = {env_id.replace("-v1", "-v0"): env_id for env_id in ENV_SPECS}

def register_envs() -> None:
    """Register every id of :data:`REGISTRY` with its family's entry points, and the benchmark's
    :data:`BENCHMARK_SPECS` (ids already registered are left alone)."""
    for env_id, (family, kwargs) in REGISTRY.items():
        if env_id not in gym.registry:
            points = FAMILY_ENTRY_POINTS[family]
            gym.register(id=env_id, entry_point=points.env, vector_entry_point=points.vector, kwargs=dict(kwargs))
    plain = FAMILY_ENTRY_POINTS["plain"]
    for env_id, kwargs in BENCHMARK_SPECS.items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=plain.env, vector_entry_point=plain.vector, kwargs=dict(kwargs))


def current_id(env_id: str) -> str:
    """The id that replaced ``env_id`` (itself if current or unknown)."""
    return SUPERSEDED.get(env_id, env_id)


def family_name(env_id: str) -> str | None:
    """The name of the family of ``env_id``, from the entry point it is registered with (``None``:
    not registered with one of guessgym's classes). What the game core asks without loading an env
    class; :func:`guessgym.envs.families.family_of` gives the family's description itself."""
    spec = gym.registry.get(env_id)
    entry = None if spec is None else spec.entry_point
    return next((name for name, points in FAMILY_ENTRY_POINTS.items() if points.env == entry), None)


def is_guessgym_id(env_id: str) -> bool:
    """Whether ``env_id`` is registered with guessgym's own (single-board, array) environment class."""
    return family_name(env_id) == "plain"


def is_chat_id(env_id: str) -> bool:
    """Whether ``env_id`` is registered with guessgym's chat environment class."""
    return family_name(env_id) == "chat"


def _warn_renamed(old: str, new: str) -> None:
    # Not infra.deprecation: registration imports nothing outside this package (``envs:`` ids).
    warnings.warn(f"{old} is deprecated; use {new}", DeprecationWarning, stacklevel=3)


def is_multiboard_id(env_id: str) -> bool:
    """Deprecated: ``family_name(env_id) == "multiboard"``."""
    _warn_renamed("is_multiboard_id(env_id)", 'family_name(env_id) == "multiboard"')
    return family_name(env_id) == "multiboard"


def is_absurdle_id(env_id: str) -> bool:
    """Deprecated: ``family_name(env_id) == "absurdle"``."""
    _warn_renamed("is_absurdle_id(env_id)", 'family_name(env_id) == "absurdle"')
    return family_name(env_id) == "absurdle"


__all__ = [
    "ABSURDLE_ENTRY_POINT", "ABSURDLE_ENV_SPECS", "BENCHMARK_SPECS", "CHAT_ENTRY_POINT", "CHAT_ENV_SPECS",
    "ENTRY_POINT", "ENV_SPECS",
    "FAMILY_ENTRY_POINTS", "MULTIBOARD_ENTRY_POINT", "MULTIBOARD_ENV_SPECS", "MULTIBOARD_VECTOR_ENTRY_POINT",
    "REGISTRY", "SUPERSEDED", "V1_CHANGE", "VECTOR_ENTRY_POINT", "EntryPoints", "current_id", "family_name",
    "is_absurdle_id", "is_chat_id", "is_guessgym_id", "is_multiboard_id", "register_envs", "specs_of",
]
