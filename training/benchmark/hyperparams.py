"""The benchmark's hyperparameter files: rl-zoo3's format, read without running code.

``data/hyperparams/<algo>.yml`` holds one entry per tier's id, exactly as rl-zoo3's own files do
(``policy``, ``n_envs``, ``n_timesteps``, the algorithm's keyword arguments and ``policy_kwargs`` as
the string ``"dict(...)"``), so ``python -m rl_zoo3.train --conf-file`` trains on them unchanged.
rl-zoo3 reads them with PyYAML's unsafe loader and ``eval``s ``policy_kwargs``; guessgym reads the
same files with ``yaml.safe_load`` and takes ``policy_kwargs`` apart with :mod:`ast`, accepting
literals only, and ``policy`` only from :data:`POLICIES`: a file never runs code here.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ...infra.inputs import read_input

#: The algorithms of the reference scores: their classes, by name (stable-baselines3 / sb3-contrib, the
#: value-based two with updates that compute only the values their losses use: training/value_based.py).
ALGORITHMS: dict[str, str] = {
    "ppo": "stable_baselines3:PPO",
    "a2c": "stable_baselines3:A2C",
    "dqn": "guessgym.training.value_based:GuessDQN",
    "maskable_ppo": "sb3_contrib:MaskablePPO",
    "qrdqn": "guessgym.training.value_based:GuessQRDQN",
}

#: Those rl-zoo3 2.9 trains (``--algo``); it has no MaskablePPO.
ZOO_ALGORITHMS = ("ppo", "a2c", "dqn", "qrdqn")

#: The policies a hyperparameter file may name (module path, as rl-zoo3 imports it).
POLICIES: dict[str, str] = {
    "guessgym.agents.policies.GuessActorCriticPolicy": "GuessActorCriticPolicy",
    "guessgym.agents.policies.MaskableGuessPolicy": "MaskableGuessPolicy",
    "guessgym.agents.policies.GuessQPolicy": "GuessQPolicy",
    "guessgym.agents.policies.GuessQuantilePolicy": "GuessQuantilePolicy",
}

#: Entry keys that are not the algorithm's keyword arguments.
RUN_KEYS = ("policy", "n_envs", "n_timesteps", "policy_kwargs", "env_kwargs")

#: rl-zoo3 keys guessgym's runner does not apply (a file that uses them is refused, not half-read).
UNSUPPORTED = ("normalize", "env_wrapper", "vec_env_wrapper", "frame_stack", "callback", "monitor_kwargs",
               "replay_buffer_class", "replay_buffer_kwargs", "noise_type", "noise_std")

MAX_FILE_BYTES = 1 << 20
MAX_KWARGS_CHARS = 10_000
#: The most values (numbers, strings, list items, mapping entries) one entry may hold once its YAML
#: aliases are followed: a 604-byte file of nested aliases otherwise grew to gigabytes when written out.
MAX_ENTRY_VALUES = 10_000

#: The range of each numeric setting a run takes, as (low, high, whether low itself is allowed).
SETTING_RANGES: dict[str, tuple[float, float, bool]] = {
    "learning_rate": (0.0, 1.0, False), "gamma": (0.0, 1.0, False), "gae_lambda": (0.0, 1.0, True),
    "clip_range": (0.0, 10.0, False), "ent_coef": (0.0, 100.0, True), "vf_coef": (0.0, 100.0, True),
    "max_grad_norm": (0.0, 1e6, False), "n_epochs": (1, 100, True), "n_steps": (1, 1_000_000, True),
    "batch_size": (1, 1_000_000, True), "exploration_fraction": (0.0, 1.0, True),
    "exploration_initial_eps": (0.0, 1.0, True), "exploration_final_eps": (0.0, 1.0, True),
    "tau": (0.0, 1.0, False), "gradient_steps": (-1, 1000, True), "n_quantiles": (1, 1000, True),
}


class HyperparamsError(ValueError):
    """A hyperparameter file or entry guessgym cannot use (the message names the file and the key)."""


@dataclass(frozen=True)
class Hyperparams:
    """One entry of a hyperparameter file, resolved.

    Attributes:
        source: the file it came from.
        env_id: the entry's id.
        policy: the policy's class name in :mod:`guessgym.agents.policies`.
        n_envs: games played in parallel.
        n_timesteps: the entry's step budget (``None`` if it has none).
        policy_kwargs: the policy's keyword arguments (literals; ``game`` an id).
        algorithm_kwargs: the rest, passed to the algorithm's constructor.
        env_kwargs: the environment's reward settings (rl-zoo3's ``env_kwargs``; the keys of
            :class:`~guessgym.envs.rewards.RewardConfig` only: the game is the tier's).
    """

    source: str
    env_id: str
    policy: str
    n_envs: int
    n_timesteps: int | None
    policy_kwargs: dict[str, Any]
    algorithm_kwargs: dict[str, Any]
    env_kwargs: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The entry as JSON values (what an evaluation file records; ``env_kwargs`` only when set)."""
        return {"policy": self.policy, "n_envs": self.n_envs, "n_timesteps": self.n_timesteps,
                "policy_kwargs": self.policy_kwargs, **({"env_kwargs": self.env_kwargs} if self.env_kwargs else {}),
                **self.algorithm_kwargs}


