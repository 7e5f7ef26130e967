"""The benchmark's protocols: tiers, budgets, seeds, the score, and what each tier's anchors know.

Two versions live side by side (:data:`PROTOCOLS`), never mixed: version 1 (:data:`TIERS`), whose
references sit on three small closed tiers, and version 2 (:data:`TIERS_V2`), whose centre is the
tiers that are not saturated, scored on a seeded held-out split of every Wordle tier's answers. The
description below is version 1's; version 2 differs where :class:`Protocol` says so (its anchors
know the tier's whole list; a uniform-random anchor; learning-signal aids declared per run) and is
written out on the documentation's "RL benchmark, protocol 2" page.

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

from ...envs.game import Game, held_out_answers, make_game
from ...infra.inputs import read_input

#: Version 1's number, written into each of its evaluation files (the module-level names below
#: without a version are version 1's, as they were before version 2).
PROTOCOL_VERSION = "1"

#: The newest version: what ``guessgym benchmark run`` and ``tiers`` use unless told otherwise.
LATEST_VERSION = "2"

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
            ``unseen_of``'s list that ``env_id``'s game leaves out (a sample, or a held-out
            split), with the same guesses.
        unseen_of: the full id whose answers the training side was drawn from.
        summary: one line for tables.
        version: the protocol the tier belongs to (tier names repeat across versions).
        seeds: the seeds of its reference runs.
    """

    name: str
    env_id: str
    budget: int
    eval_every: int
    scored: Scored = "all"
    unseen_of: str | None = None
    summary: str = ""
    version: str = PROTOCOL_VERSION
    seeds: tuple[int, ...] = SEEDS

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
        return held_out_answers(self.full_game(), game)

    def full_game(self) -> Game:
        """The tier's whole game: the training game, or for a tier scored on unseen answers the
        list they were held out of (what version 2's anchors play)."""
        return make_game(self.unseen_of) if self.scored == "unseen" and self.unseen_of else self.training_game()

    def anchors(self) -> Anchors:
        """The tier's anchors, of its own protocol version."""
        return protocol(self.version).anchors_of(self.name)


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

#: Version 2's seeds on its small tiers (10: one guess there is worth little, so more runs).
SEEDS_SMALL: tuple[int, ...] = tuple(range(10))

#: The tiers of protocol version 2. The small closed Nerdle tiers stay as checks (10 seeds); the
#: centre is Wordle, every Wordle tier trained on a seeded split and scored on the answers it holds
#: out (``held_out``: a fifth, still guesses, never answers in training; ``wordle-unseen`` half).
TIERS_V2: tuple[Tier, ...] = (
    Tier("micro-nerdle", "guessgym/MicroNerdle-v1", 100_000, 10_000, version="2", seeds=SEEDS_SMALL,
         summary="Micro Nerdle: 127 equations of 5 symbols, closed"),
    Tier("mini-nerdle", "guessgym/MiniNerdle-v1", 100_000, 10_000, version="2", seeds=SEEDS_SMALL,
         summary="Mini Nerdle: 206 equations of 6 symbols, closed"),
    Tier("wordle-500", "guessgym/Wordle500Train-v0", 500_000, 50_000, scored="unseen",
         unseen_of="guessgym/Wordle500-v0", version="2",
         summary="Wordle: 500 NYT answers as the guesses; trained on 400, scored on the 100 held out"),
    Tier("wordle", "guessgym/WordleTrain-v0", 1_000_000, 100_000, scored="unseen", unseen_of="guessgym/Wordle-v1",
         version="2", summary="Wordle: 12,947 guesses; trained on 1,847 answers, scored on the 462 held out"),
    Tier("wordle-hard", "guessgym/WordleHardTrain-v0", 1_000_000, 100_000, scored="unseen",
         unseen_of="guessgym/WordleHard-v1", version="2", summary="The wordle tier in hard mode"),
    Tier("wordle-unseen", "guessgym/WordleHalfTrain-v0", 1_000_000, 100_000, scored="unseen",
         unseen_of="guessgym/Wordle-v1", version="2",
         summary="Wordle: trained on a seeded half of the answers (another seed), scored on the other 1,154"),
)

#: What an algorithm may use on version 2's tiers to get a learning signal, each declared in the run's
#: record (read from its settings, so none can hide there) and shown in the report beside its score.
AIDS: dict[str, str] = {
    "candidate-prior": "the policy starts with a bonus for guesses that are still possible answers "
                       "(policy_kwargs candidate_prior != 0)",
    "split-prior": "the policy scores how each guess splits the candidates, started from a heuristic's weights "
                   "(policy_kwargs split_features)",
    "shaped-reward": "a reward for the share of candidates a guess removes (env_kwargs reward_mode: shaped)",
}


