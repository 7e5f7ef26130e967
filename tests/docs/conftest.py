"""The documentation site, built once per test session (offline, warnings as errors).

Under pytest-xdist every worker asks for the site; the first builds it into the folder the workers
share and the others wait for it (a file lock), since a build also writes its generated pages into
``docs/`` and two at once would race.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from filelock import FileLock

ROOT = Path(__file__).resolve().parents[2]


def _build(out: Path) -> Path:
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "-d", str(out / ".doctrees"),
         str(ROOT / "docs"), str(out / "html")],
        capture_output=True, text=True, timeout=900, cwd=ROOT,
    )
    assert done.returncode == 0, f"the site built with warnings:\n{done.stdout[-4000:]}\n{done.stderr[-6000:]}"
    (out / "built").write_text("ok\n")
    return out / "html"


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built HTML site: ``python -m sphinx -W --keep-going -b html docs OUT``, the README's command."""
    for module in ("sphinx", "myst_parser", "furo"):
        pytest.importorskip(module, reason="the docs extra (in the test extra) builds the site")
    if not os.environ.get("PYTEST_XDIST_WORKER"):  # one process: its own folder
        return _build(tmp_path_factory.mktemp("site"))
    shared = tmp_path_factory.getbasetemp().parent / "site"  # this run's workers share their base's parent
    with FileLock(str(shared) + ".lock", timeout=900):
        if (shared / "built").is_file():
            return shared / "html"
        shared.mkdir(exist_ok=True)
        return _build(shared)
