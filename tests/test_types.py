"""mypy is clean on the library (the configuration is ``[tool.mypy]`` in pyproject.toml).

mypy cannot follow the import hook of an editable install (which maps ``guessgym.envs`` to the
root folder ``envs/``), so the test lays out the package as the wheel does, with symbolic links
(``guessgym/``, ``guessgym/envs -> envs``...), and checks that. The cache lives in the checkout's
``.mypy_cache`` so that later runs take seconds.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUBPACKAGES = ("envs", "agents", "baselines", "training")


def stage_package(dest: Path) -> Path:
    """``dest/guessgym`` laid out like the installed package, by symbolic links into the checkout."""
    package = dest / "guessgym"
    package.mkdir()
    for entry in (ROOT / "guessgym").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    for name in SUBPACKAGES:
        (package / name).symlink_to(ROOT / name, target_is_directory=True)
    return package


def test_mypy_is_clean_on_the_library(tmp_path: Path) -> None:
    pytest.importorskip("mypy", reason="mypy is in the test extra: pip install -e '.[test]'")
    stage_package(tmp_path)
    env = {**os.environ, "MYPY_FORCE_COLOR": "0"}
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(ROOT / ".mypy_cache"), "-p", "guessgym"],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout
