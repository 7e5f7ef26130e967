"""Virtual environments for the integrations that cannot share guessgym's test environment.

An integration under ``integrations/<name>/`` pins its framework beside guessgym's core in
``requirements.lock`` (verifiers 0.4 pins ``mcp==2.0.0``, which the openenv extra cannot share;
NeMo Gym needs Python 3.12). :func:`integration_venv` gives the test a virtual environment built
from that lock with the Python it needs; guessgym's core and the integration are taken from this
checkout (on ``PYTHONPATH``, so the environment tests the code as it stands). It is built once, kept in
``$GUESSGYM_VENV_CACHE`` (default ``~/.cache/guessgym/venvs``) under a name that changes with the
lock and the Python, so a changed lock builds a new one; workers of one run wait on a file lock,
and a half-built environment is never used (it is marked ready only once its install ended). A
lock pins every package (a whole ``pip freeze``), so it is installed without resolving and without
compiling every module ahead of use, and ``pip check`` confirms that nothing it needs is missing.
Where the Python is missing the test is skipped, saying which; every install has a time bound.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The longest one environment may take to build (pip downloads on a fresh machine).
BUILD_SECONDS = 900


@dataclass(frozen=True)
class Integration:
    """An integration package: its folder and the Python it needs (``major.minor``)."""

    name: str
    python: str

    @property
    def folder(self) -> Path:
        return ROOT / "integrations" / self.name

    @property
    def lock(self) -> Path:
        return self.folder / "requirements.lock"


INTEGRATIONS = {
    "verifiers": Integration("verifiers", "3.11"),
    "nemo_gym": Integration("nemo_gym", "3.12"),
}


def find_python(version: str) -> str | None:
    """A working Python ``version`` interpreter: this one, pyenv's, or ``pythonX.Y`` on the PATH (a
    pyenv shim there may name a version it cannot run, so each candidate is tried)."""
    if f"{sys.version_info.major}.{sys.version_info.minor}" == version:
        return sys.executable
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates = [str(p / "bin" / f"python{version}") for p in sorted(pyenv.glob(f"{version}.*"), reverse=True)]
    candidates.append(shutil.which(f"python{version}") or "")
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            try:
                tried = subprocess.run([candidate, "-c", "import venv"], capture_output=True, timeout=60)
                works = tried.returncode == 0
            except (OSError, subprocess.TimeoutExpired):
                works = False
            if works:
                return candidate
    return None


def _run(command: list[str], what: str) -> None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=BUILD_SECONDS)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{what} took more than {BUILD_SECONDS} s")
    if done.returncode != 0:
        pytest.fail(f"{what} failed: {(done.stdout + done.stderr)[-3000:]}")


def without_python_paths() -> dict[str, str]:
    """This process's environment without its ``PYTHON*`` and ``VIRTUAL_ENV`` variables: what a
    subprocess of another environment's Python gets, so that none of this one's paths reach it."""
    return {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "VIRTUAL_ENV"))}


def integration_venv(name: str) -> tuple[Path, dict[str, str]]:
    """The ``bin`` folder of integration ``name``'s environment (built from its lock if not cached)
    and the environment variables that run it on this checkout's code: guessgym and the
    integration's package are found on ``PYTHONPATH``, as an editable install would find them,
    so nothing is built or written into the checkout."""
    from filelock import FileLock

    integration = INTEGRATIONS[name]
    python = find_python(integration.python)
    if python is None:
        pytest.skip(f"the {name} integration needs Python {integration.python}, which this machine lacks")
    digest = hashlib.sha256(integration.lock.read_bytes() + integration.python.encode()).hexdigest()[:12]
    cache = Path(os.environ.get("GUESSGYM_VENV_CACHE", Path.home() / ".cache" / "guessgym" / "venvs"))
    target = cache / f"{name}-{digest}"
    cache.mkdir(parents=True, exist_ok=True)
    with FileLock(str(cache / f"{name}.lock"), timeout=BUILD_SECONDS):
        if not (target / "ready").is_file():  # absent, or left half-built: built again where it is used
            shutil.rmtree(target, ignore_errors=True)  # (scripts name their folder: it cannot be moved)
            _run([python, "-m", "venv", str(target)], f"making the {name} environment")
            # The lock is a whole `pip freeze`: no resolving (--no-deps, `pip check` then confirms nothing is
            # missing) and no compiling of every installed module ahead of use (half of the install's time).
            pip = [str(target / "bin" / "python"), "-m", "pip"]
            _run([*pip, "install", "-q", "--disable-pip-version-check", "--no-deps", "--no-compile",
                  "-r", str(integration.lock)], f"installing {integration.lock.relative_to(ROOT)}")
            _run([*pip, "check", "--disable-pip-version-check"],
                 f"checking that {integration.lock.relative_to(ROOT)} pins every requirement")
            (target / "ready").write_text(str(integration.lock.relative_to(ROOT)) + "\n")
    env = without_python_paths()
    env["PATH"] = f"{target / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(integration.folder)])
    return target / "bin", env


__all__ = ["INTEGRATIONS", "integration_venv", "without_python_paths"]
