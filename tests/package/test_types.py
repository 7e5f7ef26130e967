"""mypy is clean on the library (the configuration is ``[tool.mypy]`` in pyproject.toml).

The checkout is laid out as the package installs (``guessgym/envs`` is a link to ``envs/``...), so
mypy checks ``-p guessgym`` from the repository root as it is, with no staging step. The cache lives
in the checkout's ``.mypy_cache`` so that later runs take seconds.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_mypy_is_clean_on_the_library() -> None:
    pytest.importorskip("mypy", reason="mypy is in the test extra: pip install -e '.[test]'")
    env = {**os.environ, "MYPY_FORCE_COLOR": "0"}
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(ROOT / ".mypy_cache"), "-p", "guessgym"],
        cwd=ROOT, capture_output=True, text=True, env=env, timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout
