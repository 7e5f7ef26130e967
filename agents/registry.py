"""The agent registry: one place that turns an agent spec into an :class:`~guessgym.agents.base.Agent`.

The command line, :func:`~guessgym.evaluation.evaluate.evaluate` and training all resolve agents here.
A spec is one of:

* a registered name (``"least-worst"``): agents register themselves when their module is imported;
  on its first lookup the registry imports every module of the ``guessgym.agents`` entry-point
  group (:data:`ENTRY_POINT_GROUP`: guessgym's baselines, tree and lookahead players, and any
  installed package's), so this layer names no module above it; :func:`register` adds your own;
* ``"model:PATH"``: a trained stable-baselines3 agent (a ``.zip``, checkpoint or run directory;
  needs the ``train`` extra);
* ``"pretrained:NAME"``: a model shipped with guessgym (:mod:`guessgym.agents.pretrained`;
  ``train`` extra);
* ``"llm:MODEL"``: a language model on an OpenAI-compatible server
  (:class:`~guessgym.agents.llm.LLMAgent`; keyword arguments ``base_url``, sampling...; needs the
  ``llm`` extra), a :class:`~guessgym.agents.text.TextAgent` that plays the chat environment;
* ``"module:Class"``: an :class:`~guessgym.agents.base.Agent` (or
  :class:`~guessgym.agents.text.TextAgent`) subclass, or ``"module:function"``: a function
  declared a factory with :func:`agent_factory`. **This imports the module, which runs its code**:
  name only modules you trust. Nothing else is called: ``os:system`` is refused before any call.

Examples:
    >>> make_agent("min-average", depth=1).name
    'min-average'
    >>> make_agent("no-such-agent")
    Traceback (most recent call last):
    ...
    guessgym.agents.registry.AgentSpecError: unknown agent 'no-such-agent'; known agents: clique, expected-size, ...
"""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import os
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..infra.optional import require_extra
from .base import Agent
from .text import TextAgent

AgentFactory = Callable[..., "Agent | TextAgent"]

#: The entry-point group of modules that register agents when imported (``pyproject.toml``).
ENTRY_POINT_GROUP = "guessgym.agents"

_REGISTRY: dict[str, AgentFactory] = {}
_loaded = False


class AgentSpecError(ValueError):
    """An agent spec that cannot be resolved, or arguments the agent does not accept."""


def agent_factory(function: Callable[..., Any]) -> Callable[..., Any]:
    """Declare ``function`` a factory of agents, so that a ``module:function`` spec may call it.

    Examples:
        >>> @agent_factory
        ... def greedy(depth: int = 1):
        ...     return make_agent("min-average", depth=depth)
        >>> is_agent_factory(greedy)
        True
    """
    if not callable(function) or isinstance(function, type):
        raise TypeError(f"agent_factory decorates a function, got {function!r}")
    function.__guessgym_agent_factory__ = True  # type: ignore[attr-defined]
    return function


def is_agent_factory(obj: Any) -> bool:
    """An Agent or TextAgent subclass, or a function declared with :func:`agent_factory`."""
    if isinstance(obj, type):
        return issubclass(obj, (Agent, TextAgent))
    return inspect.isfunction(obj) and getattr(obj, "__guessgym_agent_factory__", False) is True


def register(name: str, factory: AgentFactory, *, replace: bool = False) -> None:
    """Register ``factory`` (an Agent class or a function returning one) under ``name``."""
    if not name or ":" in name:
        raise ValueError(f"agent names are non-empty and contain no ':', got {name!r}")
    if name in _REGISTRY and _REGISTRY[name] is not factory and not replace:
        raise ValueError(f"an agent named {name!r} is already registered; pass replace=True to replace it")
    _REGISTRY[name] = factory


def providers() -> list[importlib.metadata.EntryPoint]:
    """The installed modules that register agents (the :data:`ENTRY_POINT_GROUP` entry points)."""
    return sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)


def _load_builtins() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for entry in providers():
            try:
                entry.load()
            except Exception as exc:  # another package's broken provider must not break guessgym's agents
                warnings.warn(f"agent provider {entry.name!r} ({entry.value}) failed to load, its agents are "
                              f"missing: {type(exc).__name__}: {str(exc)[:200]}", RuntimeWarning, stacklevel=3)


def registered() -> dict[str, AgentFactory]:
    """Every registered name and its factory (built-ins included)."""
    _load_builtins()
    return dict(sorted(_REGISTRY.items()))


def describe(factory: AgentFactory) -> str:
    """The first line of a factory's docstring."""
    doc = (factory.__doc__ or "").strip().splitlines()
    return doc[0] if doc else ""


def options_of(factory: AgentFactory) -> list[str]:
    """The keyword arguments a factory accepts (for error messages)."""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "self"]


def _takes_any_keyword(factory: AgentFactory) -> bool:
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return True  # unknown: let the call decide
    return any(p.kind is p.VAR_KEYWORD for p in params)