#: The fields of an anchors entry: version 1's, and version 2's (the uniform-random anchor beside).
ANCHOR_FIELDS = ("answers", "optimum_total", "proven", "scope", "random_mean", "random_stderr", "random_win_rate",
                 "command")
UNIFORM_FIELDS = ("uniform_mean", "uniform_stderr", "uniform_win_rate")


@dataclass(frozen=True)
class Anchors:
    """A tier's two anchors of the normalised regret (and version 2's third, shown beside).

    Attributes:
        answers: scored answers.
        optimum_total: guesses over the scored answers of the best tree known (version 2: the
            optimal tree of the tier's whole list, played on the scored answers).
        proven: the optimum is proven over every opener (otherwise ``optimum_total`` is an
            upper bound and ``scope`` says what was searched).
        scope: what ``optimum_total`` is the optimum of, in words.
        random_mean: the random-consistent baseline's mean score (a loss as ``max_attempts + 1``)
            over :data:`ANCHOR_SEEDS`.
        random_stderr: the standard error of that mean over the seeds.
        random_win_rate: its win rate over the seeds.
        command: the command that computed them.
        uniform_mean: version 2: a uniformly random allowed guess's mean score over the seeds (what an
            untrained policy plays); ``None`` in version 1.
        uniform_stderr: its standard error over the seeds.
        uniform_win_rate: its win rate.
    """

    answers: int
    optimum_total: int
    proven: bool
    scope: str
    random_mean: float
    random_stderr: float
    random_win_rate: float
    command: str
    uniform_mean: float | None = None
    uniform_stderr: float | None = None
    uniform_win_rate: float | None = None

    @property
    def optimum_mean(self) -> float:
        return self.optimum_total / self.answers

    def regret(self, mean_score: float) -> float:
        """The normalised regret of a mean score (0: the optimum, 1: random-consistent play)."""
        return (mean_score - self.optimum_mean) / (self.random_mean - self.optimum_mean)

    @property
    def guess_worth(self) -> float:
        """What one guess more over the scored answers is worth in regret (the score's granularity)."""
        return 1.0 / (self.answers * (self.random_mean - self.optimum_mean))


def _anchor(name: str, data: Any, fields: tuple[str, ...]) -> Anchors:
    if not isinstance(data, dict) or set(data) != set(fields):
        raise ValueError(f"anchors: tier {name!r} must have exactly the fields {', '.join(fields)}")
    kinds = {"answers": int, "optimum_total": int, "proven": bool, "scope": str, "random_mean": float,
             "random_stderr": float, "random_win_rate": float, "command": str, "uniform_mean": float,
             "uniform_stderr": float, "uniform_win_rate": float}
    for key in fields:
        kind, value = kinds[key], data[key]
        ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
        if kind is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        if not ok:
            raise ValueError(f"anchors: tier {name!r} field {key!r} must be a {kind.__name__}, got {value!r}")
    return Anchors(**data)


@dataclass(frozen=True)
class Protocol:
    """One version of the protocol: its tiers, the tiers with committed references, where its
    anchors are, and what they know.

    Attributes:
        version: the number every evaluation file of it carries.
        tiers: its tiers, from easy to hard.
        reference_tiers: those whose reference scores are committed.
        anchors_file: its anchors' file in ``data/``.
        anchors_know: ``"scored"``: the anchors play the scored game (they know the scored answers
            only; version 1); ``"full"``: they play the tier's whole list and are scored on the
            scored answers, as a player of the game is (version 2).
        aids: the learning-signal aids a run may declare (:data:`AIDS`; none in version 1).
    """

    version: str
    tiers: tuple[Tier, ...]
    reference_tiers: tuple[str, ...]
    anchors_file: str
    anchors_know: Literal["scored", "full"]
    aids: tuple[str, ...] = ()

    @property
    def anchor_fields(self) -> tuple[str, ...]:
        return ANCHOR_FIELDS + (UNIFORM_FIELDS if self.anchors_know == "full" else ())

    def tier(self, name: str) -> Tier:
        """The tier called ``name``, or a ``ValueError`` listing this version's tiers."""
        found = next((t for t in self.tiers if t.name == name), None)
        if found is None:
            raise ValueError(f"unknown tier {name!r}; the tiers of protocol {self.version} are "
                             f"{', '.join(t.name for t in self.tiers)}")
        return found

    def all_anchors(self) -> dict[str, Anchors]:
        """The anchors of every tier that has them (read as JSON)."""
        return dict(_anchors_of_version(self.version))

    def anchors_of(self, name: str) -> Anchors:
        """The anchors of tier ``name``, or a ``ValueError`` naming the command that computes them."""
        self.tier(name)
        anchors = _anchors_of_version(self.version)
        if name not in anchors:
            raise ValueError(f"tier {name!r} of protocol {self.version} has no anchors yet: python "
                             f"scripts/benchmark_anchors.py --protocol {self.version} --tier {name}")
        return anchors[name]