def shipped_path(algo: str) -> Path:
    """The shipped hyperparameter file of ``algo`` (a path inside the installed package)."""
    if algo not in ALGORITHMS:
        raise HyperparamsError(f"no shipped hyperparameters for algorithm {algo!r}; shipped: {', '.join(ALGORITHMS)}")
    root = resources.files(__package__ or "guessgym.training.benchmark") / "data" / "hyperparams"
    return Path(str(root / f"{algo}.yml"))


def parse_policy_kwargs(text: Any, where: str) -> dict[str, Any]:
    """rl-zoo3's ``policy_kwargs``: ``"dict(key=literal, ...)"`` (nested ``dict(...)`` allowed) or
    a mapping, as plain values; anything else (a name, a call, an attribute) is refused."""
    if isinstance(text, dict):
        return dict(text)
    if not isinstance(text, str):
        raise HyperparamsError(f"{where}: policy_kwargs must be a string \"dict(...)\" or a mapping, got {text!r}")
    value = _literal(text, where)
    if not isinstance(value, dict):
        raise HyperparamsError(f"{where}: policy_kwargs must describe a dict, got {text!r}")
    return value


def _literal(text: str, where: str) -> Any:
    if len(text) > MAX_KWARGS_CHARS:
        raise HyperparamsError(f"{where}: policy_kwargs is {len(text):,} characters, over {MAX_KWARGS_CHARS:,}")
    try:
        tree = ast.parse(text.strip(), mode="eval")
        return _value(tree.body, where, text)
    except (SyntaxError, ValueError) as exc:
        if isinstance(exc, HyperparamsError):
            raise
        raise HyperparamsError(f"{where}: policy_kwargs {text[:80]!r} is not a Python literal expression") from None
    except (TypeError, RecursionError, MemoryError):
        raise HyperparamsError(f"{where}: policy_kwargs {text[:80]!r} is not a literal dict guessgym reads "
                               "(an unhashable key, or nested too deep)") from None


def _value(node: ast.AST, where: str, text: str) -> Any:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict" and not node.args:
        if any(k.arg is None for k in node.keywords):
            raise HyperparamsError(f"{where}: policy_kwargs {text!r} unpacks a mapping (**), which is not a literal")
        return {k.arg: _value(k.value, where, text) for k in node.keywords}
    if isinstance(node, ast.Dict):
        return {_value(k, where, text) if k is not None else None: _value(v, where, text)
                for k, v in zip(node.keys, node.values)}
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_value(e, where, text) for e in node.elts]
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise HyperparamsError(f"{where}: policy_kwargs {text!r} holds {ast.unparse(node)!r}, which is not a literal "
                               "(guessgym reads literals, dict(...) and lists only)") from None


def check_entry_size(entry: Any, where: str, limit: int = MAX_ENTRY_VALUES) -> None:
    """Refuse an entry holding over ``limit`` values once its YAML aliases are followed (counted with
    a stop at the limit, so an entry of nested aliases is refused without being walked whole)."""
    stack, seen = [entry], 0
    while stack:
        item = stack.pop()
        seen += 1
        if seen > limit:
            raise HyperparamsError(f"{where}: the entry holds over {limit:,} values once its YAML aliases are followed "
                                   "(an alias repeats everything it names); write its settings out")
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)


def _numbers(value: Any) -> list[float]:
    """Every number in ``value`` (a setting, a list, a mapping of them)."""
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [value]
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, (list, tuple)):
        return [n for v in value for n in _numbers(v)]
    return []


