"""Trained models that ship with guessgym: a strong learned agent in one line, no training, no download.

Each shipped model is two files in ``guessgym/agents/pretrained/`` (``agents/pretrained/`` in a
checkout): ``NAME.zip``, the stable-baselines3 model, and ``NAME.json``, its *model card*: the
environment it was trained on, the training config and seed, steps, wall time, hardware, library
versions, the evaluation over every answer through the shared loop (with every answer's number of
guesses, so anyone can check a sample), the zip's size and SHA-256, and the command that
reproduces it. ``scripts/train_results.py --ship`` writes both from a finished run.

The optimizer's state is not shipped (it would triple the size); fine-tuning a shipped model
starts a fresh Adam, and playing it needs nothing else.

Examples:
    >>> sorted(available()) == sorted(p.stem for p in PRETRAINED_DIR.glob("*.json"))
    True
    >>> model_card("no-such-model")
    Traceback (most recent call last):
    ...
    guessgym.agents.pretrained.PretrainedError: no pretrained model 'no-such-model'; shipped: ...

On the command line::

    guessgym evaluate --agent pretrained:wordle      # plays the card's environment
    guessgym pretrained                              # lists the shipped models and their figures
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # torch is imported only when a model is loaded
    from .learned import LearnedAgent

#: Where the shipped models and their cards live (package data).
PRETRAINED_DIR = Path(__file__).resolve().parent / "pretrained"

#: The fields every card has (checked when a card is read).
CARD_FIELDS = ("name", "env_id", "env_kwargs", "game", "fingerprint", "algorithm", "model_sha256",
               "model_bytes", "evaluation", "training", "reproduce")

#: The spec prefix of shipped models for :func:`guessgym.agents.registry.make_agent` and the CLI.
SPEC_PREFIX = "pretrained:"


class PretrainedError(ValueError):
    """An unknown name, a missing or corrupt model file, or a model that is not the card's."""


def available() -> list[str]:
    """The names of the shipped models (one per card)."""
    return sorted(p.stem for p in PRETRAINED_DIR.glob("*.json")) if PRETRAINED_DIR.is_dir() else []


def _read_card(name: str) -> dict[str, Any]:
    names = available()
    if name not in names:
        raise PretrainedError(f"no pretrained model {name!r}; shipped: {', '.join(names) or 'none'}")
    path = PRETRAINED_DIR / f"{name}.json"
    try:
        card = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise PretrainedError(f"the model card {path} is unreadable ({exc}); reinstall guessgym") from None
    missing = [f for f in CARD_FIELDS if f not in card] if isinstance(card, dict) else list(CARD_FIELDS)
    if missing:
        raise PretrainedError(f"the model card {path} lacks {missing}; reinstall guessgym")
    return card


def model_card(name: str) -> dict[str, Any]:
    """The card of shipped model ``name`` (a copy: changing it changes nothing).

    Raises:
        PretrainedError: ``name`` is not shipped (the message lists what is), or its card is unreadable.
    """
    return json.loads(json.dumps(_read_card(name)))


def model_path(name: str) -> Path:
    """The verified zip of shipped model ``name``.

    Raises:
        PretrainedError: unknown name, missing file, or a file whose size or SHA-256 is not the
            card's (truncated or altered).
    """
    return _verified_zip(name, _read_card(name))


def _verified_zip(name: str, card: dict[str, Any]) -> Path:
    path = PRETRAINED_DIR / f"{name}.zip"
    if not path.is_file():
        raise PretrainedError(f"the pretrained model file {path} is missing; reinstall guessgym")
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if len(data) != card["model_bytes"] or digest != card["model_sha256"]:
        raise PretrainedError(
            f"the pretrained model file {path} is corrupt: {len(data):,} bytes with SHA-256 {digest[:12]}..., "
            f"its card says {card['model_bytes']:,} bytes and {card['model_sha256'][:12]}...; reinstall guessgym"
        )
    return path


def load_pretrained(name: str, *, deterministic: bool = True) -> LearnedAgent:
    """Load shipped model ``name`` as a :class:`~guessgym.agents.learned.LearnedAgent` (needs the ``train`` extra).

    The agent plays the card's game; like every learned agent it can be pointed at another
    vocabulary of the same length and alphabet (``begin(game)`` retargets it).

    Raises:
        PretrainedError: unknown name, corrupt file, or a model whose game is not the card's.
    """
    from ..envs.game import make_game
    from .learned import load_agent

    card = _read_card(name)
    path = _verified_zip(name, card)
    try:
        game = make_game(card["env_id"], **card["env_kwargs"])
    except (TypeError, ValueError) as exc:
        raise PretrainedError(f"the model card of {name!r} names a game guessgym cannot make ({exc})") from None
    agent = load_agent(path, deterministic=deterministic, name=SPEC_PREFIX + name, game=game)
    agent.training = training_summary(card["training"])
    if agent.trained_game.fingerprint != card["fingerprint"]:
        raise PretrainedError(
            f"pretrained model {name!r} plays {agent.trained_game.name} (fingerprint "
            f"{agent.trained_game.fingerprint}), but its card says {card['game']} ({card['fingerprint']})"
        )
    return agent


