"""Renamed public names: each old name still imports for a release, warns, and is the new object;
and no module spells a family's name where it could ask the family."""

from __future__ import annotations

import importlib
import re

import pytest

from guessgym.agents import decision_tree
from guessgym.cli import common
from guessgym.envs import families
from guessgym.envs.env import GuessEnv
from guessgym.envs.registration import family_name
from guessgym.evaluation import tree_checks
from tests.package.test_layers import MODULES

OLD_NAMES = [
    ("guessgym.envs.kinds", "GameKind", families.EnvFamily),
    ("guessgym.envs.kinds", "kind_of", families.family_of),
    ("guessgym.envs.kinds", "registered_kinds", families.registered_families),
    ("guessgym.envs.kinds", "GameSetup", families.GameSetup),
    ("guessgym.agents.trees", "DecisionTree", decision_tree.DecisionTree),
    ("guessgym.agents.trees", "TreeAgent", decision_tree.TreeAgent),
    ("guessgym.evaluation.trees", "verify_tree", tree_checks.verify_tree),
    ("guessgym.evaluation.trees", "record_tree", tree_checks.record_tree),
    ("guessgym.cli", "make_agent", common.agent_from_spec),
]


@pytest.mark.parametrize(("module", "name", "new"), OLD_NAMES, ids=[f"{m}.{n}" for m, n, _ in OLD_NAMES])
def test_old_name_imports_with_a_warning(module: str, name: str, new: object) -> None:
    with pytest.warns(DeprecationWarning, match=rf"{re.escape(module)}\.{name} is renamed"):
        old = getattr(importlib.import_module(module), name)
    assert old is new


def test_unknown_names_of_an_old_module_are_attribute_errors() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        importlib.import_module("guessgym.envs.kinds").nothing  # noqa: B018


def test_env_kind_attribute_is_the_family() -> None:
    with pytest.warns(DeprecationWarning, match=r"GuessEnv\.kind is renamed GuessEnv\.family"):
        assert GuessEnv.kind is GuessEnv.family
    assert GuessEnv.family.name == "plain"


def test_old_id_tests_warn_and_answer_as_the_table() -> None:
    from guessgym.envs import registration

    with pytest.warns(DeprecationWarning, match="is_multiboard_id"):
        assert registration.is_multiboard_id("guessgym/Quordle-v0")
    with pytest.warns(DeprecationWarning, match="is_absurdle_id"):
        assert not registration.is_absurdle_id("guessgym/Quordle-v0")


def test_one_table_registers_every_id_with_its_family() -> None:
    from guessgym.envs.registration import REGISTRY

    for env_id, (family, _) in REGISTRY.items():
        assert family_name(env_id) == family
        described = families.family_of(env_id)
        assert described is not None and described.name == family
    assert family_name("CartPole-v1") is None


def test_every_command_needs_asks_the_family() -> None:
    """What each command plays, by family (the table the CLI asks; a change here is a change of behaviour)."""
    plays = {command: sorted(name for name, f in families.registered_families().items() if common.plays(command, f))
             for command in common.COMMAND_NEEDS}
    assert plays == {
        "evaluate": ["absurdle", "chat", "multiboard", "plain"],
        "play": ["plain"], "tree": ["plain"], "solve": ["plain"], "analyze": ["plain"],
        "worst-case": ["absurdle", "plain"], "export-demos": ["chat", "plain"],
    }


SPELLED = re.compile(r"""\.name\s*(==|!=|in|not in)\s*[(\[]?\s*["'](plain|chat|multiboard|absurdle)["']""")


def test_no_module_spells_a_family_name() -> None:
    """Callers ask a family what it does (text_actions, fixed_answer, adversarial), never its name."""
    spelled = [f"{name}:{n}" for name, path in MODULES.items()
               for n, line in enumerate(path.read_text().splitlines(), 1) if SPELLED.search(line)]
    assert spelled == [], spelled


def test_result_text_methods_warn_and_render_as_the_report() -> None:
    from guessgym.evaluation import report
    from guessgym.evaluation.results import EvaluationResult, GameRecord

    result = EvaluationResult("demo", "", None, "x", 6, [GameRecord("aa", 2, True), GameRecord("ab", 6, False)])
    for method, function in [("to_markdown", report.result_markdown), ("gap_text", report.gap_text),
                             ("compact_distribution", report.compact_distribution),
                             ("accounting_line", report.accounting_line)]:
        with pytest.warns(DeprecationWarning, match=rf"EvaluationResult\.{method}\(\) is renamed"):
            assert getattr(result, method)() == function(result)
