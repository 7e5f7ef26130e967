"""NeMo Gym's tests (``test_nemo_gym.py`` and ``test_nemo_gym_launcher.py``, skipped here: NeMo Gym
needs Python 3.12 and pins that guessgym's test environment cannot hold) run in an environment of
their own, built from ``integrations/nemo_gym/requirements.lock`` and cached
(:mod:`integration_venvs`), on this checkout's code: NeMo Gym's own ``gymnasium_agent`` plays the
resources server over HTTP there, and NeMo Gym's own commands launch, play and test the server in its
layout (``integrations/nemo_gym/resources_servers/guessgym``)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from integration_venvs import ROOT, integration_venv

# NeMo Gym's launcher starts a Ray instance: it runs on the worker of every Ray test, where no other
# test's "--address auto" can find it.
pytestmark = pytest.mark.xdist_group("ray-cluster")


def test_the_nemo_gym_resources_server_passes_its_tests_in_its_own_environment() -> None:
    bin_dir, env = integration_venv("nemo_gym")
    done = subprocess.run([str(bin_dir / "python"), "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
                           "tests/adapters/test_nemo_gym.py", "tests/adapters/test_nemo_gym_launcher.py"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    assert " passed" in summary and "skipped" not in summary and "failed" not in summary, summary


def test_the_layouts_example_rows_are_what_this_revision_writes() -> None:
    """``data/example.jsonl`` is written by ``scripts/nemo_gym_example.py``: a change to the chat game's
    opening or to the rows' form shows here until the file is written again."""
    done = subprocess.run([sys.executable, "scripts/nemo_gym_example.py", "--check"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