#: Every version, by number.
PROTOCOLS: dict[str, Protocol] = {
    "1": Protocol("1", TIERS, REFERENCE_TIERS, "anchors.json", "scored"),
    "2": Protocol("2", TIERS_V2, ("micro-nerdle", "mini-nerdle", "wordle-500"), "anchors-v2.json", "full",
                  tuple(AIDS)),
}


def protocol(version: str = PROTOCOL_VERSION) -> Protocol:
    """The protocol of ``version``, or a ``ValueError`` naming the versions."""
    if version not in PROTOCOLS:
        raise ValueError(f"unknown protocol version {str(version)[:20]!r}; the versions are {', '.join(PROTOCOLS)}")
    return PROTOCOLS[version]


@cache
def _anchors_of_version(version: str) -> dict[str, Anchors]:
    spec = protocol(version)
    with resources.as_file(resources.files(__package__ or "guessgym.training.benchmark") / "data"
                           / spec.anchors_file) as path:
        data = json.loads(read_input(path, "the benchmark's anchors", max_bytes=1 << 20))
    if not isinstance(data, dict) or data.get("protocol") != version or not isinstance(data.get("tiers"), dict):
        raise ValueError(f"{spec.anchors_file} must be protocol {version}'s object with a 'tiers' object")
    return {name: _anchor(name, value, spec.anchor_fields) for name, value in data["tiers"].items()}


def tier(name: str, version: str = PROTOCOL_VERSION) -> Tier:
    """The tier called ``name`` of protocol ``version`` (version 1 unless given).

    Raises:
        ValueError: an unknown name (the message lists the tiers) or version.
    """
    return protocol(version).tier(name)


def all_anchors(version: str = PROTOCOL_VERSION) -> dict[str, Anchors]:
    """The anchors of every tier of ``version`` that has them (``data/anchors.json`` for version 1)."""
    return protocol(version).all_anchors()


def anchors_of(name: str, version: str = PROTOCOL_VERSION) -> Anchors:
    """The anchors of tier ``name`` of protocol ``version``.

    Raises:
        ValueError: an unknown tier, or one whose anchors are not computed yet (the message
            gives the command that computes them).
    """
    return protocol(version).anchors_of(name)


def check_version(version: Any, where: str) -> Protocol:
    """The protocol of a file's ``version``; a ``ValueError`` naming the file for a version this
    guessgym does not know."""
    if not isinstance(version, str) or version not in PROTOCOLS:
        raise ValueError(f"{where} is of protocol version {str(version)[:20]!r}; this guessgym reads versions "
                         f"{', '.join(map(repr, PROTOCOLS))}")
    return PROTOCOLS[version]


def aids_of(policy_kwargs: dict[str, Any], env_kwargs: dict[str, Any]) -> list[str]:
    """The learning-signal aids (:data:`AIDS`) a run's settings use, read from the settings themselves."""
    used = []
    prior = policy_kwargs.get("candidate_prior", 0.0)
    if not isinstance(prior, (int, float)) or isinstance(prior, bool) or prior != 0.0:
        used.append("candidate-prior")  # anything but a zero counts: a record's value is never trusted to be 0
    if policy_kwargs.get("split_features"):
        used.append("split-prior")
    if env_kwargs.get("reward_mode") == "shaped":
        used.append("shaped-reward")
    return used


__all__ = ["AIDS", "ANCHOR_FIELDS", "ANCHOR_SEEDS", "LATEST_VERSION", "PROTOCOLS", "PROTOCOL_VERSION",
           "REFERENCE_TIERS", "SEEDS", "SEEDS_SMALL", "TIERS", "TIERS_V2", "UNIFORM_FIELDS", "Anchors", "Protocol",
           "Scored", "Tier", "aids_of", "all_anchors", "anchors_of", "check_version", "protocol", "tier"]
