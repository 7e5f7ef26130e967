"""The loop of a general policy's run: draw games, play and label them, aggregate, fit, validate, save.

:func:`train_general` runs a general run through :class:`GeneralRun` (the method and the
run folder are described there).
"""

from __future__ import annotations

import dataclasses
import io
import json
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from stable_baselines3.common.base_class import BaseAlgorithm
from torch.nn import functional as F

from ..agents.learned import policy_actions
from ..agents.policies import GuessPolicyMixin
from ..agents.rollout import play_batched
from ..baselines.move_values import StateValues
from ..envs.game import Game, wordle
from ..infra.atomic import atomic_write_bytes, atomic_write_csv
from ..infra.inputs import read_npz
from .checkpoints import (
    CheckpointError,
    latest_checkpoint,
    load_checkpoint_state,
    load_optimizer_state,
    optimizer_state,
    save_checkpoint,
)
from .general import CSV_COLUMNS, GeneralConfig
from .general_games import GameDraw, GameShape, Visits, draw_game, visit_game
from .numerics import describe_numerics
from .transfer import transfer_split

logger = logging.getLogger(__name__)


class GeneralRun:
    """One general run (see :mod:`guessgym.training.general`)."""

    def __init__(self, config: GeneralConfig, report: Callable[[str], None] | None = None) -> None:
        from .numerics import pin_numerics, pin_threads

        config.validate()
        self.config = config
        self.report = report
        pin_numerics(config.numerics)
        pin_threads(config.torch_threads)
        self.split = transfer_split(config.split_seed, config.unseen_share)
        self.shape = GameShape(config.min_answers, config.max_answers, config.max_guesses, config.answers_only_share,
                               config.hard_share, config.large_share, config.large_max_answers,
                               config.large_max_guesses)
        self.folder = config.run_dir
        self.reference = wordle(word_list=config.reference_list)
        self.model = self._build_model()
        self.policy: GuessPolicyMixin = self.model.policy  # type: ignore[assignment]
        self.optimizer = th.optim.Adam(self.model.policy.parameters(), lr=config.learning_rate)
        self.data: list[tuple[GameDraw, Game, Visits]] = []
        self.rows: list[list[Any]] = []
        self.wall = 0.0

    # ---- the model -----------------------------------------------------------------------------
    def _build_model(self) -> BaseAlgorithm:
        from sb3_contrib import MaskablePPO

        from ..agents.policies import MaskableGuessPolicy
        from ..envs.vector import BatchedGuessEnv
        from .sb3_vec import BatchedVecEnv

        c = self.config
        venv = BatchedVecEnv(BatchedGuessEnv(1, game=self.reference, track_candidates=False))
        kwargs = {"game": self.reference, "candidate_features": True, "candidate_prior": 0.0, "split_features": True,
                  "split_prior": dict(c.split_prior), "log_scale": c.log_scale,
                  "net_arch": {k: list(v) for k, v in c.net_arch.items()}}
        model = MaskablePPO(MaskableGuessPolicy, venv, learning_rate=c.learning_rate, n_steps=8, batch_size=8,
                            seed=c.seed, device="cpu", policy_kwargs=kwargs, verbose=0)
        model.observation_space.seed(c.seed)  # its generators' state is saved with the model: the same every run
        return model

    def _save(self, path: Path) -> None:
        from ..agents.model_files import save_model

        self.policy.set_game(self.reference)
        buffer = io.BytesIO()
        save_model(self.model, buffer)
        atomic_write_bytes(path, buffer.getvalue())

    # ---- resuming ------------------------------------------------------------------------------
    def _resume(self) -> int:
        """Load the latest checkpoint, if any; the number of iterations it holds."""
        saved = latest_checkpoint(self.folder, "iterations", "iter-")
        if saved is None:
            return 0
        from ..agents.model_files import read_model

        state = load_checkpoint_state(saved)
        if state.get("config") != self.config.to_dict():
            raise CheckpointError(f"{saved} was written by another configuration; use another run_name")
        try:
            model = read_model(saved / "model.zip", game=self.reference)
            self.model.policy.load_state_dict(model.policy.state_dict())
            load_optimizer_state(self.optimizer, state["optimizer"])
            self.rows, self.wall, done = list(state["rows"]), float(state["wall_time_s"]), int(state["iteration"])
        except (KeyError, TypeError, ValueError, RuntimeError) as exc:
            raise CheckpointError(f"{saved}: not a checkpoint of this run ({exc})") from None
        for iteration in range(1, done + 1):
            self.data.extend(self._load_data(iteration))
        return done

    def _data_path(self, iteration: int) -> Path:
        return self.folder / "data" / f"iter-{iteration:04d}.npz"

    def _save_data(self, iteration: int, gathered: list[tuple[GameDraw, Game, Visits]]) -> None:
        arrays: dict[str, np.ndarray] = {}
        for j, (draw, _, visits) in enumerate(gathered):
            arrays[f"g{j}_answers"], arrays[f"g{j}_guesses"] = draw.answers, draw.guesses
            arrays[f"g{j}_hard"], arrays[f"g{j}_large"] = np.array([draw.hard]), np.array([draw.large])
            arrays.update(visits.arrays(f"g{j}_"))
        buffer = io.BytesIO()
        np.savez_compressed(buffer, allow_pickle=False, **arrays)
        atomic_write_bytes(self._data_path(iteration), buffer.getvalue())

    def _load_data(self, iteration: int) -> list[tuple[GameDraw, Game, Visits]]:
        path = self._data_path(iteration)
        try:
            arrays = read_npz(path, "general run's data")
            out = []
            for j in range(len([k for k in arrays if k.endswith("_hard")])):
                draw = GameDraw(arrays[f"g{j}_answers"], arrays[f"g{j}_guesses"], bool(arrays[f"g{j}_hard"][0]),
                                bool(arrays[f"g{j}_large"][0]))
                out.append((draw, draw.game(self.split), Visits.from_arrays(arrays, f"g{j}_")))
        except (OSError, KeyError, ValueError) as exc:
            raise CheckpointError(f"{path}: not this run's data ({type(exc).__name__}: {exc})") from None
        return out

    # ---- one iteration -------------------------------------------------------------------------
    def _gather(self, iteration: int) -> tuple[list[tuple[GameDraw, Game, Visits]], float]:
        """Draw, play and label this iteration's games; the policy's agreement with the labels."""
        c = self.config
        rng = np.random.default_rng([c.seed, iteration])
        gathered, agreed, asked = [], 0, 0
        for _ in range(c.games_per_iteration):
            draw = draw_game(rng, self.split, self.shape)
            game = draw.game(self.split)
            if draw.large:  # opened by the policy: no solver's rows
                modes = tuple(m for m in c.modes if m != "expert") if iteration > 1 else ()
                modes = modes or ("greedy",)
            else:
                modes = c.modes if iteration > 1 else ("expert",)
            outcome = visit_game(self.policy, game, StateValues(game), modes, rng, c.temperature,
                                 label_start=not draw.large)
            gathered.append((draw, game, outcome.visits))
            agreed, asked = agreed + outcome.policy_agreed, asked + outcome.policy_asked
        return gathered, agreed / asked if asked else float("nan")

    def _fit(self, iteration: int) -> tuple[float, float]:
        """``epochs`` passes over everything gathered; the last pass's mean loss and accuracy."""
        c = self.config
        rng = np.random.default_rng([c.seed, iteration, 1])
        scale = float(np.mean(np.concatenate([v.weights for _, _, v in self.data])))
        policy: Any = self.policy
        current: Game | None = None
        loss_sum = hits = seen = 0.0
        for epoch in range(c.epochs):
            batches = [(g, rows[i : i + c.batch_size]) for g, (_, _, v) in enumerate(self.data)
                       for rows in [rng.permutation(len(v))] for i in range(0, len(v), c.batch_size)]
            last = epoch == c.epochs - 1
            policy.set_training_mode(True)
            for b in rng.permutation(len(batches)):
                g, rows = batches[int(b)]
                _, game, visits = self.data[g]
                if current is not game:
                    policy.set_game(game)
                    current = game
                obs = {"board": th.as_tensor(visits.board[rows]), "tiles": th.as_tensor(visits.tiles[rows])}
                logits = policy.action_logits(obs)
                if visits.masks is not None:
                    logits = logits.masked_fill(~th.as_tensor(visits.masks[rows]), -th.inf)
                labels = th.as_tensor(visits.labels[rows].astype(np.int64))
                picked = F.log_softmax(logits, dim=1).gather(1, labels[:, None]).squeeze(1)
                weights = th.as_tensor(visits.weights[rows] / scale)
                loss = -(weights * picked).mean()
                self.optimizer.zero_grad()
                loss.backward()
                th.nn.utils.clip_grad_norm_(policy.parameters(), c.max_grad_norm)
                self.optimizer.step()
                if last:
                    loss_sum += float(loss.detach()) * len(rows)
                    hits += float((logits.detach().argmax(1) == labels).sum())
                    seen += len(rows)
            policy.set_training_mode(False)
        return loss_sum / max(seen, 1), hits / max(seen, 1)

    def _validation(self) -> list[tuple[Game, int]]:
        """The validation games and their optima (solved once, then read from ``validation.json``)."""
        c = self.config
        rng = np.random.default_rng([c.seed, 0])
        small = dataclasses.replace(self.shape, large_share=0.0)  # validation games are solved whole
        draws = [draw_game(rng, self.split, small) for _ in range(c.validation_games)]
        games = [d.game(self.split) for d in draws]
        path = self.folder / "validation.json"
        known = json.loads(path.read_text()) if path.is_file() else {}
        optima = []
        for game in games:
            if game.fingerprint not in known:
                values = StateValues(game)
                known[game.fingerprint] = int(values.best(values.everyone, game.max_attempts, values.all_guesses))
                atomic_write_bytes(path, json.dumps(known, indent=1).encode())
            optima.append(int(known[game.fingerprint]))
        return list(zip(games, optima))

    def _validate(self, validation: list[tuple[Game, int]]) -> tuple[int, int, float]:
        total = optimum = won = games = 0
        for game, best in validation:
            self.policy.set_game(game)
            guesses = play_batched(policy_actions(self.policy), game)
            total += int(np.where(guesses > 0, guesses, game.max_attempts + 1).sum())
            optimum += best
            won += int((guesses > 0).sum())
            games += guesses.size
        return total, optimum, won / games

    # ---- the run -------------------------------------------------------------------------------
    def run(self, stop_event: threading.Event | None = None) -> Path | None:
        c = self.config
        self.folder.mkdir(parents=True, exist_ok=True)
        config_path = self.folder / "config.json"
        if config_path.is_file() and json.loads(config_path.read_text()) != c.to_dict():
            raise CheckpointError(f"{self.folder} holds a run of another configuration; use another run_name")
        atomic_write_bytes(config_path, json.dumps(c.to_dict(), indent=2).encode())
        done = self._resume()
        began = time.perf_counter() - self.wall
        validation = self._validation()
        for iteration in range(done + 1, c.iterations + 1):
            gathered, agreement = self._gather(iteration)
            self._save_data(iteration, gathered)
            self.data.extend(gathered)
            loss, accuracy = self._fit(iteration)
            total, optimum, win_rate = self._validate(validation)
            elapsed = time.perf_counter() - began
            new = sum(len(v) for _, _, v in gathered)
            self.rows.append([iteration, len(gathered), new, sum(len(v) for _, _, v in self.data),
                              "" if np.isnan(agreement) else round(agreement, 6), round(loss, 6), round(accuracy, 6),
                              total, optimum, round(100 * (total - optimum) / optimum, 4), round(win_rate, 6),
                              round(elapsed, 1)])
            atomic_write_csv(self.folder / "general.csv", CSV_COLUMNS, self.rows)
            self.policy.set_game(self.reference)
            save_checkpoint(self.folder / "iterations", self.model,
                            {"iteration": iteration, "optimizer": optimizer_state(self.optimizer), "rows": self.rows,
                             "wall_time_s": elapsed, "config": c.to_dict()}, keep=2, name=f"iter-{iteration:04d}")
            played = ("played by the solver" if np.isnan(agreement) else
                      f"the policy already played the solver's move in {100 * agreement:.1f}%")
            self._say(f"iteration {iteration}/{c.iterations}: {new:,} new states ({played}), loss {loss:.4f}, "
                      f"accuracy {100 * accuracy:.1f}%; validation {total:,} guesses against the optimum {optimum:,} "
                      f"({100 * (total - optimum) / optimum:+.2f}%, "
                      f"{100 * win_rate:.2f}% won), {elapsed:.0f} s")
            if stop_event is not None and stop_event.is_set() and iteration < c.iterations:
                return None
        final = self.folder / "model.zip"
        self._save(final)
        summary = {"iterations": c.iterations, "states": sum(len(v) for _, _, v in self.data),
                   "games": len(self.data), "wall_time_s": round(time.perf_counter() - began, 1),
                   "last": dict(zip(CSV_COLUMNS, self.rows[-1])) if self.rows else None,
                   "numerics": describe_numerics(c.numerics)}
        atomic_write_bytes(self.folder / "summary.json", json.dumps(summary, indent=2).encode())
        return final

    def _say(self, text: str) -> None:
        logger.info(text)
        if self.report is not None:
            self.report(text)


def train_general(config: GeneralConfig, *, report: Callable[[str], None] | None = None,
                  stop_event: threading.Event | None = None) -> Path | None:
    """Run (or resume) a general run (see the module docstring).

    Returns:
        The final model's path, or ``None`` when ``stop_event`` stopped the run after an iteration.

    Raises:
        CheckpointError: the run folder holds another configuration's run, or a damaged checkpoint.
    """
    return GeneralRun(config, report).run(stop_event)


__all__ = ["GeneralRun", "train_general"]
