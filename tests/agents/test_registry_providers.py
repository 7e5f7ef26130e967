"""Agents register themselves: the registry imports the modules of the ``guessgym.agents``
entry-point group (guessgym's own, and another installed package's), never a module by name."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from guessgym.agents.registry import ENTRY_POINT_GROUP, providers, registered


def test_guessgym_provides_its_agents_through_its_entry_points() -> None:
    assert {ep.value for ep in providers()} >= {"guessgym.baselines", "guessgym.agents.decision_tree",
                                                 "guessgym.agents.lookahead"}
    assert {"least-worst", "optimal", "tree", "lookahead"} <= set(registered())


def _install(site: Path, name: str, module_source: str) -> None:
    """A package installed the way pip leaves one: a module and its dist-info with entry points."""
    (site / f"{name}.py").write_text(textwrap.dedent(module_source))
    info = site / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{name} = {name}\n")


def _run(site: Path, code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120, env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"})


def test_another_package_registers_an_agent_by_its_entry_point(tmp_path: Path) -> None:
    _install(tmp_path, "thirdparty_agents", """
        from guessgym.agents.base import CandidateAgent
        from guessgym.agents.registry import register

        class FirstCandidate(CandidateAgent):
            name = "first-candidate"

            def choose(self, state):
                return int(state.game.answer_to_guess[int(state.candidates.indices[0])])

        register("first-candidate", FirstCandidate)
    """)
    done = _run(tmp_path, """
        from guessgym.agents.registry import make_agent
        from guessgym.evaluation import evaluate
        from thirdparty_agents import FirstCandidate
        result = evaluate(make_agent("first-candidate"), "guessgym/MicroNerdle-v1")
        direct = evaluate(FirstCandidate(), "guessgym/MicroNerdle-v1")
        print(result.agent, result.n_games, result.records == direct.records)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["first-candidate", "127", "True"]


def test_a_broken_provider_warns_and_leaves_the_others(tmp_path: Path) -> None:
    _install(tmp_path, "broken_agents", "raise ImportError('needs a library that is not installed')\n")
    done = _run(tmp_path, """
        import warnings
        warnings.simplefilter("always")
        from guessgym.agents.registry import registered
        print("least-worst" in registered())
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"
    assert "agent provider 'broken_agents' (broken_agents) failed to load" in done.stderr
    assert "needs a library that is not installed" in done.stderr
