"""guessgym's chat games for verifiers 0.4: the taskset and the env that plays it (see :mod:`.taskset`)."""

from guessgym_verifiers.taskset import (
    GuessgymConfig,
    GuessgymData,
    GuessgymEnv,
    GuessgymEnvConfig,
    GuessgymTask,
    GuessgymTaskset,
)

__all__ = ["GuessgymConfig", "GuessgymData", "GuessgymEnv", "GuessgymEnvConfig", "GuessgymTask", "GuessgymTaskset"]
