"""NeMo Gym's tests (``test_nemo_gym.py``, skipped here: NeMo Gym needs Python 3.12 and pins that
guessgym's test environment cannot hold) run in an environment of their own, built from
``integrations/nemo_gym/requirements.lock`` and cached (:mod:`integration_venvs`), on this
checkout's code: NeMo Gym's own ``gymnasium_agent`` plays the resources server over HTTP there."""

from __future__ import annotations

import subprocess

import pytest
from integration_venvs import ROOT, integration_venv

pytestmark = pytest.mark.xdist_group("nemo-gym")


def test_the_nemo_gym_resources_server_passes_its_tests_in_its_own_environment() -> None:
    bin_dir, env = integration_venv("nemo_gym")
    done = subprocess.run([str(bin_dir / "python"), "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
                           "tests/adapters/test_nemo_gym.py"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=900)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    assert " passed" in summary and "skipped" not in summary and "failed" not in summary, summary
