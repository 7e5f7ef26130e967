"""One policy for every word list: DAgger on randomised games, labelled by the exact solver.

The cloned policies learn one tree of one list. A general run (its configuration here, its loop
:func:`guessgym.training.general_loop.train_general`) teaches the same guess policy
(:mod:`guessgym.agents.policies`: no parameter belongs to a word) on many games at once, drawn from
the training words of the transfer split (:mod:`guessgym.training.transfer`; an unseen word never
appears in a training game): each iteration draws ``games_per_iteration`` games
(:func:`~guessgym.training.general_games.draw_game`), plays every answer of each with the policy,
greedily and by drawing from its distribution (the first iteration with the solver, to start on the
optimal trees' states), labels every state reached with the exact solver's best move, adds them to
everything gathered so far (DAgger's aggregation), and trains the policy ``epochs`` times over it by
the cross-entropy of its masked distribution against the label, each state weighted by the games
that passed through it. After each iteration it reports the greedy policy's total guesses on fixed
validation games (also of training words) against their optima.

The run is seeded and resumable: ``<log_dir>/<run_name>/`` holds ``data/iter-<N>.npz`` (the states
of iteration ``N``, written once), ``iterations/iter-<N>/`` (the model, the optimizer, the rows so
far; the checkpoint format of :mod:`guessgym.training.checkpoints`), ``general.csv`` (a row per
iteration) and, at the end, ``model.zip``. A run stopped between iterations continues where it
stopped with the same result as one never stopped (every generator is derived from the seed and
the iteration). Torch's arithmetic is pinned as for every run (``numerics``, ``torch_threads``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .config import check_net_arch, check_torch_threads, check_train_seed, read_config_table

#: The most validation games a run may ask for (each one's optimum is solved when the run starts).
MAX_VALIDATION_GAMES = 10_000
#: The largest share of the words a run may hold out (the rest, at least a twentieth, are played).
MAX_UNSEEN_SHARE = 0.95

#: The columns of ``general.csv``.
CSV_COLUMNS = ("iteration", "games", "states_new", "states_total", "agreement", "loss", "accuracy",
               "validation_guesses", "validation_optimum", "validation_gap_pct", "validation_win_rate",
               "wall_time_s")


@dataclass(frozen=True)
class GeneralConfig:
    """A general policy's training run (every field has a default; config files use the same keys).

    Attributes:
        run_name: the run's folder under ``log_dir``.
        log_dir: where run folders are made.
        seed: seeds the model's initialisation, the games drawn, the rollouts' draws and the shuffles.
        split_seed: the transfer split's seed (:func:`~guessgym.training.transfer.transfer_split`).
        unseen_share: the share of words the split holds out.
        iterations: DAgger iterations.
        games_per_iteration: games drawn (and played, and labelled) per iteration.
        min_answers, max_answers: the range of a game's answer count (drawn log-uniformly).
        max_guesses: the most guesses a game allows.
        answers_only_share: the share of games whose answers are their only guesses.
        hard_share: the share of games in hard mode.
        large_share: the share of *large* games: ``max_answers`` to ``large_max_answers`` answers, up
            to ``large_max_guesses`` guesses, whose start is not labelled (solving it whole would take
            minutes): the policy opens them, and the states after its opener are labelled.
        modes: how each answer is played after the first iteration (``greedy``, ``sampled``, ``expert``).
        temperature: the temperature of the ``sampled`` rollouts.
        epochs: passes over everything gathered, per iteration.
        batch_size: states per gradient step (one game's states per batch).
        learning_rate: Adam's step size.
        max_grad_norm: the gradient's norm is clipped to this.
        validation_games: games of training words on which progress is measured (optima solved once).
        net_arch: the actor's and critic's hidden layers.
        split_prior: starting weights of the split features (as for the other shipped policies).
        log_scale: the answer count the size features are scaled by (fixed: one scale for every list).
        reference_list: the word list the saved model plays until pointed at another game.
        numerics: ``portable`` or ``native`` (:mod:`guessgym.training.numerics`).
        torch_threads: torch's threads (part of the result).
    """

    run_name: str = "wordle-general"
    log_dir: str = "runs"
    seed: int = 0
    split_seed: int = 0
    unseen_share: float = 0.2
    iterations: int = 12
    games_per_iteration: int = 24
    min_answers: int = 20
    max_answers: int = 600
    max_guesses: int = 3000
    answers_only_share: float = 0.25
    hard_share: float = 0.5
    large_share: float = 0.0
    large_max_answers: int = 2504
    large_max_guesses: int = 11874
    modes: tuple[str, ...] = ("greedy", "sampled")
    temperature: float = 1.0
    epochs: int = 2
    batch_size: int = 128
    learning_rate: float = 3e-4
    max_grad_norm: float = 1.0
    validation_games: int = 8
    net_arch: dict[str, list[int]] = field(default_factory=lambda: {"pi": [256, 256], "vf": [64]})
    split_prior: dict[str, float] = field(default_factory=lambda: {"log buckets": 600.0,
                                                                   "log expected left": -300.0})
    log_scale: int = 3158
    reference_list: str = "nyt2023"
    numerics: str = "portable"
    torch_threads: int = 1

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GeneralConfig:
        """Build from a table of field names; an unknown key or a bad value raises ``ValueError``."""
        names = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - set(names))
        if unknown:
            raise ValueError(f"unknown config key(s) {unknown}; valid keys: {sorted(names)}")
        values = dict(data)
        if "modes" in values and isinstance(values["modes"], list):
            values["modes"] = tuple(values["modes"])
        config = cls(**values)
        config.validate()
        return config

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["modes"] = list(self.modes)
        return data

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first bad field and what it may be."""
        from ..agents.split_features import check_log_scale, check_split_prior
        from .general_games import MODES

        def whole(name: str, low: int) -> None:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"config key {name!r} must be a whole number >= {low}, got {value!r}")

        def share(name: str, low: float, high: float, closed: bool = True) -> None:
            value = getattr(self, name)
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and (
                low <= value <= high if closed else low < value < high)
            if not ok:
                raise ValueError(f"config key {name!r} must be a number in {'[' if closed else '('}{low}, {high}"
                                 f"{']' if closed else ')'}, got {value!r}")

        for name in ("iterations", "games_per_iteration", "min_answers", "epochs", "batch_size", "validation_games"):
            whole(name, 1)
        if self.validation_games > MAX_VALIDATION_GAMES:
            raise ValueError(f"config key 'validation_games' must be at most {MAX_VALIDATION_GAMES:,} (each game's "
                             f"optimum is solved at the start), got {self.validation_games:,}")
        check_torch_threads(self.torch_threads)
        check_train_seed(self.seed)
        whole("split_seed", 0)
        whole("max_answers", self.min_answers if isinstance(self.min_answers, int) else 1)
        whole("max_guesses", self.max_answers if isinstance(self.max_answers, int) else 1)
        share("unseen_share", 0.0, MAX_UNSEEN_SHARE)
        if self.unseen_share == 0:
            raise ValueError("config key 'unseen_share' must be above 0: some words are held out")
        share("answers_only_share", 0.0, 1.0)
        share("hard_share", 0.0, 1.0)
        share("large_share", 0.0, 1.0)
        whole("large_max_answers", self.max_answers if isinstance(self.max_answers, int) else 1)
        whole("large_max_guesses", self.large_max_answers if isinstance(self.large_max_answers, int) else 1)
        share("temperature", 1e-3, 1e3)
        share("learning_rate", 1e-8, 1.0)
        share("max_grad_norm", 1e-6, 1e6)
        if (not isinstance(self.modes, tuple) or not self.modes or not set(self.modes) <= set(MODES)
                or len(set(self.modes)) != len(self.modes)):
            raise ValueError(f"config key 'modes' must be a list of some of {list(MODES)}, each once, got "
                             f"{list(self.modes) if isinstance(self.modes, tuple) else self.modes!r}")
        check_net_arch(self.net_arch)
        check_split_prior(self.split_prior, True)
        check_log_scale(self.log_scale)
        if self.numerics not in ("portable", "native"):
            raise ValueError(f"config key 'numerics' must be 'portable' or 'native', got {self.numerics!r}")
        if not isinstance(self.run_name, str) or not self.run_name or "/" in self.run_name \
                or self.run_name in (".", ".."):
            raise ValueError(f"config key 'run_name' must be a plain folder name, got {self.run_name!r}")

    @property
    def run_dir(self) -> Path:
        return Path(self.log_dir) / self.run_name


def load_general_config(path: str | Path) -> GeneralConfig:
    """Read a general run's ``.toml`` or ``.json`` config."""
    try:
        return GeneralConfig.from_dict(read_config_table(Path(path)))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{path}: {exc}") from None


__all__ = ["CSV_COLUMNS", "GeneralConfig", "load_general_config"]
