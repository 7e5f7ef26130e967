"""What every command of the command line shares: argument types, parsing helpers, checks of
files and ids, output, and the option groups several commands take (:func:`add_env_options`...)."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ..infra.optional import DependencyNotInstalled

if TYPE_CHECKING:
    from ..envs.families import EnvFamily

PROG = "guessgym"

#: The environment of ``evaluate`` when ``--env`` is not given (and the agent is not a shipped model).
DEFAULT_ENV = "guessgym/Wordle-v1"

AGENT_SPEC_HELP = (
    "a baseline name (see 'guessgym list'), pretrained:NAME for a shipped trained agent "
    "(see 'guessgym pretrained'), model:PATH for a trained agent (.zip or run directory), "
    "llm:MODEL for a language model on an OpenAI-compatible server (--base-url), "
    "or module:Class for your own Agent subclass (module: imports and so runs that module's code; only an Agent "
    "subclass or an @agent_factory function is then called)"
)

#: The largest count an option takes (beam widths, samples: well inside a C long).
MAX_COUNT = 2**31 - 1

#: The most worker processes (or Ray CPUs) a command starts: each is a Python process with its
#: own copy of the game (hundreds of MB for Wordle's matrix).
MAX_JOBS = 256


def whole_number(minimum: int, maximum: int = MAX_COUNT) -> Callable[[str], int]:
    """An argparse ``type``: a whole number from ``minimum`` to ``maximum`` (argparse names the
    option in its error)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(f"must be a whole number from {minimum} to {maximum:,}, got {text!r}")
        return value

    return parse


