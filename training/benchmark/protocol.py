"""The benchmark's protocol, version 1: tiers, budgets, seeds and the score.

A **tier** is a registered id to train on, a budget of environment steps, how often the greedy
policy is evaluated during the run, and the answers it is scored on: every answer of the game, or
for the generalisation tier the answers of the full list that training never showed. A **run** is
one algorithm on one tier with one seed (:data:`SEEDS`: at least five per algorithm and tier). Its
**evaluations** play the deterministic policy once on every scored answer; a game counts its
guesses, a lost one ``max_attempts + 1``. The **score** is the normalised regret

    (mean score − optimum mean) / (random-consistent mean − optimum mean),

0 for optimal play, 1 for the random-consistent baseline (a uniformly random remaining candidate),
above 1 for worse; the win rate is reported beside it. Both anchors of a tier are in
``data/anchors.json``, computed by ``python scripts/benchmark_anchors.py``: the optimum by the exact
solver (proven over every opener where ``proven`` says so) and the random-consistent baseline's mean
over :data:`ANCHOR_SEEDS` through the shared evaluation loop.

Changing a tier, a budget or the score makes another protocol version; results of different
versions are never reported together (:func:`check_version`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal

from ...envs.game import Game, make_game
from ...infra.inputs import read_input

#: The protocol's version, written into every evaluation file.
PROTOCOL_VERSION = "1"

#: The seeds of the reference scores (a run may use any seed; the report says how many it has).
SEEDS: tuple[int, ...] = (0, 1, 2, 3, 4)

#: The random-consistent baseline's seeds behind the anchor ``random_mean``.
ANCHOR_SEEDS: tuple[int, ...] = tuple(range(20))

#: What a tier is scored on: every answer of the training game, or the full list's answers outside it.
Scored = Literal["all", "unseen"]


@dataclass(frozen=True)
class Tier:
    """One tier of the benchmark.

    Attributes:
        name: the tier's name on the command line and in reports (``micro-nerdle``).
        env_id: the registered id a run trains on (``gymnasium.make(env_id)``).
        budget: environment steps a run may take (summed over parallel games).
        eval_every: steps between the evaluations of a run's curve (the last is at ``budget``).
        scored: ``"all"``: every answer of ``env_id``'s game; ``"unseen"``: the answers of
            ``unseen_of``'s list that ``env_id``'s sample leaves out, with the same guesses.
        unseen_of: the full id whose answers the generalisation tier's sample was drawn from.
        summary: one line for tables.
    """

    name: str
    env_id: str
    budget: int
    eval_every: int
    scored: Scored = "all"
    unseen_of: str | None = None
    summary: str = ""

    @property
    def evaluation_steps(self) -> tuple[int, ...]:
        """The steps at which a run is evaluated: every ``eval_every`` steps up to the budget."""
        return tuple(range(self.eval_every, self.budget + 1, self.eval_every))

    def training_game(self) -> Game:
        """The game a run trains on."""
        return make_game(self.env_id)

    def scored_game(self) -> Game:
        """The game a run is scored on (its answers are the scored answers; its guesses are the
        training game's, so a trained policy plays it unchanged)."""
        game = self.training_game()
        if self.scored == "all":
            return game
        full = make_game(self.unseen_of)
        seen = set(game.answers)
        unseen = [a for a in full.answers if a not in seen]
        return make_game(self.unseen_of, answers=unseen, guesses=list(game.guesses))


#: The tiers of protocol version 1, from easy to hard. The three smallest are the ones whose
#: reference scores a 2-core machine finishes (results/benchmark/).
TIERS: tuple[Tier, ...] = (
    Tier("micro-nerdle", "guessgym/MicroNerdle-v1", 100_000, 10_000,
         summary="Micro Nerdle: 127 equations of 5 symbols, closed"),
    Tier("mini-nerdle", "guessgym/MiniNerdle-v1", 100_000, 10_000,
         summary="Mini Nerdle: 206 equations of 6 symbols, closed"),
    Tier("wordle-100", "guessgym/Wordle100-v0", 100_000, 10_000,
         summary="Wordle: a seeded sample of 100 NYT answers, the only guesses"),
    Tier("wordle-500", "guessgym/Wordle500-v0", 1_000_000, 50_000,
         summary="Wordle: a seeded sample of 500 NYT answers, the only guesses"),
    Tier("wordle", "guessgym/Wordle-v1", 10_000_000, 500_000,
         summary="Wordle: 2,309 answers, 12,947 guesses"),
    Tier("wordle-hard", "guessgym/WordleHard-v1", 10_000_000, 500_000,
         summary="Wordle in hard mode"),
    Tier("wordle-unseen", "guessgym/WordleHalf-v0", 10_000_000, 500_000, scored="unseen",
         unseen_of="guessgym/Wordle-v1",
         summary="Wordle: train on a seeded half of the answers, scored on the other half"),
)

#: The tiers whose reference scores are committed (results/benchmark/; scripts/benchmark_references.py).
REFERENCE_TIERS: tuple[str, ...] = ("micro-nerdle", "mini-nerdle", "wordle-100")

_BY_NAME = {t.name: t for t in TIERS}


def tier(name: str) -> Tier:
    """The tier called ``name``.

    Raises:
        ValueError: an unknown name (the message lists the tiers).
    """
    if name not in _BY_NAME:
        raise ValueError(f"unknown tier {name!r}; the tiers of protocol {PROTOCOL_VERSION} are "
                         f"{', '.join(_BY_NAME)}")
    return _BY_NAME[name]


@dataclass(frozen=True)
class Anchors:
    """A tier's two anchors of the normalised regret.

    Attributes:
        answers: scored answers.
        optimum_total: guesses over the scored answers of the best tree known.
        proven: the optimum is proven over every opener (otherwise ``optimum_total`` is an
            upper bound and ``scope`` says what was searched).
        scope: what ``optimum_total`` is the optimum of, in words.
        random_mean: the random-consistent baseline's mean score (a loss as ``max_attempts + 1``)
            over :data:`ANCHOR_SEEDS`.
        random_stderr: the standard error of that mean over the seeds.
        random_win_rate: its win rate over the seeds.
        command: the command that computed them.
    """

    answers: int
    optimum_total: int
    proven: bool
    scope: str
    random_mean: float
    random_stderr: float
    random_win_rate: float
    command: str

    @property
    def optimum_mean(self) -> float:
        return self.optimum_total / self.answers

    def regret(self, mean_score: float) -> float:
        """The normalised regret of a mean score (0: the optimum, 1: random-consistent play)."""
        return (mean_score - self.optimum_mean) / (self.random_mean - self.optimum_mean)


ANCHOR_FIELDS = ("answers", "optimum_total", "proven", "scope", "random_mean", "random_stderr", "random_win_rate",
                 "command")


def _anchor(name: str, data: Any) -> Anchors:
    if not isinstance(data, dict) or set(data) != set(ANCHOR_FIELDS):
        raise ValueError(f"anchors.json: tier {name!r} must have exactly the fields {', '.join(ANCHOR_FIELDS)}")
    kinds = {"answers": int, "optimum_total": int, "proven": bool, "scope": str, "random_mean": float,
             "random_stderr": float, "random_win_rate": float, "command": str}
    for key, kind in kinds.items():
        value = data[key]
        ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
        if kind is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        if not ok:
            raise ValueError(f"anchors.json: tier {name!r} field {key!r} must be a {kind.__name__}, got {value!r}")
    return Anchors(**data)


@cache
def all_anchors() -> dict[str, Anchors]:
    """The anchors of every tier that has them (``data/anchors.json``, read as JSON)."""
    with resources.as_file(resources.files(__package__ or "guessgym.training.benchmark") / "data"
                           / "anchors.json") as path:
        data = json.loads(read_input(path, "the benchmark's anchors", max_bytes=1 << 20))
    if (not isinstance(data, dict) or data.get("protocol") != PROTOCOL_VERSION
            or not isinstance(data.get("tiers"), dict)):
        raise ValueError(f"anchors.json must be protocol {PROTOCOL_VERSION}'s object with a 'tiers' object")
    return {name: _anchor(name, value) for name, value in data["tiers"].items()}


def anchors_of(name: str) -> Anchors:
    """The anchors of tier ``name``.

    Raises:
        ValueError: an unknown tier, or one whose anchors are not computed yet (the message
            gives the command that computes them).
    """
    tier(name)
    anchors = all_anchors()
    if name not in anchors:
        raise ValueError(f"tier {name!r} has no anchors yet: python scripts/benchmark_anchors.py --tier {name}")
    return anchors[name]


def check_version(version: Any, where: str) -> None:
    """Refuse results of another protocol version (``where`` names the file)."""
    if version != PROTOCOL_VERSION:
        raise ValueError(f"{where} is of protocol version {version!r}; this guessgym reports version "
                         f"{PROTOCOL_VERSION!r} only (results of different versions are not comparable)")


__all__ = ["ANCHOR_FIELDS", "ANCHOR_SEEDS", "PROTOCOL_VERSION", "REFERENCE_TIERS", "SEEDS", "TIERS", "Anchors",
           "Scored", "Tier", "all_anchors", "anchors_of", "check_version", "tier"]
