"""Where a game's answers come from: a random stream that no same-seeded action space can follow.

Gymnasium seeds an environment's ``np_random`` and a space's generator the same way
(``seeding.np_random(seed)``), and ``Discrete(n).sample()`` is ``integers(n)``. An environment
that drew its answer index with ``np_random.integers(n)`` therefore handed a random agent the
answer whenever the user wrote the common ``env.reset(seed=s); env.action_space.seed(s)`` and the
guess list starts with the answer list (Nerdle's default): the agent won every game.

An :class:`AnswerStream` draws from a *child* of the seed sequence instead: the generator of
``SeedSequence(entropy, spawn_key=(*parent_key, ANSWER_SPAWN_KEY))``, a stream independent of the
parent's by construction (the way NumPy spawns independent streams), and still fully determined by
the seed. The key is a fixed odd constant, not ``0``, so the stream does not coincide with a user's
own ``SeedSequence(seed).spawn(n)`` children either.

Draws come from blocks of uniform doubles (one NumPy call per :data:`BLOCK` answers: a single
``integers`` call costs about as much as a whole game step), scaled to the current pool size at draw
time, so a curriculum may change the pool between draws.

Examples:
    >>> import numpy as np
    >>> a, b = AnswerStream.from_seed(3), AnswerStream.from_seed(3)
    >>> [a.draw(2309) for _ in range(4)] == [b.draw(2309) for _ in range(4)]
    True
    >>> a.draw(1)
    0
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: The spawn key that names the answer stream among the children of a seed sequence ("gg.a").
ANSWER_SPAWN_KEY = 0x6767_2E61
#: Uniform doubles drawn per NumPy call.
BLOCK = 64


def answer_seed_sequence(parent: np.random.SeedSequence) -> np.random.SeedSequence:
    """The child of ``parent`` that seeds answer draws (same entropy, spawn key extended)."""
    return np.random.SeedSequence(
        parent.entropy, spawn_key=(*parent.spawn_key, ANSWER_SPAWN_KEY), pool_size=parent.pool_size
    )


def seed_sequence_of(generator: np.random.Generator) -> np.random.SeedSequence:
    """The seed sequence ``generator`` was made from.

    A generator built without one (a legacy seeding) gets a sequence seeded from its own output.
    """
    seq = generator.bit_generator.seed_seq
    if isinstance(seq, np.random.SeedSequence):
        return seq
    return np.random.SeedSequence(generator.integers(2**63, size=4).tolist())


class AnswerStream:
    """Uniform answer indices for one game slot, from the answer child of a seed sequence.

    Args:
        parent: the seed sequence of the environment's generator (``np_random``); the stream is
            its answer child (see :func:`answer_seed_sequence`).
    """

    __slots__ = ("generator", "source", "_block", "_next")

    def __init__(self, parent: np.random.SeedSequence, source: object = None) -> None:
        self.generator = np.random.Generator(np.random.PCG64(answer_seed_sequence(parent)))
        #: What the stream was derived from (the env compares it to notice a replaced ``np_random``).
        self.source = source
        self._block = np.empty(0, dtype=np.float64)
        self._next = 0

    @classmethod
    def from_seed(cls, seed: int | None) -> AnswerStream:
        """The stream of ``seeding.np_random(seed)`` (a fresh random seed if ``None``)."""
        return cls(np.random.SeedSequence(seed))

    @classmethod
    def from_generator(cls, generator: np.random.Generator) -> AnswerStream:
        """The stream of an environment whose ``np_random`` is ``generator``."""
        return cls(seed_sequence_of(generator), source=generator)

    def draw(self, n: int) -> int:
        """An index uniform in ``0..n-1``."""
        if self._next >= self._block.size:
            self._block = self.generator.random(BLOCK)
            self._next = 0
        u = self._block[self._next]
        self._next += 1
        return int(u * n)

    # ---- state, for checkpoints -------------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        """The generator's state and the unused rest of the current block."""
        return {"bit_generator": self.generator.bit_generator.state, "pending": self._block[self._next:].copy()}

    def set_state(self, state: dict[str, Any]) -> None:
        """Continue exactly from a state of :meth:`get_state`."""
        self.generator.bit_generator.state = state["bit_generator"]
        self._block = np.array(state["pending"], dtype=np.float64)
        self._next = 0

    @classmethod
    def restored(cls, state: dict[str, Any]) -> AnswerStream:
        """A stream continuing from a state of :meth:`get_state`."""
        stream = cls(np.random.SeedSequence(0))
        stream.set_state(state)
        return stream