def positive_seconds(text: str) -> float:
    """An argparse ``type``: a number of seconds above 0 and at most a week (a time budget, a timeout)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 7 * 24 * 3600:
        raise argparse.ArgumentTypeError(f"must be a number of seconds above 0 and at most 604,800, got {text!r}")
    return value


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (``PROG CMD: error: ...``) and exit status 2;
    ``--help`` still prints the whole usage."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


class UsageError(Exception):
    """Bad command-line input: reported on one line, exit status 2."""

#: ``key=False`` means what it says on a command line written by a Python user.
PYTHON_CONSTANTS: dict[str, Any] = {"True": True, "False": False, "None": None}


def parse_kwargs(values: Sequence[str] | None, what: str = "kwargs") -> dict[str, Any]:
    """``['{"a": 1}']`` or ``['a=1', 'b=x']`` -> dict; values are JSON when they parse, else text.

    Raises:
        UsageError: naming the malformed item.
    """
    result: dict[str, Any] = {}
    for item in values or []:
        text = item.strip()
        if not text:
            continue
        if text.startswith("{"):
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                raise UsageError(f"--{what}: {text!r} is not valid JSON ({exc.msg} at column {exc.colno})") from None
            if not isinstance(obj, dict):
                raise UsageError(f"--{what}: expected a JSON object, got {text!r}")
            result.update(obj)
            continue
        key, sep, raw = text.partition("=")
        key = key.strip()
        if not sep or not key or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            raise UsageError(f"--{what}: {text!r} is not key=value or a JSON object")
        try:
            result[key] = json.loads(raw)
        except json.JSONDecodeError:
            # Python spellings of the JSON constants (hard_mode=False), else the text itself
            result[key] = PYTHON_CONSTANTS.get(raw.strip(), raw)
    return result


def parse_answers(text: str | None) -> tuple[list[str] | None, int | None]:
    """``--answers`` value -> (explicit answers, sample size): ``all``, ``N``, ``w1,w2`` or
    ``@file`` (one answer per line)."""
    if text is None or text.strip().lower() == "all":
        return None, None
    text = text.strip()
    if text.isdigit():
        n = int(text)
        if n < 1:
            raise UsageError("--answers: a sample size must be at least 1")
        return None, n
    if text.startswith("@"):
        from ..infra.inputs import read_input

        try:
            lines = read_input(text[1:], "--answers file").decode("utf-8").splitlines()
        except (OSError, ValueError) as exc:
            raise UsageError(str(exc)) from None
        words = [w.strip() for w in lines]
        words = [w for w in words if w and not w.startswith("#")]
    else:
        words = [w.strip() for w in text.split(",") if w.strip()]
    if not words:
        raise UsageError("--answers: no answers given")
    return words, None


def agent_from_spec(spec: str, kwargs: dict[str, Any] | None = None) -> Any:
    """Build an agent from a command-line spec (see ``AGENT_SPEC_HELP``) through the agent registry
    (:func:`guessgym.agents.registry.make_agent`), its errors as one-line usage errors.

    Raises:
        UsageError: unknown name (with the list of known ones), bad kwargs, missing file, or a
            missing optional dependency (naming the extra to install).
    """
    from ..agents.registry import AgentSpecError
    from ..agents.registry import make_agent as resolve

    try:
        return resolve(spec, **(kwargs or {}))
    except AgentSpecError as exc:
        raise UsageError(str(exc)) from None
    except ImportError as exc:
        raise UsageError(f"agent {spec!r} is not available: {exc}") from None


def check_env_id(env_id: str) -> None:
    import gymnasium as gym

    from .. import envs  # noqa: F401

    if env_id not in gym.registry:
        known = ", ".join(sorted(k for k in gym.registry if k.startswith("guessgym/")))
        raise UsageError(f"unknown environment {env_id!r}; known: {known}")


#: What each command needs of an id's family (:mod:`guessgym.envs.families`): asked of the family,
#: never its name. The exact solver, trees and move analysis play array actions on one fixed answer;
#: the worst case is also Absurdle's game; demonstrations come from the plain and the chat games.
COMMAND_NEEDS: dict[str, Callable[[EnvFamily], bool]] = {
    "evaluate": lambda family: True,
    "play": lambda family: family.plays_arrays_on_one_answer,
    "tree": lambda family: family.plays_arrays_on_one_answer,
    "solve": lambda family: family.plays_arrays_on_one_answer,
    "analyze": lambda family: family.plays_arrays_on_one_answer,
    "worst-case": lambda family: family.plays_arrays_on_one_answer or family.adversarial,
    "export-demos": lambda family: family.fixed_answer,
}


def plays(command: str, family: EnvFamily | None) -> bool:
    """Whether ``command`` plays the ids of ``family`` (``None``: not a guessgym id)."""
    return family is not None and COMMAND_NEEDS[command](family)


def check_family(command: str, env_id: str) -> EnvFamily:
    """The family of ``env_id`` (:mod:`guessgym.envs.families`), if ``command`` plays it; else a
    one-line refusal naming the families it does."""
    from ..envs.families import family_of, registered_families

    check_env_id(env_id)
    family = family_of(env_id)
    if family is None or not plays(command, family):
        supported = [f.description for f in registered_families().values() if plays(command, f)]
        what = f"one of the {family.description}" if family else "not a guessgym id"
        raise UsageError(f"{command} plays the {' and the '.join(supported)}; {env_id} is {what}")
    return family


def progress_bar(desc: str) -> tuple[Callable[[int, int], None], Callable[[], None]]:
    """A tqdm bar on stderr (silent when stderr is not a terminal)."""
    from tqdm.auto import tqdm

    bar = tqdm(total=None, desc=desc, unit="game", file=sys.stderr, disable=None, dynamic_ncols=True)

    def update(done: int, total: int) -> None:
        if bar.total != total:
            bar.total = total
        bar.update(done - bar.n)

    return update, bar.close


def agent_slug(spec: str) -> str:
    """A file-name part for an agent spec: the baseline name, ``model-<run>``, or the class name."""
    if spec.startswith("model:"):
        path = Path(spec[len("model:"):])
        return "model-" + (path.parent.name if path.stem in ("model", "best_model") and path.parent.name else path.stem)
    return spec.rsplit(":", 1)[-1].rsplit(".", 1)[-1] if ":" in spec else spec


def slug(*parts: str) -> str:
    """A file-name stem from the last ``/`` component of each part (:func:`guessgym.infra.names.file_slug`)."""
    from ..infra.names import file_slug

    return file_slug(*(p.split("/")[-1] for p in parts if p))


def make_env(env_id: str, env_kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """The env of a guessgym id (no env checker) and its game; a bad keyword argument is a one-line
    :class:`UsageError`."""
    import gymnasium as gym

    try:
        env = gym.make(env_id, disable_env_checker=True, **env_kwargs)
    except (ValueError, TypeError, OSError) as exc:
        raise UsageError(str(exc)) from None
    return env, env.unwrapped.game  # type: ignore[attr-defined]  # a guessgym id: the env has a game


def check_output_dir(path: Path, option: str) -> None:
    """Fail before any work is done if ``path`` cannot be (or become) a folder this user can write.

    Raises:
        UsageError: ``path`` (or a parent) is a file, or the nearest existing folder is read-only.
    """
    if path.exists() and not path.is_dir():
        raise UsageError(f"{option} {path}: this is a file; give a folder (it is created if missing)")
    existing = path
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"{option} {path}: {existing} is a file, so the folder cannot be created")
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot write in {existing} ({exc.strerror or exc})") from None


def check_output_file(path: Path, option: str,
                      inputs: dict[str, str | os.PathLike[str] | None] | None = None) -> None:
    """Fail before any work is done unless ``path`` can be written as a file: not a folder, a
    device, a FIFO or a socket, in a folder that exists and can be written (no folder is made for
    a file: ``--out /nonexistent/dir/s.txt`` made ``/nonexistent/dir``), and none of the command's
    ``inputs`` (``{what: path}``: files it reads, its checkpoint), even by another name
    (:func:`~guessgym.infra.inputs.check_not_an_input`)."""
    from ..infra.atomic import check_replaceable
    from ..infra.inputs import InputFileError, check_not_an_input

    try:
        check_replaceable(path)
    except OSError as exc:
        raise UsageError(f"{option} {path}: {exc.strerror}") from None
    try:
        check_not_an_input(path, option, inputs or {})
    except InputFileError as exc:
        raise UsageError(str(exc)) from None
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        what = "is a file" if folder.exists() else "does not exist"
        raise UsageError(f"{option} {path}: the folder {folder} {what}; give a file in an existing folder "
                         "(guessgym makes no folder for a file)")
    check_output_dir(folder, option)


def connect_ray_or_fail(address: str | None, n_jobs: int) -> None:
    """Connect to Ray before any game is played; an unreachable cluster is a one-line error."""
    from ..infra.pool import connect_ray

    try:
        connect_ray(address, n_jobs)
    except ConnectionError as exc:
        raise UsageError(f"--address: {exc}") from None


def save_result(result: Any, out: Path, stem: str) -> str:
    """Write ``stem.json`` and ``stem.png`` into ``out`` and return the line that says so (printed
    by the caller after the table); finished games are never lost to an output error: the JSON
    then goes to the temporary folder and the message says where."""
    path = out / f"{stem}.json"
    try:
        out.mkdir(parents=True, exist_ok=True)
        result.to_json(path)
    except OSError as exc:
        fallback = Path(tempfile.gettempdir()) / f"{stem}.json"
        result.to_json(fallback)
        raise UsageError(f"--out: could not write {path} ({exc.strerror or exc}); "
                         f"the results were saved to {fallback} instead") from None
    from ..evaluation.report import plot_histogram

    try:
        plot_histogram(result, out / f"{stem}.png")
    except DependencyNotInstalled as exc:
        return f"wrote {path} (no histogram: {exc})"
    except OSError as exc:
        return f"wrote {path} (no histogram: {exc.strerror or exc})"
    return f"wrote {path} and {out / (stem + '.png')}"


# ---- option groups several commands take ------------------------------------------------------------


def add_env_options(p: argparse.ArgumentParser, default: str | None = DEFAULT_ENV, env_help: str | None = None,
                    kwargs_help: str = "environment arguments, e.g. hard_mode=True") -> None:
    """``--env ID`` and ``--env-kwargs KV ...``."""
    p.add_argument("--env", default=default, help=env_help or "environment id (default: %(default)s)")
    p.add_argument("--env-kwargs", nargs="+", metavar="KV", help=kwargs_help)


def add_agent_options(p: argparse.ArgumentParser, *, required: bool, agent_help: str = AGENT_SPEC_HELP,
                      kwargs_help: str | None = None) -> None:
    """``--agent SPEC`` and ``--agent-kwargs KV ...``."""
    p.add_argument("--agent", required=required, help=agent_help)
    p.add_argument("--agent-kwargs", nargs="+", metavar="KV", help=kwargs_help)


def add_override_option(p: argparse.ArgumentParser,
                        override_help: str = "override a config field (JSON values; dotted keys for "
                                             "env_kwargs/net_arch), repeatable") -> None:
    """``--set KEY=VALUE`` (repeatable) into ``args.overrides``: a training config's overrides."""
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE", help=override_help)


def add_seed_option(p: argparse.ArgumentParser, seed_help: str | None = None, default: int | None = 0) -> None:
    """``--seed N`` (a whole number that numpy accepts as a seed)."""
    p.add_argument("--seed", type=whole_number(0, 2**63 - 1), default=default, help=seed_help)


__all__ = ["AGENT_SPEC_HELP", "COMMAND_NEEDS", "DEFAULT_ENV", "MAX_JOBS", "PROG", "OneLineParser", "UsageError",
           "add_agent_options", "add_env_options", "add_override_option", "add_seed_option", "agent_from_spec",
           "agent_slug", "check_env_id", "check_family", "check_output_dir", "check_output_file",
           "connect_ray_or_fail", "make_env", "parse_answers", "parse_kwargs", "plays", "positive_seconds",
           "progress_bar", "save_result", "slug", "whole_number"]
