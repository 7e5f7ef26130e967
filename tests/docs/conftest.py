"""The documentation site, built once per test session (offline, warnings as errors)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built HTML site: ``python -m sphinx -W --keep-going -b html docs OUT``, the README's command."""
    for module in ("sphinx", "myst_parser", "furo"):
        pytest.importorskip(module, reason="the docs extra (in the test extra) builds the site")
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "-d", str(out / ".doctrees"),
         str(ROOT / "docs"), str(out / "html")],
        capture_output=True, text=True, timeout=900, cwd=ROOT,
    )
    assert done.returncode == 0, f"the site built with warnings:\n{done.stdout[-4000:]}\n{done.stderr[-6000:]}"
    return out / "html"
