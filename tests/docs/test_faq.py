"""The questions page quotes the package's own messages: each is triggered here and must appear
on the page word for word (a reworded error fails until the page follows)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest

import guessgym  # noqa: F401  (registers the ids)
from guessgym.agents.registry import AgentSpecError, make_agent
from guessgym.cli import main

FAQ = (Path(__file__).resolve().parents[2] / "docs" / "faq.md").read_text(encoding="utf-8")
QUOTED = re.findall(r"^\*\*`(.+?)`", FAQ, flags=re.M)


def _quoted(message: str) -> None:
    """``message`` is on the page, as a quoted heading (``...`` in the page stands for a list cut short)."""
    for quote in QUOTED:
        pattern = ".*".join(re.escape(part) for part in quote.split("..."))
        if re.fullmatch(pattern, message):
            return
    raise AssertionError(f"the questions page does not quote {message!r}; it quotes {QUOTED}")


def test_an_action_outside_the_space() -> None:
    env = gym.make("guessgym/Wordle-v1")
    env.reset(seed=0)
    with pytest.raises(ValueError) as raised:
        env.step(1000000)
    _quoted(str(raised.value))


def test_an_unknown_agent() -> None:
    with pytest.raises(AgentSpecError) as raised:
        make_agent("nosuch")
    _quoted(str(raised.value))


def test_a_sample_given_the_wrong_way(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "--agent", "least-worst", "--sample", "5"]) == 2
    said = capsys.readouterr().err.strip().splitlines()[-1]
    _quoted(said.split("error: ", 1)[1].split(" (see ", 1)[0])


def test_a_learned_agent_without_torch() -> None:
    code = ("import sys; sys.modules['torch'] = None\n"  # as if torch were not installed
            "from guessgym.agents.registry import make_agent\n"
            "try:\n    make_agent('pretrained:wordle')\nexcept ImportError as exc:\n    print(exc)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    _quoted(done.stdout.strip())


def test_the_namespace_without_the_import() -> None:
    with pytest.raises(gym.error.NamespaceNotFound) as raised:
        gym.make("nosuchspace/Wordle-v1")
    _quoted(f"NamespaceNotFound: {raised.value}".replace("nosuchspace", "guessgym"))
