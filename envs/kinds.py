"""Deprecated: renamed :mod:`guessgym.envs.families` (a game's ``kind`` is ``"wordle"``/``"nerdle"``;
an environment's way of playing is its family). The old names still import, with a warning."""

from __future__ import annotations

from ..infra.deprecation import moved_names

__getattr__ = moved_names(__name__, {
    "GameKind": "guessgym.envs.families:EnvFamily",
    "GameSetup": "guessgym.envs.families:GameSetup",
    "kind_of": "guessgym.envs.families:family_of",
    "registered_kinds": "guessgym.envs.families:registered_families",
    "guessgym_ids": "guessgym.envs.families:guessgym_ids",
    "registered_kwargs": "guessgym.envs.families:registered_kwargs",
    "take_cache_option": "guessgym.envs.families:take_cache_option",
    "game_numbers": "guessgym.envs.families:game_numbers",
})