def card_markdown(card: dict[str, Any]) -> str:
    """The card as Markdown (results/learned/cards/NAME.md and ``guessgym pretrained NAME``)."""
    ev, tr = card["evaluation"], card["training"]
    dist = " ".join(f"{k}:{v}" for k, v in ev["distribution"].items())
    lines = [
        f"# Model card: `pretrained:{card['name']}`",
        "",
        card.get("summary", ""),
        "",
        "| | |",
        "|---|---|",
        f"| environment | `{card['env_id']}` {json.dumps(card['env_kwargs']) if card['env_kwargs'] else ''} |",
        f"| game | {card['game']} (fingerprint `{card['fingerprint']}`) |",
        f"| algorithm | {card['algorithm']}, guess policy"
        f"{' with split features' if tr['config'].get('split_features') else ''} |",
        f"| parameters | {card.get('parameters', 0):,} (none belongs to a guess) |",
        f"| file | `{card['name']}.zip`, {card['model_bytes']:,} bytes, SHA-256 `{card['model_sha256']}` |",
        f"| seed | {tr['config']['seed']} |",
        *_training_rows(tr),
        f"| hardware | {tr['hardware']} |",
        f"| numerics | {tr['numerics']} |",
        f"| libraries | {', '.join(f'{k} {v}' for k, v in tr['versions'].items())} |",
        "",
        f"## Evaluation over every answer ({ev['games']:,} games, greedy policy, the shared evaluation loop)",
        "",
        f"- win rate **{100 * ev['win_rate']:.2f} %**, mean guesses **{ev['mean_guesses']:.4f}** "
        f"(over wins), worst {ev['max_guesses']}",
        f"- distribution: {dist}",
    ]
    held = ev.get("held_out")
    if held:
        lines.append(f"- held out of training ({held['games']:,} answers): win rate {100 * held['win_rate']:.2f} %, "
                     f"mean guesses {held['mean_guesses']:.4f} ({held['total_guesses']:,} guesses)")
    for ref in card.get("references", []):
        gap = ev["mean_guesses"] - ref["mean_guesses"]
        lines.append(f"- {ref['agent']}: {ref['mean_guesses']:.4f} (learned {gap:+.4f})")
    if card.get("changes"):
        lines += ["", "## What changed", "", card["changes"]]
    lines += ["", "## Reproduce", "", "```", card["reproduce"], "```", ""]
    if card.get("limits"):
        lines += ["## Limits", "", card["limits"], ""]
    return "\n".join(lines)


def training_summary(training: dict[str, Any]) -> str:
    """How a shipped model was trained, in a few words (its card's ``training``): DAgger's
    iterations and games for the general policy, else its cloning epochs and its PPO steps."""
    general = training.get("general")
    if general:
        return f"DAgger, {general['iterations']} iterations over {general['games']:,} games"
    parts = []
    if training.get("cloning"):
        parts.append(f"cloned, {training['cloning']['epochs']} epochs")
    if training["steps"] or not parts:
        parts.append(f"{training['steps']:,} PPO steps")
    return " + ".join(parts)


def _training_rows(tr: dict[str, Any]) -> list[str]:
    """The card's rows on how the model was trained: cloning (if any), PPO steps, wall time."""
    rows = []
    cloning = tr.get("cloning")
    general = tr.get("general")
    if general:
        rows.append(f"| training | DAgger on {general['games']:,} games drawn from the transfer split's training "
                    f"words ({general['iterations']} iterations), {general['states']:,} states labelled by the exact "
                    "solver; no reinforcement learning |")
        rows.append(f"| training wall time | {tr['wall_time_s'] / 60:.1f} min |")
        return rows
    if cloning:
        held = tr["config"].get("holdout") or 0.0
        rows.append(f"| behaviour cloning | {cloning['epochs']} epochs over {cloning['states']:,} states of the "
                    f"optimal games on {cloning['train_answers']:,} answers"
                    f"{f' ({100 * held:.0f}% held out, seeded)' if held else ''}, {cloning['wall_time_s']:.0f} s |")
    if tr["steps"] or not cloning:
        rows.append(f"| steps | {tr['steps']:,} environment steps ({tr.get('stopped', 'budget spent')}) |")
    else:
        rows.append("| steps | none: no reinforcement learning after cloning |")
    rate = f" ({tr['steps_per_s']:.0f} steps/s)" if tr.get("steps_per_s") else ""
    rows.append(f"| training wall time | {tr['wall_time_s'] / 60:.1f} min{rate} |")
    return rows


__all__ = [
    "PRETRAINED_DIR",
    "PretrainedError",
    "SPEC_PREFIX",
    "available",
    "card_markdown",
    "load_pretrained",
    "model_card",
    "model_path",
    "training_summary",
]