def _import_user_module(name: str) -> Any:
    """Import ``name``; if it is not found, look in the current folder too, as ``python -m`` does.

    The ``guessgym`` console script, unlike ``python -m guessgym``, does not put the current folder
    on ``sys.path``, so ``--agent myagent:MyAgent`` next to ``myagent.py`` would not import.
    """
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        cwd = os.getcwd()
        if exc.name != name.split(".")[0] or cwd in sys.path or "" in sys.path:
            raise
        sys.path.insert(0, cwd)
        try:
            return importlib.import_module(name)
        except ImportError:
            sys.path.remove(cwd)
            raise exc from None


def make_agent(spec: str, **kwargs: Any) -> Agent | TextAgent:
    """Build the agent a spec names (see the module docstring), with its keyword arguments.

    Raises:
        AgentSpecError: unknown name (listing the registered ones), a module or file that cannot
            be loaded, arguments the agent does not accept (listing the ones it does), or a
            factory that returns something other than an Agent.
        ImportError: ``model:`` specs without the ``train`` extra (the message says what to
            install).
    """
    from .pretrained import SPEC_PREFIX as PRETRAINED

    if spec.startswith(PRETRAINED):
        from .pretrained import PretrainedError, load_pretrained, model_card

        name = spec[len(PRETRAINED):]
        try:
            model_card(name)  # an unknown name is reported without torch
            require_extra("train", "pretrained agents (pretrained:NAME)")
            agent: Any = load_pretrained(name, **kwargs)
        except PretrainedError as exc:
            raise AgentSpecError(str(exc)) from None
        except TypeError as exc:
            raise AgentSpecError(f"bad arguments for agent {spec!r}: {exc}; it accepts: deterministic") from None
    elif spec.startswith("llm:"):
        model = spec[len("llm:"):]
        if not model:
            raise AgentSpecError("llm:MODEL needs the model name the server serves, e.g. llm:qwen2.5-7b-instruct")
        require_extra("llm", "language-model agents (llm:MODEL)")
        from .llm import LLMAgent

        try:
            agent = LLMAgent(model, **kwargs)
        except (TypeError, ValueError) as exc:
            raise AgentSpecError(f"bad arguments for agent {spec!r}: {exc}; it accepts: "
                                 f"{', '.join(options_of(LLMAgent)[1:])}") from None
    elif spec.startswith("model:"):
        path = spec[len("model:"):]
        if not Path(path).exists():
            raise AgentSpecError(f"model {path!r} does not exist (a model .zip, checkpoint or run directory)")
        require_extra("train", "learned agents (model:PATH)")
        from .learned import load_agent
        from .model_files import ModelFileError

        try:
            agent = load_agent(path, **kwargs)
        except ModelFileError as exc:  # names the file and why it is refused
            raise AgentSpecError(str(exc)) from None
        except (TypeError, ValueError, OSError) as exc:
            raise AgentSpecError(f"cannot load {path!r}: {exc}") from None
    else:
        if ":" in spec:
            module_name, _, attr = spec.partition(":")
            if not all(part.isidentifier() for part in module_name.split(".")) or not attr.isidentifier():
                raise AgentSpecError(f"module:NAME needs a module path and a name (Python identifiers), got {spec!r} "
                                     "(e.g. myagents:MyAgent)")
            try:
                factory = getattr(_import_user_module(module_name), attr)
            except (ImportError, AttributeError, ValueError, TypeError) as exc:
                raise AgentSpecError(
                    f"cannot import agent {spec!r}: {exc} (a module on the Python path: run from the folder that "
                    "holds it, or add that folder to PYTHONPATH)"
                ) from None
            if not is_agent_factory(factory):
                raise AgentSpecError(
                    f"{spec!r} is not an agent: module:NAME must name an Agent or TextAgent subclass, or a function "
                    "declared with @guessgym.agents.registry.agent_factory (nothing else is called)"
                )
        else:
            factories = registered()
            if spec not in factories:
                missing = "" if providers() else (
                    f" (no {ENTRY_POINT_GROUP!r} entry points: guessgym runs uninstalled; `pip install -e .` "
                    "registers its baselines)")
                raise AgentSpecError(
                    f"unknown agent {spec!r}; known agents: {', '.join(factories) or 'none'}{missing}; "
                    "or pretrained:NAME, model:PATH.zip, or module:Class"
                )
            factory = factories[spec]
        allowed = options_of(factory)
        unknown = sorted(set(kwargs) - set(allowed))
        if unknown and not _takes_any_keyword(factory):
            raise AgentSpecError(
                f"unknown argument(s) {', '.join(unknown)} for agent {spec!r}; "
                f"it accepts: {', '.join(allowed) if allowed else 'none'}"
            )
        try:
            agent = factory(**kwargs)
        except TypeError as exc:
            raise AgentSpecError(
                f"bad arguments for agent {spec!r}: {exc}; it accepts: {', '.join(allowed) if allowed else 'none'}"
            ) from None
        except ValueError as exc:  # a value the agent refuses (its message says what is allowed)
            raise AgentSpecError(f"bad arguments for agent {spec!r}: {exc}") from None
    if not isinstance(agent, (Agent, TextAgent)):
        raise AgentSpecError(f"{spec!r} did not produce a guessgym Agent or TextAgent (got {type(agent).__name__})")
    return agent


__all__ = ["AgentSpecError", "ENTRY_POINT_GROUP", "agent_factory", "describe", "is_agent_factory", "make_agent",
           "options_of", "providers", "register", "registered"]