def check_run_settings(hp: Hyperparams, budget: int, eval_every: int) -> None:
    """Refuse, in one line naming the file, entry and setting, what a run of ``budget`` steps
    evaluated every ``eval_every`` could not take: a number that is not finite, a setting outside
    :data:`SETTING_RANGES`, hidden layers past the training config's bounds (widths, depth and
    weights, :func:`~guessgym.agents.net_arch.check_layer_sizes`), a rollout (``n_steps`` or
    ``train_freq`` times ``n_envs``) longer than ``eval_every`` (its evaluations would be skipped),
    a replay buffer, ``learning_starts`` or target interval past the budget. Checked before anything
    is built: the protocol's budget is a bound, not a suggestion.

    Raises:
        HyperparamsError: naming the setting, its value and what is allowed.
    """
    from ...agents.net_arch import check_layer_sizes

    where = f"{hp.source} [{hp.env_id}]"
    settings = {**hp.algorithm_kwargs, **{f"policy_kwargs.{k}": v for k, v in hp.policy_kwargs.items()}}
    for key, value in settings.items():
        if not all(math.isfinite(n) for n in _numbers(value)):
            raise HyperparamsError(f"{where}: {key} must be finite, got {str(value)[:60]}")
        name = key.removeprefix("policy_kwargs.")
        if name in SETTING_RANGES and not isinstance(value, bool) and isinstance(value, (int, float)):
            low, high, low_allowed = SETTING_RANGES[name]
            if not ((low <= value if low_allowed else low < value) and value <= high):
                raise HyperparamsError(f"{where}: {key} must be {'from' if low_allowed else 'above'} {low:g} "
                                       f"{'to' if low_allowed else 'and at most'} {high:g}, got {value!r}")
    arch = hp.policy_kwargs.get("net_arch")
    try:
        if isinstance(arch, dict):
            if set(arch) - {"pi", "vf", "qf"}:
                raise ValueError(f"net_arch takes pi and vf (or a list), got {', '.join(map(str, arch))}")
            for part, sizes in arch.items():
                check_layer_sizes(sizes, f"net_arch.{part}")
        elif arch is not None:
            check_layer_sizes(arch, "net_arch")
    except ValueError as exc:
        raise HyperparamsError(f"{where}: policy_kwargs {exc}") from None
    kwargs = hp.algorithm_kwargs
    freq = kwargs.get("train_freq", 1)
    steps = kwargs.get("n_steps", freq[0] if isinstance(freq, tuple) else freq)
    if type(steps) is not int or steps < 1:
        raise HyperparamsError(f"{where}: n_steps / train_freq must be a positive whole number of steps, got {steps!r}")
    if steps * hp.n_envs > eval_every:
        raise HyperparamsError(f"{where}: one rollout is {steps:,} steps x {hp.n_envs} games = {steps * hp.n_envs:,} "
                               f"steps, over the {eval_every:,} between the tier's evaluations; use fewer")
    for key in ("buffer_size", "learning_starts", "target_update_interval"):
        value = kwargs.get(key)
        if value is not None and (type(value) is not int or not 0 <= value <= budget):
            raise HyperparamsError(f"{where}: {key} must be a whole number from 0 to the tier's budget "
                                   f"({budget:,}), got {value!r}")


def load_hyperparams(algo: str, env_id: str, path: str | Path | None = None) -> Hyperparams:
    """The entry for ``env_id`` in ``path`` (default: the shipped file of ``algo``).

    Raises:
        HyperparamsError: the file is not YAML, has no entry for ``env_id``, names a policy outside
            :data:`POLICIES`, uses a key the runner does not apply, or holds a value of the wrong type.
        FileNotFoundError: no file at ``path``.
    """
    import yaml

    source = shipped_path(algo) if path is None else Path(path)
    raw = read_input(source, "hyperparameter file", max_bytes=MAX_FILE_BYTES)
    try:
        document = yaml.safe_load(raw)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as exc:  # a bad !!float raises ValueError
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise HyperparamsError(f"{source}: not YAML that safe_load reads ({first})") from None
    if not isinstance(document, dict):
        raise HyperparamsError(f"{source}: a hyperparameter file is a mapping of ids to entries")
    if env_id not in document:
        ids = ", ".join(str(k) for k in document if not str(k).startswith("_"))
        raise HyperparamsError(f"{source} has no entry for {env_id}; it has {ids or 'none'}")
    entry = document[env_id]
    where = f"{source} [{env_id}]"
    if not isinstance(entry, dict):
        raise HyperparamsError(f"{where}: an entry is a mapping of settings")
    check_entry_size(entry, where)
    bad = sorted(set(entry) & set(UNSUPPORTED))
    if bad:
        raise HyperparamsError(f"{where}: {', '.join(bad)} is rl-zoo3 only; guessgym's runner does not apply it")
    policy = entry.get("policy")
    if policy not in POLICIES:
        raise HyperparamsError(f"{where}: policy must be one of {', '.join(POLICIES)}; got {policy!r}")
    n_envs = entry.get("n_envs", 1)
    if type(n_envs) is not int or not 1 <= n_envs <= 1024:
        raise HyperparamsError(f"{where}: n_envs must be an int from 1 to 1024, got {n_envs!r}")
    steps = entry.get("n_timesteps")
    if steps is not None and (isinstance(steps, bool) or not isinstance(steps, (int, float))
                              or not math.isfinite(steps) or steps < 1 or steps != int(steps)):
        raise HyperparamsError(f"{where}: n_timesteps must be a positive whole number, got {steps!r}")
    if not all(isinstance(k, str) and k.isidentifier() for k in entry):
        raise HyperparamsError(f"{where}: every setting's name must be an identifier, got "
                               f"{[k for k in entry if not (isinstance(k, str) and k.isidentifier())][:3]}")
    kwargs = {k: v for k, v in entry.items() if k not in RUN_KEYS}
    for key, value in kwargs.items():
        if isinstance(value, str) or not isinstance(value, (int, float, bool, list)):
            raise HyperparamsError(f"{where}: {key} must be a number, a bool or a list, got {value!r} (rl-zoo3's "
                                   "schedule strings such as 'lin_3e-4' are not read here)")
    if isinstance(kwargs.get("train_freq"), list):
        kwargs["train_freq"] = tuple(kwargs["train_freq"])
    policy_kwargs = parse_policy_kwargs(entry.get("policy_kwargs", "dict()"), where)
    if not all(isinstance(k, str) and k.isidentifier() for k in policy_kwargs):
        raise HyperparamsError(f"{where}: policy_kwargs' names must be identifiers")
    game = policy_kwargs.setdefault("game", env_id)
    if game != env_id:
        _check_policy_game(game, env_id, where)
    return Hyperparams(str(source), env_id, POLICIES[policy], n_envs, None if steps is None else int(steps),
                       policy_kwargs, kwargs, _env_kwargs(entry.get("env_kwargs", {}), where))


def _check_policy_game(game: Any, env_id: str, where: str) -> None:
    """A policy's ``game`` other than the entry's id: another registered id with the same guesses and rules
    (protocol 2's policies know the tier's whole list of answers while training on its split)."""
    from ...envs.game import make_game

    try:
        theirs, ours = make_game(game), make_game(env_id)
    except (TypeError, ValueError):
        raise HyperparamsError(f"{where}: policy_kwargs game {str(game)[:80]!r} is not a registered guessgym "
                               "id") from None
    if (theirs.guesses, theirs.hard_mode, theirs.max_attempts) != (ours.guesses, ours.hard_mode, ours.max_attempts):
        raise HyperparamsError(f"{where}: policy_kwargs game {game!r} does not play {env_id}'s guesses and rules")


def _env_kwargs(value: Any, where: str) -> dict[str, Any]:
    """An entry's ``env_kwargs``: reward settings only (the tier fixes the game), checked by the
    reward's own rules."""
    from ...envs.rewards import REWARD_KEYS, RewardConfig

    if not isinstance(value, dict):
        raise HyperparamsError(f"{where}: env_kwargs must be a mapping of reward settings, got {str(value)[:60]}")
    unknown = sorted(str(k) for k in value if k not in REWARD_KEYS)
    if unknown:
        raise HyperparamsError(f"{where}: env_kwargs {', '.join(unknown)} is not a reward setting; the tier fixes the "
                               f"game, and env_kwargs takes {', '.join(REWARD_KEYS)}")
    try:
        RewardConfig(**value)
    except (TypeError, ValueError) as exc:
        raise HyperparamsError(f"{where}: env_kwargs {exc}") from None
    return dict(value)


__all__ = ["ALGORITHMS", "MAX_ENTRY_VALUES", "POLICIES", "SETTING_RANGES", "UNSUPPORTED", "ZOO_ALGORITHMS",
           "Hyperparams", "HyperparamsError", "check_entry_size", "check_run_settings", "load_hyperparams",
           "parse_policy_kwargs", "shipped_path"]
